package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class FenceSmokeTest {

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void putGetAccumulateUnderFence(Jobs.Mode mode) {
    Jobs.run(mode, 4, (world, args) -> Win.allocate(world, 8 * 8, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      long[] mine = {100 + r};
      long[] got = new long[1];
      return win.fence(dev.vertxrma.Mode.NOPRECEDE)
          .compose(v -> win.put(mine, 0, 1, Datatype.LONG, (r + 1) % n, 0))
          .compose(v -> win.accumulate(new long[] {1}, 0, 1, Datatype.LONG, 0, 1, Op.SUM))
          .compose(v -> win.fence())
          .compose(v -> win.get(got, 0, 1, Datatype.LONG, (r + 1) % n, 0))
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
    }));
    assertEquals(0, WindowMemory.live());
  }
}
