// Follows the MPI standard, one-sided chapter, section "Examples": "Implementing a critical region
// between multiple MPI processes with compare and swap. The call to MPI_WIN_SYNC is necessary on
// Process A after local initialization of A to guarantee the public copy has been updated with
// the initialization value found in the private copy. It would also be valid to call
// MPI_ACCUMULATE with MPI_REPLACE to directly initialize the public copy. A call to MPI_WIN_FLUSH
// would be necessary to assure A in the public copy of Process A had been updated before the
// barrier." The figure:
//
//     Process A                            Process B...
//     MPI_Win_lock_all                     MPI_Win_lock_all
//     atomic location A
//     A=0
//     MPI_Win_sync
//     MPI_Barrier                          MPI_Barrier
//     stack variable r = 1                 stack variable r = 1
//     while(r != 0) do                     while(r != 0) do
//       r = MPI_Compare_and_swap(A, 0, 1)    r = MPI_Compare_and_swap(A, 0, 1)
//       MPI_Win_flush(A)                     MPI_Win_flush(A)
//     done                                 done
//     // critical region                   // critical region
//     r = MPI_Compare_and_swap(A, 1, 0)    r = MPI_Compare_and_swap(A, 1, 0)
//     MPI_Win_unlock_all                   MPI_Win_unlock_all
//
// Process A is rank 0, which initializes the lock word with a local store + MPI_Win_sync before
// the barrier (the first way the text names). Each rank enters R times; instead of 1 it swaps in
// its rank+1, so the release, MPI_Compare_and_swap(A, rank+1, 0) + flush, also checks that the
// lock was still this rank's (old value rank+1). The critical region is non-atomic on purpose:
// get the shared counter (at the last rank), flush, put counter+1, flush; a broken mutual
// exclusion would lose increments, so the counter must end at size*R exactly. An occupancy word
// at rank 0 (fetch-and-op +1 on entry, must return 0; -1 on exit, must return 1) catches an
// overlap directly.
//
// Usage: rmarun -np N cas-mutex [R]     (entries per rank, default 50; any N >= 1)
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

/** A critical region among N ranks with compare-and-swap on a lock word, as in the MPI standard. */
public final class CasMutex extends RankVerticle {

  private static final int DEFAULT_ROUNDS = 50;
  /** The figure's process A, owner of the lock word. */
  private static final int A = 0;
  /** Window slots in longs (displacement unit 8); every rank allocates all of them. */
  private static final long LOCK = 0; // the lock word, at A
  private static final long INSIDE = 1; // occupancy, at A
  private static final long COUNTER = 2; // the non-atomic shared counter, at the last rank
  private static final int SLOTS = 3;

  private RankChecks checks;
  private Comm world;
  private Win win;
  private int rank;
  private int counterRank;
  private int rounds;
  private long attempts;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    this.world = world;
    try {
      rounds = args.isEmpty() ? DEFAULT_ROUNDS : Integer.parseInt(args.get(0));
    } catch (NumberFormatException e) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "cas-mutex: R must be an integer, got '%s'",
          args.get(0)));
    }
    if (args.size() > 1 || rounds < 0) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "cas-mutex: usage cas-mutex [R] with R >= 0 entries per rank; got %s", args));
    }
    rank = world.rank();
    checks = new RankChecks(rank);
    counterRank = world.size() - 1;
    return Win.allocate(world, SLOTS * 8L, 8, Info.NULL)
        .compose(w -> {
          win = w;
          return win.lockAll();
        })
        .compose(v -> {
          if (rank != A) {
            return Future.succeededFuture();
          }
          // A=0: a local store into the private copy, made public by MPI_Win_sync
          win.memory().writeLong(LOCK * 8, 0);
          return win.sync();
        })
        .compose(v -> world.barrier())
        .compose(v -> Spin.times(rounds, i -> pass()))
        .compose(v -> world.barrier()) // every rank's last release is flushed
        .compose(v -> rank == A ? checkFinalState() : Future.succeededFuture())
        .compose(v -> win.unlockAll())
        .compose(v -> win.free())
        .compose(v -> report());
  }

  private Future<Void> pass() {
    return acquire()
        .compose(v -> CriticalSection.incrementShared(win, checks, A, INSIDE, counterRank, COUNTER))
        .compose(v -> release());
  }

  /** while (r != 0) { r = MPI_Compare_and_swap(A, 0, rank+1); MPI_Win_flush(A) } */
  private Future<Void> acquire() {
    return Spin.until(() -> {
      attempts++;
      return win.compareAndSwap(0, rank + 1, A, LOCK)
          .compose(r -> win.flush(A).map(v -> {
            if (r < 0 || r > world.size() || r == rank + 1) {
              checks.fail("acquire: lock word was %d; expected 0 or another rank's id in [1, %d]", r, world.size());
              return true; // stop: reported at the end
            }
            return r == 0;
          }));
    });
  }

  /** r = MPI_Compare_and_swap(A, rank+1, 0); MPI_Win_flush(A); r must be rank+1. */
  private Future<Void> release() {
    return win.compareAndSwap(rank + 1, 0, A, LOCK)
        .compose(r -> win.flush(A).map(v -> {
          if (r != rank + 1) {
            checks.fail("release: lock word was %d, expected this rank's id %d", r, rank + 1);
          }
          return null;
        }));
  }

  /** At rank A after everybody is done: counter = size*R, lock free, nobody inside. */
  private Future<Void> checkFinalState() {
    long[] atA = new long[SLOTS];
    long[] c = new long[1];
    return win.getAccumulate(null, 0, SLOTS, Datatype.LONG, Buf.of(atA), 0, SLOTS, Datatype.LONG, A, 0, SLOTS, Datatype.LONG,
        Op.NO_OP)
        .compose(v -> win.getAccumulate(null, 0, 1, Datatype.LONG, Buf.of(c), 0, 1, Datatype.LONG, counterRank, COUNTER, 1,
            Datatype.LONG, Op.NO_OP))
        .compose(v -> win.flushAll())
        .map(v -> {
          long expected = (long) world.size() * rounds;
          if (c[0] != expected) {
            checks.fail("final: shared counter = %d, expected size*R = %d (increments were lost or duplicated)", c[0],
                expected);
          }
          if (atA[(int) LOCK] != 0) {
            checks.fail("final: lock word = %d, expected 0 (free)", atA[(int) LOCK]);
          }
          if (atA[(int) INSIDE] != 0) {
            checks.fail("final: occupancy = %d, expected 0", atA[(int) INSIDE]);
          }
          return null;
        });
  }

  private Future<Void> report() {
    return checks.verdict(world, "cas-mutex")
        .compose(v -> world.allreduce(attempts, Op.SUM))
        .compose(totalAttempts -> {
          if (rank == 0) {
            long n = (long) world.size() * rounds;
            System.out.printf("cas-mutex: verified mutual exclusion among %d ranks: %d x %d = %d entries, shared "
                + "non-atomic counter = %d, never two inside, every release found its own id, %d CAS attempts%n",
                world.size(), world.size(), rounds, n, n, totalAttempts);
          }
          return Future.<Void>succeededFuture();
        });
  }
}
