// DoubleBuffer written with RxJava: the MPI standard's double-buffer example (MPI-2.2 Example
// 11.10; MPI-5.0 section 13.8), the same computation, the same epochs and assertions, and the
// same verification against the sequential run (see DoubleBuffer.java for the pattern, the
// ghost points and why the gets fetch the neighbours' second points).
//
// The Future chain becomes a Completable chain over RxWin and RxComm. Two Rx idioms carry it:
//   * "issue now, wait later": the gets of a half are issued before the local update and joined
//     with the epoch's complete, as Completable.mergeArray(gets, update-then-post-then-complete):
//     merge subscribes to (issues) the gets first, then runs the rest;
//   * the while (!converged) loop is RxRma.repeatUntil, one pass per step, in constant stack.
// Calls are cold: what depends on state computed by an earlier step is built in
// Completable.defer, at the moment the chain reaches it.
//
// Usage: rmarun -np N double-buffer-rx [points-per-rank (>= 2) [tolerance [max-iters]]]   (any N >= 1)
package dev.vertxrma.samples.styles;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.rx.RxComm;
import dev.vertxrma.rx.RxRma;
import dev.vertxrma.rx.RxWin;
import dev.vertxrma.samples.standard.HeatRod;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;
import io.vertx.core.Future;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/** MPI Example 11.10 with RxJava: double-buffered Jacobi iteration with two windows, NOCHECK and a barrier. */
public final class DoubleBufferRx extends RankVerticle {

  private RxComm world;
  private HeatRod rod;
  private int n;
  /** win[0] = win0, win[1] = win1. */
  private final RxWin[] win = new RxWin[2];
  /** a[0] = A0 (even iterates), a[1] = A1 (odd iterates): the windows' memories, n doubles each. */
  private final BytesStore<?, ?>[] a = new BytesStore<?, ?>[2];
  /** tobuf[0] = tobuf0, tobuf[1] = tobuf1: [0] from the left neighbour, [1] from the right one. */
  private final double[][] tobuf = new double[2][2];
  private Group neighbors;
  /** Ghosts of the neighbours' boundary points, one step behind the iterate being computed. */
  private double hL;
  private double hR;
  /** The neighbours' second points fetched by the last gets (two steps behind). */
  private double gL;
  private double gR;
  /** Steps done so far (even between loop passes). */
  private int steps;
  /** The rod's max |A0 - A1| after the last pass. */
  private double residual = Double.NaN;
  private boolean converged;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    return RxRma.program(this::run).run(world, args);
  }

  private Completable run(RxComm world, List<String> args) {
    this.world = world;
    rod = HeatRod.parse("double-buffer-rx", world.delegate(), args, 2); // a usage error fails the rank
    n = rod.n;
    neighbors = rod.neighbours;
    Info info = Info.of(Info.NO_LOCKS, "true");
    long bytes = (long) n * Double.BYTES;
    return RxWin.allocate(world, bytes, Double.BYTES, info)
        .flatMap(w0 -> {
          win[0] = w0;
          a[0] = w0.memory();
          return RxWin.allocate(world, bytes, Double.BYTES, info);
        })
        .flatMapCompletable(w1 -> {
          win[1] = w1;
          a[1] = w1.memory();
          for (int i = 0; i < n; i++) {
            HeatRod.store(a[0], i, rod.initial(rod.first + i)); // u^0; A1 starts zeroed, written before read
          }
          hL = rod.initial(rod.first - 1); // u^0 of the neighbours' boundary points (or the end temperatures)
          hR = rod.initial(rod.first + n);
          converged = rod.converged(steps, residual);
          Completable posted = converged ? Completable.complete() : win[0].post(neighbors, Mode.NOCHECK, Mode.NOPUT);
          // the barrier is needed because the start call inside the loop uses the nocheck option
          return posted.andThen(world.barrier());
        })
        // while (!converged(A0, A1)) { ... }
        .andThen(RxRma.repeatUntil(() -> converged ? Single.just(true) : pass().toSingle(() -> converged)))
        .andThen(Completable.defer(() -> Completable.fromCompletionStage(rod.verify(world.delegate(), Buf.of(a[0]), 0,
            steps, residual, 2, () -> Future.fromCompletionStage(win[0].free().andThen(win[1].free())
                .toCompletionStage(null))).toCompletionStage())));
  }

  /** One pass of the loop body: two steps, the first on A1 from A0, the second on A0 from A1. */
  private Completable pass() {
    return Completable.defer(() -> {
      // communication on A0 and computation on A1
      update2(1, 0);
      return win[0].start(neighbors, Mode.NOCHECK)
          .andThen(Completable.defer(() -> Completable.mergeArray(getSecondPoints(0), Completable.defer(() -> {
            update1(1, 0);
            steps++;
            return win[1].post(neighbors, Mode.NOCHECK, Mode.NOPUT).andThen(win[0].complete());
          }))))
          .andThen(win[0].waitFor())
          .andThen(Completable.defer(() -> {
            takeSecondPoints(0);
            // communication on A1 and computation on A0
            double local = update2(0, 1);
            return win[1].start(neighbors, Mode.NOCHECK)
                .andThen(Completable.defer(() -> Completable.mergeArray(getSecondPoints(1), Completable.defer(() -> {
                  double localResidual = Math.max(local, update1(0, 1));
                  steps++;
                  // converged(A0, A1), the same on every rank
                  return world.allreduce(localResidual, Op.MAX)
                      .flatMapCompletable(r -> {
                        residual = r;
                        converged = rod.converged(steps, residual);
                        return converged ? Completable.complete()
                            : win[0].post(neighbors, Mode.NOCHECK, Mode.NOPUT);
                      })
                      .andThen(win[1].complete());
                }))));
          }))
          .andThen(win[1].waitFor())
          .andThen(Completable.fromAction(() -> takeSecondPoints(1)));
    });
  }

  /**
   * update2(A[to], A[from]) for step k = steps + 1: the ghosts step to u^(k-1) (A[to] still holds
   * u^(k-2)), then the boundary points of u^k. Returns their max |new - old|.
   */
  private double update2(int to, int from) {
    BytesStore<?, ?> anew = a[to];
    BytesStore<?, ?> aold = a[from];
    if (steps >= 1) { // before the first step the ghosts hold u^0 already
      if (rod.left != Comm.PROC_NULL) {
        hL = HeatRod.relax(gL, hL, HeatRod.load(anew, 0));
      }
      if (rod.right != Comm.PROC_NULL) {
        hR = HeatRod.relax(HeatRod.load(anew, n - 1), hR, gR);
      }
    }
    double c0 = HeatRod.load(aold, 0);
    double v0 = HeatRod.relax(hL, c0, HeatRod.load(aold, 1));
    double cn = HeatRod.load(aold, n - 1);
    double vn = HeatRod.relax(HeatRod.load(aold, n - 2), cn, hR);
    HeatRod.store(anew, 0, v0);
    HeatRod.store(anew, n - 1, vn);
    return Math.max(Math.abs(v0 - c0), Math.abs(vn - cn));
  }

  /** update1(A[to]): the core points 2..n-1 of u^k from A[from]. Returns their max |new - old|. */
  private double update1(int to, int from) {
    return HeatRod.relax(a[from], 0, a[to], 0, 1, n - 2);
  }

  /** The gets of one half: the neighbours' second points of A[w] into tobuf[w] (PROC_NULL: no-op). */
  private Completable getSecondPoints(int w) {
    return Completable.mergeArray(
        win[w].get(Buf.of(tobuf[w]), 0, 1, Datatype.DOUBLE, rod.left, n - 2),
        win[w].get(Buf.of(tobuf[w]), 1, 1, Datatype.DOUBLE, rod.right, 1));
  }

  /** After the wait: what the gets brought, for the next update2. */
  private void takeSecondPoints(int w) {
    gL = tobuf[w][0];
    gR = tobuf[w][1];
  }
}
