package dev.vertxrma.rx;

import dev.vertxrma.sync.Semaphore;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;

/**
 * RxJava 3 view of a {@link Semaphore}: each call a cold {@link Single} or {@link Completable}
 * (made on subscription, once per subscription), failing as its {@link Semaphore} twin documents.
 */
public final class RxSemaphore {

  private final Semaphore semaphore;

  private RxSemaphore(Semaphore semaphore) {
    RxJava.require();
    this.semaphore = semaphore;
  }

  /**
   * Creates a semaphore ({@link Semaphore#create(dev.vertxrma.Comm, int, long)}); collective.
   *
   * @param comm the ranks that share it
   * @param home the rank whose window holds the permit count
   * @param permits the permits it starts with
   * @return emits the semaphore once every rank created it; fails with ARG for negative permits
   */
  public static Single<RxSemaphore> create(RxComm comm, int home, long permits) {
    return Deferred.single(() -> Semaphore.create(comm.delegate(), home, permits).map(RxSemaphore::new));
  }

  /**
   * The underlying semaphore.
   *
   * @return the wrapped {@link Semaphore}
   */
  public Semaphore delegate() {
    return semaphore;
  }

  /**
   * {@link Semaphore#acquire()}.
   *
   * @return completes once this rank holds a permit
   */
  public Completable acquire() {
    return Deferred.completable(semaphore::acquire);
  }

  /**
   * {@link Semaphore#tryAcquire()}.
   *
   * @return whether a permit was taken
   */
  public Single<Boolean> tryAcquire() {
    return Deferred.single(semaphore::tryAcquire);
  }

  /**
   * {@link Semaphore#release()}.
   *
   * @return completes once the permit is back
   */
  public Completable release() {
    return Deferred.completable(semaphore::release);
  }

  /**
   * {@link Semaphore#free()}; collective.
   *
   * @return completes once every rank freed it
   */
  public Completable free() {
    return Deferred.completable(semaphore::free);
  }
}
