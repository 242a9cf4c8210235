package dev.vertxrma.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Test;

/**
 * The adaptive loop's backoff on a clock of the test's: it polls without sleeping while it was
 * busy within the spinning and yielding windows, sleeps after them, treats the call after a sleep
 * as busy, and hands on what its poll found.
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
    now += BackoffSelectStrategy.SPIN_NANOS - 1;
    assertEquals(0, poll(0, false), "spinning: poll again, no sleep");
    now += BackoffSelectStrategy.YIELD_NANOS;
    assertEquals(0, poll(0, false), "yielding: poll again, no sleep");
    now += 2;
    assertEquals(SelectStrategy.SELECT, poll(0, false), "idle past both windows: sleep");
    now += 5_000_000_000L;
    assertEquals(0, poll(0, false), "the call after a wake-up counts as busy: poll, no sleep");
    now += BackoffSelectStrategy.SPIN_NANOS + BackoffSelectStrategy.YIELD_NANOS;
    assertEquals(SelectStrategy.SELECT, poll(0, false));
  }

  @Test
  void tasksAndFramesRestartTheWindow() throws Exception {
    now += BackoffSelectStrategy.SPIN_NANOS + BackoffSelectStrategy.YIELD_NANOS;
    assertEquals(0, poll(0, true), "a queued task: poll without sleeping");
    now += BackoffSelectStrategy.SPIN_NANOS + BackoffSelectStrategy.YIELD_NANOS - 1;
    assertEquals(0, poll(0, false), "still within the window the task opened");
    assertEquals(1, poll(1, false));
    now += BackoffSelectStrategy.SPIN_NANOS + BackoffSelectStrategy.YIELD_NANOS - 1;
    assertEquals(0, poll(0, false), "within the window the frame opened");
    now += 1;
    assertEquals(SelectStrategy.SELECT, poll(0, false));
  }
}
