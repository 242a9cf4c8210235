package dev.vertxrma.impl.transport;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What one data-plane connection has handed this JVM that is not applied yet: the bytes of the
 * RMA operations from it that wait in a target window's owner queue (an operation applied on
 * arrival never counts). While they are {@link #LIMIT} or more the connection's reader stops
 * reading ({@link Proof}), so the peer's writes back up into its own bounded outbox and its puts
 * wait, unpacked, in the caller's buffers; it reads on once they are below half of it. So a fast
 * origin cannot grow a slow target's memory: the bound per connection is {@link #LIMIT} plus the
 * record being read when it was reached (an operation is one record).
 *
 * <p>No deadlock follows from the pause: what it waits for is a target's owner queue draining,
 * which never waits for the network (the owner runs each queued operation on the target rank's
 * context, or fails it once the window or the rank is gone). Operations held for a later fence
 * epoch left the owner queue already and are not counted here.
 *
 * <p>{@link #acquire} runs on the reader's thread, {@link #release} on any (the owner's).
 */
public final class InboundBudget {

  /** Bytes of queued operations from one connection at which its reader stops reading. */
  public static final long LIMIT = 16L << 20;

  /** The most any connection of a data plane held, and how often its readers stopped (for tests and logs). */
  public static final class Totals {
    private final AtomicLong most = new AtomicLong();
    private final AtomicLong pauses = new AtomicLong();

    /** The most bytes one connection's queued operations held at once. */
    public long most() {
      return most.get();
    }

    /** How often a reader stopped because its connection's operations filled the budget. */
    public long pauses() {
      return pauses.get();
    }
  }

  private final AtomicLong held = new AtomicLong();
  private final AtomicReference<Runnable> waiting = new AtomicReference<>();
  private final Totals totals;

  /** A connection's budget, which reports to its data plane's {@code totals}. */
  InboundBudget(Totals totals) {
    this.totals = totals;
  }

  /** {@code bytes} of an operation from this connection now wait in an owner queue. */
  public void acquire(long bytes) {
    long now = held.addAndGet(bytes);
    totals.most.accumulateAndGet(now, Math::max);
  }

  /** {@code bytes} {@link #acquire acquired} before left the owner queue (applied, refused or abandoned). */
  public void release(long bytes) {
    long now = held.addAndGet(-bytes);
    if (now < LIMIT / 2) {
      Runnable r = waiting.getAndSet(null);
      if (r != null) {
        r.run();
      }
    }
  }

  /** Whether the reader must stop reading. */
  boolean full() {
    return held.get() >= LIMIT;
  }

  /** The reader stopped: {@code resume} runs once there is room again (at once if there is already). */
  void whenRoom(Runnable resume) {
    totals.pauses.incrementAndGet();
    waiting.set(resume);
    if (held.get() < LIMIT / 2) {
      Runnable r = waiting.getAndSet(null);
      if (r != null) {
        r.run();
      }
    }
  }

  /** The bytes waiting now. */
  public long held() {
    return held.get();
  }
}
