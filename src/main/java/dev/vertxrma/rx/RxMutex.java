package dev.vertxrma.rx;

import dev.vertxrma.sync.Grant;
import dev.vertxrma.sync.Mutex;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Single;

/**
 * RxJava 3 view of a {@link Mutex}: each call a cold {@link Single}, {@link Maybe} or
 * {@link Completable} (made on subscription, once per subscription), failing as its
 * {@link Mutex} twin documents. Rx's own {@code timeout} operator would only stop waiting; use
 * {@link #lock(long)} to withdraw the request.
 */
public final class RxMutex {

  private final Mutex mutex;

  private RxMutex(Mutex mutex) {
    RxJava.require();
    this.mutex = mutex;
  }

  /**
   * Creates a mutex at rank 0 ({@link Mutex#create(dev.vertxrma.Comm)}); collective.
   *
   * @param comm the ranks that share it
   * @return emits the mutex once every rank created it
   */
  public static Single<RxMutex> create(RxComm comm) {
    return create(comm, 0);
  }

  /**
   * Creates a mutex ({@link Mutex#create(dev.vertxrma.Comm, int)}); collective.
   *
   * @param comm the ranks that share it
   * @param home the rank whose window holds the queue's tail
   * @return emits the mutex once every rank created it; fails with RANK for a home outside {@code comm}
   */
  public static Single<RxMutex> create(RxComm comm, int home) {
    return Deferred.single(() -> Mutex.create(comm.delegate(), home).map(RxMutex::new));
  }

  /**
   * The RxJava view of an existing mutex.
   *
   * @param mutex the mutex to wrap
   * @return a view whose calls go to {@code mutex}
   */
  public static RxMutex of(Mutex mutex) {
    return new RxMutex(mutex);
  }

  /**
   * The underlying mutex.
   *
   * @return the wrapped {@link Mutex}
   */
  public Mutex delegate() {
    return mutex;
  }

  /**
   * {@link Mutex#lock()}.
   *
   * @return the grant, once this rank holds the mutex
   */
  public Single<Grant> lock() {
    return Deferred.single(mutex::lock);
  }

  /**
   * {@link Mutex#lock(long)}: fails with TIMEOUT, the request withdrawn, when not granted in time.
   *
   * @param timeoutMs how long to wait, in milliseconds ({@code 0}: for ever)
   * @return the grant
   */
  public Single<Grant> lock(long timeoutMs) {
    return Deferred.single(() -> mutex.lock(timeoutMs));
  }

  /**
   * {@link Mutex#tryLock()}.
   *
   * @return the grant, or empty when the mutex was not free
   */
  public Maybe<Grant> tryLock() {
    return Deferred.single(mutex::tryLock).flatMapMaybe(o -> o.map(Maybe::just).orElseGet(Maybe::empty));
  }

  /**
   * {@link Mutex#unlock()}: fails with RMA_SYNC when this rank does not hold the mutex.
   *
   * @return completes once the hand-over is issued
   */
  public Completable unlock() {
    return Deferred.completable(mutex::unlock);
  }

  /**
   * {@link Mutex#free()}; collective.
   *
   * @return completes once every rank freed it
   */
  public Completable free() {
    return Deferred.completable(mutex::free);
  }
}
