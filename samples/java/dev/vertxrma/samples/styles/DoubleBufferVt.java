// The MPI standard's double buffer example (see DoubleBuffer.java for the computation, the ghost
// points and why the gets fetch the neighbours' second points), written in MPI's own blocking
// style: each rank runs on a virtual thread and awaits each call where the C code calls it.
//
//     if (!converged(A0, A1))
//       MPI_Win_post(neighbors, (MPI_MODE_NOCHECK | MPI_MODE_NOPUT), win0);
//     MPI_Barrier(comm0);
//     while (!converged(A0, A1)) {
//       update2(A1, A0);
//       MPI_Win_start(neighbors, MPI_MODE_NOCHECK, win0);
//       for (i = 0; i < fromneighbors; i++)
//         MPI_Get(&tobuf0[i], 1, totype0[i], neighbor[i], fromdisp0[i], 1, fromtype0[i], win0);
//       update1(A1);
//       MPI_Win_post(neighbors, (MPI_MODE_NOCHECK | MPI_MODE_NOPUT), win1);
//       MPI_Win_complete(win0);
//       MPI_Win_wait(win0);
//       ... the same on win1 ...
//     }
//
// MPI_Get does not block: its future is kept and awaited after MPI_Win_complete, which is when
// MPI says the data has arrived.
//
// Usage: rmarun -np N --virtual-threads double-buffer-vt [points-per-rank (>= 2) [tolerance [max-iters]]]
// (needs Java 21 or newer; any N >= 1)
package dev.vertxrma.samples.styles;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.Win;
import dev.vertxrma.samples.standard.HeatRod;
import io.vertx.core.Future;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/** MPI Example 11.10 in the blocking style: double-buffered Jacobi iteration on virtual threads. */
public final class DoubleBufferVt extends RankVerticle {

  private HeatRod rod;
  private int n;
  private final Win[] win = new Win[2];
  private final BytesStore<?, ?>[] a = new BytesStore<?, ?>[2];
  private final double[][] tobuf = new double[2][2];
  private Group neighbors;
  private double hL;
  private double hR;
  private double gL;
  private double gR;
  private int steps;
  private double residual = Double.NaN;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    BlockingStyle.require("double-buffer-vt");
    rod = HeatRod.parse("double-buffer-vt", world, args, 2);
    n = rod.n;
    neighbors = rod.neighbours;
    Info info = Info.of(Info.NO_LOCKS, "true");
    long bytes = (long) n * Double.BYTES;
    win[0] = Win.allocate(world, bytes, Double.BYTES, info).await();
    win[1] = Win.allocate(world, bytes, Double.BYTES, info).await();
    a[0] = win[0].memory();
    a[1] = win[1].memory();
    for (int i = 0; i < n; i++) {
      HeatRod.store(a[0], i, rod.initial(rod.first + i));
    }
    hL = rod.initial(rod.first - 1);
    hR = rod.initial(rod.first + n);

    if (!rod.converged(steps, residual)) {
      win[0].post(neighbors, Mode.NOCHECK, Mode.NOPUT).await();
    }
    world.barrier().await();
    while (!rod.converged(steps, residual)) {
      // communication on A0 and computation on A1
      update2(1, 0);
      win[0].start(neighbors, Mode.NOCHECK).await();
      Future<Void> gets = getSecondPoints(0);
      update1(1, 0);
      steps++;
      win[1].post(neighbors, Mode.NOCHECK, Mode.NOPUT).await();
      win[0].complete().await();
      gets.await();
      win[0].waitFor().await();
      takeSecondPoints(0);
      // communication on A1 and computation on A0
      double local = update2(0, 1);
      win[1].start(neighbors, Mode.NOCHECK).await();
      gets = getSecondPoints(1);
      local = Math.max(local, update1(0, 1));
      steps++;
      residual = world.allreduce(local, Op.MAX).await(); // converged(A0, A1), the same on every rank
      if (!rod.converged(steps, residual)) {
        win[0].post(neighbors, Mode.NOCHECK, Mode.NOPUT).await();
      }
      win[1].complete().await();
      gets.await();
      win[1].waitFor().await();
      takeSecondPoints(1);
    }
    return rod.verify(world, Buf.of(a[0]), 0, steps, residual, 2,
        () -> win[0].free().compose(v -> win[1].free()));
  }

  /** update2(A[to], A[from]): the ghosts step, then the boundary points. Returns their max |new - old|. */
  private double update2(int to, int from) {
    BytesStore<?, ?> anew = a[to];
    BytesStore<?, ?> aold = a[from];
    if (steps >= 1) {
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

  /** update1(A[to]): the core points from A[from]. Returns their max |new - old|. */
  private double update1(int to, int from) {
    return HeatRod.relax(a[from], 0, a[to], 0, 1, n - 2);
  }

  /** The gets of one half (not awaited here: MPI_Get does not block). */
  private Future<Void> getSecondPoints(int w) {
    Future<Void> fromLeft = win[w].get(Buf.of(tobuf[w]), 0, 1, Datatype.DOUBLE, rod.left, n - 2);
    Future<Void> fromRight = win[w].get(Buf.of(tobuf[w]), 1, 1, Datatype.DOUBLE, rod.right, 1);
    return Future.all(fromLeft, fromRight).mapEmpty();
  }

  private void takeSecondPoints(int w) {
    gL = tobuf[w][0];
    gR = tobuf[w][1];
  }
}
