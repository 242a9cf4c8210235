// Follows the MPI standard, one-sided chapter, section "Examples": "Implementing a critical region
// between two MPI processes (Peterson's algorithm). Despite their appearance in the following
// example, MPI_WIN_LOCK_ALL and MPI_WIN_UNLOCK_ALL are not collective calls, but it is frequently
// useful to open shared access epochs to all MPI processes from all other MPI processes in a
// window. Once the access epochs are opened, accumulate operations as well as flush and sync
// synchronization can be used to read from or write to the public copy of the window." The figure:
//
//     Process A                            Process B
//     window location X                    window location Y
//     window location T
//     MPI_Win_lock_all                     MPI_Win_lock_all
//     X=1                                  Y=1
//     MPI_Win_sync                         MPI_Win_sync
//     MPI_Barrier                          MPI_Barrier
//     MPI_Accumulate(T, MPI_REPLACE, 1)    MPI_Accumulate(T, MPI_REPLACE, 0)
//     stack variables t,y                  stack variable t,x
//     t=1                                  t=0
//     y=MPI_Get_accumulate(Y,              x=MPI_Get_accumulate(X,
//        MPI_NO_OP, 0)                        MPI_NO_OP, 0)
//     while(y==1 && t==1) do               while(x==1 && t==0) do
//       y=MPI_Get_accumulate(Y,              x=MPI_Get_accumulate(X,
//          MPI_NO_OP, 0)                        MPI_NO_OP, 0)
//       t=MPI_Get_accumulate(T,              t=MPI_Get_accumulate(T,
//          MPI_NO_OP, 0)                        MPI_NO_OP, 0)
//       MPI_Win_flush_all                    MPI_Win_flush(A)
//     done                                 done
//     // critical region                   // critical region
//     MPI_Accumulate(X, MPI_REPLACE, 0)    MPI_Accumulate(Y, MPI_REPLACE, 0)
//     MPI_Win_unlock_all                   MPI_Win_unlock_all
//
// Process A is rank 0, B is rank 1; the layout is the figure's: X (A's flag) and T (the turn) in
// rank 0's window, Y (B's flag) in rank 1's window. The figure enters the region once, raising
// the flag by a local store + MPI_Win_sync before the barrier; here each rank enters R times, so
// the flags are initialized (lowered) that way, and each entry raises its flag with
// MPI_Accumulate(REPLACE, 1) -- the atomic write the figure uses for T and for lowering the flag.
// Every write is followed by a flush, and so is every read: Peterson's algorithm needs the flag
// to be visible before the turn is written, and the turn before the other flag is read (X, Y and
// T are at different targets for A, so MPI's same-target accumulate ordering alone would not do).
//
// The critical region is non-atomic on purpose: get the shared counter C (at rank 1), flush, put
// C+1, flush; a broken mutual exclusion would lose increments. At the end C must be exactly 2R.
// An occupancy word at rank 0, incremented by fetch-and-op on entry (old value must be 0) and
// decremented on exit (old value must be 1), catches an overlap directly.
//
// Usage: rmarun -np 2 peterson [R]     (entries per rank, default 200)
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

/** Peterson's algorithm between two ranks with accumulate, get-accumulate, flush and sync. */
public final class Peterson extends RankVerticle {

  private static final int DEFAULT_ROUNDS = 200;
  /** The figure's processes. */
  private static final int A = 0;
  private static final int B = 1;
  /** Window slots in longs (displacement unit 8); every rank allocates all of them. */
  private static final long FLAG = 0; // X at A, Y at B
  private static final long TURN = 1; // T, used at A
  private static final long COUNTER = 2; // C, used at B: the non-atomic shared counter
  private static final long INSIDE = 3; // occupancy, used at A
  private static final int SLOTS = 4;

  private RankChecks checks;
  private Comm world;
  private Win win;
  private int rank;
  private int other;
  private int rounds;
  private long waits;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    this.world = world;
    if (world.size() != 2) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "peterson: Peterson's algorithm (MPI one-sided example) is between exactly 2 processes; got -np %d",
          world.size()));
    }
    try {
      rounds = args.isEmpty() ? DEFAULT_ROUNDS : Integer.parseInt(args.get(0));
    } catch (NumberFormatException e) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "peterson: R must be an integer, got '%s'",
          args.get(0)));
    }
    if (args.size() > 1 || rounds < 0) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "peterson: usage peterson [R] with R >= 0 entries per rank; got %s", args));
    }
    rank = world.rank();
    checks = new RankChecks(rank);
    other = 1 - rank;
    return Win.allocate(world, SLOTS * 8L, 8, Info.NULL)
        .compose(w -> {
          win = w;
          return win.lockAll();
        })
        .compose(v -> {
          // X=0 / Y=0 (and C, T, occupancy at their owners): local stores, then MPI_Win_sync
          for (int s = 0; s < SLOTS; s++) {
            win.memory().writeLong(s * 8L, 0);
          }
          return win.sync();
        })
        .compose(v -> world.barrier())
        .compose(v -> Spin.times(rounds, i -> pass()))
        .compose(v -> world.barrier()) // both ranks' last writes are flushed
        .compose(v -> rank == A ? checkFinalState() : Future.succeededFuture())
        .compose(v -> win.unlockAll())
        .compose(v -> win.free())
        .compose(v -> report());
  }

  /** Lock, critical region, unlock. */
  private Future<Void> pass() {
    return lock()
        .compose(v -> CriticalSection.incrementShared(win, checks, A, INSIDE, B, COUNTER))
        .compose(v -> unlock());
  }

  /** Raise my flag, give the turn away, wait while the other's flag is up and the turn is still the other's. */
  private Future<Void> lock() {
    long[] one = {1};
    long[] turn = {other}; // A writes T=1, B writes T=0
    return win.accumulate(Buf.of(one), 0, 1, Datatype.LONG, rank, FLAG, Op.REPLACE)
        .compose(v -> win.flush(rank))
        .compose(v -> win.accumulate(Buf.of(turn), 0, 1, Datatype.LONG, A, TURN, Op.REPLACE))
        .compose(v -> win.flush(A))
        .compose(v -> {
          long[] f = new long[1];
          long[] t = {other};
          // the first read of the other's flag; t is known (we just wrote it)
          return win.getAccumulate(null, 0, 1, Datatype.LONG, Buf.of(f), 0, 1, Datatype.LONG, other, FLAG, 1, Datatype.LONG,
              Op.NO_OP)
              .compose(x -> win.flush(other))
              .compose(x -> Spin.until(() -> {
                if (!(f[0] == 1 && t[0] == other)) {
                  return Future.succeededFuture(true);
                }
                waits++;
                Future<Void> readFlag = win.getAccumulate(null, 0, 1, Datatype.LONG, Buf.of(f), 0, 1, Datatype.LONG, other,
                    FLAG, 1, Datatype.LONG, Op.NO_OP);
                Future<Void> readTurn = win.getAccumulate(null, 0, 1, Datatype.LONG, Buf.of(t), 0, 1, Datatype.LONG, A, TURN,
                    1, Datatype.LONG, Op.NO_OP);
                // A: Y is at B and T at A -> MPI_Win_flush_all; B: X and T are both at A -> MPI_Win_flush(A)
                Future<Void> flushed = rank == A ? win.flushAll() : win.flush(A);
                return Future.all(readFlag, readTurn, flushed).map(all -> {
                  if ((f[0] != 0 && f[0] != 1) || (t[0] != 0 && t[0] != 1)) {
                    checks.fail("lock: read flag=%d turn=%d; flags and turn must be 0 or 1", f[0], t[0]);
                    return true;
                  }
                  return false;
                });
              }));
        });
  }

  /** MPI_Accumulate(my flag, MPI_REPLACE, 0) + flush. */
  private Future<Void> unlock() {
    long[] zero = {0};
    return win.accumulate(Buf.of(zero), 0, 1, Datatype.LONG, rank, FLAG, Op.REPLACE).compose(v -> win.flush(rank));
  }

  /** At rank A after both ranks are done: C = 2R, both flags down, nobody inside. */
  private Future<Void> checkFinalState() {
    long[] c = new long[1];
    long[] atA = new long[SLOTS];
    long[] atB = new long[SLOTS];
    return win.getAccumulate(null, 0, SLOTS, Datatype.LONG, Buf.of(atA), 0, SLOTS, Datatype.LONG, A, 0, SLOTS, Datatype.LONG,
        Op.NO_OP)
        .compose(v -> win.getAccumulate(null, 0, SLOTS, Datatype.LONG, Buf.of(atB), 0, SLOTS, Datatype.LONG, B, 0, SLOTS,
            Datatype.LONG, Op.NO_OP))
        .compose(v -> win.flushAll())
        .map(v -> {
          c[0] = atB[(int) COUNTER];
          if (c[0] != 2L * rounds) {
            checks.fail("final: shared counter C = %d, expected 2R = %d (increments were lost or duplicated)", c[0],
                2L * rounds);
          }
          if (atA[(int) FLAG] != 0 || atB[(int) FLAG] != 0) {
            checks.fail("final: flags X=%d Y=%d, expected both 0", atA[(int) FLAG], atB[(int) FLAG]);
          }
          if (atA[(int) INSIDE] != 0) {
            checks.fail("final: occupancy %d, expected 0", atA[(int) INSIDE]);
          }
          if (rounds > 0 && atA[(int) TURN] != 0 && atA[(int) TURN] != 1) {
            checks.fail("final: turn T = %d, expected 0 or 1", atA[(int) TURN]);
          }
          return null;
        });
  }

  private Future<Void> report() {
    return checks.verdict(world, "peterson")
        .compose(v -> world.allreduce(waits, Op.SUM))
        .compose(totalWaits -> {
          if (rank == 0) {
            System.out.printf("peterson: verified mutual exclusion between 2 ranks: %d entries each, shared "
                + "non-atomic counter = %d = 2R, never two inside, %d wait iterations%n", rounds, 2L * rounds,
                totalWaits);
          }
          return Future.<Void>succeededFuture();
        });
  }
}
