package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The pattern an MPI conformance suite once saw hang on clustered nodes (issue 27, item 3): every
 * rank at once, round after round and without awaiting, getAccumulate with a derived datatype
 * (DOUBLE, count 5, strided at the target), fetchAndOp and compareAndSwap on its neighbour, then a
 * flush; every fetched value and the final sums checked.
 */
class DerivedAtomicsStressTest {

  private static final int NP = 4;
  private static final int ROUNDS = 300;

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void derivedGetAccumulatesWithAtomicsUnderLockAll(Jobs.Mode mode) {
    Datatype strided = Datatype.vector(5, 1, 2, Datatype.DOUBLE).commit(); // 5 doubles, every other one
    Jobs.run(mode, NP, (world, args) -> Win.allocate(world, 8 * 16, 8, Info.NULL).compose(win -> {
      int me = world.rank();
      int next = (me + 1) % NP;
      double[] seen = new double[5 * ROUNDS];
      long[] counters = new long[ROUNDS];
      return win.lockAll().compose(v -> Rma.repeat(ROUNDS, r -> {
        List<Future<?>> ops = new ArrayList<>();
        double[] add = {1, 2, 3, 4, 5};
        double[] got = new double[5];
        ops.add(win.getAccumulate(Buf.of(add), 0, 5, Datatype.DOUBLE, Buf.of(got), 0, 5, Datatype.DOUBLE, next, 0, 1,
            strided, Op.SUM).map(x -> {
              System.arraycopy(got, 0, seen, 5 * r, 5);
              return null;
            }));
        ops.add(win.fetchAndOp(1L, next, 10, Op.SUM).map(old -> counters[r] = old));
        ops.add(win.compareAndSwap((long) r, r + 1L, next, 11));
        ops.add(win.flush(next));
        return Future.all(ops);
      })).compose(v -> win.unlockAll()).compose(v -> world.barrier()).map(v -> {
        for (int r = 0; r < ROUNDS; r++) {
          assertEquals(r, counters[r], "fetchAndOp of round " + r + " (one origin per target: in order)");
          for (int i = 0; i < 5; i++) {
            assertEquals((double) r * (i + 1), seen[5 * r + i], "getAccumulate of round " + r + ", element " + i);
          }
        }
        for (int i = 0; i < 5; i++) {
          assertEquals((double) ROUNDS * (i + 1), win.memory().readDouble(16L * i), "sum at element " + i);
        }
        assertEquals(ROUNDS, win.memory().readLong(80), "counter");
        assertEquals(ROUNDS, win.memory().readLong(88), "compare-and-swap chain");
        return null;
      }).compose(v -> win.free());
    }));
  }
}
