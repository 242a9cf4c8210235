// Follows "The Twisted Decomposition", RS/6000 SP: Practical MPI Programming, section 3.5.7:
// the two sweeps
//
//     ! Loop A                               ! Loop B
//     DO j = 1, my                           DO j = 1, my
//       DO i = 1, mx                           DO i = 1, mx
//         x(i,j) = x(i,j) + x(i-1,j)             x(i,j) = x(i,j) + x(i,j-1)
//
// parallelized by cutting rows 1..mx and columns 1..my into nprocs blocks each (para_range) and
// giving every rank one block in each block row and each block column, so that all ranks compute
// from the start. Loop A walks the block rows ix = 0..nprocs-1, receiving the halo row from inext
// and sending its last row to iprev; Loop B walks the block columns iy = 0..nprocs-1, receiving
// the halo column from iprev and sending its last column to inext. The book's text states the
// rule as "block (I, J) is assigned to process (I - J + nprocs) modulo nprocs"; its code
// (iy = MOD(ix + myrank, nprocs) in Loop A, ix = MOD(iy + nprocs - myrank, nprocs) in Loop B)
// computes block (ix, iy) -- ix the block of rows i, iy the block of columns j -- on rank
// (iy - ix + nprocs) mod nprocs, i.e. I is the column block iy and J the row block ix. This
// program follows the code.
//
// Layout: x(0:mx, 0:my) is stored column-major like the Fortran array, x(i,j) at i + j*(mx+1), so
// a piece of a column, x(ista:iend, j), is contiguous: Loop B receives its halo straight into x
// and sends straight from x, as the book does; Loop A packs rows into bufs / unpacks bufr.
// Element type: double holding small integers (the book uses REAL): every sum of Loop A and Loop B
// is an integer far below 2^53, so the parallel result must equal the sequential one exactly.
//
// Usage: rmarun -np N twisted [mx [my]]    (defaults 60 60, my = mx if only mx is given; any N >= 1)
package dev.vertxrma.samples.standard;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.samples.Spin;
import io.vertx.core.Future;
import java.util.List;

/** The twisted decomposition of two dependent sweeps (Practical MPI Programming, 3.5.7). */
public final class Twisted extends RankVerticle {

  /**
   * The book's single tag. Safe: Loop A only receives from inext and Loop B only from iprev; when
   * they are the same rank (nprocs = 2), non-overtaking delivers that rank's Loop A message before
   * its Loop B messages, and Loop A's receive is posted (and matched) first.
   */
  private static final int TAG = 1;

  private Comm world;
  private int mx;
  private int my;
  private int nprocs;
  private int myrank;
  private int inext;
  private int iprev;
  private int[] is;
  private int[] ie;
  private int[] js;
  private int[] je;
  /** x(0:mx, 0:my), column-major. */
  private double[] x;
  /** Row pieces of Loop A, indexed by j like the book's bufs(m), bufr(m). */
  private double[] bufs;
  private double[] bufr;
  /** The outstanding isend (the book's ireqs); waited before bufs or x is written again. */
  private Future<Void> ireqs = Future.succeededFuture();

  @Override
  public Future<?> run(Comm world, List<String> args) {
    this.world = world;
    try {
      mx = args.size() > 0 ? Integer.parseInt(args.get(0)) : 60;
      my = args.size() > 1 ? Integer.parseInt(args.get(1)) : mx;
    } catch (NumberFormatException e) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "twisted: arguments are mx my (integers), got %s",
          args));
    }
    if (args.size() > 2 || mx < 1 || my < 1 || (long) (mx + 1) * (my + 1) > Integer.MAX_VALUE - 8) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "twisted: usage twisted [mx my] with mx, my >= 1 and (mx+1)*(my+1) fitting an array; got %s", args));
    }
    nprocs = world.size();
    myrank = world.rank();
    is = new int[nprocs];
    ie = new int[nprocs];
    js = new int[nprocs];
    je = new int[nprocs];
    for (int ix = 0; ix < nprocs; ix++) {
      int[] r = paraRange(1, mx, nprocs, ix);
      is[ix] = r[0];
      ie[ix] = r[1];
      r = paraRange(1, my, nprocs, ix);
      js[ix] = r[0];
      je[ix] = r[1];
    }
    inext = myrank + 1;
    if (inext == nprocs) {
      inext = 0;
    }
    iprev = myrank - 1;
    if (iprev == -1) {
      iprev = nprocs - 1;
    }
    x = initial(mx, my);
    bufs = new double[my + 1];
    bufr = new double[my + 1];
    return Spin.times(nprocs, this::loopA)
        .compose(v -> Spin.times(nprocs, this::loopB))
        .compose(v -> ireqs)
        .compose(v -> verify());
  }

  /** x(i,j) in the column-major array. */
  private int at(int i, int j) {
    return i + j * (mx + 1);
  }

  private static double[] initial(int mx, int my) {
    double[] a = new double[(mx + 1) * (my + 1)];
    for (int j = 0; j <= my; j++) {
      for (int i = 0; i <= mx; i++) {
        a[i + j * (mx + 1)] = (i * 7 + j * 13) % 17;
      }
    }
    return a;
  }

  /**
   * The book's para_range: the {@code irank}-th of {@code nprocs} nearly equal blocks of
   * {@code n1..n2}, as {ista, iend} (empty, iend = ista - 1, when there are more blocks than items).
   */
  static int[] paraRange(int n1, int n2, int nprocs, int irank) {
    int iwork1 = (n2 - n1 + 1) / nprocs;
    int iwork2 = (n2 - n1 + 1) % nprocs;
    int ista = irank * iwork1 + n1 + Math.min(irank, iwork2);
    int iend = ista + iwork1 - 1;
    if (iwork2 > irank) {
      iend = iend + 1;
    }
    return new int[] {ista, iend};
  }

  /** Fails unless a halo message brought the number of elements asked for. */
  private Future<Void> expectCount(Status st, int len, String what) {
    if (st.count() != len) {
      return Future.failedFuture(new IllegalStateException(String.format(
          "twisted: rank %d, %s: received %d elements from rank %d, expected %d", myrank, what, st.count(),
          st.source(), len)));
    }
    return Future.succeededFuture();
  }

  /** One iteration of Loop A: block row ix, block column iy = (ix + myrank) mod nprocs. */
  private Future<Void> loopA(int ix) {
    int iy = (ix + myrank) % nprocs;
    int ista = is[ix];
    int iend = ie[ix];
    int jsta = js[iy];
    int jend = je[iy];
    int jlen = jend - jsta + 1;
    Future<Void> ready;
    if (ix != 0) {
      // MPI_IRECV(bufr(jsta), ...inext...); MPI_WAIT(ireqr); MPI_WAIT(ireqs); x(ista-1,j) = bufr(j)
      ready = world.irecv(Buf.of(bufr), jsta, jlen, Datatype.DOUBLE, inext, TAG)
          .compose(st -> expectCount(st, jlen, "Loop A halo row " + (ista - 1)))
          .compose(v -> ireqs)
          .map(v -> {
            for (int j = jsta; j <= jend; j++) {
              x[at(ista - 1, j)] = bufr[j];
            }
            return null;
          });
    } else {
      ready = Future.succeededFuture();
    }
    return ready.compose(v -> {
      for (int j = jsta; j <= jend; j++) {
        for (int i = ista; i <= iend; i++) {
          x[at(i, j)] = x[at(i, j)] + x[at(i - 1, j)];
        }
      }
      if (ix != nprocs - 1) {
        for (int j = jsta; j <= jend; j++) {
          bufs[j] = x[at(iend, j)];
        }
        ireqs = world.isend(Buf.of(bufs), jsta, jlen, Datatype.DOUBLE, iprev, TAG);
      }
      return Future.succeededFuture();
    });
  }

  /** One iteration of Loop B: block column iy, block row ix = (iy + nprocs - myrank) mod nprocs. */
  private Future<Void> loopB(int iy) {
    int ix = (iy + nprocs - myrank) % nprocs;
    int ista = is[ix];
    int iend = ie[ix];
    int jsta = js[iy];
    int jend = je[iy];
    int ilen = iend - ista + 1;
    Future<Void> ready;
    if (iy != 0) {
      // MPI_IRECV(x(ista,jsta-1), ilen, ...iprev...); MPI_WAIT(ireqr); MPI_WAIT(ireqs)
      ready = world.irecv(Buf.of(x), at(ista, jsta - 1), ilen, Datatype.DOUBLE, iprev, TAG)
          .compose(st -> expectCount(st, ilen, "Loop B halo column " + (jsta - 1)))
          .compose(v -> ireqs);
    } else {
      ready = Future.succeededFuture();
    }
    return ready.compose(v -> {
      for (int j = jsta; j <= jend; j++) {
        for (int i = ista; i <= iend; i++) {
          x[at(i, j)] = x[at(i, j)] + x[at(i, j - 1)];
        }
      }
      if (iy != nprocs - 1) {
        ireqs = world.isend(Buf.of(x), at(ista, jend), ilen, Datatype.DOUBLE, inext, TAG);
      }
      return Future.succeededFuture();
    });
  }

  /**
   * Collects the computed blocks on rank 0 and compares them with the sequential loops. Every rank
   * contributes a full-size array holding its own blocks and zeros elsewhere (rank 0 also the
   * boundary row i=0 and column j=0, which no block covers), plus a count of the elements it
   * contributed; both are summed with reduce(SUM) onto rank 0. Adding zeros to a value is exact,
   * and the counts prove that every element came from exactly one rank.
   */
  private Future<Void> verify() {
    int n = x.length;
    double[] mine = new double[n];
    int[] owned = new int[n];
    for (int ix = 0; ix < nprocs; ix++) {
      int iy = (ix + myrank) % nprocs; // the block (ix, iy) this rank computed in both loops
      for (int j = js[iy]; j <= je[iy]; j++) {
        for (int i = is[ix]; i <= ie[ix]; i++) {
          mine[at(i, j)] = x[at(i, j)];
          owned[at(i, j)]++;
        }
      }
    }
    if (myrank == 0) {
      for (int j = 0; j <= my; j++) {
        mine[at(0, j)] = x[at(0, j)];
        owned[at(0, j)]++;
      }
      for (int i = 1; i <= mx; i++) {
        mine[at(i, 0)] = x[at(i, 0)];
        owned[at(i, 0)]++;
      }
    }
    double[] result = myrank == 0 ? new double[n] : null;
    int[] counts = myrank == 0 ? new int[n] : null;
    return world.reduce(Buf.of(mine), 0, Buf.of(result), 0, n, Datatype.DOUBLE, Op.SUM, 0)
        .compose(v -> world.reduce(Buf.of(owned), 0, Buf.of(counts), 0, n, Datatype.INT, Op.SUM, 0))
        .compose(v -> myrank == 0 ? compare(result, counts) : Future.succeededFuture());
  }

  private Future<Void> compare(double[] result, int[] counts) {
    double[] seq = initial(mx, my);
    // Loop A
    for (int j = 1; j <= my; j++) {
      for (int i = 1; i <= mx; i++) {
        seq[at(i, j)] = seq[at(i, j)] + seq[at(i - 1, j)];
      }
    }
    // Loop B
    for (int j = 1; j <= my; j++) {
      for (int i = 1; i <= mx; i++) {
        seq[at(i, j)] = seq[at(i, j)] + seq[at(i, j - 1)];
      }
    }
    for (int j = 0; j <= my; j++) {
      for (int i = 0; i <= mx; i++) {
        int k = at(i, j);
        if (counts[k] != 1) {
          return Future.failedFuture(new IllegalStateException(String.format(
              "twisted: x(%d,%d) was contributed by %d ranks, expected exactly 1 (mx=%d my=%d nprocs=%d)", i, j,
              counts[k], mx, my, nprocs)));
        }
        if (Double.doubleToLongBits(result[k]) != Double.doubleToLongBits(seq[k])) {
          return Future.failedFuture(new IllegalStateException(String.format(
              "twisted: x(%d,%d) = %s from rank %d, but the sequential Loop A + Loop B give %s (mx=%d my=%d "
                  + "nprocs=%d)", i, j, result[k], owner(i, j), seq[k], mx, my, nprocs)));
        }
      }
    }
    System.out.printf("twisted: verified mx=%d my=%d nprocs=%d (%d elements)%n", mx, my, nprocs, seq.length);
    return Future.succeededFuture();
  }

  /** The rank that computes x(i,j): block (ix, iy) goes to (iy - ix + nprocs) mod nprocs; 0 for the boundary. */
  private int owner(int i, int j) {
    if (i == 0 || j == 0) {
      return 0;
    }
    int ix = 0;
    while (i > ie[ix]) {
      ix++;
    }
    int iy = 0;
    while (j > je[iy]) {
      iy++;
    }
    return (iy - ix + nprocs) % nprocs;
  }
}
