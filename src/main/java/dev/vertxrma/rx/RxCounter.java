package dev.vertxrma.rx;

import dev.vertxrma.sync.Counter;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;

/**
 * RxJava 3 view of a {@link Counter}: each call a cold {@link Single} or {@link Completable}
 * (made on subscription, once per subscription), failing as its {@link Counter} twin documents.
 */
public final class RxCounter {

  private final Counter counter;

  private RxCounter(Counter counter) {
    RxJava.require();
    this.counter = counter;
  }

  /**
   * Creates a counter at rank 0 starting at 0 ({@link Counter#create(dev.vertxrma.Comm)}); collective.
   *
   * @param comm the ranks that share it
   * @return emits the counter once every rank created it
   */
  public static Single<RxCounter> create(RxComm comm) {
    return create(comm, 0, 0);
  }

  /**
   * Creates a counter ({@link Counter#create(dev.vertxrma.Comm, int, long)}); collective.
   *
   * @param comm the ranks that share it
   * @param home the rank whose window holds the value
   * @param initial the value before any call
   * @return emits the counter once every rank created it; fails with RANK for a home outside {@code comm}
   */
  public static Single<RxCounter> create(RxComm comm, int home, long initial) {
    return Deferred.single(() -> Counter.create(comm.delegate(), home, initial).map(RxCounter::new));
  }

  /**
   * The RxJava view of an existing counter.
   *
   * @param counter the counter to wrap
   * @return a view whose calls go to {@code counter}
   */
  public static RxCounter of(Counter counter) {
    return new RxCounter(counter);
  }

  /**
   * The underlying counter.
   *
   * @return the wrapped {@link Counter}
   */
  public Counter delegate() {
    return counter;
  }

  /**
   * {@link Counter#next()}: adds 1.
   *
   * @return the value before
   */
  public Single<Long> next() {
    return Deferred.single(counter::next);
  }

  /**
   * {@link Counter#add(long)}.
   *
   * @param delta what to add
   * @return the value before
   */
  public Single<Long> add(long delta) {
    return Deferred.single(() -> counter.add(delta));
  }

  /**
   * {@link Counter#get()}.
   *
   * @return the value
   */
  public Single<Long> get() {
    return Deferred.single(counter::get);
  }

  /**
   * {@link Counter#compareAndSet(long, long)}.
   *
   * @param expected the value the counter must hold
   * @param value the new value
   * @return whether it was set
   */
  public Single<Boolean> compareAndSet(long expected, long value) {
    return Deferred.single(() -> counter.compareAndSet(expected, value));
  }

  /**
   * {@link Counter#free()}; collective.
   *
   * @return completes once every rank freed it
   */
  public Completable free() {
    return Deferred.completable(counter::free);
  }
}
