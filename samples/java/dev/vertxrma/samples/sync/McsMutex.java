// An MCS queue lock: not one of the standard's numbered examples, but a utility built on the same
// RMA atomics as the MPI texts' distributed locking examples (MPI-5.0 section 13.8: the critical
// region with compare-and-swap, the counting semaphore, and the linked list of
// ../shared/seeds/001, which append to a shared tail the same way). The lock is the
// Mellor-Crummey/Scott queue lock as usually written with MPI-3 RMA:
//
//     window (ints) at every rank: next, locked;  at rank 0 also: tail (-1 = free)
//     MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
//   acquire:
//     next[me] = -1                        (MPI_Accumulate REPLACE to myself; MPI_Win_flush)
//     pred = Fetch_and_op(REPLACE, me, tail@0); MPI_Win_flush(0)
//     if (pred != -1) {
//       locked[me] = 1                     (Accumulate REPLACE to myself; flush)
//       next[pred] = me                    (Accumulate REPLACE; flush(pred))
//       do { Get_accumulate(NO_OP, locked[me]); flush(me) } while (locked == 1)
//     }
//   release:
//     Get_accumulate(NO_OP, next[me]); flush(me)
//     if (next == -1) {
//       old = Compare_and_swap(tail@0, compare me, swap -1); flush(0)
//       if (old == me) return            (nobody was waiting)
//       do { Get_accumulate(NO_OP, next[me]); flush(me) } while (next == -1)
//     }
//     locked[next] = 0                     (Accumulate REPLACE; flush(next))
//
// Each spin is a Spin.until loop (issue the op, flush, test, issue again), so every poll is a new
// task of the event loop and the other ranks progress. Each rank enters the critical section
// R times and increments a shared counter at rank 0 NON-atomically (get, flush, put value+1,
// flush): only mutual exclusion keeps updates from being lost, so the final counter must be np*R.
// An "inside" count at rank 0 (fetch-and-op +1 on entry, -1 on exit) also catches two holders at
// once directly, and at the end the tail must be free (-1) again.
//
// Usage: rmarun -np N mcs-mutex [R]     (critical sections per rank, default 30; any N >= 1)
package dev.vertxrma.samples.sync;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.samples.Spin;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/** An MCS queue lock over passive-target RMA atomics, guarding a non-atomic counter at rank 0. */
public final class McsMutex extends RankVerticle {

  private static final int DEFAULT_ROUNDS = 30;
  /** Window layout, in ints (displacement unit 4). At every rank: */
  private static final int NEXT = 0;
  private static final int LOCKED = 1;
  /** At rank 0 only (the other ranks have the slots but do not use them): */
  private static final int TAIL = 2;
  private static final int COUNTER = 3;
  private static final int INSIDE = 4;
  private static final int WINDOW_INTS = 5;
  private static final int NIL = -1;

  /** Checks that failed on this rank. */
  private final List<String> failures = new ArrayList<>();
  private Win win;
  private int me;
  /** Acquisitions that found a predecessor in the queue, and polls of a flag, on this rank. */
  private long queued;
  private long polls;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    int rounds;
    try {
      rounds = args.isEmpty() ? DEFAULT_ROUNDS : Integer.parseInt(args.get(0));
    } catch (NumberFormatException e) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "mcs-mutex: R must be an integer, got '%s'",
          args.get(0)));
    }
    int np = world.size();
    if (args.size() > 1 || rounds < 0 || (long) rounds * np > Integer.MAX_VALUE) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "mcs-mutex: usage mcs-mutex [R] with R >= 0 and R*np fitting an int; got %s with np=%d", args, np));
    }
    me = world.rank();
    int[] finalState = new int[WINDOW_INTS];
    long[] stats = new long[2];
    return Win.allocate(world, WINDOW_INTS * Integer.BYTES, Integer.BYTES, Info.NULL).compose(w -> {
      win = w;
      // initial state by local stores before anyone accesses the window (the barrier orders them)
      win.memory().writeInt(NEXT * 4L, NIL);
      win.memory().writeInt(LOCKED * 4L, 0);
      win.memory().writeInt(TAIL * 4L, NIL);
      win.memory().writeInt(COUNTER * 4L, 0);
      win.memory().writeInt(INSIDE * 4L, 0);
      return world.barrier()
          .compose(v -> win.lockAll(Mode.NOCHECK))
          .compose(v -> Spin.times(rounds, i -> acquire().compose(x -> criticalSection(i)).compose(x -> release())))
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier()) // every critical section is complete at rank 0
          .compose(v -> me == 0 ? readState(finalState) : Future.succeededFuture())
          .compose(v -> world.allreduce(Buf.of(new long[] {queued, polls}), 0, Buf.of(stats), 0, 2, Datatype.LONG, Op.SUM))
          .compose(v -> {
            if (me == 0) {
              checkFinal(finalState, np, rounds);
            }
            return win.free();
          });
    })
        .compose(v -> world.allreduce((long) failures.size(), Op.SUM))
        .compose(bad -> {
          if (bad == 0) {
            if (me == 0) {
              System.out.printf("mcs-mutex: verified %d ranks x %d critical sections: non-atomic counter = %d, never "
                  + "two holders, tail free at the end (%d acquisitions queued behind a predecessor, %d flag polls)%n",
                  np, rounds, finalState[COUNTER], stats[0], stats[1]);
            }
            return Future.succeededFuture();
          }
          return Future.failedFuture(new RmaException(ErrorClass.OTHER, failures.isEmpty()
              ? "mcs-mutex: " + bad + " check(s) failed on other ranks"
              : "mcs-mutex: rank " + me + ": " + failures.size() + " check(s) failed, first: " + failures.get(0)));
        });
  }

  // ------------------------------------------------------------------ the lock

  private Future<Void> acquire() {
    int[] pred = new int[1];
    return replace(me, NEXT, NIL)
        .compose(v -> win.fetchAndOp(Buf.of(new int[] {me}), 0, Buf.of(pred), 0, Datatype.INT, 0, TAIL, Op.REPLACE))
        .compose(v -> win.flush(0))
        .compose(v -> {
          if (pred[0] == NIL) {
            return Future.succeededFuture(); // the lock was free
          }
          if (pred[0] < 0 || pred[0] >= win.comm().size() || pred[0] == me) {
            return Future.failedFuture(RmaException.of(ErrorClass.OTHER,
                "mcs-mutex: rank %d swapped itself into the tail and got predecessor %d", me, pred[0]));
          }
          queued++;
          return replace(me, LOCKED, 1)
              .compose(x -> replace(pred[0], NEXT, me))
              .compose(x -> poll(me, LOCKED, locked -> locked == 0))
              .mapEmpty();
        });
  }

  private Future<Void> release() {
    int[] next = new int[1];
    return fetch(me, NEXT, next)
        .compose(v -> {
          if (next[0] != NIL) {
            return Future.succeededFuture(next[0]);
          }
          int[] old = new int[1];
          return win.compareAndSwap(Buf.of(new int[] {NIL}), 0, Buf.of(new int[] {me}), 0, Buf.of(old), 0, Datatype.INT, 0, TAIL)
              .compose(x -> win.flush(0))
              .compose(x -> {
                if (old[0] == me) {
                  return Future.succeededFuture(NIL); // nobody queued: the lock is free
                }
                // a successor swapped itself into the tail but has not linked itself to us yet
                return poll(me, NEXT, n -> n != NIL);
              });
        })
        .compose(succ -> succ == NIL ? Future.succeededFuture() : replace(succ, LOCKED, 0));
  }

  /** The critical section: a non-atomic increment of the counter at rank 0, with an occupancy check. */
  private Future<Void> criticalSection(int round) {
    int[] value = new int[1];
    return win.fetchAndOp(Buf.of(new int[] {1}), 0, Buf.of(value), 0, Datatype.INT, 0, INSIDE, Op.SUM)
        .compose(v -> win.flush(0))
        .compose(v -> {
          if (value[0] != 0) {
            failures.add(String.format("rank %d entered critical section %d while %d other holder(s) were inside", me,
                round, value[0]));
          }
          return win.get(Buf.of(value), 0, 1, Datatype.INT, 0, COUNTER);
        })
        .compose(v -> win.flush(0))
        .compose(v -> win.put(Buf.of(new int[] {value[0] + 1}), 0, 1, Datatype.INT, 0, COUNTER))
        .compose(v -> win.flush(0))
        .compose(v -> win.fetchAndOp(Buf.of(new int[] {-1}), 0, Buf.of(value), 0, Datatype.INT, 0, INSIDE, Op.SUM))
        .compose(v -> win.flush(0))
        .map(v -> {
          if (value[0] != 1) {
            failures.add(String.format("rank %d left critical section %d with %d holder(s) inside (itself included)",
                me, round, value[0]));
          }
          return null;
        });
  }

  // ------------------------------------------------------------------ RMA helpers

  /** target[disp] = value, atomically (accumulate REPLACE), complete at the target. */
  private Future<Void> replace(int target, int disp, int value) {
    return win.accumulate(Buf.of(new int[] {value}), 0, 1, Datatype.INT, target, disp, Op.REPLACE)
        .compose(v -> win.flush(target));
  }

  /** out[0] = target[disp], atomically (get-accumulate NO_OP). */
  private Future<Void> fetch(int target, int disp, int[] out) {
    return win.getAccumulate(null, 0, 0, Datatype.INT, Buf.of(out), 0, 1, Datatype.INT, target, disp, 1, Datatype.INT,
        Op.NO_OP).compose(v -> win.flush(target));
  }

  /**
   * Spins on target[disp] until {@code done} holds: fetch, flush, test, fetch again (a
   * {@link Spin#until} loop); completes with the value that ended the wait.
   */
  private Future<Integer> poll(int target, int disp, IntPredicate done) {
    int[] v = new int[1];
    return Spin.until(() -> {
      polls++;
      return fetch(target, disp, v).map(x -> done.test(v[0]));
    }).map(x -> v[0]);
  }

  /** Rank 0 reads its window with a get under a lock of its own. */
  private Future<Void> readState(int[] out) {
    return win.lock(LockType.SHARED, 0)
        .compose(v -> win.get(Buf.of(out), 0, WINDOW_INTS, Datatype.INT, 0, 0))
        .compose(v -> win.unlock(0));
  }

  private void checkFinal(int[] state, int np, int rounds) {
    if (state[COUNTER] != np * rounds) {
      failures.add(String.format("the non-atomically incremented counter is %d, expected np*R = %d*%d = %d: %d "
          + "update(s) lost, mutual exclusion failed", state[COUNTER], np, rounds, np * rounds,
          np * rounds - state[COUNTER]));
    }
    if (state[TAIL] != NIL) {
      failures.add(String.format("the lock's tail is %d at the end, expected %d (free)", state[TAIL], NIL));
    }
    if (state[INSIDE] != 0) {
      failures.add(String.format("%d holder(s) still inside the critical section at the end", state[INSIDE]));
    }
  }
}
