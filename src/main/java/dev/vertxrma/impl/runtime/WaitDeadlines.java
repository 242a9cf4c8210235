package dev.vertxrma.impl.runtime;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;
import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;

/**
 * The deadlines of one rank's waits ({@code JobOptions.waitTimeoutMs}), kept on the rank's own
 * context. Every wait has the same length, so deadlines fall in the order waits begin: they queue
 * in that order, and one timer, armed for the earliest, serves them all. A wait costs a queue entry
 * instead of a timer of its own (a Vert.x timer is a map entry and a scheduled task, set and
 * cancelled: a fifth of an empty fence's time with 64 ranks in one JVM).
 *
 * <p>Waits that ended are dropped from the head when the next wait begins, and all at once when
 * they outnumber the open ones behind a long wait at the head.
 */
final class WaitDeadlines {

  private static final int COMPACT_FROM = 64;

  private final ContextInternal context;
  private final int rank;
  /** Every wait's length: deadlines fall in the order waits begin. */
  private final long ms;
  private final ArrayDeque<Entry> waits = new ArrayDeque<>();
  /** The armed timer, or -1. */
  private long timer = -1;
  private int compactAt = COMPACT_FROM;

  WaitDeadlines(ContextInternal context, int rank, long ms) {
    this.context = context;
    this.rank = rank;
    this.ms = ms;
  }

  /** One wait: when it is due, whether it ended, what its expiry does. */
  private abstract static class Entry {
    final long due;

    Entry(long due) {
      this.due = due;
    }

    abstract boolean ended();

    abstract void expire();
  }

  /** A wait for a future: its bounded result fails with TIMEOUT at expiry. */
  private final class Wait<T> extends Entry implements io.vertx.core.Completable<T> {
    final Promise<T> result;
    /** The wait's name: a {@code String}, or a {@code Supplier<String>} asked only at expiry. */
    final Object what;

    Wait(long due, Promise<T> result, Object what) {
      super(due);
      this.result = result;
      this.what = what;
    }

    @Override
    boolean ended() {
      return result.future().isComplete();
    }

    /** The bounded future completed first: its outcome is the wait's (no-op after the expiry). */
    @Override
    public void complete(T value, Throwable failure) {
      if (failure == null) {
        result.tryComplete(value);
      } else {
        result.tryFail(failure);
      }
    }

    @SuppressWarnings("unchecked")
    private String name() {
      return what instanceof String ? (String) what : ((java.util.function.Supplier<String>) what).get();
    }

    @Override
    void expire() {
      result.tryFail(new RmaException(ErrorClass.TIMEOUT,
          name() + " at rank " + rank + " did not complete within " + ms + " ms (JobOptions.waitTimeoutMs)"));
    }
  }

  /** A wait that says itself whether it ended and what its expiry does (a posted receive, a probe). */
  private static final class Callback extends Entry {
    final BooleanSupplier ended;
    final Runnable onExpiry;

    Callback(long due, BooleanSupplier ended, Runnable onExpiry) {
      super(due);
      this.ended = ended;
      this.onExpiry = onExpiry;
    }

    @Override
    boolean ended() {
      return ended.getAsBoolean();
    }

    @Override
    void expire() {
      if (!ended.getAsBoolean()) {
        onExpiry.run();
      }
    }
  }

  /**
   * {@code f}, failed with {@code TIMEOUT} if it has not completed a wait's length from now. Any
   * thread (the deadline is queued on the rank's context).
   */
  <T> Future<T> bound(Future<T> f, String what) {
    return bound(f, (Object) what);
  }

  /** {@link #bound(Future, String)}, the wait named by {@code what} only if it expires. */
  <T> Future<T> bound(Future<T> f, java.util.function.Supplier<String> what) {
    return bound(f, (Object) what);
  }

  private <T> Future<T> bound(Future<T> f, Object what) {
    RankFuture<T> p = RankFuture.promise(context); // the call's future as it is: adopted without a wrapper
    Wait<T> wait = new Wait<>(System.nanoTime() + ms * 1_000_000L, p, what);
    f.onComplete(wait);
    if (p.future().isComplete()) {
      return p.future();
    }
    add(wait);
    return p.future();
  }

  /**
   * Fails {@code p} with {@code TIMEOUT} a wait's length from now unless it has completed by then;
   * the wait named by {@code what} only if it expires. Any thread.
   */
  <T> void failAtDeadline(Promise<T> p, java.util.function.Supplier<String> what) {
    if (!p.future().isComplete()) {
      add(new Wait<>(System.nanoTime() + ms * 1_000_000L, p, what));
    }
  }

  /**
   * Runs {@code onExpiry} on the rank's context a wait's length from now unless {@code ended} says
   * the wait ended before. Any thread.
   */
  void atDeadline(BooleanSupplier ended, Runnable onExpiry) {
    add(new Callback(System.nanoTime() + ms * 1_000_000L, ended, onExpiry));
  }

  private void add(Entry e) {
    if (!context.isRunningOnContext()) {
      context.runOnContext(v -> add(e));
      return;
    }
    while (!waits.isEmpty() && waits.peekFirst().ended()) {
      waits.pollFirst();
    }
    waits.addLast(e);
    if (waits.size() >= compactAt) {
      waits.removeIf(Entry::ended);
      compactAt = Math.max(COMPACT_FROM, 2 * waits.size());
    }
    if (timer == -1) {
      arm();
    }
  }

  /** Waits queued (open, or ended and not dropped yet). */
  int queued() {
    return waits.size();
  }

  private void arm() {
    long delayNanos = waits.peekFirst().due - System.nanoTime();
    timer = context.setTimer(Math.max(1, (delayNanos + 999_999) / 1_000_000), id -> expireDue());
  }

  /** The timer fired: fails the waits that are due and still open, and arms for the next. */
  private void expireDue() {
    timer = -1;
    long now = System.nanoTime();
    while (!waits.isEmpty()) {
      Entry w = waits.peekFirst();
      if (w.ended()) {
        waits.pollFirst();
      } else if (w.due - now <= 0) {
        waits.pollFirst();
        w.expire();
      } else {
        break;
      }
    }
    if (!waits.isEmpty()) {
      arm();
    }
  }
}
