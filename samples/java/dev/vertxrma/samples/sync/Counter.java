// A distributed counter: not one of the standard's numbered examples, but a utility built on the
// same RMA atomics as the MPI texts' distributed locking examples (MPI-5.0 section 13.8, the
// counting semaphore and critical-region examples, and the request-based example in
// ../shared/seeds/001). The counter is dev.vertxrma.sync.Counter: a long in rank 0's window,
// incremented with MPI_Fetch_and_op(MPI_SUM) inside a passive-target epoch that the counter keeps
// open for its whole life, each increment completed by a flush of rank 0:
//
//     MPI_Win_lock_all(MPI_MODE_NOCHECK, win);                            /* at creation */
//     for (i = 0; i < C; i++) {
//       MPI_Fetch_and_op(&one, &old[i], MPI_LONG, 0, 0, MPI_SUM, win);   /* all issued at once */
//       MPI_Win_flush(0, win);
//     }
//
// Fetch-and-op is atomic, so the C * np returned old values must be exactly {0, ..., np*C - 1}
// (every ticket handed out once) and the final value np*C. Accumulates of one origin to one target
// are applied in issue order, so each rank's own tickets must also be strictly increasing.
//
// Usage: rmarun -np N counter [C]     (increments per rank, default 1000; any N >= 1)
package dev.vertxrma.samples.sync;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/** A shared counter at rank 0 ({@link dev.vertxrma.sync.Counter}), incremented with pipelined next() calls. */
public final class Counter extends RankVerticle {

  private static final int DEFAULT_INCREMENTS = 1000;

  /** Checks that failed on this rank. */
  private final List<String> failures = new ArrayList<>();

  @Override
  public Future<?> run(Comm world, List<String> args) {
    int c;
    try {
      c = args.isEmpty() ? DEFAULT_INCREMENTS : Integer.parseInt(args.get(0));
    } catch (NumberFormatException e) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "counter: C must be an integer, got '%s'",
          args.get(0)));
    }
    int np = world.size();
    if (args.size() > 1 || c < 1 || (long) c * np > Integer.MAX_VALUE - 8) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "counter: usage counter [C] with C >= 1 and C*np fitting an array; got %s with np=%d", args, np));
    }
    int rank = world.rank();
    long total = (long) c * np;
    long[] mine = new long[c];
    long[] all = rank == 0 ? new long[(int) total] : null;
    long[] finalValue = {-1};
    // the counter: one long at rank 0, starting at 0; the other ranks expose nothing
    return dev.vertxrma.sync.Counter.create(world, 0, 0).compose(counter -> {
      List<Future<Long>> tickets = new ArrayList<>(c);
      for (int i = 0; i < c; i++) {
        tickets.add(counter.next()); // pipelined: nothing waited for yet
      }
      return Future.all(tickets).map(x -> {
        for (int i = 0; i < c; i++) {
          mine[i] = tickets.get(i).result();
        }
        return null;
      })
          .compose(v -> world.barrier()) // every increment is complete at rank 0
          .compose(v -> counter.get())
          .compose(value -> {
            finalValue[0] = value;
            return world.gather(Buf.of(mine), 0, c, Datatype.LONG, Buf.of(all), 0, c, Datatype.LONG, 0);
          })
          .compose(v -> {
            checkOwnOrder(rank, mine);
            if (rank == 0) {
              checkTickets(all, total, c, finalValue[0]);
            }
            return counter.free();
          });
    })
        .compose(v -> world.allreduce((long) failures.size(), Op.SUM))
        .compose(bad -> {
          if (bad == 0) {
            if (rank == 0) {
              System.out.printf("counter: verified %d ranks x %d fetch-and-op(SUM) increments: final value %d, "
                  + "tickets exactly {0..%d}, each rank's in issue order%n", np, c, finalValue[0], total - 1);
            }
            return Future.succeededFuture();
          }
          return Future.failedFuture(new RmaException(ErrorClass.OTHER, failures.isEmpty()
              ? "counter: " + bad + " check(s) failed on other ranks"
              : "counter: rank " + rank + ": " + failures.size() + " check(s) failed, first: " + failures.get(0)));
        });
  }

  /** Fetch-and-ops of one origin to one target are applied in order: my tickets increase strictly. */
  private void checkOwnOrder(int rank, long[] mine) {
    for (int i = 1; i < mine.length; i++) {
      if (mine[i] <= mine[i - 1]) {
        failures.add(String.format("rank %d's increment %d returned %d, not above increment %d's %d: fetch-and-ops "
            + "of one origin were not applied in issue order", rank, i, mine[i], i - 1, mine[i - 1]));
        return;
      }
    }
  }

  private void checkTickets(long[] all, long total, int c, long finalValue) {
    if (finalValue != total) {
      failures.add(String.format("final counter value is %d, expected np*C = %d", finalValue, total));
    }
    int[] seen = new int[(int) total];
    for (int k = 0; k < all.length; k++) {
      long t = all[k];
      if (t < 0 || t >= total) {
        failures.add(String.format("rank %d's increment %d returned old value %d, outside [0, %d)", k / c, k % c, t,
            total));
        return;
      }
      if (++seen[(int) t] > 1) {
        failures.add(String.format("old value %d was returned twice (second time to rank %d's increment %d): "
            + "fetch-and-op was not atomic", t, k / c, k % c));
        return;
      }
    }
    // total values, none repeated, all in range: every value of [0, total) was returned exactly once
  }
}
