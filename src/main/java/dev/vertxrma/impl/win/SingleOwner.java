package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.HolderMark;
import io.vertx.core.internal.ContextInternal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Single ownership of one target window's state: at any moment at most one thread owns it, and
 * nobody ever waits for it. A same-JVM origin may take it with one compare-and-set for a bounded
 * critical section (one operation: checks and one copy or reduction, no I/O, no callbacks) if
 * nothing is queued; every other piece of work is queued, in order, and run by the home context
 * (the target rank's event loop) when the state is free. Work that must leave the state — replies,
 * promise completions — is {@link #defer deferred} and runs once ownership is released.
 *
 * <p>Ordering: a task queued by a thread runs before any later task of the same thread, whether
 * that later task is queued or tried at once ({@link #tryAcquire} refuses while tasks wait).
 *
 * <p><b>A word shared with other processes</b> (the on-node path: the word is in the window's
 * segment, ARCHITECTURE decision 20). A thread of another JVM that holds it cannot schedule this
 * JVM's drain, so a drain that finds it held looks again by itself, backing off: it spins
 * {@value #SPIN_NANOS} ns, re-runs on the loop's next turns for {@value #YIELD_NANOS} ns, then on
 * timers whose delay doubles from {@value #FIRST_DELAY_NANOS} ns to {@value #MAX_DELAY_NANOS} ns,
 * and to {@value #LONG_WAIT_DELAY_NANOS} ns once the same process has held the word for
 * {@value #LONG_WAIT_NANOS} ns (far longer than any one operation: a stopped process) — never
 * spinning the loop, never blocking it. Each wake-up costs the loop its progress engine's polling
 * after it ({@code BackoffSelectStrategy}, 200 µs): about 5 % of a core at 4 ms, 1.3 % at 16 ms. The word records its holder's process
 * ({@link HolderMark}): a holder whose process is gone (killed while it applied an operation) is
 * taken back at the next look, from that exact mark. Queued work never waits for ever:
 * <ul>
 *   <li>once the rank's job has failed (a stopped holder is declared dead that way, within the
 *       heartbeat's few seconds), a drain that finds the word held by a live or unknown process
 *       <em>closes</em> the owner with the failure;</li>
 *   <li>a word holding no holder's mark (written by another process of the user) closes it with
 *       a WIN error naming the window and the value.</li>
 * </ul>
 * A closed owner runs no task any more: each queued and later task is <em>abandoned</em> with
 * the cause (its future fails, {@link Abandonable}); the cleanup given at construction runs once
 * first. Abandoning needs no word: once closed, a thread of this JVM that takes the word gives it
 * back untouched, and while another process holds it no thread of this JVM can be inside, so the
 * home context is the only one touching the state.
 */
final class SingleOwner {

  /** Tasks a home drain runs before it lets other work of the event loop in. */
  private static final int DRAIN_BATCH = 64;
  /** How long a drain spins for a word another process holds before it lets the loop run. */
  static final long SPIN_NANOS = 2_000;
  /** How long a drain looks again on the loop's next turns before it waits on timers. */
  static final long YIELD_NANOS = 50_000;
  /** The first timer's delay; each next one doubles, up to {@link #MAX_DELAY_NANOS}. */
  static final long FIRST_DELAY_NANOS = 50_000;
  /** The longest delay between two looks at a word held by another process... */
  static final long MAX_DELAY_NANOS = 4_000_000;
  /** ...until it has held it this long... */
  static final long LONG_WAIT_NANOS = 100_000_000;
  /** ...then this. */
  static final long LONG_WAIT_DELAY_NANOS = 16_000_000;
  /** How often at most a waiting drain asks whether the holder's process still exists ({@code /proc}). */
  static final long JUDGE_NANOS = 500_000;
  private static final System.Logger LOG = System.getLogger(SingleOwner.class.getName());

  /** A queued task that has something to do when it is abandoned instead of run (its future fails). */
  interface Abandonable extends Runnable {
    /** Called instead of {@link #run} once the owner is closed; as the owner (it may {@link #defer}). */
    void abandon(RmaException cause);
  }

  /** The owner word: on the heap, or in the window's segment where other JVMs' origins take it too. */
  private final WindowControl word;
  /** Whether threads of other JVMs may take the word (they cannot schedule this JVM's drains). */
  private final boolean shared;
  /** The failure of the rank's job, or {@code null} while it runs. */
  private final Supplier<RmaException> failure;
  /** The window, for messages: "window W at rank R". */
  private final Supplier<String> name;
  /** Run once, as the owner, when the owner closes: fails what waits inside the state. */
  private final Consumer<RmaException> onClose;
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final ContextInternal home;
  /** Deferred actions of the current owner; touched only by the owner. */
  private List<Runnable> deferred;
  /** Why no task runs any more, or {@code null}. */
  private volatile RmaException closed;
  /** The rank's failure as told by {@link #rankFailed}, or {@code null}. */
  private volatile RmaException failedWith;
  /** Whether {@link #onClose} ran. Home context only. */
  private boolean cleanedUp;
  /** The current wait for a word another process holds (home context only). */
  private long waitingFor;
  private long waitingSince;
  private long delay;
  private long judgedAt;
  private boolean timerPending;

  SingleOwner(ContextInternal home) {
    this(home, WindowControl.onHeap(0), false, () -> null, () -> "a window", cause -> { });
  }

  /**
   * An owner over {@code word}; {@code shared} if origins of other JVMs take it too: a drain that
   * finds it taken then looks again by itself, since such an owner cannot schedule it.
   *
   * @param failure the failure of the rank's job, or {@code null} (home context)
   * @param name names the window in messages
   * @param onClose run once as the owner when the owner closes ({@link SingleOwner})
   */
  SingleOwner(ContextInternal home, WindowControl word, boolean shared, Supplier<RmaException> failure,
      Supplier<String> name, Consumer<RmaException> onClose) {
    this.home = home;
    this.word = word;
    this.shared = shared;
    this.failure = failure;
    this.name = name;
    this.onClose = onClose;
  }

  /**
   * Takes ownership if the state is free and no task waits for it; never waits. The caller must
   * {@link #release} it in a {@code finally}.
   */
  boolean tryAcquire() {
    if (closed != null || !queue.isEmpty() || !word.tryAcquire()) {
      return false;
    }
    if (closed != null) { // closed meanwhile: the home context may be abandoning tasks
      word.release();
      scheduleDrain();
      return false;
    }
    return true;
  }

  /**
   * Runs {@code task} on {@code arg} as the owner now, on this thread, if the state is free and no
   * task waits for it ({@link #tryAcquire}), and returns its answer; false (nothing run) if not.
   * Any thread. A task kept in a field and a reused argument make this allocate nothing.
   */
  <T> boolean tryRun(java.util.function.Predicate<T> task, T arg) {
    if (!tryAcquire()) {
      return false;
    }
    try {
      return task.test(arg);
    } finally {
      release();
    }
  }

  /** Gives ownership back, runs the deferred actions, and lets the home context drain the queue. */
  void release() {
    List<Runnable> after = deferred;
    deferred = null;
    word.release();
    if (!queue.isEmpty()) {
      scheduleDrain();
    }
    runAll(after);
  }

  /**
   * Runs {@code task} as the owner: now if this is the home context and the state is free, else
   * queued. A task that is {@link Abandonable} is abandoned instead if the owner closes first.
   */
  void execute(Runnable task) {
    if (home.isRunningOnContext() && tryAcquire()) {
      try {
        task.run();
      } finally {
        release();
      }
      return;
    }
    queue.add(task);
    scheduleDrain();
  }

  /** Only for the owner: runs {@code action} after ownership is released (replies, completions). */
  void defer(Runnable action) {
    if (deferred == null) {
      deferred = new ArrayList<>(2);
    }
    deferred.add(action);
  }

  /** Why this owner runs no task any more, or {@code null}. */
  RmaException closed() {
    return closed;
  }

  /** Makes the home context look at the word and the queue now (a holder was declared dead). */
  void wake() {
    home.runOnContext(v -> drain());
  }

  /**
   * The rank's job failed with {@code cause}: work queued behind a word another process holds is
   * abandoned with it from now on (at once, if any waits). Any thread.
   */
  void rankFailed(RmaException cause) {
    if (failedWith == null) {
      failedWith = cause;
    }
    wake();
  }

  private void scheduleDrain() {
    if (drainScheduled.compareAndSet(false, true)) {
      home.runOnContext(v -> drain());
    }
  }

  private void drain() {
    drainScheduled.set(false);
    if (closed != null) {
      abandonQueued();
      return;
    }
    if (!word.tryAcquire()) {
      wordTaken();
      return;
    }
    waitingFor = 0;
    runQueued();
  }

  /** As the owner: runs up to a batch of queued tasks, then releases. */
  private void runQueued() {
    try {
      for (int i = 0; i < DRAIN_BATCH; i++) {
        Runnable task = queue.poll();
        if (task == null) {
          break;
        }
        try {
          task.run();
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.ERROR, "target window task failed", e);
        }
      }
    } finally {
      release();
    }
  }

  /** The drain found the word taken. */
  private void wordTaken() {
    long holder = word.holder();
    if (holder == HolderMark.SELF && !shared) {
      return; // a thread of this JVM owns it for one operation: its release schedules the next drain
    }
    if (queue.isEmpty()) {
      waitingFor = 0;
      return;
    }
    if (holder == 0) {
      scheduleDrain(); // given back meanwhile
      return;
    }
    long now = System.nanoTime();
    if (holder != waitingFor) {
      waitingFor = holder;
      waitingSince = now;
      judgedAt = now - JUDGE_NANOS;
      delay = FIRST_DELAY_NANOS;
      // a holder applying one operation: usually gone within a few microseconds
      long spinUntil = now + SPIN_NANOS;
      do {
        Thread.onSpinWait();
        if (word.tryAcquire()) {
          waitingFor = 0;
          runQueued();
          return;
        }
      } while (System.nanoTime() - spinUntil < 0);
      holder = word.holder();
      if (holder != waitingFor) {
        scheduleDrain();
        return;
      }
    }
    if (holder != HolderMark.SELF) {
      if (!HolderMark.wellFormed(holder)) {
        RmaException garbage = new RmaException(ErrorClass.WIN, "the owner word of " + name.get() + " holds "
            + HolderMark.describe(holder) + ", which no holder writes: the window's control page was overwritten by "
            + "another process; the window is unusable");
        LOG.log(System.Logger.Level.ERROR, garbage.getMessage());
        close(garbage);
        return;
      }
      if (now - judgedAt >= JUDGE_NANOS && now - waitingSince >= YIELD_NANOS) {
        judgedAt = now;
        if (HolderMark.judge(holder) == HolderMark.Liveness.DEAD) {
          if (word.takeFrom(holder)) {
            LOG.log(System.Logger.Level.WARNING, name.get() + ": took back the owner word from "
                + HolderMark.describe(holder) + ", which is gone (it died holding it; found "
                + (now - waitingSince) / 1_000 + " µs into this rank's wait); what it was applying may be partly "
                + "applied");
            waitingFor = 0;
            runQueued();
          } else {
            scheduleDrain();
          }
          return;
        }
      }
      RmaException failed = failedWith != null ? failedWith : failure.get();
      if (failed != null) {
        close(failed);
        return;
      }
    }
    backOff(now);
  }

  /** Looks at the word again later: on the loop's next turn at first, then on timers of growing delay. */
  private void backOff(long now) {
    if (now - waitingSince < YIELD_NANOS) {
      scheduleDrain();
      return;
    }
    if (timerPending) {
      return;
    }
    timerPending = true;
    long d = delay;
    delay = Math.min(delay * 2, now - waitingSince < LONG_WAIT_NANOS ? MAX_DELAY_NANOS : LONG_WAIT_DELAY_NANOS);
    home.timer(d, TimeUnit.NANOSECONDS).onComplete(ar -> {
      timerPending = false;
      drain();
    });
  }

  /** Closes the owner with {@code cause}: no task runs any more; the queued and later ones are abandoned. */
  private void close(RmaException cause) {
    if (closed == null) {
      closed = cause;
      LOG.log(System.Logger.Level.DEBUG, () -> name.get() + ": its owner word is held by "
          + HolderMark.describe(word.holder()) + "; its queued work fails with: " + cause.getMessage());
    }
    abandonQueued();
  }

  /**
   * The owner is closed: abandons every queued task, as the owner — holding the word if it is
   * free, or while another process holds it (then no thread of this JVM is inside: one that takes
   * the word after the close gives it back untouched). While a thread of this JVM holds it, the
   * home context looks again later.
   */
  private void abandonQueued() {
    long holder = word.holder();
    boolean took = false;
    if (holder == 0) {
      took = word.tryAcquire();
      if (!took) {
        scheduleDrain();
        return;
      }
    } else if (holder == HolderMark.SELF) {
      backOff(System.nanoTime());
      return;
    }
    RmaException cause = closed;
    try {
      if (!cleanedUp) {
        cleanedUp = true;
        try {
          onClose.accept(cause);
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.ERROR, "closing the owner of " + name.get() + " failed", e);
        }
      }
      for (Runnable task; (task = queue.poll()) != null; ) {
        if (task instanceof Abandonable) {
          try {
            ((Abandonable) task).abandon(cause);
          } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "abandoning a task of " + name.get() + " failed", e);
          }
        }
      }
    } finally {
      if (took) {
        release();
      } else {
        List<Runnable> after = deferred;
        deferred = null;
        runAll(after);
      }
    }
  }

  private static void runAll(List<Runnable> actions) {
    if (actions != null) {
      for (Runnable r : actions) {
        r.run();
      }
    }
  }
}
