package dev.vertxrma.impl.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.BlockedThreadGuard;
import io.vertx.core.Vertx;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A large copy made on an event loop (a same-JVM put or get applied while the caller owns the
 * target window) never waits for a copy thread: with every copy thread stopped as soon as it
 * claims a part, copies on an event loop still return, byte for byte, and no copy thread ever
 * claimed a part of theirs; a copy on a worker thread of the instance (which may wait) is still
 * shared with the instance's copy threads, and one on a thread of no Vert.x instance is not.
 */
class ParallelCopyOnEventLoopTest {

  private static byte[] pattern(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 7 + seed + (i >>> 13));
    }
    return b;
  }

  @Test
  void aCopyOnAnEventLoopNeverWaitsForAStoppedCopyThread() throws Exception {
    AtomicInteger claimed = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    ParallelCopy.beforePart = () -> {
      claimed.incrementAndGet();
      try {
        release.await(); // a copy thread the OS does not run: it has claimed a part and copies nothing
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    Vertx vertx = BlockedThreadGuard.watch(Vertx.vertx(BlockedThreadGuard.options()));
    try {
      assertEquals(2, ParallelCopy.install(vertx, 2));
      int n = (4 << 20) + 123;
      for (int round = 0; round < 20; round++) {
        byte[] src = pattern(n, round);
        byte[] dst = new byte[n];
        CompletableFuture<Void> copied = new CompletableFuture<>();
        vertx.runOnContext(v -> {
          Memory.copy(src, Memory.ARRAY_BYTE_BASE_OFFSET, dst, Memory.ARRAY_BYTE_BASE_OFFSET, n);
          copied.complete(null);
        });
        copied.get(10, TimeUnit.SECONDS); // before the fix: the event loop spun for ever on the stopped part
        assertEquals(-1, Arrays.mismatch(src, dst), "round " + round + ": first wrong byte");
      }
      assertEquals(0, claimed.get(), "copy threads claimed parts of copies made on an event loop");
    } finally {
      release.countDown();
      ParallelCopy.beforePart = null;
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aCopyOnAWorkerThreadIsSharedWithItsInstancesCopyThreadsAndOneOnAPlainThreadIsNot() throws Exception {
    AtomicInteger claimed = new AtomicInteger();
    ParallelCopy.beforePart = claimed::incrementAndGet;
    Vertx vertx = BlockedThreadGuard.watch(Vertx.vertx(BlockedThreadGuard.options()));
    try {
      assertEquals(2, ParallelCopy.install(vertx, 2));
      assertEquals(2, ParallelCopy.install(vertx, 5), "the first installation decides");
      int n = 16 << 20;
      for (int round = 0; round < 5; round++) {
        byte[] src = pattern(n, round);
        byte[] dst = new byte[n];
        Memory.copy(src, Memory.ARRAY_BYTE_BASE_OFFSET, dst, Memory.ARRAY_BYTE_BASE_OFFSET, n);
        assertEquals(-1, Arrays.mismatch(src, dst), "plain thread, round " + round + ": first wrong byte");
      }
      assertEquals(0, claimed.get(), "copy threads took parts of copies made on a thread of no Vert.x instance");
      for (int round = 0; round < 50 && claimed.get() == 0; round++) {
        byte[] src = pattern(n, round);
        byte[] dst = new byte[n];
        vertx.executeBlocking(() -> {
          Memory.copy(src, Memory.ARRAY_BYTE_BASE_OFFSET, dst, Memory.ARRAY_BYTE_BASE_OFFSET, n);
          return null;
        }).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(-1, Arrays.mismatch(src, dst), "worker, round " + round + ": first wrong byte");
      }
      assertTrue(claimed.get() > 0, "no copy thread took a part of 50 copies of 16 MiB from a worker thread");
    } finally {
      ParallelCopy.beforePart = null;
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    assertEquals(0, ParallelCopy.threadsOf(vertx), "the closed instance's copy threads");
  }
}
