package dev.vertxrma.impl.win;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.comm.CommImpl;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.impl.runtime.ErrorHandling;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;
import java.util.function.Supplier;

/**
 * The request-based RMA operations of one rank's window (MPI_Rput, MPI_Rget, MPI_Raccumulate,
 * MPI_Rget_accumulate): the window's put, get, accumulate and get-accumulate, allowed only at a
 * target this rank holds a passive-target lock on (RMA_SYNC otherwise), whose future is the
 * request: it completes when the operation is complete at the origin, so MPI_Wait and its
 * variants are the futures' own combinators.
 */
final class RequestOperations {

  private final WinImpl win;
  private final CommImpl comm;
  private final ErrorHandling errors;
  private final Endpoint rp;
  private final WindowState state;
  private final PassiveTargetSync passiveSync;
  private final RankObserver observer;
  private final int id;

  RequestOperations(WinImpl win, CommImpl comm, ErrorHandling errors, Endpoint rp, WindowState state,
      PassiveTargetSync passiveSync, RankObserver observer) {
    this.win = win;
    this.comm = comm;
    this.errors = errors;
    this.rp = rp;
    this.state = state;
    this.passiveSync = passiveSync;
    this.observer = observer;
    this.id = state.id;
  }

  /**
   * Runs request-based operation {@code op} (an RMA operation of the window, whose future is the
   * request) after checking that {@code targetRank} is locked by this rank; a refused request
   * fails its own future, observed as the operation's failure.
   */
  private <T> Future<T> request(int targetRank, String call, Supplier<Future<T>> op) {
    return comm.call(errors, () -> {
      if (targetRank != Comm.PROC_NULL) {
        try {
          state.checkRank(targetRank, call);
          passiveSync.checkHeld(targetRank, call);
        } catch (RmaException e) {
          return observer.failures(id, rp.context().failedFuture(e)); // the operation observes its own failures
        }
      }
      return op.get();
    });
  }

  /** MPI_Rput. */
  Future<Void> rput(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return request(targetRank, "rput", () -> win.put(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType));
  }

  /** MPI_Rget. */
  Future<Void> rget(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return request(targetRank, "rget", () -> win.get(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType));
  }

  /** MPI_Raccumulate. */
  Future<Void> raccumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      int targetRank, long targetDisp, int targetCount, Datatype targetType, Op op) {
    return request(targetRank, "raccumulate", () -> win.accumulate(origin, originOffset, originCount, originType,
        targetRank, targetDisp, targetCount, targetType, op));
  }

  /** MPI_Rget_accumulate. */
  Future<Void> rgetAccumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      Buf result, int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp,
      int targetCount, Datatype targetType, Op op) {
    return request(targetRank, "rgetAccumulate", () -> win.getAccumulate(origin, originOffset, originCount, originType,
        result, resultOffset, resultCount, resultType, targetRank, targetDisp, targetCount, targetType, op));
  }

  /** MPI_Rput_notify. */
  Future<Void> rputNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int index) {
    return request(targetRank, "rputNotify", () -> win.putNotify(origin, originOffset, originCount, originType,
        targetRank, targetDisp, targetCount, targetType, index));
  }

  /** MPI_Rget_notify. */
  Future<Void> rgetNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int index) {
    return request(targetRank, "rgetNotify", () -> win.getNotify(origin, originOffset, originCount, originType,
        targetRank, targetDisp, targetCount, targetType, index));
  }

  /** MPI_Raccumulate_notify. */
  Future<Void> raccumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType,
      int targetRank, long targetDisp, int targetCount, Datatype targetType, Op op, int index) {
    return request(targetRank, "raccumulateNotify", () -> win.accumulateNotify(origin, originOffset, originCount,
        originType, targetRank, targetDisp, targetCount, targetType, op, index));
  }

  /** MPI_Rget_accumulate_notify. */
  Future<Void> rgetAccumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType,
      Buf result, int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp,
      int targetCount, Datatype targetType, Op op, int index) {
    return request(targetRank, "rgetAccumulateNotify", () -> win.getAccumulateNotify(origin, originOffset,
        originCount, originType, result, resultOffset, resultCount, resultType, targetRank, targetDisp, targetCount,
        targetType, op, index));
  }
}
