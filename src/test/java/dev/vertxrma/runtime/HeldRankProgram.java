package dev.vertxrma.runtime;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The job of {@code DataPlaneLoopTest}: 2 ranks, one per JVM. Rank 1 holds its event loop (a
 * callback that computes: it spins on its own window memory) and, while it holds it, rank 0 reads
 * a flag in that window until rank 1 says it is spinning, then adds 1 to a word of it
 * {@value #ADDS} times with fetch-and-op; rank 1's spin ends when it sees the sum, or fails after
 * the hold limit (the first argument, in ms; {@value #HOLD_LIMIT_MS} by default: far above the few
 * milliseconds the additions take, for loaded cores). Both need the data plane on a loop of its own: on rank 1's loop no
 * frame from rank 0 is read while the callback runs. Rank 1 prints {@code "held-rank: verified"}.
 */
public final class HeldRankProgram implements RankProgram {

  static final int ADDS = 20;
  static final long HOLD_LIMIT_MS = 10_000;
  private static final long SUM = 0;
  private static final long SPINNING = 1;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    if (world.size() != 2) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "held-rank runs on 2 ranks, not %d", world.size()));
    }
    BytesStore<?, ?> memory = BytesStore.nativeStoreWithFixedCapacity(16);
    memory.zeroOut(0, 16);
    // rank 0's lock is granted before rank 1 holds its loop: a lock request is served by the
    // target rank's own loop; the operations of the epoch are applied where they arrive
    return Win.create(world, memory, 8, Info.NULL).compose(win -> (world.rank() == 0 ? win.lock(LockType.SHARED, 1)
        : Future.<Void>succeededFuture())
        .compose(v -> world.barrier())
        .compose(v -> world.rank() == 1 ? hold(memory, args.isEmpty() ? HOLD_LIMIT_MS : Long.parseLong(args.get(0)))
            : drive(win))
        .compose(v -> world.barrier())
        .compose(v -> win.free()));
  }

  /** Rank 1: says it spins, then spins on its loop until the sum arrives. */
  private static Future<Void> hold(BytesStore<?, ?> memory, long limitMs) {
    memory.writeVolatileLong(SPINNING * 8, 1);
    long start = System.nanoTime();
    long deadline = start + limitMs * 1_000_000;
    long sum;
    while ((sum = memory.readVolatileLong(SUM * 8)) < ADDS && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    long heldMs = (System.nanoTime() - start) / 1_000_000;
    if (sum != ADDS) {
      return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "held-rank: rank 1 held its event loop %d ms and "
          + "its window's sum reached %d of %d: no operation from the other JVM was applied meanwhile", heldMs, sum,
          ADDS));
    }
    System.out.println("held-rank: verified: rank 1 held its event loop " + heldMs + " ms while " + ADDS
        + " fetch-and-ops from the other JVM were applied to its window");
    System.out.flush();
    return Future.succeededFuture();
  }

  /**
   * Rank 0: reads the flag over RMA until rank 1 spins, then sends the additions, none awaited
   * before the next is issued; each future completes with its reply (a flush is served by the
   * target rank's loop, so it comes after the hold, with the unlock).
   */
  private static Future<Void> drive(Win win) {
    return untilSpinning(win).compose(v -> {
      List<Future<Long>> adds = new ArrayList<>();
      for (int i = 0; i < ADDS; i++) {
        adds.add(win.fetchAndOp(1, 1, SUM, Op.SUM));
      }
      return Future.all(adds);
    }).compose(v -> win.unlock(1));
  }

  private static Future<Void> untilSpinning(Win win) {
    long[] flag = new long[1];
    return win.get(Buf.of(flag), 0, 1, Datatype.LONG, 1, SPINNING)
        .compose(v -> flag[0] == 1 ? Future.succeededFuture() : untilSpinning(win));
  }
}
