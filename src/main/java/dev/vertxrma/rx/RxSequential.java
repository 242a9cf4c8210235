package dev.vertxrma.rx;

import dev.vertxrma.sync.Sequential;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;

/**
 * RxJava 3 view of {@link Sequential} turns: each call a cold {@link Completable} (made on
 * subscription, once per subscription), failing as its {@link Sequential} twin documents.
 */
public final class RxSequential {

  private final Sequential turns;

  private RxSequential(Sequential turns) {
    RxJava.require();
    this.turns = turns;
  }

  /**
   * Creates the turns ({@link Sequential#create(dev.vertxrma.Comm)}); collective.
   *
   * @param comm the ranks that take turns
   * @return emits them once every rank created them
   */
  public static Single<RxSequential> create(RxComm comm) {
    return Deferred.single(() -> Sequential.create(comm.delegate()).map(RxSequential::new));
  }

  /**
   * The underlying turns.
   *
   * @return the wrapped {@link Sequential}
   */
  public Sequential delegate() {
    return turns;
  }

  /**
   * {@link Sequential#begin()}.
   *
   * @return completes when this rank's turn has come
   */
  public Completable begin() {
    return Deferred.completable(turns::begin);
  }

  /**
   * {@link Sequential#end()}.
   *
   * @return completes once the turn is passed on
   */
  public Completable end() {
    return Deferred.completable(turns::end);
  }

  /**
   * {@link Sequential#free()}; collective.
   *
   * @return completes once every rank freed them
   */
  public Completable free() {
    return Deferred.completable(turns::free);
  }
}
