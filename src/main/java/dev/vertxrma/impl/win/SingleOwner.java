package dev.vertxrma.impl.win;

import io.vertx.core.internal.ContextInternal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

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
 */
final class SingleOwner {

  /** Tasks a home drain runs before it lets other work of the event loop in. */
  private static final int DRAIN_BATCH = 64;
  private static final System.Logger LOG = System.getLogger(SingleOwner.class.getName());

  /** The owner word: on the heap, or in the window's segment where other JVMs' origins take it too. */
  private final WindowControl word;
  /** Whether threads of other JVMs may take the word (they cannot schedule this JVM's drains). */
  private final boolean shared;
  /**
   * Whether the job has failed: a drain then stops trying for a word that a JVM may have died
   * holding (the window's pending work fails with the job instead).
   */
  private final java.util.function.BooleanSupplier failed;
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final ContextInternal home;
  /** Deferred actions of the current owner; touched only by the owner. */
  private List<Runnable> deferred;

  SingleOwner(ContextInternal home) {
    this(home, WindowControl.onHeap(0), false, () -> false);
  }

  /**
   * An owner over {@code word}; {@code shared} if origins of other JVMs take it too: a drain that
   * finds it taken then tries again in a task of its own, since such an owner cannot schedule it.
   */
  SingleOwner(ContextInternal home, WindowControl word, boolean shared, java.util.function.BooleanSupplier failed) {
    this.home = home;
    this.word = word;
    this.shared = shared;
    this.failed = failed;
  }

  /**
   * Takes ownership if the state is free and no task waits for it; never waits. The caller must
   * {@link #release} it in a {@code finally}.
   */
  boolean tryAcquire() {
    return queue.isEmpty() && word.tryAcquire();
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
    if (after != null) {
      for (Runnable r : after) {
        r.run();
      }
    }
  }

  /** Runs {@code task} as the owner: now if this is the home context and the state is free, else queued. */
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

  private void scheduleDrain() {
    if (drainScheduled.compareAndSet(false, true)) {
      home.runOnContext(v -> drain());
    }
  }

  private void drain() {
    drainScheduled.set(false);
    if (!word.tryAcquire()) {
      // an origin owns it for one operation: its release schedules the next drain, unless it
      // runs in another JVM (the on-node path): then this loop tries again in a later task
      if (shared && !queue.isEmpty() && !failed.getAsBoolean()) {
        scheduleDrain();
      }
      return;
    }
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
}
