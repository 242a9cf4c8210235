package dev.vertxrma.coll;

import static dev.vertxrma.coll.CollectivesTest.run;
import static dev.vertxrma.coll.CollectivesTest.sequence;
import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.rx.RxComm;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import io.reactivex.rxjava3.core.Completable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The vector collectives gatherv, scatterv, allgatherv and alltoallv for 1 to 5 ranks in both
 * modes: uneven counts with zeros, blocks placed out of rank order with gaps (every gap checked
 * untouched), every rank as root of gatherv and scatterv, IN_PLACE, the Rx twins, and the
 * argument errors (RANK, ARG, COUNT, BUFFER, TYPE, TRUNCATE) with the values they name.
 */
class VectorCollectivesTest {

  /**
   * Loads the RxJava classes the allgatherv step uses on the test thread, not on an event loop
   * (a one-time cost of the JVM that the 50 ms blocked-thread checker would flag).
   */
  @BeforeAll
  static void loadRx() {
    Completable.defer(Completable::complete).toCompletionStage(null).toCompletableFuture().join();
    RxComm.of(null);
  }

  /** Rank {@code r}'s block size: uneven, 0 for ranks 1 and 4. */
  static int count(int r) {
    return r % 3 == 1 ? 0 : r + 1;
  }

  /** Blocks in reverse rank order with a gap of 2 after each and 1 before the first (non-contiguous). */
  static int[] reversedDispls(int np) {
    int[] d = new int[np];
    int at = 1;
    for (int r = np - 1; r >= 0; r--) {
      d[r] = at;
      at += count(r) + 2;
    }
    return d;
  }

  static int[] counts(int np) {
    int[] c = new int[np];
    for (int r = 0; r < np; r++) {
      c[r] = count(r);
    }
    return c;
  }

  static int span(int[] counts, int[] displs) {
    int end = 0;
    for (int r = 0; r < counts.length; r++) {
      end = Math.max(end, displs[r] + counts[r]);
    }
    return end + 1;
  }

  /** Rank {@code i}'s block size for rank {@code j} in alltoallv: uneven, zeros included, not symmetric. */
  static int a(int i, int j) {
    return (i + 2 * j) % 3;
  }

  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("dev.vertxrma.coll.CollectivesTest#modesAndSizes")
  void unevenNonContiguousBlocksAtEveryRoot(Mode mode, int np) {
    run(mode, np, (world, args) -> {
      int me = world.rank();
      int[] counts = counts(np);
      int[] displs = reversedDispls(np);
      int len = span(counts, displs);
      List<Supplier<Future<?>>> steps = new ArrayList<>();

      // gatherv to every root; the other ranks pass no receive arguments at all (ignored there)
      for (int root = 0; root < np; root++) {
        int rt = root;
        steps.add(() -> {
          int[] mine = new int[count(me) + 1];
          for (int k = 0; k < count(me); k++) {
            mine[1 + k] = rt * 1000 + me * 100 + k + 1;
          }
          int[] out = new int[len];
          Arrays.fill(out, -1);
          Future<Void> f = me == rt
              ? world.gatherv(Buf.of(mine), 1, count(me), Datatype.INT, Buf.of(out), 0, counts, displs, Datatype.INT, rt)
              : world.gatherv(Buf.of(mine), 1, count(me), Datatype.INT, null, 0, null, null, null, rt);
          return f.map(v -> {
            int[] expected = new int[len];
            Arrays.fill(expected, -1);
            if (me == rt) {
              for (int r = 0; r < np; r++) {
                for (int k = 0; k < count(r); k++) {
                  expected[displs[r] + k] = rt * 1000 + r * 100 + k + 1;
                }
              }
            }
            assertArrayEquals(expected, out, "gatherv to root " + rt + " at rank " + me);
            return null;
          });
        });
      }

      // scatterv from every root; a rank whose block is empty passes a null receive buffer
      for (int root = 0; root < np; root++) {
        int rt = root;
        steps.add(() -> {
          double[] in = new double[count(me) + 2];
          Arrays.fill(in, Double.NaN);
          Future<Void> f;
          if (me == rt) {
            double[] send = new double[len + 3];
            Arrays.fill(send, -7.5);
            for (int r = 0; r < np; r++) {
              for (int k = 0; k < count(r); k++) {
                send[3 + displs[r] + k] = rt * 1000 + r * 100 + k + 0.5;
              }
            }
            f = world.scatterv(Buf.of(send), 3, counts, displs, Datatype.DOUBLE,
                count(me) == 0 ? null : Buf.of(in), 1, count(me), Datatype.DOUBLE, rt);
          } else {
            f = world.scatterv(null, 0, null, null, null, count(me) == 0 ? null : Buf.of(in), 1, count(me),
                Datatype.DOUBLE, rt);
          }
          return f.map(v -> {
            double[] expected = new double[count(me) + 2];
            Arrays.fill(expected, Double.NaN);
            for (int k = 0; k < count(me); k++) {
              expected[1 + k] = rt * 1000 + me * 100 + k + 0.5;
            }
            assertArrayEquals(expected, in, "scatterv from root " + rt + " at rank " + me);
            return null;
          });
        });
      }

      // allgatherv through the Rx twin: rank r's longs at displs[r] everywhere
      steps.add(() -> {
        long[] mine = new long[count(me)];
        for (int k = 0; k < count(me); k++) {
          mine[k] = ((long) me << 40) - k - 1;
        }
        long[] out = new long[len];
        Arrays.fill(out, 99);
        return Future.fromCompletionStage(RxComm.of(world).allgatherv(Buf.of(mine), 0, count(me), Datatype.LONG,
            Buf.of(out), 0, counts, displs, Datatype.LONG).toCompletionStage(null)).map(v -> {
              long[] expected = new long[len];
              Arrays.fill(expected, 99);
              for (int r = 0; r < np; r++) {
                for (int k = 0; k < count(r); k++) {
                  expected[displs[r] + k] = ((long) r << 40) - k - 1;
                }
              }
              assertArrayEquals(expected, out, "allgatherv at rank " + me);
              return null;
            });
      });
      // allgatherv IN_PLACE: this rank's block is already at displs[me]
      steps.add(() -> {
        int[] out = new int[len];
        Arrays.fill(out, -1);
        for (int k = 0; k < count(me); k++) {
          out[displs[me] + k] = me * 10 + k;
        }
        return world.allgatherv(Comm.IN_PLACE, 0, 0, null, Buf.of(out), 0, counts, displs, Datatype.INT).map(v -> {
          int[] expected = new int[len];
          Arrays.fill(expected, -1);
          for (int r = 0; r < np; r++) {
            for (int k = 0; k < count(r); k++) {
              expected[displs[r] + k] = r * 10 + k;
            }
          }
          assertArrayEquals(expected, out, "allgatherv IN_PLACE at rank " + me);
          return null;
        });
      });
      // gatherv IN_PLACE at root np-1
      steps.add(() -> {
        int rt = np - 1;
        int[] out = new int[len];
        Arrays.fill(out, -1);
        int[] mine = new int[count(me)];
        for (int k = 0; k < count(me); k++) {
          mine[k] = me * 10 + k;
          if (me == rt) {
            out[displs[me] + k] = me * 10 + k;
          }
        }
        Future<Void> f = me == rt
            ? world.gatherv(Comm.IN_PLACE, 0, 0, null, Buf.of(out), 0, counts, displs, Datatype.INT, rt)
            : world.gatherv(Buf.of(mine), 0, count(me), Datatype.INT, null, 0, null, null, null, rt);
        return f.map(v -> {
          if (me == rt) {
            int[] expected = new int[len];
            Arrays.fill(expected, -1);
            for (int r = 0; r < np; r++) {
              for (int k = 0; k < count(r); k++) {
                expected[displs[r] + k] = r * 10 + k;
              }
            }
            assertArrayEquals(expected, out, "gatherv IN_PLACE at root " + rt);
          }
          return null;
        });
      });
      // alltoallv: rank i sends a(i, j) ints to j; send blocks in reverse order, receive blocks with gaps of 3
      steps.add(() -> {
        int[] sc = new int[np];
        int[] sd = new int[np];
        int[] rc = new int[np];
        int[] rd = new int[np];
        int at = 0;
        for (int j = np - 1; j >= 0; j--) {
          sc[j] = a(me, j);
          sd[j] = at;
          at += sc[j] + 1;
        }
        int[] send = new int[at];
        for (int j = 0; j < np; j++) {
          for (int k = 0; k < sc[j]; k++) {
            send[sd[j] + k] = me * 1000 + j * 10 + k;
          }
        }
        at = 2;
        for (int i = 0; i < np; i++) {
          rc[i] = a(i, me);
          rd[i] = at;
          at += rc[i] + 3;
        }
        int[] recv = new int[at];
        Arrays.fill(recv, -1);
        int rlen = at;
        return world.alltoallv(Buf.of(send), 0, sc, sd, Datatype.INT, Buf.of(recv), 0, rc, rd, Datatype.INT).map(v -> {
          int[] expected = new int[rlen];
          Arrays.fill(expected, -1);
          for (int i = 0; i < np; i++) {
            for (int k = 0; k < rc[i]; k++) {
              expected[rd[i] + k] = i * 1000 + me * 10 + k;
            }
          }
          assertArrayEquals(expected, recv, "alltoallv at rank " + me);
          return null;
        });
      });
      // alltoallv IN_PLACE, symmetric counts (i + j) % 3: block j is replaced by what rank j sent
      steps.add(() -> {
        int[] c = new int[np];
        int[] d = new int[np];
        int at = 1;
        for (int j = np - 1; j >= 0; j--) {
          c[j] = (me + j) % 3;
          d[j] = at;
          at += c[j] + 2;
        }
        int[] buf = new int[at];
        Arrays.fill(buf, -1);
        for (int j = 0; j < np; j++) {
          for (int k = 0; k < c[j]; k++) {
            buf[d[j] + k] = me * 1000 + j * 10 + k;
          }
        }
        int blen = at;
        return world.alltoallv(Comm.IN_PLACE, 0, null, null, null, Buf.of(buf), 0, c, d, Datatype.INT).map(v -> {
          int[] expected = new int[blen];
          Arrays.fill(expected, -1);
          for (int j = 0; j < np; j++) {
            for (int k = 0; k < c[j]; k++) {
              expected[d[j] + k] = j * 1000 + me * 10 + k;
            }
          }
          assertArrayEquals(expected, buf, "alltoallv IN_PLACE at rank " + me);
          return null;
        });
      });
      return sequence(steps);
    });
  }

  // ------------------------------------------------------------------ errors

  @ParameterizedTest
  @EnumSource(Mode.class)
  void argumentErrorsNameTheValues(Mode mode) {
    run(mode, 3, (world, args) -> {
      int me = world.rank();
      int[] one = {me + 1};
      int[] out = new int[9];
      Arrays.fill(out, -1);
      int[] c = {1, 1, 1};
      int[] d = {0, 1, 2};
      return sequence(List.of(
          () -> expectError(world.gatherv(Buf.of(one), 0, 1, Datatype.INT, Buf.of(out), 0, c, d, Datatype.INT, 3),
              ErrorClass.RANK, "gatherv", "root 3"),
          () -> expectError(world.scatterv(Buf.of(out), 0, c, d, Datatype.INT, Buf.of(one), 0, 1, Datatype.INT, -1),
              ErrorClass.RANK, "scatterv", "root -1"),
          () -> expectError(world.allgatherv(Buf.of(one), 0, 1, Datatype.INT, Buf.of(out), 0, new int[] {1, 1}, d,
              Datatype.INT), ErrorClass.ARG, "allgatherv", "recvCounts has 2 entries", "one per rank (3)"),
          () -> expectError(world.allgatherv(Buf.of(one), 0, 1, Datatype.INT, Buf.of(out), 0, c, null, Datatype.INT),
              ErrorClass.ARG, "displs has no (null) entries"),
          () -> expectError(world.alltoallv(Buf.of(out), 0, new int[] {1, -1, 1}, d, Datatype.INT, Buf.of(out), 0, c, d,
              Datatype.INT), ErrorClass.COUNT, "alltoallv send", "sendCounts[1] is -1"),
          () -> expectError(world.allgatherv(Buf.of(one), 0, 1, Datatype.INT, Buf.of(out), 0, c, new int[] {0, 1, 9},
              Datatype.INT), ErrorClass.BUFFER, "allgatherv receive block 2", "recvCounts[2] = 1", "displs[2] = 9"),
          () -> expectError(world.allgatherv(Buf.of(one), 0, 1, Datatype.INT, null, 0, c, d, Datatype.INT),
              ErrorClass.BUFFER, "buffer is null", "add up to 3"),
          () -> expectError(world.allgatherv(Buf.of(one), 0, 1, Datatype.INT, Buf.of(new double[3]), 0, c, d,
              Datatype.INT), ErrorClass.TYPE),
          () -> expectError(world.alltoallv(Buf.of(out), 0, c, d, Datatype.INT, Comm.IN_PLACE, 0, c, d, Datatype.INT),
              ErrorClass.BUFFER, "alltoallv", "IN_PLACE"),
          () -> expectError(world.scatterv(Buf.of(out), 0, c, d, Datatype.INT, Buf.of(one), 0, 1, null, 0),
              ErrorClass.TYPE, "scatterv receive", "null"),
          // root 0 expects 2 ints from rank 1, which sends 1: TRUNCATE at root, the others done
          () -> {
            Future<Void> f = world.gatherv(Buf.of(one), 0, 1, Datatype.INT, Buf.of(out), 0, new int[] {1, 2, 1},
                new int[] {0, 1, 3}, Datatype.INT, 0);
            return me == 0 ? expectError(f, ErrorClass.TRUNCATE, "gatherv", "the block from rank 1 has 4 bytes",
                "recvCounts[1] = 2") : f;
          },
          // nothing got out of step: the job is healthy and the failed calls wrote nothing but root's block 0
          () -> world.allreduce((long) me, Op.MAX).map(m -> {
            assertEquals(2L, m);
            int[] expected = new int[9];
            Arrays.fill(expected, -1);
            if (me == 0) {
              expected[0] = 1;
            }
            assertArrayEquals(expected, out, "at rank " + me);
            return null;
          })));
    });
  }
}
