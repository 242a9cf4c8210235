// Follows the MPI standard's "checkerboard, or double buffer communication pattern" (MPI-2.2
// Example 11.10; MPI-5.0 section 13.8, Example "Double buffer in RMA"), with its structure and
// assertions unchanged:
//
//     if (!converged(A0, A1))
//       MPI_Win_post(neighbors, (MPI_MODE_NOCHECK | MPI_MODE_NOPUT), win0);
//     MPI_Barrier(comm0);
//     while (!converged(A0, A1)) {
//       /* communication on A0 and computation on A1 */
//       update2(A1, A0);
//       MPI_Win_start(neighbors, MPI_MODE_NOCHECK, win0);
//       for (i = 0; i < fromneighbors; i++)
//         MPI_Get(&tobuf0[i], 1, totype0[i], neighbor[i], fromdisp0[i], 1, fromtype0[i], win0);
//       update1(A1);
//       MPI_Win_post(neighbors, (MPI_MODE_NOCHECK | MPI_MODE_NOPUT), win1);
//       MPI_Win_complete(win0);
//       MPI_Win_wait(win0);
//       /* communication on A1 and computation on A0 */
//       update2(A0, A1);
//       MPI_Win_start(neighbors, MPI_MODE_NOCHECK, win1);
//       for (i = 0; i < fromneighbors; i++)
//         MPI_Get(&tobuf1[i], 1, totype1[i], neighbor[i], fromdisp1[i], 1, fromtype1[i], win1);
//       update1(A0);
//       if (!converged(A0, A1))
//         MPI_Win_post(neighbors, (MPI_MODE_NOCHECK | MPI_MODE_NOPUT), win0);
//       MPI_Win_complete(win1);
//       MPI_Win_wait(win1);
//     }
//
// The computation is HeatRod's Jacobi heat-diffusion step, double-buffered: window win0 is array
// A0, window win1 is array A1, each the rank's n >= 2 points of the rod (no halo in the window).
// A0 holds the even iterates u^0, u^2, ..., A1 the odd ones: the first half of the loop computes
// u^(2m+1) into A1 from A0, the second u^(2m+2) into A0 from A1. converged(A0, A1) is the rod's
// max |A0 - A1| (allreduce MAX) after the second half, i.e. the residual of the step just done,
// below the tolerance (or max-iters reached): the same decision on every rank, so posts and
// starts always match. Steps are done in pairs, so the test comes every second step.
//
// The communication: each exposed array is final when it is posted (NOPUT: neighbours only get
// from it) and stays untouched until the matching wait, and data a rank gets in one half arrives
// only at the end of that half. The update that needs the neighbours' points of an iterate runs
// *before* the gets of its half, so a halo of width one cannot be fetched in time. Instead each
// rank carries a ghost copy of each neighbour's boundary point (hL = the left neighbour's last
// point, hR = the right neighbour's first point) and advances it itself, one step late, with
// the same stencil -- which needs the neighbour's *second* point (its n-1-th, resp. 2nd), an
// interior point final when posted. The gets fetch exactly that point into tobuf: in half k
// (computing u^k) they read the neighbours' u^(k-1) from the window being read, and the value
// is used at the start of half k+1. The ghost is computed from the same operands in the same
// order as the neighbour computes the point itself, so it is bit-identical to it.
//
//   update2(Anew, Aold) -- "local update of Anew that depends on Aold (and Anew)": first the
//       ghosts step from u^(k-2) to u^(k-1), using the fetched second points and Anew's own
//       boundary points, which still hold u^(k-2) (the "and Anew"); then Anew's boundary points
//       (first and last), whose stencils reach into the ghosts, from Aold.
//   update1(Anew) -- "local update concurrent with the communication": Anew's core points
//       2..n-1, whose stencils lie inside this rank's part of Aold. It reads no communicated
//       data, and neither it nor update2 touches what the concurrent gets access (the
//       neighbours' exposed Aold and this rank's tobuf).
//
// The ends of the rod have one neighbour (the ghost there is the fixed end temperature), a
// single rank none: then the groups are empty and every epoch is trivial.
//
// Usage: rmarun -np N double-buffer [points-per-rank (>= 2) [tolerance [max-iters]]]   (any N >= 1)
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

/** MPI Example 11.10: double-buffered Jacobi iteration with two windows, NOCHECK and a barrier. */
public final class DoubleBuffer extends RankVerticle {

  private Comm world;
  private HeatRod rod;
  private int n;
  /** win[0] = win0, win[1] = win1. */
  private final Win[] win = new Win[2];
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
    this.world = world;
    try {
      rod = HeatRod.parse("double-buffer", world, args, 2);
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
    n = rod.n;
    neighbors = rod.neighbours;
    Info info = Info.of(Info.NO_LOCKS, "true");
    long bytes = (long) n * Double.BYTES;
    return Win.allocate(world, bytes, Double.BYTES, info)
        .compose(w0 -> {
          win[0] = w0;
          a[0] = w0.memory();
          return Win.allocate(world, bytes, Double.BYTES, info);
        })
        .compose(w1 -> {
          win[1] = w1;
          a[1] = w1.memory();
          for (int i = 0; i < n; i++) {
            HeatRod.store(a[0], i, rod.initial(rod.first + i)); // u^0; A1 starts zeroed, written before read
          }
          hL = rod.initial(rod.first - 1); // u^0 of the neighbours' boundary points (or the end temperatures)
          hR = rod.initial(rod.first + n);
          converged = rod.converged(steps, residual);
          Future<Void> posted = converged ? Future.succeededFuture()
              : win[0].post(neighbors, Mode.NOCHECK, Mode.NOPUT);
          // the barrier is needed because the start call inside the loop uses the nocheck option
          return posted.compose(v -> world.barrier());
        })
        .compose(v -> HeatRod.loop(this::iterate))
        .compose(v -> rod.verify(world, Buf.of(a[0]), 0, steps, residual, 2,
            () -> win[0].free().compose(v2 -> win[1].free())));
  }

  /** One pass of {@code while (!converged(A0, A1)) { ... }}: two steps; completes with false once converged. */
  private Future<Boolean> iterate(int k) {
    if (converged) {
      return Future.succeededFuture(false);
    }
    // communication on A0 and computation on A1
    update2(1, 0);
    return win[0].start(neighbors, Mode.NOCHECK)
        .compose(v -> {
          Future<Void> gets = getSecondPoints(0);
          update1(1, 0);
          steps++;
          return win[1].post(neighbors, Mode.NOCHECK, Mode.NOPUT)
              .compose(v2 -> Future.all(gets, win[0].complete()));
        })
        .compose(v -> win[0].waitFor())
        .compose(v -> {
          takeSecondPoints(0);
          // communication on A1 and computation on A0
          double local = update2(0, 1);
          return win[1].start(neighbors, Mode.NOCHECK).compose(v2 -> {
            Future<Void> gets = getSecondPoints(1);
            double localResidual = Math.max(local, update1(0, 1));
            steps++;
            // converged(A0, A1), the same on every rank
            Future<Void> posted = world.allreduce(localResidual, Op.MAX).compose(r -> {
              residual = r;
              converged = rod.converged(steps, residual);
              return converged ? Future.succeededFuture() : win[0].post(neighbors, Mode.NOCHECK, Mode.NOPUT);
            });
            return posted.compose(v3 -> Future.all(gets, win[1].complete()));
          });
        })
        .compose(v -> win[1].waitFor())
        .map(v -> {
          takeSecondPoints(1);
          return true;
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
  private Future<Void> getSecondPoints(int w) {
    Future<Void> fromLeft = win[w].get(Buf.of(tobuf[w]), 0, 1, Datatype.DOUBLE, rod.left, n - 2);
    Future<Void> fromRight = win[w].get(Buf.of(tobuf[w]), 1, 1, Datatype.DOUBLE, rod.right, 1);
    return Future.all(fromLeft, fromRight).mapEmpty();
  }

  /** After the wait: what the gets brought, for the next update2. */
  private void takeSecondPoints(int w) {
    gL = tobuf[w][0];
    gR = tobuf[w][1];
  }
}
