package dev.vertxrma.coll;

import static dev.vertxrma.coll.CollectivesTest.run;
import static dev.vertxrma.coll.CollectivesTest.sequence;
import static dev.vertxrma.testing.RmaAssertions.assertError;
import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.Reduction;
import dev.vertxrma.RmaException;
import dev.vertxrma.UserOp;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * User-defined reduction operations (MPI_Op_create) in every reducing collective, for 1 to 5
 * ranks, embedded and clustered: a non-commutative 2x2 matrix product, whose result shows the
 * order the operands were combined in (MPI's: ascending rank order), and a commutative op on a
 * datatype that mixes basic types; an op whose function throws fails the call at every rank with
 * OP (also when it throws at one rank only, and at ranks whose part was done), and the job goes
 * on; the RMA calls take no user-defined op.
 */
class UserOpsTest {

  static Stream<Arguments> modesAndSizes() {
    List<Arguments> out = new ArrayList<>();
    for (Mode m : Mode.values()) {
      for (int np = 1; np <= 5; np++) {
        out.add(Arguments.of(m, np));
      }
    }
    return out.stream();
  }

  static Stream<Arguments> modesAndSizesFrom2() {
    return modesAndSizes().filter(a -> (int) a.get()[1] >= 2);
  }

  // ------------------------------------------------------------------ the matrix product

  /** A 2x2 matrix of longs, row-major: the element type of the non-commutative op. */
  static final Datatype MATRIX = Datatype.contiguous(4, Datatype.LONG).commit();

  /**
   * {@code inout = in x inout} on 2x2 matrices (in holds the lower ranks: the left factor). Made
   * anew by each rank that asks, as each JVM of a job makes its own.
   */
  static UserOp matrixProduct() {
    return Op.create((in, inout, count, type) -> {
      assertEquals(MATRIX, type, "the function gets the call's datatype");
      assertTrue(in.isReadOnly(), "in is read-only");
      assertEquals(ByteOrder.nativeOrder(), inout.order());
      assertEquals(count * 32L, inout.remaining());
      LongBuffer a = in.asLongBuffer();
      LongBuffer b = inout.asLongBuffer();
      for (int i = 0; i < count; i++) {
        long[] p = multiply(get(a, i), get(b, i));
        b.put(4 * i, p[0]).put(4 * i + 1, p[1]).put(4 * i + 2, p[2]).put(4 * i + 3, p[3]);
      }
    }, false);
  }

  private static long[] get(LongBuffer m, int i) {
    return new long[] {m.get(4 * i), m.get(4 * i + 1), m.get(4 * i + 2), m.get(4 * i + 3)};
  }

  static long[] multiply(long[] x, long[] y) {
    return new long[] {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2],
        x[2] * y[1] + x[3] * y[3]};
  }

  /** Rank r's matrix number j: no two of them commute. */
  static long[] matrix(int r, int j) {
    return j % 2 == 0 ? new long[] {r + j + 1, 1, 1, 0} : new long[] {2, r + 1, j, 1};
  }

  /** Matrices j0 .. j0+n-1 of rank r, one after the other. */
  static long[] matrices(int r, int j0, int n) {
    long[] out = new long[4 * n];
    for (int j = 0; j < n; j++) {
      System.arraycopy(matrix(r, j0 + j), 0, out, 4 * j, 4);
    }
    return out;
  }

  /** Matrix j of the product of ranks from..to-1, in rank order. */
  static long[] product(int from, int to, int j) {
    long[] p = matrix(from, j);
    for (int r = from + 1; r < to; r++) {
      p = multiply(p, matrix(r, j));
    }
    return p;
  }

  static long[] products(int from, int to, int j0, int n) {
    long[] out = new long[4 * n];
    for (int j = 0; j < n; j++) {
      System.arraycopy(product(from, to, j0 + j), 0, out, 4 * j, 4);
    }
    return out;
  }

  /**
   * The matrix product in reduce (root 0, the last rank and a middle one), allreduce (in place
   * too), reduceScatterBlock, reduceScatter with blocks of different sizes, scan and exscan:
   * every result is the product in ascending rank order. With more than one rank the reversed
   * order gives another product, so a wrong order fails the check.
   */
  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizes")
  void aNonCommutativeOpIsAppliedInRankOrder(Mode mode, int np) {
    run(mode, np, (world, args) -> {
      int me = world.rank();
      UserOp op = matrixProduct();
      assertFalse(op.isCommutative());
      int n = 3;
      if (np > 1) {
        assertFalse(Arrays.equals(product(0, np, 0), reversed(np, 0)), "the test's matrices do not commute");
      }
      List<Supplier<Future<?>>> steps = new ArrayList<>();
      for (int root : new int[] {0, np - 1, np / 2}) {
        steps.add(() -> {
          long[] out = new long[4 * n];
          return world.reduce(Buf.of(matrices(me, 0, n)), 0, Buf.of(out), 0, n, MATRIX, op, root).map(v -> {
            assertArrayEquals(me == root ? products(0, np, 0, n) : new long[4 * n], out, "reduce to " + root);
            return null;
          });
        });
      }
      steps.add(() -> {
        long[] out = new long[4 * n];
        return world.allreduce(Buf.of(matrices(me, 0, n)), 0, Buf.of(out), 0, n, MATRIX, op).map(v -> {
          assertArrayEquals(products(0, np, 0, n), out, "allreduce");
          return null;
        });
      });
      steps.add(() -> {
        long[] inPlace = matrices(me, 0, n);
        return world.allreduce(Comm.IN_PLACE, 0, Buf.of(inPlace), 0, n, MATRIX, op).map(v -> {
          assertArrayEquals(products(0, np, 0, n), inPlace, "allreduce in place");
          return null;
        });
      });
      steps.add(() -> {
        // rank i gets matrix i of every rank's np matrices, multiplied in rank order
        long[] out = new long[4];
        return world.reduceScatterBlock(Buf.of(matrices(me, 0, np)), 0, Buf.of(out), 0, 1, MATRIX, op).map(v -> {
          assertArrayEquals(product(0, np, me), out, "reduceScatterBlock");
          return null;
        });
      });
      steps.add(() -> {
        int[] counts = new int[np];
        int total = 0;
        for (int i = 0; i < np; i++) {
          counts[i] = i % 3;
          total += counts[i];
        }
        int first = 0;
        for (int i = 0; i < me; i++) {
          first += counts[i];
        }
        int from = first;
        long[] out = new long[4 * counts[me]];
        return world.reduceScatter(Buf.of(matrices(me, 0, total)), 0, Buf.of(out), 0, counts, MATRIX, op).map(v -> {
          assertArrayEquals(products(0, np, from, counts[me]), out, "reduceScatter");
          return null;
        });
      });
      steps.add(() -> {
        long[] out = new long[4 * n];
        return world.scan(Buf.of(matrices(me, 0, n)), 0, Buf.of(out), 0, n, MATRIX, op).map(v -> {
          assertArrayEquals(products(0, me + 1, 0, n), out, "scan");
          return null;
        });
      });
      steps.add(() -> {
        long[] out = new long[4 * n];
        Arrays.fill(out, -7);
        return world.exscan(Buf.of(matrices(me, 0, n)), 0, Buf.of(out), 0, n, MATRIX, op).map(v -> {
          long[] untouched = new long[4 * n];
          Arrays.fill(untouched, -7);
          assertArrayEquals(me == 0 ? untouched : products(0, me, 0, n), out, "exscan");
          return null;
        });
      });
      return sequence(steps);
    });
  }

  private static long[] reversed(int np, int j) {
    long[] p = matrix(np - 1, j);
    for (int r = np - 2; r >= 0; r--) {
      p = multiply(p, matrix(r, j));
    }
    return p;
  }

  // ------------------------------------------------------------------ a commutative op on a mixed type

  /** {int count; double sum; long max}: a datatype that mixes basic types (no predefined op takes it). */
  static final Datatype STATS = Datatype.struct(new int[] {1, 1, 1}, new long[] {0, 8, 16},
      new Datatype[] {Datatype.INT, Datatype.DOUBLE, Datatype.LONG}).commit();

  /** Adds counts and sums and keeps the largest max, on STATS packed: 4 + 8 + 8 bytes per element. */
  static UserOp stats() {
    return Op.create((in, inout, count, type) -> {
      assertEquals(20, type.size());
      for (int i = 0, at = 0; i < count; i++, at += 20) {
        inout.putInt(at, in.getInt(at) + inout.getInt(at));
        inout.putDouble(at + 4, in.getDouble(at + 4) + inout.getDouble(at + 4));
        inout.putLong(at + 12, Math.max(in.getLong(at + 12), inout.getLong(at + 12)));
      }
    }, true);
  }

  static ByteBuffer statsOf(int r, int n) {
    ByteBuffer b = ByteBuffer.allocate((int) STATS.extent() * n).order(ByteOrder.nativeOrder());
    for (int i = 0; i < n; i++) {
      b.putInt(24 * i, 1).putDouble(24 * i + 8, r + i * 0.5).putLong(24 * i + 16, (r * 7L + i) % 5);
    }
    return b;
  }

  /**
   * A commutative op on a struct datatype with a hole (int, then a double at 8), in reduce to
   * every root (the tree rotated to the root), allreduce, scan and exscan; the values (counts,
   * sums of exactly representable halves, maxima) do not depend on the order.
   */
  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizes")
  void aCommutativeOpOnAMixedDatatype(Mode mode, int np) {
    run(mode, np, (world, args) -> {
      int me = world.rank();
      UserOp op = stats();
      assertTrue(op.isCommutative());
      int n = 2;
      List<Supplier<Future<?>>> steps = new ArrayList<>();
      for (int root = 0; root < np; root++) {
        int r = root;
        steps.add(() -> {
          byte[] out = new byte[24 * n];
          return world.reduce(Buf.of(statsOf(me, n).array()), 0, Buf.of(out), 0, n, STATS, op, r).map(v -> {
            if (me == r) {
              checkStats(out, 0, np, n, "reduce to " + r);
            } else {
              assertArrayEquals(new byte[24 * n], out, "reduce: not root");
            }
            return null;
          });
        });
      }
      steps.add(() -> {
        byte[] out = new byte[24 * n];
        return world.allreduce(Buf.of(statsOf(me, n).array()), 0, Buf.of(out), 0, n, STATS, op).map(v -> {
          checkStats(out, 0, np, n, "allreduce");
          return null;
        });
      });
      steps.add(() -> {
        byte[] out = new byte[24 * n];
        return world.scan(Buf.of(statsOf(me, n).array()), 0, Buf.of(out), 0, n, STATS, op).map(v -> {
          checkStats(out, 0, me + 1, n, "scan");
          return null;
        });
      });
      steps.add(() -> {
        byte[] out = new byte[24 * n];
        return world.exscan(Buf.of(statsOf(me, n).array()), 0, Buf.of(out), 0, n, STATS, op).map(v -> {
          if (me > 0) {
            checkStats(out, 0, me, n, "exscan");
          }
          return null;
        });
      });
      // one long through allreduce(long, op): the function gets count 1 of LONG
      steps.add(() -> world.allreduce((long) me + 1, Op.create((in, inout, count, type) -> {
        assertEquals(Datatype.LONG, type);
        assertEquals(1, count);
        inout.putLong(0, in.getLong(0) * inout.getLong(0));
      }, true)).map(p -> {
        long f = 1;
        for (int i = 2; i <= np; i++) {
          f *= i;
        }
        assertEquals(f, p, "np! by a user-defined product");
        return null;
      }));
      return sequence(steps);
    });
  }

  private static void checkStats(byte[] out, int from, int to, int n, String what) {
    ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.nativeOrder());
    for (int i = 0; i < n; i++) {
      double sum = 0;
      long max = Long.MIN_VALUE;
      for (int r = from; r < to; r++) {
        sum += r + i * 0.5;
        max = Math.max(max, (r * 7L + i) % 5);
      }
      assertEquals(to - from, b.getInt(24 * i), what + ": count of element " + i);
      assertEquals(sum, b.getDouble(24 * i + 8), what + ": sum of element " + i);
      assertEquals(max, b.getLong(24 * i + 16), what + ": max of element " + i);
      assertEquals(0, b.getInt(24 * i + 4), what + ": the hole is left alone");
    }
  }

  // ------------------------------------------------------------------ failures

  /** A sum of longs whose function throws on an operand of -1. */
  static UserOp poisonedSum(boolean commute) {
    return Op.create((in, inout, count, type) -> {
      for (int i = 0; i < count; i++) {
        if (in.getLong(8 * i) == -1 || inout.getLong(8 * i) == -1) {
          throw new IllegalStateException("poisoned operand");
        }
        inout.putLong(8 * i, in.getLong(8 * i) + inout.getLong(8 * i));
      }
    }, commute);
  }

  /**
   * The last rank contributes -1, on which the function throws: every reducing collective, with a
   * commutative and a non-commutative op, fails at every rank with OP naming the exception (also
   * at the ranks whose part was done, such as the leaves of a reduce), nothing hangs, the receive
   * buffers are not written, and afterwards the job and the same op still work.
   */
  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizesFrom2")
  void anOpThatThrowsFailsTheCallAtEveryRank(Mode mode, int np) {
    run(mode, np, (world, args) -> {
      int me = world.rank();
      long[] in = {me == np - 1 ? -1 : me, 5};
      String[] says = {"the function of a user-defined op", "threw java.lang.IllegalStateException: poisoned operand",
          "at rank"};
      List<Supplier<Future<?>>> steps = new ArrayList<>();
      for (boolean commute : new boolean[] {true, false}) {
        UserOp op = poisonedSum(commute);
        for (int root : new int[] {0, np - 1}) {
          steps.add(() -> expectOpError(world.reduce(Buf.of(in.clone()), 0, Buf.of(new long[2]), 0, 2,
              Datatype.LONG, op, root), says));
        }
        steps.add(() -> {
          long[] out = {42, 42};
          return expectOpError(world.allreduce(Buf.of(in.clone()), 0, Buf.of(out), 0, 2, Datatype.LONG, op), says)
              .map(v -> {
                assertArrayEquals(new long[] {42, 42}, out, "allreduce: the receive buffer is not written");
                return null;
              });
        });
        steps.add(() -> {
          long[] mine = new long[np];
          Arrays.fill(mine, in[0]);
          long[] out = {42};
          return expectOpError(world.reduceScatterBlock(Buf.of(mine), 0, Buf.of(out), 0, 1, Datatype.LONG, op), says)
              .map(v -> {
                assertEquals(42, out[0], "reduceScatterBlock: the receive buffer is not written");
                return null;
              });
        });
        steps.add(() -> expectOpError(world.scan(Buf.of(in.clone()), 0, Buf.of(new long[2]), 0, 2, Datatype.LONG,
            op), says));
        steps.add(() -> expectOpError(world.exscan(Buf.of(in.clone()), 0, Buf.of(new long[2]), 0, 2,
            Datatype.LONG, op), says));
        // the job goes on: the same op on good values, then a predefined one
        steps.add(() -> world.allreduce((long) me, op).map(s -> {
          assertEquals((long) np * (np - 1) / 2, s);
          return null;
        }));
      }
      steps.add(() -> world.allreduce((long) me, Op.SUM));
      return sequence(steps);
    });
  }

  private static Future<Void> expectOpError(Future<Void> call, String... says) {
    return expectError(call, ErrorClass.OP, says);
  }

  /**
   * A function that fails at one rank only (say its JVM ran out of something): every rank's scan
   * fails with that rank's error, also rank 0, whose own result needs no combination with it.
   */
  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizesFrom2")
  void aFailureAtOneRankFailsEveryRank(Mode mode, int np) {
    run(mode, np, (world, args) -> {
      int me = world.rank();
      Reduction op = Op.create((in, inout, count, type) -> {
        if (me == 1) {
          throw new UnsupportedOperationException("rank 1 cannot combine today");
        }
        inout.putLong(0, in.getLong(0) + inout.getLong(0));
      }, true);
      long[] out = {-3};
      return expectError(world.scan(Buf.of(new long[] {me}), 0, Buf.of(out), 0, 1, Datatype.LONG, op), ErrorClass.OP,
          "UnsupportedOperationException: rank 1 cannot combine today", "at rank 1").compose(v -> {
            assertEquals(-3, out[0], "the result is not written");
            return world.barrier();
          });
    });
  }

  // ------------------------------------------------------------------ the API

  /** MPI_Op_commutative, MPI_Op_create's argument check, and no user-defined op in RMA. */
  @Test
  void theTypesSayWhatTakesAUserDefinedOp() {
    for (Op op : Op.values()) {
      assertTrue(op.isCommutative(), op + " is commutative");
    }
    RmaException e = assertThrows(RmaException.class, () -> Op.create(null, true));
    assertError(e, ErrorClass.ARG, "Op.create", "null");
    UserOp op = Op.create((in, inout, count, type) -> { }, false);
    assertNotEquals(op.mpiName(), Op.create(op.function(), true).mpiName());
    // MPI forbids user-defined ops in the accumulate functions: Win's calls take an Op only
    for (Method m : Win.class.getMethods()) {
      for (Class<?> p : m.getParameterTypes()) {
        assertFalse(p == Reduction.class || p == UserOp.class, "Win." + m.getName() + " takes " + p.getSimpleName());
      }
    }
    long reducing = Arrays.stream(Comm.class.getMethods())
        .filter(m -> Arrays.asList(m.getParameterTypes()).contains(Reduction.class)).count();
    assertEquals(8, reducing, "reduce, allreduce (3), reduceScatter, reduceScatterBlock, scan, exscan");
  }
}
