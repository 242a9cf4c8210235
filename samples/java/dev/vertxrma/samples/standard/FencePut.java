// Follows the MPI standard's "generic loosely synchronous, iterative code, using fence
// synchronization" (MPI-2.2 Example 11.6; MPI-5.0 section 13.8, first example):
//
//     while (!converged(A)) {
//       update(A);
//       MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
//       for (i = 0; i < toneighbors; i++)
//         MPI_Put(&frombuf[i], 1, fromtype[i], toneighbor[i], todisp[i], 1, totype[i], win);
//       MPI_Win_fence((MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED), win);
//     }
//
// The computation is the Jacobi heat-diffusion step of HeatRod. The window holds array A: the
// rank's block of the rod in two time levels with a halo cell at each end (HeatRod's two-plane
// layout). update(A) computes the new plane from the old one; the puts then send the new plane's
// first point into the left neighbour's right halo and its last point into the right
// neighbour's left halo. The origin buffers of the puts are in the window itself, as in the
// text: each window is read (origin of puts) and written (halo targets) in the same epoch, on
// disjoint locations. NOPRECEDE: no RMA call precedes the first fence (the previous epoch was
// closed by NOSUCCEED); NOSTORE: no local store between the two fences; NOSUCCEED: no RMA call
// follows until the next iteration's fence. At the ends of the rod the neighbour is PROC_NULL
// and the put is a no-op.
//
// Usage: rmarun -np N fence-put [points-per-rank [tolerance [max-iters]]]   (any N >= 1)
package dev.vertxrma.samples.standard;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/** MPI Example 11.6: a fence-synchronized iteration whose halo exchange is done with put. */
public final class FencePut extends RankVerticle {

  private Comm world;
  private HeatRod rod;
  private Win win;
  /** The window's memory: array A. */
  private BytesStore<?, ?> a;
  /** This rank's max |new - old| of the last update. */
  private double localResidual;
  /** The rod's residual of the last update, the same on every rank. */
  private double residual = Double.NaN;
  /** Steps done so far. */
  private int steps;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    this.world = world;
    try {
      rod = HeatRod.parse("fence-put", world, args, 1);
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
    return Win.allocate(world, rod.planesBytes(), Double.BYTES, Info.of(Info.NO_LOCKS, "true"))
        .compose(w -> {
          win = w;
          a = w.memory();
          rod.initPlanes(a);
          return HeatRod.loop(this::iterate);
        })
        .compose(v -> rod.verify(world, Buf.of(a), rod.byteAt(plane(), 1), steps, residual, 1, () -> win.free()));
  }

  /** The plane holding the current iterate. */
  private int plane() {
    return steps % 2;
  }

  /** One pass of {@code while (!converged(A)) { ... }}; completes with false once converged. */
  private Future<Boolean> iterate(int k) {
    Future<Double> rodResidual = k == 0 ? Future.succeededFuture(Double.NaN) : world.allreduce(localResidual, Op.MAX);
    return rodResidual.compose(res -> {
      residual = res;
      if (rod.converged(steps, residual)) {
        return Future.succeededFuture(false);
      }
      int p = plane();
      int q = 1 - p;
      int n = rod.n;
      // update(A)
      localResidual = rod.relaxPlanes(a, p, q, 1, n);
      return win.fence(Mode.NOPRECEDE).compose(v -> {
        // my first point -> left neighbour's right halo; my last point -> right neighbour's left halo
        Future<Void> toLeft = win.put(Buf.of(a), rod.byteAt(q, 1), 1, Datatype.DOUBLE, rod.left,
            rod.slot(q, n + 1));
        Future<Void> toRight = win.put(Buf.of(a), rod.byteAt(q, n), 1, Datatype.DOUBLE, rod.right,
            rod.slot(q, 0));
        Future<Void> fence = win.fence(Mode.NOSTORE, Mode.NOSUCCEED);
        return Future.all(toLeft, toRight, fence);
      }).map(v -> {
        steps++;
        return true;
      });
    });
  }
}
