package dev.vertxrma.coll;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Collective operations for 1 to 5 ranks (powers of two and not) in both modes, each checked
 * value by value against a sequential computation, plus the OP and RANK errors.
 */
class CollectivesTest {

  private static final Future<Void> DONE = Future.succeededFuture();
  static final Op[] INT_OPS = {Op.SUM, Op.MAX, Op.MIN, Op.PROD, Op.BAND, Op.BOR, Op.LXOR};
  static final Op[] DOUBLE_OPS = {Op.SUM, Op.MAX, Op.MIN, Op.PROD};
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

  /**
   * {@link Jobs#run} with a 10 s startup timeout instead of 60 s: a job that cannot start fails
   * fast (the jobs here start in well under a second).
   */
  static void run(Mode mode, int np, RankProgram program) {
    Jobs.await(Jobs.start(mode, Jobs.options(np).setStartupTimeoutMs(10_000), program), 120);
  }

  /** Runs the steps one after another, each started when the previous one completed. */
  static Future<Void> sequence(List<Supplier<Future<?>>> steps) {
    Future<Void> chain = DONE;
    for (Supplier<Future<?>> s : steps) {
      chain = chain.compose(v -> s.get().mapEmpty());
    }
    return chain;
  }

  // ------------------------------------------------------------------ per-rank inputs

  static int intValue(Op op, int r, int i) {
    switch (op) {
      case PROD:
        return (r + i) % 3 + 1 + (i == 0 ? -r : 0); // small factors, some negative or zero
      case BAND:
      case BOR:
        return (1 << (r + i)) | (0x7F00 >> r) | (i << 20);
      case LXOR:
        return (r + 2 * i) % 3 == 0 ? 0 : r * 7 - i;
      default:
        return (r * 37 + i * 11) % 23 - 11 + (r == 2 ? Integer.MIN_VALUE / 2 : 0);
    }
  }

  static long longValue(Op op, int r, int i) {
    switch (op) {
      case PROD:
        return ((long) (r + i) % 4 + 1) * (i == 1 ? 1_000_003L : 1) - (r == 1 && i == 2 ? 5 : 0);
      case BAND:
      case BOR:
        return (1L << (40 + r + i)) | (0xFF00L >> r) | i;
      case LXOR:
        return (r + i) % 2 == 0 ? 0 : (1L << 40) * (r - 2);
      default:
        return ((long) r << 36) * (i % 2 == 0 ? 1 : -1) + r * 3 - i;
    }
  }

  static double doubleValue(Op op, int r, int i) {
    // halves and small integers: every partial sum and product is exact in any order
    if (op == Op.PROD) {
      return (r % 3 + 1) * (i % 2 == 0 ? 0.5 : -2.0);
    }
    return (r * 3 - i) * 0.5 - (r == 1 ? 1e6 : 0);
  }

  static long combine(Op op, long a, long b) {
    switch (op) {
      case SUM: return a + b;
      case PROD: return a * b;
      case MAX: return Math.max(a, b);
      case MIN: return Math.min(a, b);
      case BAND: return a & b;
      case BOR: return a | b;
      case LXOR: return (a != 0) != (b != 0) ? 1 : 0;
      default: throw new IllegalArgumentException(op.toString());
    }
  }

  static double combine(Op op, double a, double b) {
    switch (op) {
      case SUM: return a + b;
      case PROD: return a * b;
      case MAX: return Math.max(a, b);
      case MIN: return Math.min(a, b);
      default: throw new IllegalArgumentException(op.toString());
    }
  }

  static int[] expectedInts(Op op, int np) {
    int[] e = new int[N];
    for (int i = 0; i < N; i++) {
      long acc = intValue(op, 0, i);
      for (int r = 1; r < np; r++) {
        acc = (int) combine(op, acc, intValue(op, r, i));
      }
      e[i] = (int) acc;
    }
    return e;
  }

  static long[] expectedLongs(Op op, int np) {
    long[] e = new long[N];
    for (int i = 0; i < N; i++) {
      long acc = longValue(op, 0, i);
      for (int r = 1; r < np; r++) {
        acc = combine(op, acc, longValue(op, r, i));
      }
      e[i] = acc;
    }
    return e;
  }

  static double[] expectedDoubles(Op op, int np) {
    double[] e = new double[N];
    for (int i = 0; i < N; i++) {
      double acc = doubleValue(op, 0, i);
      for (int r = 1; r < np; r++) {
        acc = combine(op, acc, doubleValue(op, r, i));
      }
      e[i] = acc;
    }
    return e;
  }

  // ------------------------------------------------------------------ barrier, bcast, reduce

  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizes")
  void barrierBcastAndReduce(Mode mode, int np) {
    int barriers = 3;
    AtomicIntegerArray entered = new AtomicIntegerArray(barriers);
    AtomicIntegerArray left = new AtomicIntegerArray(barriers);
    run(mode, np, (world, args) -> {
      int me = world.rank();
      List<Supplier<Future<?>>> steps = new ArrayList<>();

      // barrier k: nobody leaves before everybody entered; nobody enters k+1 before leaving k
      for (int k = 0; k < barriers; k++) {
        int kk = k;
        steps.add(() -> {
          int enteredBefore = entered.incrementAndGet(kk);
          return world.barrier().map(v -> {
            assertTrue(enteredBefore <= np);
            assertEquals(np, entered.get(kk), "rank " + me + " left barrier " + kk + " before all ranks entered it");
            left.incrementAndGet(kk);
            return null;
          });
        });
      }

      // bcast from every root, with a predefined and a derived type, at an offset
      Datatype everyOther = Datatype.vector(3, 1, 2, Datatype.INT).commit();
      for (int root = 0; root < np; root++) {
        int rt = root;
        steps.add(() -> {
          double[] buf = new double[6];
          Arrays.fill(buf, Double.NaN);
          if (me == rt) {
            for (int i = 0; i < 4; i++) {
              buf[1 + i] = rt * 100 + i + 0.25;
            }
          }
          return world.bcast(Buf.of(buf), 1, 4, Datatype.DOUBLE, rt).map(v -> {
            assertTrue(Double.isNaN(buf[0]) && Double.isNaN(buf[5]), "bcast wrote outside its range");
            for (int i = 0; i < 4; i++) {
              assertEquals(rt * 100 + i + 0.25, buf[1 + i], "bcast from root " + rt + " at rank " + me + " [" + i + "]");
            }
            return null;
          });
        });
        steps.add(() -> {
          int[] buf = {-1, -1, -1, -1, -1, -1};
          if (me == rt) {
            buf[0] = 10 + rt;
            buf[2] = 20 + rt;
            buf[4] = 30 + rt;
          }
          return world.bcast(Buf.of(buf), 0, 1, everyOther, rt).map(v -> {
            assertArrayEquals(new int[] {10 + rt, -1, 20 + rt, -1, 30 + rt, -1}, buf,
                "derived-type bcast from root " + rt + " at rank " + me);
            return null;
          });
        });
      }

      // reduce of INT and LONG with every integer op, DOUBLE with the arithmetic ones
      int reduceRoot = np - 1;
      for (Op op : INT_OPS) {
        steps.add(() -> {
          int[] in = new int[N];
          int[] out = new int[N + 1];
          Arrays.fill(out, 12345);
          for (int i = 0; i < N; i++) {
            in[i] = intValue(op, me, i);
          }
          return world.reduce(Buf.of(in), 0, Buf.of(out), 1, N, Datatype.INT, op, reduceRoot).map(v -> {
            assertEquals(12345, out[0]);
            int[] got = Arrays.copyOfRange(out, 1, N + 1);
            if (me == reduceRoot) {
              assertArrayEquals(expectedInts(op, np), got, "INT " + op + " at root " + reduceRoot);
            } else {
              assertArrayEquals(new int[] {12345, 12345, 12345, 12345, 12345}, got,
                  "reduce must not write the receive buffer of non-root rank " + me);
            }
            for (int i = 0; i < N; i++) {
              assertEquals(intValue(op, me, i), in[i], "reduce must not modify the send buffer");
            }
            return null;
          });
        });
        steps.add(() -> {
          long[] in = new long[N];
          long[] out = new long[N];
          for (int i = 0; i < N; i++) {
            in[i] = longValue(op, me, i);
          }
          return world.reduce(Buf.of(in), 0, Buf.of(out), 0, N, Datatype.LONG, op, 0).map(v -> {
            if (me == 0) {
              assertArrayEquals(expectedLongs(op, np), out, "LONG " + op + " at root 0");
            }
            return null;
          });
        });
      }
      for (Op op : DOUBLE_OPS) {
        steps.add(() -> {
          double[] in = new double[N];
          double[] out = new double[N];
          for (int i = 0; i < N; i++) {
            in[i] = doubleValue(op, me, i);
          }
          int root = np / 2;
          return world.reduce(Buf.of(in), 0, Buf.of(out), 0, N, Datatype.DOUBLE, op, root).map(v -> {
            if (me == root) {
              assertArrayEquals(expectedDoubles(op, np), out, "DOUBLE " + op + " at root " + root);
            }
            return null;
          });
        });
      }
      return sequence(steps);
    });
    for (int k = 0; k < barriers; k++) {
      assertEquals(np, entered.get(k), "ranks that entered barrier " + k);
      assertEquals(np, left.get(k), "ranks that left barrier " + k);
    }
  }

  // ------------------------------------------------------------------ allreduce, gather, scatter, alltoall

  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizes")
  void allreduceGatherScatterAlltoall(Mode mode, int np) {
    run(mode, np, (world, args) -> {
      int me = world.rank();
      List<Supplier<Future<?>>> steps = new ArrayList<>();

      // allreduce, array form
      for (Op op : INT_OPS) {
        steps.add(() -> {
          int[] in = new int[N];
          int[] out = new int[N];
          for (int i = 0; i < N; i++) {
            in[i] = intValue(op, me, i);
          }
          return world.allreduce(Buf.of(in), 0, Buf.of(out), 0, N, Datatype.INT, op).map(v -> {
            assertArrayEquals(expectedInts(op, np), out, "allreduce INT " + op + " at rank " + me);
            return null;
          });
        });
      }
      for (Op op : DOUBLE_OPS) {
        steps.add(() -> {
          double[] in = new double[N + 2];
          double[] out = new double[N + 1];
          for (int i = 0; i < N; i++) {
            in[2 + i] = doubleValue(op, me, i);
          }
          return world.allreduce(Buf.of(in), 2, Buf.of(out), 1, N, Datatype.DOUBLE, op).map(v -> {
            assertEquals(0.0, out[0]);
            assertArrayEquals(expectedDoubles(op, np), Arrays.copyOfRange(out, 1, N + 1),
                "allreduce DOUBLE " + op + " at rank " + me);
            return null;
          });
        });
      }
      // allreduce, scalar forms
      steps.add(() -> world.allreduce((long) me, Op.SUM).map(s -> {
        assertEquals((long) np * (np - 1) / 2, s, "sum of ranks");
        return null;
      }));
      steps.add(() -> world.allreduce(((long) me + 1) << 33, Op.MAX).map(s -> {
        assertEquals((long) np << 33, s);
        return null;
      }));
      steps.add(() -> world.allreduce((long) me * 3 - 7, Op.PROD).map(s -> {
        long p = 1;
        for (int r = 0; r < np; r++) {
          p *= (long) r * 3 - 7;
        }
        assertEquals(p, s);
        return null;
      }));
      steps.add(() -> world.allreduce(me + 0.5, Op.MAX).map(s -> {
        assertEquals(np - 0.5, s);
        return null;
      }));
      steps.add(() -> world.allreduce(me * -1.25, Op.MIN).map(s -> {
        assertEquals((np - 1) * -1.25, s);
        return null;
      }));
      steps.add(() -> world.allreduce(me * 0.5 + 1, Op.SUM).map(s -> {
        assertEquals(np + 0.25 * np * (np - 1), s);
        return null;
      }));

      // gather to every root: rank r contributes {r*10, r*10+1}
      for (int root = 0; root < np; root++) {
        int rt = root;
        steps.add(() -> {
          int[] out = new int[2 * np + 1];
          Arrays.fill(out, -1);
          return world.gather(Buf.of(new int[] {me * 10, me * 10 + 1}), 0, 2, Datatype.INT, Buf.of(out), 1, 2, Datatype.INT, rt)
              .map(v -> {
                int[] expected = new int[2 * np + 1];
                Arrays.fill(expected, -1);
                if (me == rt) {
                  for (int r = 0; r < np; r++) {
                    expected[1 + 2 * r] = r * 10;
                    expected[2 + 2 * r] = r * 10 + 1;
                  }
                }
                assertArrayEquals(expected, out, "gather to root " + rt + " at rank " + me);
                return null;
              });
        });
      }
      // allgather: rank r contributes 3 longs
      steps.add(() -> {
        long[] out = new long[3 * np];
        return world.allgather(Buf.of(new long[] {me, -me, (long) me << 40}), 0, 3, Datatype.LONG, Buf.of(out), 0, 3, Datatype.LONG)
            .map(v -> {
              for (int r = 0; r < np; r++) {
                assertEquals(r, out[3 * r], "allgather block " + r + " at rank " + me);
                assertEquals(-r, out[3 * r + 1]);
                assertEquals((long) r << 40, out[3 * r + 2]);
              }
              return null;
            });
      });
      // scatter from every root: block i of the root's buffer goes to rank i
      for (int root = 0; root < np; root++) {
        int rt = root;
        steps.add(() -> {
          double[] send = null;
          if (me == rt) {
            send = new double[2 * np];
            for (int i = 0; i < np; i++) {
              send[2 * i] = rt * 1000 + i;
              send[2 * i + 1] = -(rt * 1000 + i) - 0.5;
            }
          }
          double[] in = {Double.NaN, Double.NaN, Double.NaN};
          return world.scatter(Buf.of(send), 0, 2, Datatype.DOUBLE, Buf.of(in), 1, 2, Datatype.DOUBLE, rt).map(v -> {
            assertTrue(Double.isNaN(in[0]));
            assertEquals(rt * 1000 + me, in[1], "scatter from root " + rt + " at rank " + me);
            assertEquals(-(rt * 1000 + me) - 0.5, in[2]);
            return null;
          });
        });
      }
      // alltoall: block j of rank i is {i*100 + j, -(i*100 + j)}; rank j gets it as block i
      steps.add(() -> {
        int[] send = new int[2 * np];
        for (int j = 0; j < np; j++) {
          send[2 * j] = me * 100 + j;
          send[2 * j + 1] = -(me * 100 + j);
        }
        int[] recv = new int[2 * np];
        return world.alltoall(Buf.of(send), 0, 2, Datatype.INT, Buf.of(recv), 0, 2, Datatype.INT).map(v -> {
          for (int i = 0; i < np; i++) {
            assertEquals(i * 100 + me, recv[2 * i], "alltoall block from rank " + i + " at rank " + me);
            assertEquals(-(i * 100 + me), recv[2 * i + 1]);
          }
          return null;
        });
      });
      return sequence(steps);
    });
  }

  // ------------------------------------------------------------------ errors

  @ParameterizedTest
  @EnumSource(Mode.class)
  void reductionOpsUndefinedOnTheTypeFailWithOp(Mode mode) {
    run(mode, 3, (world, args) -> {
      double[] d = {1.5, 2.5};
      double[] out = new double[2];
      return sequence(List.of(
          () -> expectError(world.reduce(Buf.of(d), 0, Buf.of(out), 0, 2, Datatype.DOUBLE, Op.BAND, 0), ErrorClass.OP,
              "MPI_BAND", "DOUBLE"),
          () -> expectError(world.reduce(Buf.of(d), 0, Buf.of(out), 0, 2, Datatype.DOUBLE, Op.LXOR, 1), ErrorClass.OP,
              "MPI_LXOR", "DOUBLE"),
          () -> expectError(world.allreduce(Buf.of(d), 0, Buf.of(out), 0, 2, Datatype.DOUBLE, Op.BOR), ErrorClass.OP,
              "MPI_BOR", "DOUBLE"),
          () -> expectError(world.allreduce(2.5, Op.BXOR), ErrorClass.OP, "MPI_BXOR", "DOUBLE"),
          () -> expectError(world.reduce(Buf.of(new int[2]), 0, Buf.of(new int[2]), 0, 2, Datatype.INT, Op.MAXLOC, 0),
              ErrorClass.OP, "MPI_MAXLOC", "INT"),
          () -> expectError(world.allreduce(Buf.of(new long[1]), 0, Buf.of(new long[1]), 0, 1, Datatype.LONG, null), ErrorClass.OP),
          // nothing was sent: a valid collective afterwards still works
          () -> world.allreduce((long) world.rank() + 1, Op.SUM).map(s -> {
            assertEquals(6L, s);
            assertArrayEquals(new double[] {0, 0}, out, "a failed reduction wrote the receive buffer");
            return null;
          })));
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void rootOutOfRangeFailsWithRank(Mode mode) {
    run(mode, 3, (world, args) -> {
      int[] a = new int[3];
      int[] b = new int[9];
      return sequence(List.of(
          () -> expectError(world.bcast(Buf.of(a), 0, 1, Datatype.INT, 3), ErrorClass.RANK, "bcast", "root 3", "[0, 3)"),
          () -> expectError(world.bcast(Buf.of(a), 0, 1, Datatype.INT, -1), ErrorClass.RANK, "bcast", "root -1", "[0, 3)"),
          () -> expectError(world.reduce(Buf.of(a), 0, Buf.of(b), 0, 1, Datatype.INT, Op.SUM, 7), ErrorClass.RANK, "reduce",
              "root 7", "[0, 3)"),
          () -> expectError(world.gather(Buf.of(a), 0, 1, Datatype.INT, Buf.of(b), 0, 1, Datatype.INT, 3), ErrorClass.RANK,
              "gather", "root 3"),
          () -> expectError(world.scatter(Buf.of(b), 0, 1, Datatype.INT, Buf.of(a), 0, 1, Datatype.INT, -2), ErrorClass.RANK,
              "scatter", "root -2"),
          // the job is still healthy
          () -> world.allreduce((long) world.rank(), Op.MAX).map(m -> {
            assertEquals(2L, m);
            return null;
          })));
    });
  }

  /**
   * Every call returns at once (no blocking), so a rank may start a collective before the
   * previous one completed. MPI requires such collectives (MPI_Ibcast etc.) to match in the
   * order they were started on every rank.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void collectivesStartedBackToBackMatchInCallOrder(Mode mode) {
    run(mode, 4, (world, args) -> {
      int me = world.rank();
      int[] fromTwo = new int[2];
      int[] fromZero = new int[2];
      if (me == 2) {
        fromTwo[0] = 2;
        fromTwo[1] = 22;
      }
      if (me == 0) {
        fromZero[0] = 0;
        fromZero[1] = 100;
      }
      Future<Void> first = world.bcast(Buf.of(fromTwo), 0, 2, Datatype.INT, 2);
      Future<Void> second = world.bcast(Buf.of(fromZero), 0, 2, Datatype.INT, 0);
      Future<Long> third = world.allreduce((long) me + 1, Op.SUM);
      return Future.all(first, second, third).map(all -> {
        assertArrayEquals(new int[] {2, 22}, fromTwo, "first bcast (root 2) at rank " + me);
        assertArrayEquals(new int[] {0, 100}, fromZero, "second bcast (root 0) at rank " + me);
        assertEquals(10L, third.result());
        return null;
      });
    });
  }
}
