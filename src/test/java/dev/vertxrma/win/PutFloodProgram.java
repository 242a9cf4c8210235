package dev.vertxrma.win;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.Rma;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Win;
import io.netty.buffer.PooledByteBufAllocator;
import io.vertx.core.Future;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * A loop of small puts facing a slow target (issue 27, "bounded everything"): rank 0 puts
 * {@code n} longs (first argument, default 1,000,000) to rank 1 under lockAll, each issued when
 * the previous one's future completed, while rank 1 holds its event loop busy for the first
 * {@code busyMs} (second argument, default 3,000) — its JVM reads nothing meanwhile. Rank 0 samples
 * its JVM's direct memory (Netty's pooled arenas and the JDK's direct buffers) every 10,000 puts
 * and fails if it grew by more than {@value #BOUND_MIB} MiB (a third argument sets another bound;
 * without back-pressure it grew by 80 MiB); rank 1 checks the last value put.
 * Rank 0 prints {@value #VERIFIED}. Meant for two JVMs, one rank each.
 */
public class PutFloodProgram implements RankProgram {

  /** The line rank 0 prints once every check passed. */
  public static final String VERIFIED = "putflood: verified";
  /** What the puts may add to the origin JVM's direct memory. */
  static final long BOUND_MIB = 16;

  private static long directBytes() {
    // Netty's own count of the direct memory it holds (every allocator's arenas, cleaner-free
    // buffers), where it keeps one; and the JDK's direct buffers
    long used = Math.max(0, io.netty.util.internal.PlatformDependent.usedDirectMemory());
    if (used == 0) {
      used = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
    }
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        used += pool.getMemoryUsed();
      }
    }
    return used;
  }

  @Override
  public Future<Void> run(Comm world, List<String> args) {
    int n = args.isEmpty() ? 1_000_000 : Integer.parseInt(args.get(0));
    long busyMs = args.size() > 1 ? Long.parseLong(args.get(1)) : 3_000;
    long boundMib = args.size() > 2 ? Long.parseLong(args.get(2)) : BOUND_MIB;
    return Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
      if (world.rank() == 1) {
        return world.barrier().compose(v -> {
          long end = System.nanoTime() + busyMs * 1_000_000L;
          long spins = 0;
          while (System.nanoTime() < end) {
            spins++; // a target that computes: its event loop (and its JVM's data plane) reads nothing
          }
          return world.barrier().map(spins);
        }).map(v -> {
          if (win.memory().readLong(0) != n) {
            throw new AssertionError("rank 1 holds " + win.memory().readLong(0) + ", the last put was " + n);
          }
          return null;
        }).compose(v -> win.free());
      }
      long[] value = new long[1];
      long base = directBytes();
      long[] peak = {base};
      return world.barrier().compose(v -> win.lockAll())
          .compose(v -> Rma.repeat(n, i -> {
            if (i % 10_000 == 0) {
              peak[0] = Math.max(peak[0], directBytes());
            }
            value[0] = i + 1L;
            return win.put(Buf.of(new long[] {i + 1L}), 0, 1, Datatype.LONG, 1, 0);
          }))
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .map(v -> {
            long grew = (peak[0] - base) >> 20;
            if (grew > boundMib) {
              throw new AssertionError(n + " puts to a busy target grew direct memory by " + grew + " MiB (bound "
                  + boundMib + " MiB)");
            }
            return grew;
          })
          // printed by a worker, not the event loop (a captured output may block)
          .compose(grew -> io.vertx.core.Vertx.currentContext().owner().executeBlocking(() -> {
            System.out.println(VERIFIED + ": " + n + " puts, direct memory grew by at most " + grew + " MiB");
            return null;
          }))
          .compose(v -> win.free());
    });
  }
}
