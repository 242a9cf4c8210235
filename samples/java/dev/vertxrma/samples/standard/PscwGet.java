// Follows the MPI standard's "same example, with post-start-complete-wait, as in Example 11.7"
// (MPI-2.2 Example 11.9; MPI-5.0 section 13.8, fourth example):
//
//     while (!converged(A)) {
//       update_boundary(A);
//       MPI_Win_post(togroup, MPI_MODE_NOPUT, win);
//       MPI_Win_start(fromgroup, 0, win);
//       for (i = 0; i < fromneighbors; i++)
//         MPI_Get(&tobuf[i], 1, totype[i], fromneighbor[i], fromdisp[i], 1, fromtype[i], win);
//       update_core(A);
//       MPI_Win_complete(win);
//       MPI_Win_wait(win);
//     }
//
// The computation and the window are those of fence-get (FenceGet): HeatRod's Jacobi step on a
// window of two time levels with halo cells. update_boundary computes the new plane's first and
// last points, which the neighbours get; the gets fetch the left neighbour's new last point and
// the right neighbour's new first point into tobuf (a separate double[2]) while update_core
// computes the new points 2..n-1 from the old plane -- they touch disjoint locations. After
// complete the gets are done at this origin and tobuf is stored into the new plane's halo;
// wait returns once both neighbours have finished getting from this window, so the next
// update_boundary may overwrite what they read. togroup (the ranks that get from this window)
// and fromgroup (the ranks this rank gets from) are both the actual neighbours: one at each
// end of the rod, two elsewhere, none with a single rank (then every epoch is empty). NOPUT:
// the exposed window is only read.
//
// Usage: rmarun -np N pscw-get [points-per-rank [tolerance [max-iters]]]   (any N >= 1)
package dev.vertxrma.samples.standard;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/** MPI Example 11.9: the get halo exchange of Example 11.7 with post/start/complete/wait. */
public final class PscwGet extends RankVerticle {

  private Comm world;
  private HeatRod rod;
  private Win win;
  /** The window's memory: array A. */
  private BytesStore<?, ?> a;
  /** The ranks that get from this window, and the ranks this rank gets from: the neighbours. */
  private Group togroup;
  private Group fromgroup;
  /** The origin buffer of the gets: [0] from the left neighbour, [1] from the right one. */
  private final double[] tobuf = new double[2];
  /** This rank's max |new - old| of the last update. */
  private double localResidual;
  /** The rod's residual of the last update, the same on every rank. */
  private double residual = Double.NaN;
  /** Steps done so far; the current iterate is in plane steps % 2. */
  private int steps;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    this.world = world;
    try {
      rod = HeatRod.parse("pscw-get", world, args, 1);
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
    togroup = rod.neighbours;
    fromgroup = rod.neighbours;
    return Win.allocate(world, rod.planesBytes(), Double.BYTES, Info.of(Info.NO_LOCKS, "true"))
        .compose(w -> {
          win = w;
          a = w.memory();
          rod.initPlanes(a);
          return HeatRod.loop(this::iterate);
        })
        .compose(v -> rod.verify(world, Buf.of(a), rod.byteAt(steps % 2, 1), steps, residual, 1, () -> win.free()));
  }

  /** One pass of {@code while (!converged(A)) { ... }}; completes with false once converged. */
  private Future<Boolean> iterate(int k) {
    Future<Double> rodResidual = k == 0 ? Future.succeededFuture(Double.NaN) : world.allreduce(localResidual, Op.MAX);
    return rodResidual.compose(res -> {
      residual = res;
      if (rod.converged(steps, residual)) {
        return Future.succeededFuture(false);
      }
      int p = steps % 2;
      int q = 1 - p;
      int n = rod.n;
      // update_boundary(A): points 1 and n of the new plane (one point if n == 1)
      localResidual = rod.relaxPlanes(a, p, q, 1, 1);
      if (n > 1) {
        localResidual = Math.max(localResidual, rod.relaxPlanes(a, p, q, n, n));
      }
      return win.post(togroup, Mode.NOPUT)
          .compose(v -> win.start(fromgroup))
          .compose(v -> {
            // the left neighbour's new last point and the right neighbour's new first point
            Future<Void> fromLeft = win.get(Buf.of(tobuf), 0, 1, Datatype.DOUBLE, rod.left, rod.slot(q, n));
            Future<Void> fromRight = win.get(Buf.of(tobuf), 1, 1, Datatype.DOUBLE, rod.right, rod.slot(q, 1));
            // update_core(A): points 2..n-1, concurrently with the gets
            localResidual = Math.max(localResidual, rod.relaxPlanes(a, p, q, 2, n - 1));
            Future<Void> complete = win.complete();
            return Future.all(fromLeft, fromRight, complete);
          })
          .compose(v -> win.waitFor())
          .map(v -> {
            // the gets are complete: tobuf holds the new plane's halo
            if (rod.left != Comm.PROC_NULL) {
              HeatRod.store(a, rod.slot(q, 0), tobuf[0]);
            }
            if (rod.right != Comm.PROC_NULL) {
              HeatRod.store(a, rod.slot(q, n + 1), tobuf[1]);
            }
            steps++;
            return true;
          });
    });
  }
}
