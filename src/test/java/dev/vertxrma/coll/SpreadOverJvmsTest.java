package dev.vertxrma.coll;

import static dev.vertxrma.coll.CollectivesTest.sequence;
import static dev.vertxrma.coll.UserOpsTest.MATRIX;
import static dev.vertxrma.coll.UserOpsTest.matrices;
import static dev.vertxrma.coll.UserOpsTest.matrixProduct;
import static dev.vertxrma.coll.UserOpsTest.poisonedSum;
import static dev.vertxrma.coll.UserOpsTest.products;
import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.UserOp;
import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Barrier, allreduce and bcast of jobs spread over three and five clustered Vert.x nodes with
 * several ranks on some (2+2+2, uneven 1+2+3, 2+1+2+1+2), through the public API: on the world,
 * and on a split that interleaves the JVMs (each JVM's ranks are then not consecutive, so a
 * non-commutative op must not be combined JVM by JVM). Checks barrier's guarantee round by round,
 * SUM, MAX and a matrix product in rank order, bcast from every root, calls made back to back
 * without awaiting, and failures that reach every rank at once (counts that disagree, an op that
 * throws at one rank) after which the job goes on.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SpreadOverJvmsTest {

  private static final String CLUSTER = "rma-spread-" + UUID.randomUUID().toString().substring(0, 8);
  private static final List<Vertx> NODES = new ArrayList<>();

  /** The first {@code n} nodes of this class's own cluster, started on first use. */
  private static synchronized List<Vertx> nodes(int n) {
    while (NODES.size() < n) {
      NODES.add(BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(CLUSTER, BlockedThreadGuard.options()), 120)));
    }
    return NODES.subList(0, n);
  }

  @AfterAll
  static synchronized void closeNodes() {
    for (Vertx v : NODES) {
      Jobs.await(v.close(), 60);
    }
    NODES.clear();
  }

  static Stream<Arguments> placements() {
    List<Arguments> out = new ArrayList<>();
    for (int[] p : new int[][] {{2, 2, 2}, {1, 2, 3}, {2, 1, 2, 1, 2}}) {
      for (boolean interleaved : new boolean[] {false, true}) {
        out.add(Arguments.of(p, interleaved));
      }
    }
    return out.stream();
  }

  /**
   * Runs {@code program} with node {@code j} hosting the next {@code perJvm[j]} ranks, on the world
   * or on a split that orders the even job ranks first (JVMs interleaved); waits for every rank.
   */
  private static void run(int[] perJvm, boolean interleaved, RankProgram program) {
    int np = java.util.Arrays.stream(perJvm).sum();
    RankProgram over = !interleaved ? program : (world, args) -> world.split(0, (world.rank() % 2) * np + world.rank())
        .compose(c -> program.run(c.orElseThrow(), args));
    JobOptions options = Jobs.options(np);
    List<Vertx> nodes = nodes(perJvm.length);
    List<Future<Void>> parts = new ArrayList<>();
    for (int j = 0, first = 0; j < perJvm.length; first += perJvm[j], j++) {
      parts.add(Rma.run(nodes.get(j), new JobOptions(options).setLocalRanks(first, perJvm[j]), over));
    }
    Jobs.await(Future.join(parts).transform(ar -> {
      List<Throwable> failed = parts.stream().filter(Future::failed).map(Future::cause).toList();
      return failed.isEmpty() ? Future.<Void>succeededFuture()
          : Future.<Void>failedFuture(dev.vertxrma.impl.job.JobRunner.rootCause(failed));
    }), 240);
  }

  @ParameterizedTest(name = "{0} interleaved={1}")
  @MethodSource("placements")
  void barrierAllreduceAndBcastGiveMpisResults(int[] perJvm, boolean interleaved) {
    int rounds = 200;
    int np = java.util.Arrays.stream(perJvm).sum();
    AtomicIntegerArray entered = new AtomicIntegerArray(np);
    run(perJvm, interleaved, (comm, args) -> {
      int me = comm.rank();
      List<Supplier<Future<?>>> steps = new ArrayList<>();
      steps.add(() -> Rma.repeat(rounds, k -> {
        entered.set(me, k + 1);
        return comm.barrier().map(v -> {
          for (int r = 0; r < np; r++) {
            int e = entered.get(r);
            if (e < k + 1 || e > k + 2) {
              throw new IllegalStateException("rank " + me + " left barrier " + (k + 1) + " while rank " + r
                  + " had entered barrier " + e);
            }
          }
          return null;
        });
      }));
      steps.add(() -> comm.allreduce((long) me + 1, Op.SUM).map(s -> check((long) np * (np + 1) / 2, s, "SUM", me)));
      steps.add(() -> comm.allreduce(((long) me + 3) << 35, Op.MAX).map(s -> check(((long) np + 2) << 35, s, "MAX", me)));
      steps.add(() -> {
        long[] out = new long[4 * 3];
        return comm.allreduce(Buf.of(matrices(me, 0, 3)), 0, Buf.of(out), 0, 3, MATRIX, matrixProduct()).map(v -> {
          assertArrayEquals(products(0, np, 0, 3), out, "the matrix product in rank order at rank " + me);
          return null;
        });
      });
      for (int root = 0; root < np; root++) {
        int rt = root;
        steps.add(() -> {
          long[] buf = me == rt ? new long[] {rt * 10L, -rt} : new long[2];
          return comm.bcast(Buf.of(buf), 0, 2, Datatype.LONG, rt).map(v -> {
            assertArrayEquals(new long[] {rt * 10L, -rt}, buf, "bcast from " + rt + " at rank " + me);
            return null;
          });
        });
      }
      steps.add(() -> backToBack(comm, np));
      return sequence(steps);
    });
  }

  private static Void check(long expected, long got, String what, int rank) {
    assertEquals(expected, got, what + " at rank " + rank);
    return null;
  }

  /** Barrier, allreduce, bcast and a matrix product started before any of them completed. */
  private static Future<Void> backToBack(Comm comm, int np) {
    int me = comm.rank();
    List<Future<?>> calls = new ArrayList<>();
    long[][] bufs = new long[np][];
    long[] product = new long[4];
    for (int k = 0; k < 3; k++) {
      calls.add(comm.barrier());
      int kk = k;
      calls.add(comm.allreduce((long) me * (k + 1), Op.SUM).map(s -> check((long) np * (np - 1) / 2 * (kk + 1), s,
          "SUM " + kk + " back to back", me)));
    }
    for (int root = np - 1; root >= 0; root--) {
      bufs[root] = me == root ? new long[] {root + 1000L} : new long[1];
      calls.add(comm.bcast(Buf.of(bufs[root]), 0, 1, Datatype.LONG, root));
      calls.add(comm.allreduce((long) me, root % 2 == 0 ? Op.MAX : Op.MIN));
    }
    calls.add(comm.allreduce(Buf.of(matrices(me, 1, 1)), 0, Buf.of(product), 0, 1, MATRIX, matrixProduct()));
    calls.add(comm.barrier());
    return Future.all(calls).map(v -> {
      for (int root = 0; root < np; root++) {
        assertEquals(root + 1000L, bufs[root][0], "bcast from " + root + " back to back at rank " + me);
      }
      assertArrayEquals(products(0, np, 1, 1), product, "matrix product back to back at rank " + me);
      return null;
    });
  }

  @ParameterizedTest(name = "{0} interleaved={1}")
  @MethodSource("placements")
  void aFailedPartFailsEveryRankAtOnceAndTheJobGoesOn(int[] perJvm, boolean interleaved) {
    int np = java.util.Arrays.stream(perJvm).sum();
    run(perJvm, interleaved, (comm, args) -> {
      int me = comm.rank();
      UserOp poisoned = poisonedSum(true);
      List<Supplier<Future<?>>> steps = new ArrayList<>();
      // a rank that waited for its timeout would fail with TIMEOUT, not with the failed part's class
      for (int wrong : new int[] {1, np - 1}) {
        steps.add(() -> {
          int count = me == wrong ? 2 : 1;
          return expectError(comm.allreduce(Buf.of(new long[count]), 0, Buf.of(new long[count]), 0, count,
              Datatype.LONG, Op.SUM), ErrorClass.TRUNCATE, "allreduce", "bytes");
        });
        steps.add(() -> expectError(comm.allreduce(Buf.of(new long[] {me == wrong ? -1 : me}), 0, Buf.of(new long[1]),
            0, 1, Datatype.LONG, poisoned), ErrorClass.OP, "poisoned operand"));
        steps.add(() -> comm.allreduce((long) me, Op.SUM).map(s -> check((long) np * (np - 1) / 2, s, "SUM after", me)));
        steps.add(comm::barrier);
      }
      return sequence(steps);
    });
  }
}
