package dev.vertxrma.impl.sync;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.LockType;
import dev.vertxrma.RmaException;
import java.util.ArrayDeque;
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
  /** The holders: on the heap, or in the window's host segment. */
  private final LockWords holders;
  private final ArrayDeque<Request> queue = new ArrayDeque<>();

  /** The lock of a window at {@code rank}. */
  public LockManager(int rank) {
    this(rank, LockWords.onHeap());
  }

  /** The lock of a window at {@code rank}, its holders kept in {@code holders}. */
  public LockManager(int rank, LockWords holders) {
    this.rank = rank;
    this.holders = holders;
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
    holders.queued(queue.size());
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
      if (holders.exclusive() >= 0) {
        return false;
      }
      holders.shared(origin, true);
    } else {
      if (holders.exclusive() >= 0 || holders.sharedCount() > 0) {
        return false;
      }
      holders.exclusive(origin);
    }
    return true;
  }

  /** Releases {@code origin}'s lock; RMA_SYNC if it holds none. */
  public void release(int origin) {
    if (holders.exclusive() == origin) {
      holders.exclusive(-1);
    } else if (holders.shared(origin)) {
      holders.shared(origin, false);
    } else {
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
      holders.queued(queue.size());
      grantWaiting(); // an exclusive request at the head may have held back shared ones behind it
      return;
    }
    if (holds(origin)) {
      release(origin);
    }
  }

  /** Whether no rank holds or waits for a lock. */
  public boolean idle() {
    return holders.exclusive() < 0 && holders.sharedCount() == 0 && queue.isEmpty();
  }

  /** Whether {@code origin} holds a lock. */
  public boolean holds(int origin) {
    return holders.exclusive() == origin || holders.shared(origin);
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
      boolean ok = head.type == LockType.SHARED ? holders.exclusive() < 0
          : holders.exclusive() < 0 && holders.sharedCount() == 0;
      if (!ok) {
        return;
      }
      queue.pollFirst();
      holders.queued(queue.size());
      if (head.type == LockType.SHARED) {
        holders.shared(head.origin, true);
      } else {
        holders.exclusive(head.origin);
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
    holders.queued(0);
    holders.clearHolders();
  }
}
