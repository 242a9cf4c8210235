// Follows the MPI standard's "same code as in Example 11.6, rewritten using
// post-start-complete-wait" (MPI-2.2 Example 11.8; MPI-5.0 section 13.8, third example):
//
//     while (!converged(A)) {
//       update(A);
//       MPI_Win_post(fromgroup, 0, win);
//       MPI_Win_start(togroup, 0, win);
//       for (i = 0; i < toneighbors; i++)
//         MPI_Put(&frombuf[i], 1, fromtype[i], toneighbor[i], todisp[i], 1, totype[i], win);
//       MPI_Win_complete(win);
//       MPI_Win_wait(win);
//     }
//
// The computation and the window are those of fence-put (FencePut): HeatRod's Jacobi step on a
// window of two time levels with halo cells; update(A) computes the new plane, the puts send its
// first point into the left neighbour's right halo and its last point into the right
// neighbour's left halo. Instead of two collective fences, only the neighbours synchronize:
// fromgroup (the ranks that put into this window) and togroup (the ranks this rank puts into)
// are both the actual neighbours -- one at each end of the rod, two elsewhere, none with a
// single rank, where every epoch is empty and post/start/complete/wait complete at once. start
// waits for the neighbours' posts, so no put reaches a neighbour before it has finished reading
// its halo in update(A); wait returns once both neighbours have completed their puts here.
//
// Usage: rmarun -np N pscw-put [points-per-rank [tolerance [max-iters]]]   (any N >= 1)
package dev.vertxrma.samples.standard;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/** MPI Example 11.8: the put halo exchange of Example 11.6 with post/start/complete/wait. */
public final class PscwPut extends RankVerticle {

  private Comm world;
  private HeatRod rod;
  private Win win;
  /** The window's memory: array A. */
  private BytesStore<?, ?> a;
  /** The ranks that put into this window, and the ranks this rank puts into: the neighbours. */
  private Group fromgroup;
  private Group togroup;
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
      rod = HeatRod.parse("pscw-put", world, args, 1);
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
    fromgroup = rod.neighbours;
    togroup = rod.neighbours;
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
      // update(A)
      localResidual = rod.relaxPlanes(a, p, q, 1, n);
      return win.post(fromgroup)
          .compose(v -> win.start(togroup))
          .compose(v -> {
            // my first point -> left neighbour's right halo; my last point -> right neighbour's left halo
            Future<Void> toLeft = win.put(Buf.of(a), rod.byteAt(q, 1), 1, Datatype.DOUBLE, rod.left, rod.slot(q, n + 1));
            Future<Void> toRight = win.put(Buf.of(a), rod.byteAt(q, n), 1, Datatype.DOUBLE, rod.right, rod.slot(q, 0));
            Future<Void> complete = win.complete();
            return Future.all(toLeft, toRight, complete);
          })
          .compose(v -> win.waitFor())
          .map(v -> {
            steps++;
            return true;
          });
    });
  }
}
