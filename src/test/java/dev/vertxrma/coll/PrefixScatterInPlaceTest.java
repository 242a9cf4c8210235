package dev.vertxrma.coll;

import static dev.vertxrma.coll.CollectivesTest.DOUBLE_OPS;
import static dev.vertxrma.coll.CollectivesTest.INT_OPS;
import static dev.vertxrma.coll.CollectivesTest.combine;
import static dev.vertxrma.coll.CollectivesTest.doubleValue;
import static dev.vertxrma.coll.CollectivesTest.intValue;
import static dev.vertxrma.coll.CollectivesTest.longValue;
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
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MPI_Scan, MPI_Exscan, MPI_Reduce_scatter(_block) and MPI_IN_PLACE for every collective that
 * takes it, each checked value by value against a sequential computation (and in place against
 * the out-of-place result) for 1 to 5 ranks, embedded and clustered; then the errors: IN_PLACE
 * where MPI forbids it, bad counts, ops and buffers, ranks that disagree on a count.
 */
class PrefixScatterInPlaceTest {

  private static final int N = 5;

  static Stream<Arguments> modesAndSizes() {
    List<Arguments> out = new ArrayList<>();
    for (Mode m : Mode.values()) {
      for (int np = 1; np <= 5; np++) {
        out.add(Arguments.of(m, np));
      }
    }
    return out.stream();
  }

  // ------------------------------------------------------------------ sequential references

  /** Element i of the combination of ranks {@code from..to-1} (inclusive/exclusive) of intValue. */
  static int[] intPrefix(Op op, int from, int to, int n) {
    int[] e = new int[n];
    for (int i = 0; i < n; i++) {
      long acc = intValue(op, from, i);
      for (int r = from + 1; r < to; r++) {
        acc = (int) combine(op, acc, intValue(op, r, i));
      }
      e[i] = (int) acc;
    }
    return e;
  }

  static long[] longPrefix(Op op, int to) {
    long[] e = new long[N];
    for (int i = 0; i < N; i++) {
      long acc = longValue(op, 0, i);
      for (int r = 1; r < to; r++) {
        acc = combine(op, acc, longValue(op, r, i));
      }
      e[i] = acc;
    }
    return e;
  }

  static double[] doublePrefix(Op op, int to) {
    double[] e = new double[N];
    for (int i = 0; i < N; i++) {
      double acc = doubleValue(op, 0, i);
      for (int r = 1; r < to; r++) {
        acc = combine(op, acc, doubleValue(op, r, i));
      }
      e[i] = acc;
    }
    return e;
  }

  static int[] ints(Op op, int r, int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = intValue(op, r, i);
    }
    return a;
  }

  // ------------------------------------------------------------------ scan and exscan

  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizes")
  void scanAndExscan(Mode mode, int np) {
    run(mode, np, (world, args) -> {
      int me = world.rank();
      List<Supplier<Future<?>>> steps = new ArrayList<>();
      for (Op op : INT_OPS) {
        // out of place, at an offset, the send buffer left alone
        steps.add(() -> {
          int[] in = ints(op, me, N);
          int[] out = new int[N + 2];
          Arrays.fill(out, 777);
          return world.scan(Buf.of(in), 0, Buf.of(out), 1, N, Datatype.INT, op).map(v -> {
            assertArrayEquals(intPrefix(op, 0, me + 1, N), Arrays.copyOfRange(out, 1, N + 1), "scan INT " + op
                + " at rank " + me);
            assertEquals(777, out[0]);
            assertEquals(777, out[N + 1]);
            assertArrayEquals(ints(op, me, N), in, "scan must not modify the send buffer");
            return null;
          });
        });
        // in place: the same result
        steps.add(() -> {
          int[] buf = ints(op, me, N);
          return world.scan(Comm.IN_PLACE, 0, Buf.of(buf), 0, N, Datatype.INT, op).map(v -> {
            assertArrayEquals(intPrefix(op, 0, me + 1, N), buf, "scan IN_PLACE INT " + op + " at rank " + me);
            return null;
          });
        });
        // exscan: rank 0's buffer is left untouched, in place or not
        steps.add(() -> {
          int[] out = {-9, -9, -9, -9, -9};
          return world.exscan(Buf.of(ints(op, me, N)), 0, Buf.of(out), 0, N, Datatype.INT, op).map(v -> {
            int[] expected = me == 0 ? new int[] {-9, -9, -9, -9, -9} : intPrefix(op, 0, me, N);
            assertArrayEquals(expected, out, "exscan INT " + op + " at rank " + me);
            return null;
          });
        });
        steps.add(() -> {
          int[] buf = ints(op, me, N);
          return world.exscan(Comm.IN_PLACE, 0, Buf.of(buf), 0, N, Datatype.INT, op).map(v -> {
            int[] expected = me == 0 ? ints(op, 0, N) : intPrefix(op, 0, me, N);
            assertArrayEquals(expected, buf, "exscan IN_PLACE INT " + op + " at rank " + me);
            return null;
          });
        });
      }
      for (Op op : INT_OPS) {
        steps.add(() -> {
          long[] in = new long[N];
          for (int i = 0; i < N; i++) {
            in[i] = longValue(op, me, i);
          }
          long[] out = new long[N];
          long[] ex = new long[N];
          // both issued before either is awaited: they match in call order at every rank
          return Future.all(world.scan(Buf.of(in), 0, Buf.of(out), 0, N, Datatype.LONG, op),
              world.exscan(Buf.of(in), 0, Buf.of(ex), 0, N, Datatype.LONG, op)).map(v -> {
                assertArrayEquals(longPrefix(op, me + 1), out, "scan LONG " + op + " at rank " + me);
                assertArrayEquals(me == 0 ? new long[N] : longPrefix(op, me), ex, "exscan LONG " + op);
                return null;
              });
        });
      }
      for (Op op : DOUBLE_OPS) {
        steps.add(() -> {
          double[] in = new double[N];
          for (int i = 0; i < N; i++) {
            in[i] = doubleValue(op, me, i);
          }
          double[] out = new double[N];
          double[] ex = new double[N];
          return world.scan(Buf.of(in), 0, Buf.of(out), 0, N, Datatype.DOUBLE, op)
              .compose(v -> world.exscan(Buf.of(in), 0, Buf.of(ex), 0, N, Datatype.DOUBLE, op)).map(v -> {
                assertArrayEquals(doublePrefix(op, me + 1), out, "scan DOUBLE " + op + " at rank " + me);
                assertArrayEquals(me == 0 ? new double[N] : doublePrefix(op, me), ex, "exscan DOUBLE " + op);
                return null;
              });
        });
      }
      // MAXLOC on (value, index) pairs: the running maximum and the lowest rank holding it
      steps.add(() -> {
        int[] pair = {(me * 7) % 5, me};
        int[] out = new int[2];
        return world.scan(Buf.of(pair), 0, Buf.of(out), 0, 1, Datatype.INT_INT, Op.MAXLOC).map(v -> {
          int best = 0;
          for (int r = 1; r <= me; r++) {
            if ((r * 7) % 5 > (best * 7) % 5) {
              best = r;
            }
          }
          assertArrayEquals(new int[] {(best * 7) % 5, best}, out, "scan MAXLOC at rank " + me);
          return null;
        });
      });
      // a derived datatype of one basic type: every other INT of 6
      steps.add(() -> {
        Datatype everyOther = Datatype.vector(3, 1, 2, Datatype.INT).commit();
        int[] in = {me + 1, -1, 2 * me, -1, 3, -1};
        int[] out = {0, 50, 0, 50, 0, 50};
        return world.scan(Buf.of(in), 0, Buf.of(out), 0, 1, everyOther, Op.SUM).map(v -> {
          int k = me + 1;
          assertArrayEquals(new int[] {k * (k + 1) / 2, 50, k * (k - 1), 50, 3 * k, 50}, out, "vector scan");
          return null;
        });
      });
      return sequence(steps);
    });
  }

  // ------------------------------------------------------------------ reduce-scatter

  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizes")
  void reduceScatterAndBlock(Mode mode, int np) {
    run(mode, np, (world, args) -> {
      int me = world.rank();
      // block sizes 2, 0, 1, 2, 0, ... (some ranks get nothing)
      int[] counts = new int[np];
      int total = 0;
      int[] starts = new int[np];
      for (int r = 0; r < np; r++) {
        counts[r] = (r * 2 + 2) % 3;
        starts[r] = total;
        total += counts[r];
      }
      int all = total;
      List<Supplier<Future<?>>> steps = new ArrayList<>();
      for (Op op : INT_OPS) {
        steps.add(() -> {
          int[] in = ints(op, me, all);
          int[] out = new int[counts[me] + 1];
          Arrays.fill(out, 4242);
          int[] inPlace = ints(op, me, all);
          int[] block = new int[3];
          int[] blockInPlace = ints(op, me, 3 * np);
          int[] reference = intPrefix(op, 0, np, all);
          int[] blockReference = intPrefix(op, 0, np, 3 * np);
          // four collectives issued back to back, awaited together
          return Future.all(List.of(
              world.reduceScatter(Buf.of(in), 0, Buf.of(out), 1, counts, Datatype.INT, op),
              world.reduceScatter(Comm.IN_PLACE, 0, Buf.of(inPlace), 0, counts, Datatype.INT, op),
              world.reduceScatterBlock(Buf.of(ints(op, me, 3 * np)), 0, Buf.of(block), 0, 3, Datatype.INT, op),
              world.reduceScatterBlock(Comm.IN_PLACE, 0, Buf.of(blockInPlace), 0, 3, Datatype.INT, op))).map(v -> {
                int[] mine = Arrays.copyOfRange(reference, starts[me], starts[me] + counts[me]);
                assertEquals(4242, out[0]);
                assertArrayEquals(mine, Arrays.copyOfRange(out, 1, 1 + counts[me]), "reduceScatter " + op + " at "
                    + me);
                assertArrayEquals(mine, Arrays.copyOf(inPlace, counts[me]), "reduceScatter IN_PLACE " + op);
                assertArrayEquals(Arrays.copyOfRange(ints(op, me, all), counts[me], all),
                    Arrays.copyOfRange(inPlace, counts[me], all), "IN_PLACE writes only this rank's block");
                int[] myBlock = Arrays.copyOfRange(blockReference, 3 * me, 3 * me + 3);
                assertArrayEquals(myBlock, block, "reduceScatterBlock " + op + " at " + me);
                assertArrayEquals(myBlock, Arrays.copyOf(blockInPlace, 3), "reduceScatterBlock IN_PLACE " + op);
                return null;
              });
        });
      }
      steps.add(() -> {
        double[] in = new double[2 * np];
        for (int i = 0; i < in.length; i++) {
          in[i] = doubleValue(Op.SUM, me, i);
        }
        double[] out = new double[2];
        return world.reduceScatterBlock(Buf.of(in), 0, Buf.of(out), 0, 2, Datatype.DOUBLE, Op.SUM).map(v -> {
          for (int k = 0; k < 2; k++) {
            double acc = doubleValue(Op.SUM, 0, 2 * me + k);
            for (int r = 1; r < np; r++) {
              acc += doubleValue(Op.SUM, r, 2 * me + k);
            }
            assertEquals(acc, out[k], "reduceScatterBlock DOUBLE at rank " + me);
          }
          return null;
        });
      });
      return sequence(steps);
    });
  }

  // ------------------------------------------------------------------ IN_PLACE of the other collectives

  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizes")
  void inPlaceEqualsOutOfPlace(Mode mode, int np) {
    run(mode, np, (world, args) -> {
      int me = world.rank();
      List<Supplier<Future<?>>> steps = new ArrayList<>();
      for (Op op : INT_OPS) {
        steps.add(() -> {
          int[] out = new int[N];
          int[] inPlace = ints(op, me, N);
          return world.allreduce(Buf.of(ints(op, me, N)), 0, Buf.of(out), 0, N, Datatype.INT, op)
              .compose(v -> world.allreduce(Comm.IN_PLACE, 0, Buf.of(inPlace), 0, N, Datatype.INT, op)).map(v -> {
                assertArrayEquals(intPrefix(op, 0, np, N), out, "allreduce " + op);
                assertArrayEquals(out, inPlace, "allreduce IN_PLACE " + op + " at rank " + me);
                return null;
              });
        });
      }
      // reduce at every root: root in place, the others with their send buffer
      for (int root = 0; root < np; root++) {
        int rt = root;
        steps.add(() -> {
          Op op = Op.MAX;
          int[] out = new int[N];
          int[] buf = ints(op, me, N);
          Future<Void> plain = world.reduce(Buf.of(ints(op, me, N)), 0, Buf.of(out), 0, N, Datatype.INT, op, rt);
          Future<Void> inPlace = me == rt
              ? world.reduce(Comm.IN_PLACE, 0, Buf.of(buf), 0, N, Datatype.INT, op, rt)
              : world.reduce(Buf.of(buf), 0, null, 0, N, Datatype.INT, op, rt);
          return Future.all(plain, inPlace).map(v -> {
            if (me == rt) {
              assertArrayEquals(intPrefix(op, 0, np, N), out);
              assertArrayEquals(out, buf, "reduce IN_PLACE at root " + rt);
            } else {
              assertArrayEquals(ints(op, me, N), buf, "a non-root's send buffer is left alone");
            }
            return null;
          });
        });
        // gather: root's block already in place (send count and type ignored: null type)
        steps.add(() -> {
          long[] plain = new long[2 * np];
          long[] inPlace = new long[2 * np];
          Arrays.fill(inPlace, -1);
          long[] mine = {me * 10L, -me};
          if (me == rt) {
            inPlace[2 * rt] = mine[0];
            inPlace[2 * rt + 1] = mine[1];
          }
          Future<Void> a = world.gather(Buf.of(mine), 0, 2, Datatype.LONG, Buf.of(plain), 0, 2, Datatype.LONG, rt);
          Future<Void> b = me == rt
              ? world.gather(Comm.IN_PLACE, 0, 0, null, Buf.of(inPlace), 0, 2, Datatype.LONG, rt)
              : world.gather(Buf.of(mine), 0, 2, Datatype.LONG, Comm.IN_PLACE, 0, 0, null, rt);
          return Future.all(a, b).map(v -> {
            if (me == rt) {
              for (int r = 0; r < np; r++) {
                assertEquals(r * 10L, plain[2 * r]);
                assertEquals(-r, plain[2 * r + 1]);
              }
              assertArrayEquals(plain, inPlace, "gather IN_PLACE at root " + rt);
            }
            return null;
          });
        });
        // scatter: root's block stays in the send buffer (receive count and type ignored)
        steps.add(() -> {
          int[] send = new int[2 * np];
          for (int i = 0; i < send.length; i++) {
            send[i] = rt * 1000 + i;
          }
          int[] got = {-1, -1};
          Future<Void> f = me == rt
              ? world.scatter(Buf.of(send), 0, 2, Datatype.INT, Comm.IN_PLACE, 0, 0, null, rt)
              : world.scatter(null, 0, 0, null, Buf.of(got), 0, 2, Datatype.INT, rt);
          return f.map(v -> {
            if (me == rt) {
              assertEquals(rt * 1000 + 2 * rt, send[2 * rt], "root's block untouched");
            } else {
              assertArrayEquals(new int[] {rt * 1000 + 2 * me, rt * 1000 + 2 * me + 1}, got, "scatter from " + rt);
            }
            return null;
          });
        });
      }
      // allgather: every rank's block in place
      steps.add(() -> {
        double[] plain = new double[3 * np];
        double[] inPlace = new double[3 * np];
        double[] mine = {me, me + 0.5, -me};
        System.arraycopy(mine, 0, inPlace, 3 * me, 3);
        return Future.all(world.allgather(Buf.of(mine), 0, 3, Datatype.DOUBLE, Buf.of(plain), 0, 3, Datatype.DOUBLE),
            world.allgather(Comm.IN_PLACE, 0, 0, null, Buf.of(inPlace), 0, 3, Datatype.DOUBLE)).map(v -> {
              for (int r = 0; r < np; r++) {
                assertArrayEquals(new double[] {r, r + 0.5, -r}, Arrays.copyOfRange(plain, 3 * r, 3 * r + 3));
              }
              assertArrayEquals(plain, inPlace, "allgather IN_PLACE at rank " + me);
              return null;
            });
      });
      // alltoall: the blocks to send are read from the receive buffer and replaced
      steps.add(() -> {
        int[] send = new int[2 * np];
        for (int j = 0; j < np; j++) {
          send[2 * j] = me * 100 + j;
          send[2 * j + 1] = -(me * 100 + j);
        }
        int[] plain = new int[2 * np];
        int[] inPlace = send.clone();
        return Future.all(world.alltoall(Buf.of(send), 0, 2, Datatype.INT, Buf.of(plain), 0, 2, Datatype.INT),
            world.alltoall(Comm.IN_PLACE, 0, 0, null, Buf.of(inPlace), 0, 2, Datatype.INT)).map(v -> {
              for (int i = 0; i < np; i++) {
                assertEquals(i * 100 + me, plain[2 * i]);
                assertEquals(-(i * 100 + me), plain[2 * i + 1]);
              }
              assertArrayEquals(plain, inPlace, "alltoall IN_PLACE at rank " + me);
              return null;
            });
      });
      return sequence(steps);
    });
  }

  // ------------------------------------------------------------------ errors

  /**
   * Each erroneous call is made by every rank (so no rank is left waiting in a collective the
   * others never joined), fails before anything is sent with the error MPICH gives, and leaves
   * the job usable.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void inPlaceWhereMpiForbidsItAndBadArguments(Mode mode) {
    run(mode, 3, (world, args) -> {
      int me = world.rank();
      int[] a = {1, 2, 3};
      int[] b = new int[9];
      Buf ab = Buf.of(a);
      Buf bb = Buf.of(b);
      Buf in = Comm.IN_PLACE;
      return sequence(List.of(
          // IN_PLACE as a receive buffer, or as a non-root's send buffer: BUFFER
          () -> expectError(world.allreduce(ab, 0, in, 0, 3, Datatype.INT, Op.SUM), ErrorClass.BUFFER, "allreduce",
              "IN_PLACE"),
          () -> expectError(world.allreduce(in, 0, in, 0, 3, Datatype.INT, Op.SUM), ErrorClass.BUFFER, "IN_PLACE"),
          () -> expectError(world.reduce(in, 0, in, 0, 3, Datatype.INT, Op.SUM, 1), ErrorClass.BUFFER, "reduce",
              "IN_PLACE"),
          () -> expectError(world.gather(in, 0, 1, Datatype.INT, in, 0, 1, Datatype.INT, 2), ErrorClass.BUFFER,
              "gather", "IN_PLACE"),
          () -> expectError(world.allgather(ab, 0, 1, Datatype.INT, in, 0, 1, Datatype.INT), ErrorClass.BUFFER,
              "allgather", "IN_PLACE"),
          () -> expectError(world.alltoall(in, 0, 1, Datatype.INT, in, 0, 1, Datatype.INT), ErrorClass.BUFFER,
              "alltoall", "IN_PLACE"),
          () -> expectError(world.scatter(in, 0, 1, Datatype.INT, in, 0, 1, Datatype.INT, 0), ErrorClass.BUFFER,
              "scatter", "IN_PLACE"),
          () -> expectError(world.bcast(in, 0, 3, Datatype.INT, 0), ErrorClass.BUFFER, "bcast", "IN_PLACE"),
          () -> expectError(world.scan(ab, 0, in, 0, 3, Datatype.INT, Op.SUM), ErrorClass.BUFFER, "scan", "IN_PLACE"),
          () -> expectError(world.exscan(in, 0, in, 0, 3, Datatype.INT, Op.SUM), ErrorClass.BUFFER, "exscan"),
          () -> expectError(world.reduceScatterBlock(ab, 0, in, 0, 1, Datatype.INT, Op.SUM), ErrorClass.BUFFER,
              "reduceScatterBlock", "IN_PLACE"),
          () -> expectError(world.send(in, 0, 1, Datatype.INT, 0, 0), ErrorClass.BUFFER, "send", "IN_PLACE"),
          () -> expectError(world.recv(in, 0, 1, Datatype.INT, 0, 0), ErrorClass.BUFFER, "recv", "IN_PLACE"),
          () -> expectError(world.bufferAttach(in, 8), ErrorClass.BUFFER, "IN_PLACE"),
          // reduce-scatter counts
          () -> expectError(world.reduceScatter(bb, 0, ab, 0, new int[] {1, 1}, Datatype.INT, Op.SUM), ErrorClass.ARG,
              "reduceScatter", "2 entries", "(3)"),
          () -> expectError(world.reduceScatter(bb, 0, ab, 0, null, Datatype.INT, Op.SUM), ErrorClass.ARG,
              "reduceScatter", "null"),
          () -> expectError(world.reduceScatter(bb, 0, ab, 0, new int[] {1, -1, 1}, Datatype.INT, Op.SUM),
              ErrorClass.COUNT, "rank 1", "-1"),
          () -> expectError(world.reduceScatterBlock(bb, 0, ab, 0, -2, Datatype.INT, Op.SUM), ErrorClass.COUNT, "-2"),
          // the input must hold every rank's block: 3 ranks x 4 > 9
          () -> expectError(world.reduceScatterBlock(bb, 0, ab, 0, 4, Datatype.INT, Op.SUM), ErrorClass.BUFFER,
              "reduceScatterBlock send"),
          () -> expectError(world.reduceScatterBlock(in, 0, ab, 0, 2, Datatype.INT, Op.SUM), ErrorClass.BUFFER,
              "IN_PLACE: holds the input"),
          // ops, types, buffers, counts of scan/exscan
          () -> expectError(world.scan(Buf.of(new double[2]), 0, Buf.of(new double[2]), 0, 2, Datatype.DOUBLE, Op.BAND),
              ErrorClass.OP, "MPI_BAND", "DOUBLE"),
          () -> expectError(world.exscan(ab, 0, bb, 0, 3, Datatype.INT, Op.REPLACE), ErrorClass.OP, "exscan"),
          () -> expectError(world.exscan(ab, 0, bb, 0, 3, Datatype.INT, null), ErrorClass.OP),
          () -> expectError(world.scan(null, 0, bb, 0, 3, Datatype.INT, Op.SUM), ErrorClass.BUFFER, "scan send", "null"),
          () -> expectError(world.scan(ab, 0, bb, 0, -1, Datatype.INT, Op.SUM), ErrorClass.COUNT, "scan"),
          () -> expectError(world.scan(ab, 0, bb, 0, 3, Datatype.LONG, Op.SUM), ErrorClass.TYPE),
          () -> expectError(world.reduceScatterBlock(ab, 0, bb, 0, 1, Datatype.INT, Op.MAXLOC), ErrorClass.OP),
          // nothing was sent and no collective number was taken: the next ones match
          () -> {
            int[] out = new int[1];
            return world.scan(Buf.of(new int[] {me + 1}), 0, Buf.of(out), 0, 1, Datatype.INT, Op.SUM).map(v -> {
              assertEquals((me + 1) * (me + 2) / 2, out[0]);
              assertArrayEquals(new int[9], b, "failed calls wrote nothing");
              return null;
            });
          }));
    });
  }

  /** Ranks that disagree on a count get TRUNCATE, not a combination of unequal arrays. */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void ranksThatDisagreeOnTheCountGetTruncate(Mode mode) {
    run(mode, 2, (world, args) -> {
      int me = world.rank();
      int n = me + 1;
      long[] in = new long[n];
      long[] out = new long[n];
      Future<Void> scan = expectError(world.scan(Buf.of(in), 0, Buf.of(out), 0, n, Datatype.LONG, Op.SUM),
          ErrorClass.TRUNCATE, "scan", "8 bytes", "16 bytes", "same data at every rank");
      Future<Void> reduce = world.reduce(Buf.of(in), 0, Buf.of(out), 0, n, Datatype.LONG, Op.SUM, 0);
      Future<Void> checked = me == 0 ? expectError(reduce, ErrorClass.TRUNCATE, "reduce", "rank 1 contributed 16 bytes")
          : reduce;
      return Future.all(scan, checked).compose(v -> world.allreduce((long) me, Op.SUM)).map(s -> {
        assertEquals(1L, s, "the job is still usable");
        return null;
      });
    });
  }
}
