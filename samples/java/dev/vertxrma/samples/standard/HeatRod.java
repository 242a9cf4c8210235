// The problem shared by the one-sided halo-exchange samples (fence-put, fence-get, pscw-put,
// pscw-get, double-buffer), which follow the examples of the MPI standard's one-sided chapter
// (MPI-2.2 section 11.5, Examples 11.6-11.10; MPI-5.0 section 13.8): heat diffusion in a 1-D rod.
//
// The rod has N = ranks x n interior points, global index g = 0..N-1, and two fixed end
// temperatures (g = -1 and g = N). Rank r owns the block g = r*n .. r*n+n-1. One explicit
// (Jacobi) step computes every interior point from the previous iterate only:
//
//     u'[g] = u[g] + ALPHA * (u[g-1] - 2 u[g] + u[g+1])
//
// The iteration stops when converged: the residual max |u' - u| over the whole rod (combined
// with allreduce(MAX)) is below the tolerance, or after max-iters steps. Every sample checks its
// result against the same iteration run sequentially over the whole rod by rank 0: since every
// point is computed by the same expression from the same operands, and MAX is exact, the
// parallel and sequential runs must agree bit for bit (points, number of steps and residual).
//
// Usage of every sample: rmarun -np N NAME [points-per-rank [tolerance [max-iters]]]
//                        (defaults 8 2e-4 2000)
package dev.vertxrma.samples.standard;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.RmaException;
import dev.vertxrma.samples.Spin;
import io.vertx.core.Future;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.BytesStore;

/** A 1-D heat-conducting rod split into equal blocks over the ranks, its Jacobi step and its sequential reference. */
public final class HeatRod {

  /** Temperature held at the left end (g = -1). */
  static final double LEFT_END = 1.0;
  /** Temperature held at the right end (g = N). */
  static final double RIGHT_END = 0.5;
  /** The diffusion number alpha*dt/dx^2 of the explicit step (stable up to 1/2). */
  static final double ALPHA = 0.4;

  static final int DEFAULT_POINTS = 8;
  static final double DEFAULT_TOLERANCE = 2e-4;
  static final int DEFAULT_MAX_ITERS = 2000;

  /** The sample's name, for messages. */
  final String name;
  final int ranks;
  final int rank;
  /** Interior points per rank. */
  public final int n;
  /** Interior points of the whole rod. */
  final int total;
  /** Global index of this rank's first point. */
  public final int first;
  final double tolerance;
  final int maxIters;
  /** The left neighbour's rank, or {@link Comm#PROC_NULL} at the left end of the rod. */
  public final int left;
  /** The right neighbour's rank, or {@link Comm#PROC_NULL} at the right end of the rod. */
  public final int right;
  /** The neighbours (0, 1 or 2 ranks) as a group, for post and start. */
  public final Group neighbours;

  private HeatRod(String name, Comm world, int n, double tolerance, int maxIters) {
    this.name = name;
    this.ranks = world.size();
    this.rank = world.rank();
    this.n = n;
    this.total = ranks * n;
    this.first = rank * n;
    this.tolerance = tolerance;
    this.maxIters = maxIters;
    this.left = rank > 0 ? rank - 1 : Comm.PROC_NULL;
    this.right = rank < ranks - 1 ? rank + 1 : Comm.PROC_NULL;
    if (left != Comm.PROC_NULL && right != Comm.PROC_NULL) {
      neighbours = Group.of(rank, left, right);
    } else if (left != Comm.PROC_NULL) {
      neighbours = Group.of(rank, left);
    } else if (right != Comm.PROC_NULL) {
      neighbours = Group.of(rank, right);
    } else {
      neighbours = Group.of(rank);
    }
  }

  /**
   * Parses {@code [points-per-rank [tolerance [max-iters]]]}; throws {@link ErrorClass#ARG} on bad
   * arguments or fewer than {@code minPoints} points per rank.
   */
  public static HeatRod parse(String name, Comm world, List<String> args, int minPoints) {
    String usage = name + ": usage " + name + " [points-per-rank (>= " + minPoints + ") [tolerance (>= 0) "
        + "[max-iters (>= 0)]]], got " + args;
    if (args.size() > 3) {
      throw new RmaException(ErrorClass.ARG, usage);
    }
    int n;
    double tolerance;
    int maxIters;
    try {
      n = args.size() > 0 ? Integer.parseInt(args.get(0)) : Math.max(DEFAULT_POINTS, minPoints);
      tolerance = args.size() > 1 ? Double.parseDouble(args.get(1)) : DEFAULT_TOLERANCE;
      maxIters = args.size() > 2 ? Integer.parseInt(args.get(2)) : DEFAULT_MAX_ITERS;
    } catch (NumberFormatException e) {
      throw new RmaException(ErrorClass.ARG, usage);
    }
    if (n < minPoints || (long) n * world.size() > Integer.MAX_VALUE / 4 || !(tolerance >= 0)
        || Double.isInfinite(tolerance) || maxIters < 0) {
      throw new RmaException(ErrorClass.ARG, usage);
    }
    return new HeatRod(name, world, n, tolerance, maxIters);
  }

  // ------------------------------------------------------------------ the stencil

  /** The initial temperature at global index {@code g} in [-1, N]: the fixed ends, a rough profile inside. */
  public double initial(int g) {
    if (g < 0) {
      return LEFT_END;
    }
    if (g >= total) {
      return RIGHT_END;
    }
    return ((37 * g) % 11) / 10.0;
  }

  /** One explicit step at one point. The only place the parallel and sequential runs compute a value. */
  public static double relax(double left, double centre, double right) {
    return centre + ALPHA * (left - 2 * centre + right);
  }

  /** Load of element {@code slot} (a double index) of a Chronicle store. */
  public static double load(BytesStore<?, ?> m, long slot) {
    return m.readDouble(slot * Double.BYTES);
  }

  /** Store of element {@code slot} (a double index) of a Chronicle store. */
  public static void store(BytesStore<?, ?> m, long slot, double v) {
    m.writeDouble(slot * Double.BYTES, v);
  }

  /**
   * {@code to[toBase+i] = relax(from[fromBase+i-1], from[fromBase+i], from[fromBase+i+1])} for
   * {@code i = firstI..lastI} (an empty range if lastI < firstI); returns max |new - old| over them.
   */
  public static double relax(BytesStore<?, ?> from, long fromBase, BytesStore<?, ?> to, long toBase, int firstI,
      int lastI) {
    double residual = 0;
    for (int i = firstI; i <= lastI; i++) {
      double c = load(from, fromBase + i);
      double v = relax(load(from, fromBase + i - 1), c, load(from, fromBase + i + 1));
      store(to, toBase + i, v);
      residual = Math.max(residual, Math.abs(v - c));
    }
    return residual;
  }

  // ------------------------------------------------------------------ the two-plane window layout

  /*
   * The put/get samples keep the rod in one window of two time levels ("planes"), each n + 2
   * doubles: element 0 is the left halo (a copy of the left neighbour's last point, or the left
   * end temperature), 1..n the interior, n + 1 the right halo. Step k reads plane k % 2 and
   * writes plane (k + 1) % 2: a Jacobi step needs the previous iterate intact while the new one
   * is computed, and the two planes make that so without copying.
   */

  /** Element index (displacement, unit 8) of point {@code i} (0..n+1) of plane {@code plane} (0 or 1). */
  long slot(int plane, int i) {
    return (long) plane * (n + 2) + i;
  }

  /** Byte offset in the window memory of point {@code i} of plane {@code plane}: an origin offset for put/gather. */
  int byteAt(int plane, int i) {
    return Math.toIntExact(slot(plane, i) * Double.BYTES);
  }

  /** Bytes of the two-plane window. */
  long planesBytes() {
    return 2L * (n + 2) * Double.BYTES;
  }

  /** Plane 0 := the initial rod (halos included); the end temperatures into both planes' outer halos. */
  void initPlanes(BytesStore<?, ?> m) {
    for (int i = 0; i <= n + 1; i++) {
      store(m, slot(0, i), initial(first + i - 1));
    }
    if (left == Comm.PROC_NULL) {
      store(m, slot(1, 0), LEFT_END);
    }
    if (right == Comm.PROC_NULL) {
      store(m, slot(1, n + 1), RIGHT_END);
    }
  }

  /** Relaxes interior points {@code firstI..lastI} from plane {@code from} into plane {@code to}; the residual. */
  double relaxPlanes(BytesStore<?, ?> m, int from, int to, int firstI, int lastI) {
    return relax(m, slot(from, 0), m, slot(to, 0), firstI, lastI);
  }

  // ------------------------------------------------------------------ iteration

  /** The stopping rule, tested after {@code steps} steps whose last residual was {@code residual}. */
  public boolean converged(int steps, double residual) {
    return steps >= maxIters || (steps > 0 && residual < tolerance);
  }

  /**
   * {@code while (pass(k)) k++}: runs the passes k = 0, 1, ... one after another (a
   * {@link Spin#until} loop: one event-loop task per pass) until one completes with {@code false}
   * or fails.
   */
  static Future<Void> loop(IntFunction<Future<Boolean>> pass) {
    int[] k = {0};
    return Spin.until(() -> pass.apply(k[0]++).map(more -> !more));
  }

  // ------------------------------------------------------------------ verification

  /**
   * Gathers every rank's n final points ({@code block} at {@code offset}: a double[] with an
   * element offset or a BytesStore with a byte offset) to rank 0, runs {@code free} (every rank;
   * the windows may be freed once the data is gathered), then has rank 0 run the sequential
   * reference with the same stopping rule, tested every {@code checkEvery} steps, and compare
   * steps, residual and every point exactly. Rank 0 prints the {@code verified} line, or fails
   * with {@link ErrorClass#OTHER} naming the first difference.
   */
  public Future<Void> verify(Comm world, Buf block, int offset, int steps, double residual, int checkEvery,
      Supplier<Future<?>> free) {
    double[] all = rank == 0 ? new double[total] : new double[0];
    return world.gather(block, offset, n, Datatype.DOUBLE, Buf.of(all), 0, n, Datatype.DOUBLE, 0)
        .compose(v -> free.get())
        .compose(v -> rank == 0 ? compare(all, steps, residual, checkEvery) : Future.succeededFuture());
  }

  private Future<Void> compare(double[] all, int steps, double residual, int checkEvery) {
    // the sequential reference: the same steps over the whole rod, in one array pair
    double[] u = new double[total + 2];
    double[] w = new double[total + 2];
    for (int g = -1; g <= total; g++) {
      u[g + 1] = initial(g);
    }
    w[0] = u[0];
    w[total + 1] = u[total + 1];
    int k = 0;
    double res = Double.NaN;
    while (!(k % checkEvery == 0 && converged(k, res))) {
      res = 0;
      for (int i = 1; i <= total; i++) {
        w[i] = relax(u[i - 1], u[i], u[i + 1]);
        res = Math.max(res, Math.abs(w[i] - u[i]));
      }
      double[] t = u;
      u = w;
      w = t;
      k++;
    }
    if (k != steps) {
      return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "%s: the parallel run stopped after %d steps "
          + "(residual %s), the sequential one after %d steps (residual %s)", name, steps, residual, k, res));
    }
    for (int g = 0; g < total; g++) {
      if (Double.doubleToLongBits(all[g]) != Double.doubleToLongBits(u[g + 1])) {
        return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "%s: point %d (rank %d, local point %d) after "
            + "%d steps is %s in the parallel run but %s in the sequential one", name, g, g / n, g % n, steps, all[g],
            u[g + 1]));
      }
    }
    if (Double.doubleToLongBits(res) != Double.doubleToLongBits(residual)) {
      return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "%s: after %d steps the parallel residual is %s "
          + "but the sequential one %s", name, steps, residual, res));
    }
    String why = steps > 0 && residual < tolerance
        ? String.format("residual %.3e < tolerance %.3e", residual, tolerance)
        : String.format("stopped at max-iters %d, residual %.3e", maxIters, residual);
    System.out.printf("%s: verified %d ranks x %d points, %d iterations, %s (bit-identical to the sequential "
        + "run)%n", name, ranks, n, steps, why);
    return Future.succeededFuture();
  }
}
