package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.LockType;
import dev.vertxrma.impl.sync.LockManager;
import dev.vertxrma.impl.transport.Frame;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The passive-target side of one rank's window: the lock queue ({@link LockManager}), the ranks
 * holding a NOCHECK lock (recorded, not queued) and the window's {@code no_locks} setting. Owned
 * by the window's owner; only {@link #noLocks()} is read without ownership.
 */
final class TargetLocks {

  private final int rank;
  private final Supplier<String> window;
  private final LockManager locks;
  /** Ranks holding a NOCHECK lock on this window: not queued, but known. */
  private final Set<Integer> noCheckHolders = new HashSet<>();
  /** Owner state; read without ownership only by the same-JVM lock fast path (a stale read only sends it the slow way). */
  private volatile boolean noLocks;

  /** Where origins of other JVMs read who holds a lock here (the on-node path); updated as the owner. */
  private final WindowControl mirror;

  TargetLocks(int rank, boolean noLocks, Supplier<String> window, WindowControl mirror) {
    this.mirror = mirror;
    this.rank = rank;
    this.noLocks = noLocks;
    this.window = window;
    this.locks = new LockManager(rank, mirror);
    mirror.setNoLocks(noLocks);
  }

  boolean noLocks() {
    return noLocks;
  }

  void setNoLocks(boolean value) {
    noLocks = value;
    mirror.setNoLocks(value);
  }

  /** Whether {@code origin} holds a lock here, queued or NOCHECK: what admits its passive-target operations. */
  boolean admits(int origin) {
    return locks.holds(origin) || noCheckHolders.contains(origin);
  }

  /** Records in the control block whether {@code origin} holds a lock here now. */
  private void mirror(int origin) {
    mirror.setHoldsLock(origin, admits(origin));
  }

  /** Same-JVM fast path, as the owner: grants {@code src}'s lock now if compatible with those held and nothing is queued. */
  boolean tryGrant(int src, LockType type) {
    boolean granted = !noCheckHolders.contains(src) && locks.tryGrant(src, type);
    if (granted) {
      mirror(src);
    }
    return granted;
  }

  /** Same-JVM fast path, as the owner: releases {@code src}'s lock now; false if it holds none here. */
  boolean tryRelease(int src) {
    if (noCheckHolders.remove(src)) {
      mirror(src);
      return true;
    }
    if (!locks.holds(src)) {
      return false;
    }
    locks.release(src);
    mirror(src);
    return true;
  }

  /** {@code src}'s unlock, from a frame: its NOCHECK record or its lock goes. */
  void release(int src) {
    if (!noCheckHolders.remove(src)) {
      locks.release(src);
    }
    mirror(src);
  }

  /** Origin {@code src} died (ULFM): its lock, held (NOCHECK too) or queued, is given up at once. */
  void originDied(int src) {
    noCheckHolders.remove(src);
    locks.cancel(src);
    mirror(src);
  }

  /** {@code src} gave up its lock request (its wait timed out): dropped, or released if granted meanwhile. */
  void cancel(int src) {
    locks.cancel(src);
    mirror(src);
  }

  /**
   * Lock request {@code f}: a NOCHECK one is recorded and granted at once; any other is queued,
   * {@code granted} once compatible, {@code refused} with a message if the window is freed first.
   * Refusals of the request itself are thrown.
   */
  void onRequest(Frame f, Consumer<Frame> granted, BiConsumer<Frame, String> refused) {
    if (noLocks) {
      throw TargetWindow.refused(ErrorClass.RMA_SYNC, "lock request from rank %d on window %s at rank %d, created "
          + "with no_locks=true", f.src, window.get(), rank);
    }
    int lockType = SyncFrames.lockTypeCode(f);
    if (lockType < 0 || lockType >= LockType.values().length) {
      throw TargetWindow.refused(ErrorClass.OTHER, "lock request from rank %d with unknown lock type %d", f.src,
          lockType);
    }
    if (SyncFrames.isNoCheckLock(f)) {
      // the origin asserted that no conflicting lock exists: recorded and answered, not queued
      if (locks.holds(f.src) || !noCheckHolders.add(f.src)) {
        throw TargetWindow.refused(ErrorClass.RMA_SYNC, "NOCHECK lock from rank %d, which already holds a lock on "
            + "window %s at rank %d", f.src, window.get(), rank);
      }
      mirror(f.src);
      granted.accept(f);
      return;
    }
    // the grant may run later, while an unlock is handled: always inside the owner
    // a request still queued when the window is freed is refused, not left unanswered
    locks.request(f.src, LockType.values()[lockType], () -> {
      mirror(f.src);
      granted.accept(f);
    }, () -> refused.accept(f, "window "
        + window.get() + " at rank " + rank + " was freed before rank " + f.src + "'s lock request was granted"));
  }

  /** Why {@code no_locks} cannot be switched on now (a rank holds or waits for a lock), or the empty string. */
  String noLocksRefusal(boolean value) {
    return value && !noLocks && (!locks.idle() || !noCheckHolders.isEmpty())
        ? "a rank holds or waits for a lock at rank " + rank + " on window " + window.get() : "";
  }

  /** The window is freed: every queued request is refused, every lock forgotten. */
  void clear() {
    locks.clear(origin -> { });
    noCheckHolders.clear();
    mirror.clearLocks();
  }
}
