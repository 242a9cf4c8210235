package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PassiveSmokeTest {

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void counterUnderLockAllAndExclusiveLock(Jobs.Mode mode) {
    Jobs.run(mode, 4, (world, args) -> Win.allocate(world, 16, 8, Info.NULL).compose(win -> {
      List<Future<Long>> got = new ArrayList<>();
      return win.lockAll()
          .compose(v -> {
            for (int i = 0; i < 50; i++) {
              got.add(win.fetchAndOp(1, 0, 0, Op.SUM));
            }
            return win.flush(0);
          })
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .compose(v -> win.lock(LockType.EXCLUSIVE, 0))
          .compose(v -> {
            long[] buf = new long[1];
            return win.get(Buf.of(buf), 0, 1, Datatype.LONG, 0, 0).compose(x -> {
              buf[0] += 1000;
              return win.put(Buf.of(buf), 0, 1, Datatype.LONG, 0, 0);
            });
          })
          .compose(v -> win.unlock(0))
          .compose(v -> world.barrier())
          .map(v -> {
            if (world.rank() == 0) {
              assertEquals(200 + 4000, win.memory().readLong(0));
            }
            return null;
          })
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void dynamicWindowAttachPutDetach(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.createDynamic(world, Info.NULL).compose(win -> {
      BytesStore<?, ?> mine = BytesStore.nativeStoreWithFixedCapacity(64);
      long[] addr = {0};
      long[] all = new long[world.size()];
      return win.attach(mine)
          .compose(v -> {
            addr[0] = Win.address(mine, 0);
            return world.allgather(Buf.of(addr), 0, 1, Datatype.AINT, Buf.of(all), 0, 1, Datatype.AINT);
          })
          .compose(v -> win.lockAll())
          .compose(v -> {
            int next = (world.rank() + 1) % world.size();
            return win.put(Buf.of(new long[] {7 + world.rank()}), 0, 1, Datatype.LONG, next, all[next] + 8);
          })
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .map(v -> {
            int prev = (world.rank() + world.size() - 1) % world.size();
            assertEquals(7 + prev, mine.readLong(8));
            return null;
          })
          .compose(v -> win.detach(mine))
          .compose(v -> win.free())
          .onComplete(ar -> mine.releaseLast());
    }));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void sharedWindowLoadStore(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocateShared(world, 32, 8, Info.NULL).compose(win -> {
      win.memory().writeLong(0, 11L * (world.rank() + 1));
      return world.barrier()
          .compose(v -> win.sharedQuery(1 - world.rank()))
          .map(seg -> {
            assertEquals(32, seg.size());
            assertEquals(11L * (2 - world.rank()), seg.memory().readLong(0));
            return null;
          })
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    }));
  }
}
