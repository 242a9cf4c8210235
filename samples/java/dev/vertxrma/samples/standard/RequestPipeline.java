// Follows the MPI standard's request-based RMA example (MPI-5.0 section 13.8, "The following
// example shows how request-based operations can be used to overlap communication with
// computation"; ../shared/seeds/001): each process fetches, processes and writes back NSTEPS
// chunks of N doubles with M local buffers, so that up to M communication operations overlap:
//
//     MPI_Win_lock_all(0, win);
//     for (i = 0; i < NSTEPS; i++) {
//       if (i < M) j = i;
//       else MPI_Waitany(M, put_req, &j, MPI_STATUS_IGNORE);
//       MPI_Rget(data[j], N, MPI_DOUBLE, target, i*N, N, MPI_DOUBLE, win, &get_req);
//       MPI_Wait(&get_req, MPI_STATUS_IGNORE);
//       compute(i, data[j], ...);
//       MPI_Rput(data[j], N, MPI_DOUBLE, target, i*N, N, MPI_DOUBLE, win, &put_req[j]);
//     }
//     MPI_Waitall(M, put_req, MPI_STATUSES_IGNORE);
//     MPI_Win_unlock_all(win);
//
// Requests are futures: MPI_Wait is composing on the rget's future, MPI_Waitany is Future.any over
// the M put futures (then the first completed one names the buffer to reuse), MPI_Waitall is
// Future.all. Rank 0 is the target: its window holds NSTEPS*N doubles, x[k] = (k mod 1000) + 0.25
// initially. Every other rank r is an origin and runs the loop above over the steps
// i = r-1, r-1 + (np-1), r-1 + 2(np-1), ... (its own share of the chunks, so every chunk is
// processed exactly once); compute(i, d) is d[e] = 2*d[e] + i, exact in double. After a barrier
// rank 0 checks every element: x[k] must be 2*((k mod 1000) + 0.25) + k/N.
//
// Overlap, as observed: each origin records how many of its rputs were still incomplete when it
// issued the next rget (the put overlapping the next get and compute), the most rputs incomplete
// at once, and how many Waitany calls had to wait. vertx-rma completes an rput at the origin when
// the target has applied it (same JVM) or at once when its data has been copied out for the wire
// (another JVM); operations from one origin to one target are applied and answered in order, so an
// rput is always complete by the time the NEXT rget's data arrives. Hence at most one rput is ever
// incomplete at a time here, and every Waitany finds a completed request: the M buffers are
// recycled correctly but never more than two operations (rput i and rget i+1) are in flight at
// once. The checks are therefore: the data; every buffer chosen by Waitany belongs to a completed
// rput (reusing a buffer with an incomplete rput is the bug the M buffers exist to prevent). The
// overlap figures are printed, not checked: whether a queued rput is applied before the next rget
// is issued depends on another thread's timing.
//
// Usage: rmarun -np N request-pipeline [M [N [NSTEPS]]]     (defaults 3 64 24; N >= 2 ranks)
package dev.vertxrma.samples.standard;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The standard's Rget / compute / Rput pipeline with M local buffers, Waitany and Waitall. */
public final class RequestPipeline extends RankVerticle {

  private static final int TARGET = 0;

  /** Checks that failed on this rank. */
  private final List<String> failures = new ArrayList<>();
  private Win win;
  private int m;
  private int n;
  private int nsteps;
  /** data[M][N], buffer j at offset j*N. */
  private double[] data;
  /** put_req[M]; null = MPI_REQUEST_NULL. */
  private Future<?>[] putReq;
  /** This origin's steps, in order. */
  private int[] mySteps;

  // overlap observations (this origin)
  /** Steps whose rget was issued while an earlier rput was still incomplete. */
  private long getsOverlappingPut;
  /** Most rputs incomplete at once (counted right after each rput is issued). */
  private long maxPutsIncomplete;
  /** rputs already complete when their future was returned (data copied out at once). */
  private long putsCompleteAtIssue;
  /** Waitany calls, and those that found no completed rput and had to wait. */
  private long waitanyCalls;
  private long waitanyWaited;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    try {
      m = args.size() > 0 ? Integer.parseInt(args.get(0)) : 3;
      n = args.size() > 1 ? Integer.parseInt(args.get(1)) : 64;
      nsteps = args.size() > 2 ? Integer.parseInt(args.get(2)) : 24;
    } catch (NumberFormatException e) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "request-pipeline: arguments are M N NSTEPS (integers), got %s", args));
    }
    int np = world.size();
    if (np < 2) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "request-pipeline needs a target (rank 0) and at least one origin: -np 2 or more, got -np %d", np));
    }
    if (args.size() > 3 || m < 1 || n < 1 || nsteps < 0 || (long) n * nsteps > Integer.MAX_VALUE / 8
        || (long) m * n > Integer.MAX_VALUE - 8) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "request-pipeline: usage request-pipeline [M [N [NSTEPS]]] with M, N >= 1, NSTEPS >= 0 and "
              + "NSTEPS*N*8 bytes fitting a window; got %s", args));
    }
    int rank = world.rank();
    int total = n * nsteps;
    long[] stats = new long[6];
    return Win.allocate(world, rank == TARGET ? (long) total * Double.BYTES : 0, Double.BYTES, Info.NULL)
        .compose(w -> {
          win = w;
          if (rank == TARGET) {
            for (int k = 0; k < total; k++) {
              win.memory().writeDouble((long) k * Double.BYTES, initial(k));
            }
          }
          return world.barrier(); // the initial data is in place before any rget
        })
        .compose(v -> rank == TARGET ? Future.succeededFuture() : origin(rank, np))
        .compose(v -> world.barrier()) // every rput is complete at the target (unlockAll)
        .compose(v -> {
          if (rank == TARGET) {
            checkTarget(total);
          }
          long[] mine = {getsOverlappingPut, maxPutsIncomplete, putsCompleteAtIssue, waitanyCalls, waitanyWaited,
              rank == TARGET ? 0 : Math.max(0, mySteps.length - 1)};
          long[] maxes = new long[mine.length];
          return world.allreduce(Buf.of(mine), 0, Buf.of(stats), 0, mine.length, Datatype.LONG, Op.SUM)
              .compose(x -> world.allreduce(Buf.of(mine), 0, Buf.of(maxes), 0, mine.length, Datatype.LONG, Op.MAX))
              .map(x -> {
                stats[1] = maxes[1]; // the most incomplete at once on any origin
                return null;
              });
        })
        .compose(v -> win.free())
        .compose(v -> world.allreduce((long) failures.size(), Op.SUM))
        .compose(bad -> {
          if (bad == 0) {
            if (rank == TARGET) {
              System.out.printf("request-pipeline: verified %d chunks x %d doubles through %d origin(s) with M=%d "
                  + "buffers: every element computed exactly once; overlap observed: %d of %d rgets issued while "
                  + "an rput was in flight, at most %d rput(s) incomplete at once, %d rput(s) complete at issue, "
                  + "%d of %d Waitany call(s) had to wait%n", nsteps, n, np - 1, m, stats[0],
                  stats[5], stats[1], stats[2], stats[4], stats[3]);
            }
            return Future.succeededFuture();
          }
          return Future.failedFuture(new RmaException(ErrorClass.OTHER, failures.isEmpty()
              ? "request-pipeline: " + bad + " check(s) failed on other ranks"
              : "request-pipeline: rank " + rank + ": " + failures.size() + " check(s) failed, first: "
                  + failures.get(0)));
        });
  }

  /** The target's initial x[k]: small and exact. */
  private static double initial(int k) {
    return (k % 1000) + 0.25;
  }

  /** compute(i, data[j]): d = 2*d + i, element-wise. */
  private void compute(int i, int j) {
    for (int e = j * n; e < (j + 1) * n; e++) {
      data[e] = 2 * data[e] + i;
    }
  }

  /** The loop of one origin, between lockAll and unlockAll. */
  private Future<Void> origin(int rank, int np) {
    int origins = np - 1;
    int count = nsteps > rank - 1 ? (nsteps - (rank - 1) + origins - 1) / origins : 0;
    mySteps = new int[count];
    for (int t = 0; t < count; t++) {
      mySteps[t] = (rank - 1) + t * origins;
    }
    data = new double[m * n];
    putReq = new Future<?>[m];
    Promise<Void> loop = Promise.promise();
    return win.lockAll()
        .compose(v -> {
          step(0, loop);
          return loop.future();
        })
        .compose(v -> {
          // MPI_Waitall(M, put_req): null entries are MPI_REQUEST_NULL
          List<Future<?>> outstanding = new ArrayList<>();
          for (Future<?> f : putReq) {
            if (f != null) {
              outstanding.add(f);
            }
          }
          return Future.all(outstanding);
        })
        .compose(v -> win.unlockAll());
  }

  /** Step t of this origin's loop (chunk i = mySteps[t]); completes {@code loop} after the last. */
  private void step(int t, Promise<Void> loop) {
    if (t == mySteps.length) {
      loop.complete();
      return;
    }
    int i = mySteps[t];
    Future<Integer> buffer;
    if (t < m) {
      buffer = Future.succeededFuture(t);
    } else {
      buffer = waitany();
    }
    buffer.compose(j -> {
      if (incompletePuts() > 0) {
        getsOverlappingPut++;
      }
      return win.rget(Buf.of(data), j * n, n, Datatype.DOUBLE, TARGET, (long) i * n)
          .map(v -> {
            compute(i, j);
            Future<Void> put = win.rput(Buf.of(data), j * n, n, Datatype.DOUBLE, TARGET, (long) i * n);
            putReq[j] = put;
            if (put.isComplete()) {
              putsCompleteAtIssue++;
            }
            maxPutsIncomplete = Math.max(maxPutsIncomplete, incompletePuts());
            return null;
          });
    }).onComplete(ar -> {
      if (ar.failed()) {
        loop.fail(ar.cause());
      } else {
        step(t + 1, loop);
      }
    });
  }

  private int incompletePuts() {
    int k = 0;
    for (Future<?> f : putReq) {
      if (f != null && !f.isComplete()) {
        k++;
      }
    }
    return k;
  }

  /** MPI_Waitany(M, put_req, &j): completes with the index of a completed rput. */
  private Future<Integer> waitany() {
    waitanyCalls++;
    List<Future<?>> reqs = Arrays.asList(putReq);
    if (reqs.stream().noneMatch(Future::isComplete)) {
      waitanyWaited++;
    }
    return Future.any(reqs).compose(v -> {
      for (int j = 0; j < m; j++) {
        if (putReq[j].succeeded()) {
          return Future.succeededFuture(j);
        }
      }
      for (int j = 0; j < m; j++) {
        if (putReq[j].failed()) {
          return Future.failedFuture(putReq[j].cause());
        }
      }
      return Future.failedFuture(new RmaException(ErrorClass.OTHER,
          "request-pipeline: Future.any over the rputs completed but no rput is complete"));
    }).compose(j -> {
      if (!putReq[j].isComplete()) { // the invariant the M buffers exist for
        return Future.failedFuture(RmaException.of(ErrorClass.OTHER,
            "request-pipeline: Waitany chose buffer %d, whose rput is still incomplete", j));
      }
      return Future.succeededFuture(j);
    });
  }

  private void checkTarget(int total) {
    int wrong = 0;
    String first = null;
    for (int k = 0; k < total; k++) {
      double got = win.memory().readDouble((long) k * Double.BYTES);
      double expected = 2 * initial(k) + (k / n);
      if (Double.doubleToLongBits(got) != Double.doubleToLongBits(expected)) {
        if (first == null) {
          first = String.format("x[%d] (chunk %d, element %d) = %s, expected 2*%s + %d = %s", k, k / n, k % n, got,
              initial(k), k / n, expected);
        }
        wrong++;
      }
    }
    if (wrong > 0) {
      failures.add(wrong + " of " + total + " target elements are wrong (a chunk lost or processed twice); first: "
          + first);
    }
  }
}
