// Follows the MPI standard, one-sided chapter, section "Examples": "The following example
// implements a naive, nonscalable counting semaphore. The example demonstrates the use of
// MPI_WIN_SYNC to manipulate the public copy of X, as well as MPI_WIN_FLUSH to complete operations
// without closing the access epoch opened with MPI_WIN_LOCK_ALL. To avoid the rules regarding
// synchronization of the public and private copies of windows, MPI_ACCUMULATE and
// MPI_GET_ACCUMULATE are used to write to or read from the local public copy." The figure:
//
//     Process A                          Process B...
//     MPI_Win_lock_all                   MPI_Win_lock_all
//     window location X
//     X = MPI_Comm_size()
//     MPI_Win_sync
//     MPI_Barrier                        MPI_Barrier
//     MPI_Accumulate(X, MPI_SUM, -1)     MPI_Accumulate(X, MPI_SUM, -1)
//     stack variable z                   stack variable z
//     do                                 do
//       z = MPI_Get_accumulate(X,          z = MPI_Get_accumulate(X,
//             MPI_NO_OP, 0)                      MPI_NO_OP, 0)
//       MPI_Win_flush(A)                   MPI_Win_flush(A)
//     while (z != 0)                     while (z != 0)
//     MPI_Win_unlock_all                 MPI_Win_unlock_all
//
// Process A is rank 0. The program runs that figure as written (phase 1: every rank takes one
// unit of X = size and waits until all units are taken), then uses the same calls for a K-permit
// counting semaphore S, also at rank 0 and also initialized by a local store + MPI_Win_sync
// (phase 2):
//
//     acquire:  old = MPI_Get_accumulate(S, MPI_SUM, -1); MPI_Win_flush(A)
//               if old <= 0: MPI_Accumulate(S, MPI_SUM, +1); MPI_Win_flush(A); retry
//     release:  MPI_Accumulate(S, MPI_SUM, +1); MPI_Win_flush(A)
//
// Every rank passes the semaphore R times. The checks: an occupancy counter at rank 0 is
// incremented by fetch-and-op on entry (old value + 1 is the occupancy this rank observed, it must
// never exceed K) and decremented on exit; while a rank holds a permit S must be at most K-1; at
// the end S is back to K, the occupancy counter is 0, X is 0 and the total number of entries
// (counted both by an atomic counter at rank 0 and by an allreduce) is size*R.
//
// The spin loops are futures (Spin: one event-loop task per iteration), never busy waits, so
// every rank's event loop stays free to serve the others' passive-target operations.
//
// Usage: rmarun -np N semaphore [K [R]]     (K permits, default 2; R entries per rank, default 20)
package dev.vertxrma.samples.sync;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.samples.RankChecks;
import dev.vertxrma.samples.Spin;
import io.vertx.core.Future;
import java.util.List;

/** The naive counting semaphore of the MPI standard's one-sided examples, with K permits. */
public final class Semaphore extends RankVerticle {

  private static final int DEFAULT_PERMITS = 2;
  private static final int DEFAULT_ROUNDS = 20;
  /** Rank that holds every shared location (the figure's process A). */
  private static final int A = 0;
  /** Window slots at rank A, in longs (displacement unit 8). */
  private static final long X = 0; // the figure's countdown, initialized to size
  private static final long S = 1; // the K-permit semaphore
  private static final long INSIDE = 2; // how many ranks are between acquire and release
  private static final long ENTRIES = 3; // total entries, counted atomically
  private static final int SLOTS = 4;

  private RankChecks checks;
  private Comm world;
  private Win win;
  private int rank;
  private int permits;
  private int rounds;
  private long maxOccupancy;
  private long entries;
  private long retries;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    this.world = world;
    this.rank = world.rank();
    this.checks = new RankChecks(rank);
    try {
      permits = args.size() > 0 ? Integer.parseInt(args.get(0)) : DEFAULT_PERMITS;
      rounds = args.size() > 1 ? Integer.parseInt(args.get(1)) : DEFAULT_ROUNDS;
    } catch (NumberFormatException e) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "semaphore: arguments are [K [R]] (integers), got %s",
          args));
    }
    if (args.size() > 2 || permits < 1 || rounds < 0) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "semaphore: usage semaphore [K [R]] with K >= 1 permits and R >= 0 entries per rank; got %s", args));
    }
    // only rank A exposes memory: the other ranks' windows are empty
    long size = rank == A ? SLOTS * 8L : 0;
    return Win.allocate(world, size, 8, Info.NULL)
        .compose(w -> {
          win = w;
          return win.lockAll();
        })
        .compose(v -> {
          if (rank != A) {
            return Future.succeededFuture();
          }
          // X = MPI_Comm_size(); S = K: local stores into the private copy, then MPI_Win_sync
          win.memory().writeLong(X * 8, world.size());
          win.memory().writeLong(S * 8, permits);
          return win.sync();
        })
        .compose(v -> world.barrier())
        .compose(v -> countdown())
        .compose(v -> Spin.times(rounds, i -> passSemaphore()))
        .compose(v -> world.barrier()) // every rank's last release is flushed
        .compose(v -> rank == A ? checkFinalState() : Future.succeededFuture())
        .compose(v -> win.unlockAll())
        .compose(v -> win.free())
        .compose(v -> report());
  }

  // ------------------------------------------------------------------ phase 1: the figure as written

  /** MPI_Accumulate(X, MPI_SUM, -1), then get-accumulate(NO_OP) + flush until X is 0. */
  private Future<Void> countdown() {
    long[] minusOne = {-1};
    return win.accumulate(Buf.of(minusOne), 0, 1, Datatype.LONG, A, X, Op.SUM)
        .compose(v -> Spin.until(() -> {
          long[] z = new long[1];
          return win.getAccumulate(null, 0, 1, Datatype.LONG, Buf.of(z), 0, 1, Datatype.LONG, A, X, 1, Datatype.LONG,
              Op.NO_OP)
              .compose(x -> win.flush(A))
              .map(x -> {
                if (z[0] < 0 || z[0] >= world.size()) {
                  checks.fail("countdown: X = %d after this rank's decrement; it must stay in [0, %d)", z[0],
                      world.size());
                  return true; // X went wrong: stop spinning, the failure is reported at the end
                }
                return z[0] == 0;
              });
        }));
  }

  // ------------------------------------------------------------------ phase 2: K permits

  /** One pass: acquire, enter (occupancy checks), leave, release. */
  private Future<Void> passSemaphore() {
    return acquire().compose(v -> enter()).compose(v -> leave()).compose(v -> release());
  }

  /** Takes one unit of S with a fetching SUM -1; if there was none, gives it back and retries. */
  private Future<Void> acquire() {
    return Spin.until(() -> {
      long[] minusOne = {-1};
      long[] old = new long[1];
      return win.getAccumulate(Buf.of(minusOne), 0, 1, Datatype.LONG, Buf.of(old), 0, 1, Datatype.LONG, A, S, 1, Datatype.LONG,
          Op.SUM)
          .compose(v -> win.flush(A))
          .compose(v -> {
            if (old[0] > permits) {
              checks.fail("acquire: semaphore S = %d before this rank's decrement, more than K = %d", old[0], permits);
            }
            if (old[0] > 0) {
              return Future.succeededFuture(true); // got a permit
            }
            retries++;
            long[] plusOne = {1};
            return win.accumulate(Buf.of(plusOne), 0, 1, Datatype.LONG, A, S, Op.SUM)
                .compose(x -> win.flush(A))
                .map(x -> false);
          });
    });
  }

  /** Counts this rank in: the occupancy it observes must be at most K; S must be at most K-1. */
  private Future<Void> enter() {
    entries++;
    long[] one = {1};
    return win.fetchAndOp(1, A, INSIDE, Op.SUM)
        .compose(old -> {
          long occupancy = old + 1;
          maxOccupancy = Math.max(maxOccupancy, occupancy);
          if (occupancy > permits) {
            checks.fail("enter: %d ranks inside the region guarded by a %d-permit semaphore", occupancy, permits);
          }
          return win.accumulate(Buf.of(one), 0, 1, Datatype.LONG, A, ENTRIES, Op.SUM);
        })
        .compose(v -> win.flush(A))
        // while this rank holds a permit, S cannot be back to K
        .compose(v -> win.fetchAndOp(0, A, S, Op.NO_OP))
        .compose(s -> {
          if (s > permits - 1) {
            checks.fail("enter: S = %d while this rank holds one of K = %d permits", s, permits);
          }
          return win.flush(A);
        });
  }

  /** Counts this rank out of the region. */
  private Future<Void> leave() {
    return win.fetchAndOp(-1, A, INSIDE, Op.SUM)
        .compose(old -> {
          if (old < 1 || old > permits) {
            checks.fail("leave: occupancy was %d when this rank left; expected 1..%d", old, permits);
          }
          return win.flush(A);
        });
  }

  /** MPI_Accumulate(S, MPI_SUM, +1) + MPI_Win_flush(A). */
  private Future<Void> release() {
    long[] plusOne = {1};
    return win.accumulate(Buf.of(plusOne), 0, 1, Datatype.LONG, A, S, Op.SUM).compose(v -> win.flush(A));
  }

  // ------------------------------------------------------------------ final checks

  /** At rank A, after everybody is done: X = 0, S = K, nobody inside, size*R entries. */
  private Future<Void> checkFinalState() {
    long[] all = new long[SLOTS];
    return win.getAccumulate(null, 0, SLOTS, Datatype.LONG, Buf.of(all), 0, SLOTS, Datatype.LONG, A, 0, SLOTS,
        Datatype.LONG, Op.NO_OP)
        .compose(v -> win.flush(A))
        .map(v -> {
          long expectedEntries = (long) world.size() * rounds;
          if (all[(int) X] != 0) {
            checks.fail("final: countdown X = %d, expected 0", all[(int) X]);
          }
          if (all[(int) S] != permits) {
            checks.fail("final: semaphore S = %d, expected it back at K = %d", all[(int) S], permits);
          }
          if (all[(int) INSIDE] != 0) {
            checks.fail("final: occupancy counter = %d, expected 0", all[(int) INSIDE]);
          }
          if (all[(int) ENTRIES] != expectedEntries) {
            checks.fail("final: entry counter at rank %d = %d, expected size*R = %d", A, all[(int) ENTRIES],
                expectedEntries);
          }
          return null;
        });
  }

  private Future<Void> report() {
    long[] result = new long[3];
    return checks.verdict(world, "semaphore")
        .compose(v -> world.allreduce(maxOccupancy, Op.MAX))
        .compose(max -> {
          result[0] = max;
          return world.allreduce(entries, Op.SUM);
        })
        .compose(sum -> {
          result[1] = sum;
          return world.allreduce(retries, Op.SUM);
        })
        .compose(r -> {
          result[2] = r;
          long expected = (long) world.size() * rounds;
          if (result[1] != expected || result[0] > permits) {
            return Future.failedFuture(RmaException.of(ErrorClass.OTHER,
                "semaphore: %d entries in all (expected %d), max occupancy %d (K = %d)", result[1], expected,
                result[0], permits));
          }
          if (rank == 0) {
            System.out.printf("semaphore: verified K=%d permits, %d ranks x %d entries = %d entries, "
                + "max occupancy observed %d <= K, %d give-back retries, semaphore back to %d, "
                + "countdown of the standard's figure reached 0%n", permits, world.size(), rounds, result[1],
                result[0], result[2], permits);
          }
          return Future.<Void>succeededFuture();
        });
  }
}
