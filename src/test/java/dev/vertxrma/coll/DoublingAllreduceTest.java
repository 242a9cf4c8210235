package dev.vertxrma.coll;

import static dev.vertxrma.coll.UserOpsTest.MATRIX;
import static dev.vertxrma.coll.UserOpsTest.matrices;
import static dev.vertxrma.coll.UserOpsTest.matrixProduct;
import static dev.vertxrma.coll.UserOpsTest.products;
import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.UserOp;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Allreduce by messages on any number of ranks (the on-node path off, so the ranks of a clustered
 * job exchange frames between the JVMs; an embedded job's meet in memory): recursive doubling,
 * the ranks past the largest power of two folded into their neighbours first (MPICH's algorithm
 * for short data). Calls issued back to back without awaiting each other, a non-commutative op
 * combined in rank order, every rank the same bits; a rank whose count disagrees fails the call
 * at every rank with TRUNCATE at once (no rank waits for its timeout), and the job goes on.
 */
class DoublingAllreduceTest {

  static Stream<Arguments> modesAndSizes() {
    List<Arguments> out = new ArrayList<>();
    for (Jobs.Mode m : Jobs.Mode.values()) {
      for (int np : new int[] {2, 3, 5, 6, 7}) {
        out.add(Arguments.of(m, np));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizes")
  void callsBackToBackCombineInRankOrderAndADisagreeingCountFailsEveryRank(Jobs.Mode mode, int np) {
    Jobs.runOverDataPlane(mode, np, (world, args) -> {
      int me = world.rank();
      UserOp product = matrixProduct();
      int calls = 8;
      List<Future<?>> all = new ArrayList<>();
      for (int k = 0; k < calls; k++) { // issued at once: their tags keep them apart
        int n = 1 + k % 3;
        long[] out = new long[4 * n];
        int j0 = k;
        all.add(world.allreduce(Buf.of(matrices(me, j0, n)), 0, Buf.of(out), 0, n, MATRIX, product).map(v -> {
          assertArrayEquals(products(0, np, j0, n), out, "call " + j0 + " at rank " + me);
          return null;
        }));
      }
      long[] sum = new long[1];
      all.add(world.allreduce(Buf.of(new long[] {me + 1}), 0, Buf.of(sum), 0, 1, Datatype.LONG, Op.SUM).map(v -> {
        assertEquals((long) np * (np + 1) / 2, sum[0], "sum at rank " + me);
        return null;
      }));
      return Future.all(all).compose(v -> {
        // the last rank contributes two longs where the others contribute one
        int count = me == np - 1 ? 2 : 1;
        return expectError(world.allreduce(Buf.of(new long[] {1, 1}), 0, Buf.of(new long[2]), 0, count,
            Datatype.LONG, Op.SUM), ErrorClass.TRUNCATE, "allreduce");
      }).compose(v -> {
        long[] after = new long[1];
        return world.allreduce(Buf.of(new long[] {me}), 0, Buf.of(after), 0, 1, Datatype.LONG, Op.MAX).map(w -> {
          assertEquals(np - 1, after[0], "the allreduce after the failed one, at rank " + me);
          return null;
        });
      });
    });
  }
}
