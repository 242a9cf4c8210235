// An MCS queue lock: not one of the standard's numbered examples, but a utility built on the same
// RMA atomics as the MPI texts' distributed locking examples (MPI-5.0 section 13.8: the critical
// region with compare-and-swap, the counting semaphore, and the linked list of
// ../shared/seeds/001, which append to a shared tail the same way). The lock is
// dev.vertxrma.sync.Mutex, the Mellor-Crummey/Scott queue lock with MPI-3 RMA and messages:
//
//     tail, token (at rank 0), in a passive-target epoch open for the mutex's life
//   acquire:
//     pred = Compare_and_swap(tail@0, seen, me) until it takes; MPI_Win_flush(0)
//     if (pred == -1) the lock was free
//     else { MPI_Send(LINK) to pred; MPI_Recv(GRANT) from it }   (no flag is polled)
//     token = Fetch_and_op(SUM, 1, token@0)                        (the fencing token)
//   release:
//     if a successor linked: MPI_Send(GRANT) to it
//     else if Compare_and_swap(tail@0, me, -1) finds me: free
//     else wait for the successor's LINK, then grant it
//
// Each rank issues its R lock() calls at once; each, when granted, increments a shared counter at
// rank 0 NON-atomically (get, flush, put value+1, flush) and unlocks: only mutual exclusion keeps
// updates from being lost, so the final counter must be np*R. An "inside" count at rank 0
// (fetch-and-op +1 on entry, -1 on exit) also catches two holders at once directly, and the
// fencing tokens, ordered by the counter value each holder read, must strictly increase.
//
// Usage: rmarun -np N mcs-mutex [R]     (critical sections per rank, default 30; any N >= 1)
package dev.vertxrma.samples.sync;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.sync.Grant;
import dev.vertxrma.sync.Mutex;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/** An MCS queue lock ({@link Mutex}) guarding a non-atomic counter at rank 0. */
public final class McsMutex extends RankVerticle {

  private static final int DEFAULT_ROUNDS = 30;
  /** Window layout at rank 0, in ints (displacement unit 4); the other ranks expose nothing. */
  private static final int COUNTER = 0;
  private static final int INSIDE = 1;
  private static final int WINDOW_INTS = 2;

  /** Checks that failed on this rank. */
  private final List<String> failures = new ArrayList<>();

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
    if (args.size() > 1 || rounds < 0 || (long) rounds * np * 2 > Integer.MAX_VALUE - 8) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "mcs-mutex: usage mcs-mutex [R] with R >= 0 and 2*R*np fitting an int; got %s with np=%d", args, np));
    }
    int me = world.rank();
    int[] finalState = new int[WINDOW_INTS];
    long[] grants = new long[2 * rounds]; // per critical section: the counter value read, the token
    long[] all = new long[2 * rounds * np];
    return Mutex.create(world).compose(mutex -> Win.allocate(world, me == 0 ? WINDOW_INTS * Integer.BYTES : 0,
        Integer.BYTES, Info.NULL).compose(win -> {
          List<Future<Void>> sections = new ArrayList<>(rounds);
          Future<Void> epoch = win.lockAll(Mode.NOCHECK);
          for (int i = 0; i < rounds; i++) {
            int round = i;
            // all R requests issued at once: the mutex grants this rank's one after the other
            sections.add(epoch.compose(v -> mutex.lock()).compose(grant -> criticalSection(win, grant, round, grants))
                .compose(v -> mutex.unlock()));
          }
          return Future.all(sections)
              .compose(v -> win.unlockAll())
              .compose(v -> world.barrier()) // every critical section is complete at rank 0
              .compose(v -> {
                if (me == 0) {
                  finalState[COUNTER] = win.memory().readInt(COUNTER * 4L);
                  finalState[INSIDE] = win.memory().readInt(INSIDE * 4L);
                }
                return world.gather(Buf.of(grants), 0, 2 * rounds, Datatype.LONG, Buf.of(all), 0, 2 * rounds,
                    Datatype.LONG, 0);
              })
              .compose(v -> {
                if (me == 0) {
                  checkFinal(finalState, all, np, rounds);
                }
                return win.free();
              })
              .compose(v -> mutex.free());
        }))
        .compose(v -> world.allreduce((long) failures.size(), Op.SUM))
        .compose(bad -> {
          if (bad == 0) {
            if (me == 0) {
              System.out.printf("mcs-mutex: verified %d ranks x %d critical sections: non-atomic counter = %d, never "
                  + "two holders, fencing tokens strictly increasing in grant order%n", np, rounds,
                  finalState[COUNTER]);
            }
            return Future.succeededFuture();
          }
          return Future.failedFuture(new RmaException(ErrorClass.OTHER, failures.isEmpty()
              ? "mcs-mutex: " + bad + " check(s) failed on other ranks"
              : "mcs-mutex: rank " + me + ": " + failures.size() + " check(s) failed, first: " + failures.get(0)));
        });
  }

  /** The critical section: a non-atomic increment of the counter at rank 0, with an occupancy check. */
  private Future<Void> criticalSection(Win win, Grant grant, int round, long[] grants) {
    int me = win.comm().rank();
    int[] value = new int[1];
    if (grant.previousHolderDied()) {
      failures.add(String.format("rank %d's grant %d says a holder died, and none did", me, round));
    }
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
        .compose(v -> {
          grants[2 * round] = value[0];
          grants[2 * round + 1] = grant.token();
          return win.put(Buf.of(new int[] {value[0] + 1}), 0, 1, Datatype.INT, 0, COUNTER);
        })
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

  private void checkFinal(int[] state, long[] all, int np, int rounds) {
    int total = np * rounds;
    if (state[COUNTER] != total) {
      failures.add(String.format("the non-atomically incremented counter is %d, expected np*R = %d*%d = %d: %d "
          + "update(s) lost, mutual exclusion failed", state[COUNTER], np, rounds, total, total - state[COUNTER]));
      return;
    }
    if (state[INSIDE] != 0) {
      failures.add(String.format("%d holder(s) still inside the critical section at the end", state[INSIDE]));
    }
    long[] tokenAt = new long[total];
    java.util.Arrays.fill(tokenAt, -1);
    for (int i = 0; i < all.length; i += 2) {
      int seq = (int) all[i];
      if (seq < 0 || seq >= total || tokenAt[seq] != -1) {
        failures.add(String.format("two holders read counter value %d", seq));
        return;
      }
      tokenAt[seq] = all[i + 1];
    }
    for (int s = 1; s < total; s++) {
      if (tokenAt[s] <= tokenAt[s - 1]) {
        failures.add(String.format("the token of grant %d, %d, is not above grant %d's, %d", s, tokenAt[s], s - 1,
            tokenAt[s - 1]));
        return;
      }
    }
  }
}
