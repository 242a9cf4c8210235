// Follows the MPI standard's "same generic example, with more computation/communication overlap"
// (MPI-2.2 Example 11.7; MPI-5.0 section 13.8, second example):
//
//     while (!converged(A)) {
//       update_boundary(A);
//       MPI_Win_fence((MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE), win);
//       for (i = 0; i < fromneighbors; i++)
//         MPI_Get(&tobuf[i], 1, totype[i], fromneighbor[i], fromdisp[i], 1, fromtype[i], win);
//       update_core(A);
//       MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
//     }
//
// The computation is the Jacobi heat-diffusion step of HeatRod. The window holds array A: the
// rank's block of the rod in two time levels with a halo cell at each end (HeatRod's two-plane
// layout; the Jacobi step reads the old plane and writes the new one). update_boundary computes
// the new plane's first and last points -- the "boundary", which the neighbours get and which
// alone needs the halo. The gets then fetch the left neighbour's new last point and the right
// neighbour's new first point into tobuf (a separate double[2], the origin buffer of the gets),
// while update_core computes the new plane's points 2..n-1, which neither use nor provide
// communicated data: the gets read the neighbours' boundary and write tobuf, update_core reads
// the old plane and writes the new core, so they run concurrently without touching the same
// locations. After the closing fence the gets are complete and tobuf is stored into the new
// plane's halo cells. NOPUT: only gets access the window in the epoch; NOPRECEDE / NOSUCCEED:
// the epoch holds exactly the gets. At the ends of the rod the neighbour is PROC_NULL and the
// get is a no-op (the halo there keeps the end temperature).
//
// Usage: rmarun -np N fence-get [points-per-rank [tolerance [max-iters]]]   (any N >= 1)
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

/** MPI Example 11.7: fence synchronization, halo exchange by get overlapped with the core update. */
public final class FenceGet extends RankVerticle {

  private Comm world;
  private HeatRod rod;
  private Win win;
  /** The window's memory: array A. */
  private BytesStore<?, ?> a;
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
      rod = HeatRod.parse("fence-get", world, args, 1);
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
      return win.fence(Mode.NOPUT, Mode.NOPRECEDE).compose(v -> {
        // the left neighbour's new last point and the right neighbour's new first point
        Future<Void> fromLeft = win.get(Buf.of(tobuf), 0, 1, Datatype.DOUBLE, rod.left, rod.slot(q, n));
        Future<Void> fromRight = win.get(Buf.of(tobuf), 1, 1, Datatype.DOUBLE, rod.right, rod.slot(q, 1));
        // update_core(A): points 2..n-1, concurrently with the gets
        localResidual = Math.max(localResidual, rod.relaxPlanes(a, p, q, 2, n - 1));
        Future<Void> fence = win.fence(Mode.NOSUCCEED);
        return Future.all(fromLeft, fromRight, fence);
      }).map(v -> {
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
