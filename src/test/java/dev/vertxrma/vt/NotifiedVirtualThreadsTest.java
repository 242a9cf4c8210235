package dev.vertxrma.vt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.VirtualThreadsAvailable;
import io.vertx.core.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Notified RMA in MPI's blocking style on virtual-thread ranks: a ping-pong of {@code putNotify(...).await()}
 * and {@code awaitNotify(...).await()} between two ranks, every value and counter checked, embedded
 * and clustered.
 */
@Tag("vt")
class NotifiedVirtualThreadsTest {

  @BeforeAll
  static void needsJava21() {
    VirtualThreadsAvailable.assume(NotifiedVirtualThreadsTest.class);
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aBlockingPingPongOfNotifiedPuts(Jobs.Mode mode) {
    int rounds = 500;
    VirtualThreadsTest.run(mode, VirtualThreadsTest.vt(2), (world, args) -> {
      int r = world.rank();
      int peer = 1 - r;
      Win win = Win.allocate(world, 16, 8, Info.NULL).await();
      win.setNumNotify(1).await();
      win.lockAll().await();
      for (int i = 1; i <= rounds; i++) {
        if (r == 0) {
          win.putNotify(Buf.of(new long[] {i}), 0, 1, Datatype.LONG, peer, 0, 0).await();
        }
        long seen = win.awaitNotify(0, i).await();
        assertEquals(i, seen, "rank " + r + "'s counter in round " + i);
        assertEquals(i, win.memory().readLong(0), "rank " + r + "'s value in round " + i);
        if (r == 1) {
          win.putNotify(Buf.of(new long[] {i}), 0, 1, Datatype.LONG, peer, 0, 0).await();
        }
      }
      win.unlockAll().await();
      assertEquals(rounds, (long) win.resetNotifyValue(0).await());
      world.barrier().await();
      win.free().await();
      return Future.succeededFuture();
    });
  }
}
