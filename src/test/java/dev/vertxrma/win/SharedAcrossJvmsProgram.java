package dev.vertxrma.win;

import dev.vertxrma.Comm;
import dev.vertxrma.Info;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Shared memory between the JVMs of one host (issue 43), for two ranks in two JVMs: an
 * {@code allocateShared} window is contiguous (rank 1's segment starts 20 bytes after rank 0's
 * 20-byte one, in each JVM's mapping) and a store through rank 0's base past its end is rank 1's
 * first word in the other JVM; {@code sharedQuery} of an {@code allocate} window gives the other
 * JVM's window memory (its host segment), and stores through it are the other rank's values.
 */
public class SharedAcrossJvmsProgram implements RankProgram {

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  private static Future<Void> syncBarrierSync(Win win) {
    return win.sync().compose(v -> win.comm().barrier()).compose(v -> win.sync());
  }

  @Override
  public Future<Void> run(Comm world, List<String> args) {
    int r = world.rank();
    int other = 1 - r;
    long[] sizes = {20, 12};
    return Win.allocateShared(world, sizes[r], 1, Info.NULL).compose(win -> win.sharedQuery(0)
        .compose(zero -> win.sharedQuery(1).map(one -> {
          long base0 = zero.memory().addressForRead(0);
          check(one.memory().addressForRead(0) == base0 + 20, "rank 1's segment starts right after rank 0's 20 bytes");
          return base0;
        }))
        .compose(base0 -> win.lockAll().compose(v -> syncBarrierSync(win)).map(v -> {
          if (r == 0) {
            BytesStore.wrap(base0, 32).writeLong(20, 0x5eed_0001L); // past rank 0's end
          }
          return null;
        }))
        .compose(v -> syncBarrierSync(win))
        .map(v -> {
          if (r == 1) {
            check(win.memory().readLong(0) == 0x5eed_0001L, "rank 1 reads rank 0's store past its end: "
                + Long.toHexString(win.memory().readLong(0)));
          }
          return null;
        })
        .compose(v -> win.unlockAll()).compose(v -> world.barrier()).compose(v -> win.free()))
        .compose(v -> Win.allocate(world, 16, 8, Info.NULL))
        .compose(win -> {
          win.memory().writeLong(0, 40L + r);
          return win.lockAll().compose(v -> syncBarrierSync(win)).compose(v -> win.sharedQuery(other)).map(seg -> {
            check(seg.size() == 16 && seg.memory() != null, "the other JVM's allocate window is reachable: " + seg);
            check(seg.memory().readLong(0) == 40L + other, "its word, loaded here");
            seg.memory().writeLong(8, 70L + r);
            return null;
          }).compose(v -> syncBarrierSync(win)).map(v -> {
            check(win.memory().readLong(8) == 70L + other, "stored here by the other JVM through its view");
            return null;
          }).compose(v -> win.unlockAll()).compose(v -> world.barrier()).compose(v -> win.free());
        });
  }
}
