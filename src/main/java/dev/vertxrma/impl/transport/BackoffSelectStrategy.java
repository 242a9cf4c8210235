package dev.vertxrma.impl.transport;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import java.util.function.LongSupplier;

/**
 * How an event loop of {@link dev.vertxrma.Progress#ADAPTIVE} waits: while it has been busy in the
 * last {@link #SPIN_NANOS} it polls its sockets without sleeping, spinning; for
 * {@link #YIELD_NANOS} more it polls and yields the processor between polls; after that it sleeps
 * in {@code epoll_wait} until a frame, a task or a timer wakes it, as Agrona's backoff idle
 * strategy goes from spinning to yielding to parking. Busy means: it had a task to run, its poll
 * found a socket ready, or it has just woken from sleeping.
 *
 * <p>An MPI program's round trips follow each other closely, so a loop that answered one is still
 * polling when the next arrives and no thread is woken on either side; a job that waits on
 * nothing sleeps after at most {@code SPIN_NANOS + YIELD_NANOS} of polling per wake-up. The
 * windows are tuned by {@code bin/rmabench --jvms 2}: a round trip between two JVMs of this
 * project's VM takes 10-40 µs when both sides poll, and an origin that issues its next call
 * after a reply comes back well within the spinning window.
 *
 * <p>One instance per event loop (Netty asks its factory for one per I/O handler); its state is
 * that loop's thread's alone.
 */
final class BackoffSelectStrategy implements SelectStrategy {

  /** How long a loop spins after it was last busy. */
  static final long SPIN_NANOS = 50_000;
  /** How long it then polls with a yield between polls, before it sleeps. */
  static final long YIELD_NANOS = 200_000;

  private final LongSupplier clock;
  /** When the loop was last busy (its thread only). */
  private long busyAt;
  /** Whether the last answer was {@link #SELECT}: the next call follows a wake-up. */
  private boolean slept;

  /** A strategy on {@link System#nanoTime()}. */
  BackoffSelectStrategy() {
    this(System::nanoTime);
  }

  /** A strategy on {@code clock} (nanoseconds; tests give their own). */
  BackoffSelectStrategy(LongSupplier clock) {
    this.clock = clock;
    this.busyAt = clock.getAsLong();
  }

  @Override
  public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
    int ready = selectNow.get();
    long now = clock.getAsLong();
    if (ready > 0 || hasTasks || slept) {
      busyAt = now;
      slept = false;
      return ready;
    }
    long idle = now - busyAt;
    if (idle < SPIN_NANOS) {
      Thread.onSpinWait();
      return 0;
    }
    if (idle < SPIN_NANOS + YIELD_NANOS) {
      Thread.yield();
      return 0;
    }
    slept = true;
    return SELECT;
  }
}
