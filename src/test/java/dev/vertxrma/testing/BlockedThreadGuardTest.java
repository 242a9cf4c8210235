package dev.vertxrma.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The guard itself: a vertx-rma task holding an event loop past the limit fails the test. */
class BlockedThreadGuardTest {

  /** Holds the calling thread for {@code ms}: the blocking task a test must never run on an event loop. */
  private static void holdFor(long ms) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }

  @Test
  void aTaskHoldingAnEventLoopIsReportedWithItsStack() throws Exception {
    Vertx vertx = BlockedThreadGuard.watch(Vertx.vertx(BlockedThreadGuard.options()));
    try {
      BlockedThreadGuard.takeFailures();
      CountDownLatch done = new CountDownLatch(1);
      vertx.runOnContext(v -> {
        holdFor(3 * BlockedThreadGuard.MAX_EVENT_LOOP_MS);
        done.countDown();
      });
      assertTrue(done.await(30, TimeUnit.SECONDS));
      // a later task of the same loop runs only once the holding task has returned, so the
      // checker has made every report about it by then (else afterEach would see a late one)
      // (a timer of a few check intervals more lets a check that sampled it finish reporting)
      CountDownLatch after = new CountDownLatch(1);
      vertx.runOnContext(v -> vertx.setTimer(BlockedThreadGuard.MAX_EVENT_LOOP_MS, id -> after.countDown()));
      assertTrue(after.await(30, TimeUnit.SECONDS));
      List<String> seen = BlockedThreadGuard.takeFailures();
      assertEquals(1, seen.stream().filter(s -> s.contains(BlockedThreadGuardTest.class.getName() + ".holdFor"))
          .limit(1).count(), "the held event loop was reported with the holding frame: " + seen);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
