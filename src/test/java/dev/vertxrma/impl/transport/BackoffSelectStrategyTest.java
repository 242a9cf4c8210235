package dev.vertxrma.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Test;

/**
 * The adaptive loop's backoff on a clock of the test's: it polls without sleeping while it was
 * busy within its polling window, sleeps after it, treats the call after a sleep as busy, and
 * hands on what its poll found.
 */
class BackoffSelectStrategyTest {

  private long now = 1_000_000_000L;
  private final BackoffSelectStrategy strategy = new BackoffSelectStrategy(() -> now);

  private int poll(int ready, boolean hasTasks) throws Exception {
    return strategy.calculateStrategy(() -> ready, hasTasks);
  }

  @Test
  void pollsWhileRecentlyBusyThenSleeps() throws Exception {
    assertEquals(3, poll(3, false), "ready sockets are handled at once");
    now += BackoffSelectStrategy.POLL_NANOS / 2;
    assertEquals(0, poll(0, false), "polling: poll again, no sleep");
    now += BackoffSelectStrategy.POLL_NANOS / 2 - 1;
    assertEquals(0, poll(0, false), "still within the window: no sleep");
    now += 1;
    assertEquals(SelectStrategy.SELECT, poll(0, false), "idle for the whole window: sleep");
    now += 5_000_000_000L;
    assertEquals(0, poll(0, false), "the call after a wake-up counts as busy: poll, no sleep");
    now += BackoffSelectStrategy.POLL_NANOS;
    assertEquals(SelectStrategy.SELECT, poll(0, false));
  }

  @Test
  void tasksAndFramesRestartTheWindow() throws Exception {
    now += BackoffSelectStrategy.POLL_NANOS;
    assertEquals(0, poll(0, true), "a queued task: poll without sleeping");
    now += BackoffSelectStrategy.POLL_NANOS - 1;
    assertEquals(0, poll(0, false), "still within the window the task opened");
    assertEquals(1, poll(1, false));
    now += BackoffSelectStrategy.POLL_NANOS - 1;
    assertEquals(0, poll(0, false), "within the window the frame opened");
    now += 1;
    assertEquals(SelectStrategy.SELECT, poll(0, false));
  }
}
