package dev.vertxrma.rx;

import dev.vertxrma.Datatype;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;

/**
 * RxJava 3 view of a {@link Win}: every RMA and synchronization call as a cold
 * {@link Completable} or {@link Single} (the call is made on subscription). See {@link Win} for
 * each call's completion semantics and errors. Request-based operations compose with
 * {@code Completable.merge} (MPI_Waitall) and {@code Completable.amb} (MPI_Waitany).
 */
public final class RxWin {

  private final Win win;

  private RxWin(Win win) {
    this.win = win;
  }

  /** The RxJava view of {@code win}. */
  public static RxWin of(Win win) {
    return new RxWin(win);
  }

  /** MPI_Win_allocate ({@link Win#allocate}). */
  public static Single<RxWin> allocate(RxComm comm, long size, int dispUnit, Info info) {
    return Deferred.single(() -> Win.allocate(comm.delegate(), size, dispUnit, info).map(RxWin::new));
  }

  /** The underlying window. */
  public Win delegate() {
    return win;
  }

  /** MPI_Put. */
  public Completable put(Object origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return Deferred.completable(() -> win.put(origin, originOffset, count, type, targetRank, targetDisp));
  }

  /** MPI_Get. */
  public Completable get(Object origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return Deferred.completable(() -> win.get(origin, originOffset, count, type, targetRank, targetDisp));
  }

  /** MPI_Accumulate. */
  public Completable accumulate(Object origin, int originOffset, int count, Datatype type, int targetRank,
      long targetDisp, Op op) {
    return Deferred.completable(() -> win.accumulate(origin, originOffset, count, type, targetRank, targetDisp, op));
  }

  /** MPI_Fetch_and_op on one long: the previous target value. */
  public Single<Long> fetchAndOp(long value, int targetRank, long targetDisp, Op op) {
    return Deferred.single(() -> win.fetchAndOp(value, targetRank, targetDisp, op));
  }

  /** MPI_Compare_and_swap on one long: the previous target value. */
  public Single<Long> compareAndSwap(long compare, long value, int targetRank, long targetDisp) {
    return Deferred.single(() -> win.compareAndSwap(compare, value, targetRank, targetDisp));
  }

  /** MPI_Rput. */
  public Completable rput(Object origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return Deferred.completable(() -> win.rput(origin, originOffset, count, type, targetRank, targetDisp));
  }

  /** MPI_Rget. */
  public Completable rget(Object origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return Deferred.completable(() -> win.rget(origin, originOffset, count, type, targetRank, targetDisp));
  }

  /** MPI_Win_fence. */
  public Completable fence(Mode... assertions) {
    return Deferred.completable(() -> win.fence(assertions));
  }

  /** MPI_Win_post. */
  public Completable post(Group group, Mode... assertions) {
    return Deferred.completable(() -> win.post(group, assertions));
  }

  /** MPI_Win_start. */
  public Completable start(Group group, Mode... assertions) {
    return Deferred.completable(() -> win.start(group, assertions));
  }

  /** MPI_Win_complete. */
  public Completable complete() {
    return Deferred.completable(win::complete);
  }

  /** MPI_Win_wait. */
  public Completable waitFor() {
    return Deferred.completable(win::waitFor);
  }

  /** MPI_Win_test. */
  public Single<Boolean> test() {
    return Deferred.single(win::test);
  }

  /** MPI_Win_lock. */
  public Completable lock(LockType type, int rank, Mode... assertions) {
    return Deferred.completable(() -> win.lock(type, rank, assertions));
  }

  /** MPI_Win_unlock. */
  public Completable unlock(int rank) {
    return Deferred.completable(() -> win.unlock(rank));
  }

  /** MPI_Win_lock_all. */
  public Completable lockAll(Mode... assertions) {
    return Deferred.completable(() -> win.lockAll(assertions));
  }

  /** MPI_Win_unlock_all. */
  public Completable unlockAll() {
    return Deferred.completable(win::unlockAll);
  }

  /** MPI_Win_flush. */
  public Completable flush(int rank) {
    return Deferred.completable(() -> win.flush(rank));
  }

  /** MPI_Win_flush_all. */
  public Completable flushAll() {
    return Deferred.completable(win::flushAll);
  }

  /** MPI_Win_sync. */
  public Completable sync() {
    return Deferred.completable(win::sync);
  }

  /** MPI_Win_free. */
  public Completable free() {
    return Deferred.completable(win::free);
  }
}
