package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.junit.RmaJob;
import dev.vertxrma.junit.RmaTest;
import dev.vertxrma.testing.Jobs;

/** Put, get and accumulate under fence, value-checked, embedded and on two clustered nodes. */
class FenceSmokeTest {

  private static final RankProgram PUT_GET_ACCUMULATE = (world, args) -> Win.allocate(world, 8 * 8, 8, Info.NULL)
      .compose(win -> {
        int r = world.rank();
        int n = world.size();
        long[] mine = {100 + r};
        long[] got = new long[1];
        return win.fence(dev.vertxrma.Mode.NOPRECEDE)
            .compose(v -> win.put(Buf.of(mine), 0, 1, Datatype.LONG, (r + 1) % n, 0))
            .compose(v -> win.accumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, 0, 1, Op.SUM))
            .compose(v -> win.fence())
            .compose(v -> win.get(Buf.of(got), 0, 1, Datatype.LONG, (r + 1) % n, 0))
            .compose(v -> win.fence(dev.vertxrma.Mode.NOSUCCEED))
            .map(v -> {
              assertEquals(100 + r, got[0], "value rank " + r + " put at its right neighbour");
              assertEquals(100 + (r + n - 1) % n, win.memory().readLong(0));
              if (r == 0) {
                assertEquals(n, win.memory().readLong(8));
              }
              return null;
            })
            .compose(v -> win.free());
      });

  @RmaTest(ranks = 4)
  void putGetAccumulateUnderFence(RmaJob job) {
    job.withVertx(Jobs.embedded()).run(PUT_GET_ACCUMULATE);
    assertEquals(0, WindowMemory.live());
  }

  @RmaTest(ranks = 4)
  void putGetAccumulateUnderFenceClustered(RmaJob job) {
    job.withVertx(Jobs.clusterNodes()).run(PUT_GET_ACCUMULATE);
    assertEquals(0, WindowMemory.live());
  }
}
