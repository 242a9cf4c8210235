package dev.vertxrma.rx;

import dev.vertxrma.sync.CountDownLatch;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;

/**
 * RxJava 3 view of a {@link CountDownLatch}: each call a cold {@link Single} or
 * {@link Completable} (made on subscription, once per subscription), failing as its twin documents.
 */
public final class RxCountDownLatch {

  private final CountDownLatch latch;

  private RxCountDownLatch(CountDownLatch latch) {
    RxJava.require();
    this.latch = latch;
  }

  /**
   * Creates a latch ({@link CountDownLatch#create(dev.vertxrma.Comm, int, long)}); collective.
   *
   * @param comm the ranks that share it
   * @param home the rank whose window holds the count
   * @param count how many count-downs open it
   * @return emits the latch once every rank created it; fails with ARG for a negative count
   */
  public static Single<RxCountDownLatch> create(RxComm comm, int home, long count) {
    return Deferred.single(() -> CountDownLatch.create(comm.delegate(), home, count).map(RxCountDownLatch::new));
  }

  /**
   * The underlying latch.
   *
   * @return the wrapped {@link CountDownLatch}
   */
  public CountDownLatch delegate() {
    return latch;
  }

  /**
   * {@link CountDownLatch#countDown()}.
   *
   * @return the count after this decrement
   */
  public Single<Long> countDown() {
    return Deferred.single(latch::countDown);
  }

  /**
   * {@link CountDownLatch#await()}.
   *
   * @return completes once the count is zero
   */
  public Completable await() {
    return Deferred.completable(latch::await);
  }

  /**
   * {@link CountDownLatch#free()}; collective.
   *
   * @return completes once every rank freed it
   */
  public Completable free() {
    return Deferred.completable(latch::free);
  }
}
