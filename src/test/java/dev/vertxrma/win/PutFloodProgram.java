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
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A loop of small puts facing a target JVM that reads nothing (issue 27, "bounded everything";
 * docs/failure-and-security.md, memory bounds): rank 0 puts {@code n} longs (first argument,
 * default 1,000,000) to rank 1 under lockAll, value {@code i + 1} into slot {@code i % }{@value
 * #SLOTS}, each issued when the previous one's future completed.
 *
 * <p>The stimulus: rank 1 holds its event loop busy, and with one rank in its JVM that loop is
 * also its JVM's data plane's ({@code JobRuntime.expectLocalRanks}): its JVM reads nothing from
 * the connection while it spins (the puts are not applied on arrival by another thread, as they
 * are with a data plane of its own). The window is {@code Win.create} over the caller's memory,
 * which always takes the data plane (an {@code allocate} window's puts between JVMs of one host
 * take the on-node path, shared memory, and never touch a link). The lock is taken, and proven by
 * a flushed put, before the barrier that starts the spin, so the puts themselves face the stopped
 * reader.
 *
 * <p>The check: once the kernel's socket buffers, the socket's write queue (Netty's high-water
 * mark) and the link's 1 MiB outbox are full, the link is congested and a put's origin waits
 * unpacked: the put's future is not complete when {@code put} returns. Rank 0 requires such a
 * held-back put (else the stimulus never happened, or back-pressure is gone: without it the loop
 * never waits and Netty's write buffer takes every record), and samples its JVM's direct memory
 * (Netty's pooled arenas and the JDK's direct buffers) then and every 10,000 puts: it may grow by
 * at most {@value #BOUND_MIB} MiB (a second argument sets another bound; the documented bound is
 * Netty's 64 KiB high-water mark plus the 1 MiB outbox, the rest is the allocator's chunk size).
 * Its first held-back put writes 1 into a word of a shared window, and rank 1, which spins until
 * it reads it (at most {@value #MAX_BUSY_MS} ms: then both fail), stops; the loop then runs to its
 * end, and after unlockAll rank 1 checks that every slot holds the last value put there. No timing
 * assertion: the target's stop ends when the origin says it was held back.
 * Rank 0 prints {@value #VERIFIED}. Meant for two JVMs on one host, one rank each.
 */
public class PutFloodProgram implements RankProgram {

  /** The line rank 0 prints once every check passed. */
  public static final String VERIFIED = "putflood: verified";
  /** What the puts may add to the origin JVM's direct memory. */
  static final long BOUND_MIB = 16;
  /** The target slots (longs) the puts cycle through. */
  static final int SLOTS = 1024;
  /**
   * The documented bound on what a link's outbox holds (docs/failure-and-security.md): past it the
   * link is congested and puts are held back.
   */
  static final long OUTBOX_BYTES = 1024 * 1024;
  /** What the outbox may hold past {@link #OUTBOX_BYTES}: the record that crossed it, an acknowledgement request. */
  static final long OUTBOX_SLACK = 64 * 1024;
  /** The longest rank 1 spins waiting for rank 0's word: a run without back-pressure ends. */
  static final long MAX_BUSY_MS = 30_000;

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
    long boundMib = args.size() > 1 ? Long.parseLong(args.get(1)) : BOUND_MIB;
    BytesStore<?, ?> memory = BytesStore.nativeStoreWithFixedCapacity(SLOTS * 8L);
    for (int s = 0; s < SLOTS; s++) {
      memory.writeLong(s * 8L, -1);
    }
    // rank 0's word in a shared window: 1 once one of its puts was held back
    return Win.allocateShared(world, 8, 8, Info.NULL).compose(signal -> Win.create(world, memory, 8, Info.NULL)
        .compose(win -> (world.rank() == 1 ? target(world, signal, win, n)
            : origin(world, signal, win, n, boundMib))
            .compose(v -> win.free()))
        .compose(v -> signal.free()))
        .onSuccess(v -> memory.releaseLast()); // a failed job leaves it to the JVM's end (the window may hold it)
  }

  private static Future<Void> target(Comm world, Win signal, Win win, int n) {
    return signal.sharedQuery(0).compose(word -> world.barrier().compose(v -> {
      // a target that computes: its event loop, its JVM's data plane's, reads nothing
      long cap = System.nanoTime() + MAX_BUSY_MS * 1_000_000L;
      while (word.memory().readVolatileLong(0) == 0 && System.nanoTime() < cap) {
        Thread.onSpinWait();
      }
      boolean released = word.memory().readVolatileLong(0) != 0;
      return world.barrier().map(released);
    })).map(released -> {
      if (!released) {
        throw new AssertionError("rank 1 read nothing for " + MAX_BUSY_MS + " ms and rank 0 was never held back");
      }
      for (int s = 0; s < SLOTS; s++) {
        long last = s >= n ? (s == 0 ? 0 : -1) : s + SLOTS * (long) ((n - 1 - s) / SLOTS) + 1;
        long held = win.memory().readLong(s * 8L);
        if (held != last) {
          throw new AssertionError("rank 1's slot " + s + " holds " + held + ", the last value put there was " + last);
        }
      }
      return null;
    });
  }

  private static Future<Void> origin(Comm world, Win signal, Win win, int n, long boundMib) {
    long[] heldBack = new long[1];
    long[] firstHeld = {-1};
    long base = directBytes();
    long[] peak = {base};
    // bytes rank 0's data plane holds queued for rank 1's JVM: at most, and when the first put was held back
    long[] queued = new long[2];
    dev.vertxrma.impl.transport.DataPlane plane = dev.vertxrma.impl.runtime.JobRuntime.find(
        io.vertx.core.Vertx.currentContext().owner(), world.jobName()).dataPlane();
    // the lock is taken, and proven by a flushed put, before the barrier that starts rank 1's
    // spin: once it spins, nothing that needs its answer can complete, and the puts, not the
    // epoch's start, are what must face the stopped reader
    return win.lockAll()
        .compose(v -> win.put(Buf.of(new long[] {0L}), 0, 1, Datatype.LONG, 1, 0))
        .compose(v -> win.flushAll())
        .compose(v -> world.barrier())
        .compose(v -> Rma.repeat(n, i -> {
          if (i % 10_000 == 0) {
            peak[0] = Math.max(peak[0], directBytes());
            queued[0] = Math.max(queued[0], plane.queuedBytes());
          }
          Future<Void> put = win.put(Buf.of(new long[] {i + 1L}), 0, 1, Datatype.LONG, 1, i % SLOTS);
          if (!put.isComplete() && heldBack[0]++ == 0) {
            // the link is full while rank 1 reads nothing: what the origin holds now is the most
            // it holds for it
            firstHeld[0] = i;
            peak[0] = Math.max(peak[0], directBytes());
            queued[1] = plane.queuedBytes();
            queued[0] = Math.max(queued[0], queued[1]);
            signal.memory().writeVolatileLong(0, 1); // rank 1 may read again
          }
          return put;
        }))
        .compose(v -> win.unlockAll())
        .compose(v -> world.barrier())
        .map(v -> {
          long grew = (peak[0] - base) >> 20;
          if (heldBack[0] == 0) {
            throw new AssertionError("none of " + n + " puts to a JVM that reads nothing was held back (its future "
                + "complete when put returned): the origin never waited for the link; direct memory grew by "
                + grew + " MiB, up to " + queued[0] + " bytes were queued for it");
          }
          if (queued[1] < OUTBOX_BYTES) {
            throw new AssertionError("put " + firstHeld[0] + " was held back with " + queued[1] + " bytes queued for "
                + "rank 1's JVM, below the outbox bound " + OUTBOX_BYTES);
          }
          if (queued[0] > OUTBOX_BYTES + OUTBOX_SLACK) {
            throw new AssertionError(n + " puts to a JVM that reads nothing queued up to " + queued[0] + " bytes for "
                + "it (bound " + OUTBOX_BYTES + " + " + OUTBOX_SLACK + ")");
          }
          if (grew > boundMib) {
            throw new AssertionError(n + " puts to a JVM that reads nothing grew direct memory by " + grew
                + " MiB (bound " + boundMib + " MiB; the first held back was put " + firstHeld[0] + ", "
                + heldBack[0] + " held back in all)");
          }
          return grew;
        })
        // printed by a worker, not the event loop (a captured output may block)
        .compose(grew -> io.vertx.core.Vertx.currentContext().owner().executeBlocking(() -> {
          System.out.println(VERIFIED + ": " + n + " puts, the first held back was put " + firstHeld[0] + " with "
              + queued[1] + " bytes queued, " + heldBack[0] + " held back in all, at most " + queued[0]
              + " bytes queued, direct memory grew by at most " + grew + " MiB");
          return null;
        }));
  }
}
