package dev.vertxrma.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The bounds on unproven incoming connections: per source, in all, given back, from many threads at once. */
class UnprovenConnectionsTest {

  @Test
  void aSourceGetsItsBoundAndNoMoreUntilItGivesSlotsBack() {
    UnprovenConnections u = new UnprovenConnections(3, 10);
    for (int i = 0; i < 3; i++) {
      assertNull(u.admit("10.0.0.1"));
    }
    String over = u.admit("10.0.0.1");
    assertNotNull(over);
    assertTrue(over.contains("from one address"), over);
    assertNull(u.admit("10.0.0.2"), "another address is not held back by the first one's bound");
    assertEquals(4, u.open());
    u.release("10.0.0.1");
    assertNull(u.admit("10.0.0.1"), "a slot given back can be taken again");
    assertEquals(3, u.perSourceHighWater());
  }

  @Test
  void theTotalBoundHoldsOverManySources() {
    UnprovenConnections u = new UnprovenConnections(2, 5);
    int admitted = 0;
    for (int s = 0; s < 10; s++) {
      for (int i = 0; i < 2; i++) {
        if (u.admit("10.0.0." + s) == null) {
          admitted++;
        }
      }
    }
    assertEquals(5, admitted);
    assertEquals(5, u.open());
    assertEquals(5, u.highWater());
    String over = u.admit("10.0.1.1");
    assertTrue(over != null && over.contains("in all"), over);
    assertEquals(5, u.open(), "a refused connection holds no slot");
  }

  @Test
  void everySlotComesBackAndNoSourceIsLeftBehind() {
    UnprovenConnections u = new UnprovenConnections(4, 8);
    List<String> held = new ArrayList<>();
    for (int s = 0; s < 3; s++) {
      for (int i = 0; i < 4; i++) {
        if (u.admit("h" + s) == null) {
          held.add("h" + s);
        }
      }
    }
    assertEquals(8, held.size());
    held.forEach(u::release);
    assertEquals(0, u.open());
    assertEquals(0, u.sources());
  }

  @Test
  void manyThreadsAtOnceNeverPassTheBounds() throws Exception {
    UnprovenConnections u = new UnprovenConnections(5, 40);
    int threads = 8;
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(threads);
    AtomicInteger failures = new AtomicInteger();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread th = new Thread(() -> {
        try {
          start.await();
          for (int i = 0; i < 20_000; i++) {
            String source = "s" + ((id + i) % 12);
            if (u.admit(source) == null) {
              if (u.open() > 40) {
                failures.incrementAndGet();
              }
              u.release(source);
            }
          }
        } catch (InterruptedException e) {
          failures.incrementAndGet();
        } finally {
          done.countDown();
        }
      });
      th.start();
    }
    start.countDown();
    assertTrue(done.await(60, TimeUnit.SECONDS));
    assertEquals(0, failures.get());
    assertTrue(u.highWater() <= 40, "high water " + u.highWater());
    assertTrue(u.perSourceHighWater() <= 5, "per-source high water " + u.perSourceHighWater());
    assertEquals(0, u.open());
    assertEquals(0, u.sources());
  }
}
