package dev.vertxrma.impl.transport;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import java.util.function.LongSupplier;

/**
 * How an event loop of {@link dev.vertxrma.Progress#ADAPTIVE} waits: for {@link #POLL_NANOS}
 * after it was last busy it polls its sockets without sleeping, yielding the processor between
 * polls; after that it sleeps in {@code epoll_wait} until a frame, a task or a timer wakes it
 * (Agrona's backoff idle strategy, without its pure spinning phase). Busy means: it had a task to
 * run, its poll found a socket ready, or it has just woken from sleeping.
 *
 * <p>An MPI program's round trips follow each other closely, so a loop that answered one is still
 * polling when the next arrives and no thread is woken on either side; a job that waits on
 * nothing sleeps after at most {@code POLL_NANOS} of polling per wake-up. Tuned with
 * {@code bin/rmabench} on this project's 2-core VM: a yield costs about as little as a spin when
 * no other thread wants the processor, and when more loops poll than there are cores (4 JVMs of
 * 2 ranks: 8-rank barrier 120-150 µs) it lets the one with work run, where spinning 50 µs first
 * took 740 µs and sleeping loops 220 µs; between 2 JVMs the figures are the same for windows
 * of 100-500 µs (fetch-and-op 9.7-12 µs, against 68 µs with sleeping loops).
 *
 * <p>One instance per event loop (Netty asks its factory for one per I/O handler); its state is
 * that loop's thread's alone.
 */
final class BackoffSelectStrategy implements SelectStrategy {

  /** How long a loop polls, yielding between polls, after it was last busy. */
  static final long POLL_NANOS = 200_000;

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
    if (now - busyAt < POLL_NANOS) {
      Thread.yield();
      return 0;
    }
    slept = true;
    return SELECT;
  }
}
