package dev.vertxrma.impl.sync;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.LockType;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;

/**
 * Origin-side passive-target state of one window: which targets this rank has locked (lock or
 * lockAll) and the future of each lock's grant (operations issued before
 * the grant wait for it). An epoch ends when {@code unlock} is called, not when the unlock
 * completes: the release of each target is kept so that the next lock on that target is
 * requested only after it.
 */
public final class PassiveEpoch {

  private final int rank;
  private final LockType[] held;
  private final Future<?>[] granted;
  private final Future<?>[] releasing;
  private boolean all;
  private int count;

  /** State for a window over {@code size} ranks, seen from {@code rank}. */
  public PassiveEpoch(int rank, int size) {
    this.rank = rank;
    this.held = new LockType[size];
    this.granted = new Future<?>[size];
    this.releasing = new Future<?>[size];
  }

  /** Whether any passive-target epoch is open. */
  public boolean isOpen() {
    return count > 0;
  }

  /** Whether a lockAll epoch is open. */
  public boolean isAll() {
    return all;
  }

  /** Whether this rank holds (or is acquiring) a lock on {@code target}. */
  public boolean holds(int target) {
    return held[target] != null;
  }

  /** The future of the grant of the lock on {@code target}. */
  public Future<?> granted(int target) {
    return granted[target];
  }

  /** Records a lock on {@code target}; RMA_SYNC if one is already held. */
  public void begin(int target, LockType type, Future<?> grant) {
    if (held[target] != null) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "rank %d already holds a lock on the window at rank %d%s", rank, target,
          all ? " (through lockAll)" : "");
    }
    held[target] = type;
    granted[target] = grant;
    count++;
  }

  /** Marks the open epoch as a lockAll epoch. */
  public void setAll(boolean all) {
    this.all = all;
  }

  /** Checks that {@code target} can be unlocked alone; RMA_SYNC otherwise. */
  public void checkUnlock(int target) {
    if (held[target] == null) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "unlock of rank %d at rank %d without a matching lock", target, rank);
    }
    if (all) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "unlock of rank %d at rank %d inside lockAll: use unlockAll", target,
          rank);
    }
  }

  /** Forgets the lock on {@code target} if {@code grant} is still its grant (not a newer epoch's). */
  public void endIf(int target, Future<?> grant) {
    if (granted[target] == grant) {
      end(target);
    }
  }

  /** Records the release (unlock) of {@code target} in progress: the next lock waits for it. */
  public void releasing(int target, Future<?> release) {
    releasing[target] = release;
  }

  /** The last release of {@code target}, or {@code null}; the next lock request goes after it. */
  public Future<?> releasing(int target) {
    Future<?> r = releasing[target];
    if (r != null && r.isComplete()) {
      releasing[target] = null;
      return null;
    }
    return r;
  }

  /** Forgets the lock on {@code target}. */
  public void end(int target) {
    if (held[target] != null) {
      held[target] = null;
      granted[target] = null;
      count--;
    }
    if (count == 0) {
      all = false;
    }
  }
}
