package dev.vertxrma.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Progress;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.transport.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * How a clustered node's event loops get their progress mode, with and without Netty's native
 * epoll. Without it (its jars are optional dependencies, so a project that depends on the library
 * lacks them; macOS, Windows) no mode may fail: each leaves the choice to Vert.x (NIO) and sleeps,
 * saying so once. Before this, {@code of} read {@code Transport.EPOLL.available()}, and
 * {@code Transport.EPOLL} is null without Netty's epoll classes: every clustered node of such a
 * project failed with a NullPointerException ({@code ConsumerProjectTest}'s starter project shows
 * it across JVMs).
 */
class PollingTransportTest {

  @Test
  void withoutEpollEveryModeLeavesTheChoiceToVertxAndSleeps() {
    for (Progress mode : Progress.values()) {
      assertNull(PollingTransport.of(mode, false), mode + " without epoll");
    }
    // what ClusterSupport then builds: Vert.x's own transport, which polls in no mode
    Vertx vertx = Vertx.builder().with(new VertxOptions().setPreferNativeTransport(false)).build();
    try {
      assertEquals(Progress.SLEEP, PollingTransport.modeOf(vertx));
    } finally {
      vertx.close().await();
    }
  }

  @Test
  void withEpollTheModesThatPollGetTheirTransport() {
    assertNull(PollingTransport.of(Progress.SLEEP, true), "sleep is Vert.x's own transport");
    assertEquals("epoll-adaptive-poll", PollingTransport.of(Progress.ADAPTIVE, true).name());
    assertEquals("epoll-busy-poll", PollingTransport.of(Progress.BUSY, true).name());
  }

  @Test
  void theChoiceHereFollowsWhetherEpollLoads() {
    Transport epoll = Transport.EPOLL;
    boolean loads = epoll != null && epoll.available();
    assertEquals(loads, PollingTransport.epollAvailable());
    assertEquals(loads, PollingTransport.of(Progress.ADAPTIVE) != null);
  }

  @Test
  void sleepingWithoutEpollIsLoggedOncePerJvmAndNotAsAWarning() {
    Logger log = Logger.getLogger(PollingTransport.class.getName());
    List<LogRecord> records = new ArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord r) {
        synchronized (records) {
          records.add(r);
        }
      }

      @Override
      public void flush() {
      }

      @Override
      public void close() {
      }
    };
    Level before = log.getLevel();
    log.setLevel(Level.ALL);
    log.addHandler(capture);
    try {
      PollingTransport.NOTED.set(false);
      PollingTransport.of(Progress.BUSY, false);
      PollingTransport.of(Progress.BUSY, false);
      PollingTransport.of(Progress.ADAPTIVE, false);
      PollingTransport.of(Progress.SLEEP, false);
    } finally {
      log.removeHandler(capture);
      log.setLevel(before);
    }
    assertEquals(1, records.size(), "one line per JVM");
    LogRecord r = records.get(0);
    assertEquals(Level.INFO, r.getLevel(), "busy was asked for by name: INFO, never a warning");
    assertTrue(r.getMessage().contains("progress busy needs Netty's native epoll transport"), r.getMessage());
    assertTrue(r.getMessage().contains("sleep when idle"), r.getMessage());
  }
}
