package dev.vertxrma.impl.sync;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.LockType;
import dev.vertxrma.RmaException;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import java.util.function.IntConsumer;

/**
 * The target-side lock of one window (MPI_Win_lock at the target): shared holders or one
 * exclusive holder, and a FIFO queue of waiting requests. Grants in arrival order: a request is
 * granted only when it is compatible with the holders and nothing is queued before it, so a
 * stream of shared requests cannot starve an exclusive one. Runs on the target's context; a
 * grant is announced through the callback given with the request.
 */
public final class LockManager {

  private static final class Request {
    final int origin;
    final LockType type;
    final Runnable grant;
    final Runnable dropped;

    Request(int origin, LockType type, Runnable grant, Runnable dropped) {
      this.origin = origin;
      this.type = type;
      this.grant = grant;
      this.dropped = dropped;
    }
  }

  private final int rank;
  private final Set<Integer> shared = new HashSet<>();
  private int exclusive = -1;
  private final ArrayDeque<Request> queue = new ArrayDeque<>();

  /** The lock of a window at {@code rank}. */
  public LockManager(int rank) {
    this.rank = rank;
  }

  /** Queues a lock request from {@code origin}; {@code grant} runs when it is granted (maybe at once). */
  public void request(int origin, LockType type, Runnable grant) {
    request(origin, type, grant, () -> { });
  }

  /**
   * {@link #request(int, LockType, Runnable)}, with what to do if the request is dropped unanswered
   * ({@link #clear}: the window is freed while it waits).
   */
  public void request(int origin, LockType type, Runnable grant, Runnable dropped) {
    if (holds(origin) || queued(origin)) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "rank %d already holds or waits for a lock on the window at rank %d",
          origin, rank);
    }
    queue.addLast(new Request(origin, type, grant, dropped));
    grantWaiting();
  }

  /**
   * Grants {@code origin}'s lock now if nothing is queued and it is compatible with the locks
   * held; false (nothing changed) otherwise, including when the request would be an error:
   * the caller then makes it through {@link #request}, which queues it or reports the error.
   */
  public boolean tryGrant(int origin, LockType type) {
    if (!queue.isEmpty() || holds(origin)) {
      return false;
    }
    if (type == LockType.SHARED) {
      if (exclusive >= 0) {
        return false;
      }
      shared.add(origin);
    } else {
      if (exclusive >= 0 || !shared.isEmpty()) {
        return false;
      }
      exclusive = origin;
    }
    return true;
  }

  /** Releases {@code origin}'s lock; RMA_SYNC if it holds none. */
  public void release(int origin) {
    if (exclusive == origin) {
      exclusive = -1;
    } else if (!shared.remove(origin)) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "unlock from rank %d, which holds no lock on the window at rank %d",
          origin, rank);
    }
    grantWaiting();
  }

  /**
   * Withdraws {@code origin}'s lock request: dropped if still queued, released if granted
   * meanwhile (the origin stopped waiting and will never unlock it); nothing if neither.
   */
  public void cancel(int origin) {
    if (queue.removeIf(r -> r.origin == origin)) {
      grantWaiting(); // an exclusive request at the head may have held back shared ones behind it
      return;
    }
    if (holds(origin)) {
      release(origin);
    }
  }

  /** Whether {@code origin} holds a lock (shared or exclusive). */
  /** Whether no rank holds or waits for a lock. */
  public boolean idle() {
    return exclusive < 0 && shared.isEmpty() && queue.isEmpty();
  }

  /** Whether {@code origin} holds a lock. */
  public boolean holds(int origin) {
    return exclusive == origin || shared.contains(origin);
  }

  private boolean queued(int origin) {
    for (Request r : queue) {
      if (r.origin == origin) {
        return true;
      }
    }
    return false;
  }

  private void grantWaiting() {
    while (!queue.isEmpty()) {
      Request head = queue.peekFirst();
      boolean ok = head.type == LockType.SHARED ? exclusive < 0 : exclusive < 0 && shared.isEmpty();
      if (!ok) {
        return;
      }
      queue.pollFirst();
      if (head.type == LockType.SHARED) {
        shared.add(head.origin);
      } else {
        exclusive = head.origin;
      }
      head.grant.run();
    }
  }

  /**
   * Drops every queued request (window freed, job failed): each is told through the {@code
   * dropped} action it was queued with, then {@code onDropped}.
   */
  public void clear(IntConsumer onDropped) {
    while (!queue.isEmpty()) {
      Request r = queue.pollFirst();
      r.dropped.run();
      onDropped.accept(r.origin);
    }
    shared.clear();
    exclusive = -1;
  }
}
