package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.LockType;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Notified RMA on the on-node path (the two clustered nodes of the test JVM standing for two JVMs
 * of one host): an origin applies notified puts in the target's segment itself, the data then the
 * counter in the target's control page, and a target parked in {@code awaitNotify} is woken by
 * one PAGE_WAKE frame and finds the data of every counted put.
 */
class NotifiedOnNodeTest {

  @Test
  void notifiedPutsAreAppliedInTheTargetsSegmentAndWakeItsParkedWaiter() {
    JobOptions o = Jobs.options(2);
    o.getTransportOptions().setSharedMemory(true);
    Jobs.await(Jobs.start(Jobs.Mode.CLUSTERED, o, (world, args) -> Win.allocate(world, 64, 8, Info.NULL)
        .compose(win -> {
          WinImpl w = (WinImpl) win;
          assertEquals(1, w.onNodePeers(), "the other node's rank reached in its segment");
          int r = world.rank();
          return win.setNumNotify(2).compose(v -> {
            if (r == 1) {
              Future<Void> parked = w.notificationCounters().whenParked();
              Future<Long> wait = win.awaitNotify(1, 3);
              return parked
                  .compose(x -> world.send(Buf.of(new int[] {1}), 0, 1, Datatype.INT, 0, 7)) // "I am parked"
                  .compose(x -> wait)
                  .map(seen -> {
                    assertEquals(3, seen, "counter 1 when the waiter completed");
                    for (int i = 0; i < 3; i++) {
                      assertEquals(11 + i, win.memory().readLong(8L * i), "slot " + i + " once counted");
                    }
                    long[] stats = w.notificationCounters().parkStats();
                    assertTrue(stats[0] >= 1, "the waiter parked");
                    assertTrue(stats[1] >= 1, "a PAGE_WAKE frame woke it");
                    return null;
                  });
            }
            return world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 1, 7)
                .compose(x -> win.lock(LockType.SHARED, 1))
                .compose(x -> {
                  List<Future<Void>> puts = new ArrayList<>();
                  for (int i = 0; i < 3; i++) {
                    puts.add(win.putNotify(Buf.of(new long[] {11 + i}), 0, 1, Datatype.LONG, 1, i, 1));
                  }
                  return Future.all(puts);
                })
                .compose(x -> win.unlock(1))
                .map(x -> {
                  assertEquals(3, w.appliedOnNode(), "the notified puts were applied in rank 1's segment");
                  return null;
                });
          }).compose(v -> world.barrier()).compose(v -> win.free());
        })), 60);
  }
}
