package dev.vertxrma.sync;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.shareddata.Lock;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.Optional;

/**
 * A mutual-exclusion lock over the ranks of a communicator: an MCS queue lock (Mellor-Crummey and
 * Scott) built on {@code MPI_Compare_and_swap} and {@code MPI_Fetch_and_op} on words at a home
 * rank, inside a passive-target epoch kept open for the mutex's life, and on messages between
 * the ranks of a private duplicate of the communicator.
 *
 * <ul>
 *   <li><b>FIFO.</b> Ranks are granted in the order their requests reached the home rank; a
 *       waiter is granted by a message from the rank before it, which completes its future: no
 *       rank polls a remote word and no thread blocks.</li>
 *   <li><b>Fencing.</b> Each grant carries a token ({@link Grant#token()}) larger than every
 *       earlier grant's.</li>
 *   <li><b>Timeouts.</b> {@link #lock(long)} withdraws the request when it times out: the
 *       caller's future fails with {@link ErrorClass#TIMEOUT}, and when the lock reaches the
 *       withdrawn place later it is passed straight on.</li>
 *   <li><b>Deaths</b> (under {@code FailurePolicy.CONTINUE}). A lock held by a rank that dies
 *       goes to the next live waiter, whose {@link Grant#previousHolderDied()} is {@code true};
 *       dead waiters are skipped. A dead home rank fails every call with
 *       {@link ErrorClass#PROC_FAILED}.</li>
 * </ul>
 *
 * <p>The lock is held by a rank: several {@link #lock()} calls of one rank are granted one after
 * the other, each after the previous one's {@link #unlock()}, and any code of the holding rank
 * may unlock. Calls may be made from any thread; futures complete on the rank's context.
 */
public final class Mutex {

  private static final System.Logger LOG = System.getLogger(Mutex.class.getName());

  private final SyncChannel channel;
  private final McsQueue queue;
  private final ArrayDeque<Request> waiting = new ArrayDeque<>();
  /** The request the queue node serves; null while the node is a ghost or there is none. */
  private Request active;
  private Grant held;
  /** Whether this rank has a node in the queue (joining, waiting, holding or releasing). */
  private boolean queued;
  /** Whether that node is a tryLock's (it never waits) or passing the mutex on (it serves no request). */
  private boolean trying;
  private boolean releasing;
  /** Whether the next request already joined behind the release ({@link McsQueue#speculate}). */
  private boolean speculated;
  /** Completed when the node is done, for {@link #free()}. */
  private Promise<Void> idle;

  private static final class Request {
    final Promise<Grant> promise = Promise.promise();
    /** Completed when this request's place in the queue is fixed (tests record request order with it). */
    final Promise<Void> inQueue = Promise.promise();
    long timer = -1;
  }

  private Mutex(SyncChannel channel) {
    this.channel = channel;
    this.queue = new McsQueue(channel);
    queue.owner(new McsQueue.Owner() {
      @Override
      public void onHeld(long token, boolean previousHolderDied) {
        held(token, previousHolderDied);
      }

      @Override
      public void onQueued() {
        releasing = false;
        speculated = false;
        if (active != null) {
          active.inQueue.tryComplete();
        }
      }

      @Override
      public void onIdle() {
        queued = false;
        releasing = false;
        speculated = false;
        pump();
        if (!queued && idle != null) {
          Promise<Void> p = idle;
          idle = null;
          p.complete();
        }
      }

      @Override
      public void onFailure(Throwable cause) {
        failAll(cause);
      }
    });
  }

  /**
   * Creates a mutex whose words live at rank 0; collective over {@code comm}.
   *
   * @param comm the ranks that share the mutex
   * @return as {@link #create(Comm, int)}
   */
  public static Future<Mutex> create(Comm comm) {
    return create(comm, 0);
  }

  /**
   * Creates a mutex; collective over {@code comm} (every rank passes the same home). It
   * duplicates {@code comm} ({@code MPI_Comm_dup}) and allocates a window over the duplicate,
   * {@code 8 * (2 + size)} bytes at {@code home}, none elsewhere.
   *
   * @param comm the ranks that share the mutex
   * @param home the rank whose window holds the queue's tail and the fencing counter
   * @return completes at every rank once every rank has created it. Fails with
   *     {@link ErrorClass#RANK} when {@code home} is not a rank of {@code comm}, and as
   *     {@code Comm.dup} and {@code Win.allocate} fail
   */
  public static Future<Mutex> create(Comm comm, int home) {
    int words = comm == null ? 0 : 2 + comm.size();
    return SyncChannel.open(comm, home, words, "Mutex.create", win -> { }).map(ch -> {
      Mutex m = new Mutex(ch);
      ch.listen(m.queue);
      return m;
    });
  }

  /**
   * Acquires the mutex, waiting as long as it takes.
   *
   * @return completes with the grant once this rank holds the mutex. Fails with
   *     {@link ErrorClass#PROC_FAILED} when the home rank is dead, {@link ErrorClass#WIN} after
   *     {@link #free()}, {@link ErrorClass#COMM} once the job ended
   */
  public Future<Grant> lock() {
    return lock(0);
  }

  /**
   * Acquires the mutex, or withdraws the request after {@code timeoutMs}.
   *
   * @param timeoutMs how long to wait, in milliseconds ({@code 0}: for ever)
   * @return completes with the grant once this rank holds the mutex. Fails with
   *     {@link ErrorClass#TIMEOUT} when it was not granted in time (the request is withdrawn; the
   *     mutex stays usable by every rank), {@link ErrorClass#ARG} for a negative timeout, and as
   *     {@link #lock()}
   */
  public Future<Grant> lock(long timeoutMs) {
    return lock(timeoutMs, null);
  }

  /** {@link #lock(long)}; {@code inQueue} completes once the request's place in the FIFO order is fixed. */
  Future<Grant> lock(long timeoutMs, Promise<Void> inQueue) {
    if (timeoutMs < 0) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "Mutex.lock: timeout %d ms is negative", timeoutMs));
    }
    return channel.onContext(() -> {
      Request r = new Request();
      if (inQueue != null) {
        r.inQueue.future().onComplete(inQueue);
      }
      waiting.add(r);
      if (timeoutMs > 0) {
        r.timer = channel.context().owner().setTimer(timeoutMs, t -> expire(r, timeoutMs));
      }
      pump();
      return r.promise.future();
    });
  }

  /** Completes once this mutex knows {@code rank} dead (for tests that must order a step after it). */
  Future<Void> whenKnownDead(int rank) {
    return channel.onContext(() -> channel.whenKnownDead(rank));
  }

  /**
   * Acquires the mutex only if it is free now: one compare-and-swap at the home rank, no queueing.
   *
   * @return completes with the grant, or empty when the mutex was held or requested by any rank
   *     (this one included, also while this rank's own last release is still on its way to the
   *     home rank). Fails as {@link #lock()}
   */
  public Future<Optional<Grant>> tryLock() {
    return channel.onContext(() -> {
      if (queued || held != null || !waiting.isEmpty()) {
        return Future.succeededFuture(Optional.empty());
      }
      queued = true;
      trying = true;
      return queue.tryAcquire().map(token -> {
        trying = false;
        if (token < 0) {
          queued = false;
          pump();
          return Optional.<Grant>empty();
        }
        held = new Grant(token, false);
        return Optional.of(held);
      }).onFailure(e -> {
        trying = false;
        queued = false;
      });
    });
  }

  /**
   * Releases the mutex held by this rank: grants it to the next waiter, or frees it.
   *
   * @return completes once the hand-over is issued: the grant message sent to the next waiter,
   *     or the swap of the tail back to free sent to the home rank (the next holder needs nothing
   *     more from this rank; if a waiter has swapped itself in but not linked yet, this rank grants
   *     it when it does). Fails with {@link ErrorClass#RMA_SYNC} when this rank does not hold it
   *     (nothing changes). A home rank found dead after that fails this rank's pending
   *     {@link #lock()}s with {@link ErrorClass#PROC_FAILED}
   */
  public Future<Void> unlock() {
    return channel.onContext(() -> {
      if (held == null) {
        return Future.failedFuture(RmaException.of(ErrorClass.RMA_SYNC, "Mutex.unlock at rank %d: this rank does not "
            + "hold the mutex (a lock() of this rank must have completed, and not been unlocked since)", channel.me));
      }
      held = null;
      releasing = true;
      queue.release(false);
      pump(); // a request of this rank waiting: it joins behind the release
      return Future.succeededFuture();
    });
  }

  /**
   * The Vert.x way in: acquires the mutex as {@code vertx.sharedData().getLock(name)} does.
   *
   * @return completes with a {@link Lock} whose {@code release()} is {@link #unlock()}; fails as {@link #lock()}
   */
  public Future<Lock> getLock() {
    return getLockWithTimeout(0);
  }

  /**
   * As {@code vertx.sharedData().getLockWithTimeout(name, timeout)}.
   *
   * @param timeoutMs how long to wait, in milliseconds ({@code 0}: for ever)
   * @return completes with a {@link Lock}; fails as {@link #lock(long)}
   */
  public Future<Lock> getLockWithTimeout(long timeoutMs) {
    return lock(timeoutMs).map(g -> () -> unlock().onFailure(e ->
        LOG.log(Level.WARNING, "Lock.release of a mutex at rank {0} failed: {1}", channel.me, e.getMessage())));
  }

  /**
   * Frees the mutex ({@code MPI_Win_unlock_all}, {@code MPI_Win_free}, {@code MPI_Comm_free});
   * collective. No rank may hold it or wait for it.
   *
   * @return completes once this rank's last release is done and every rank freed it
   */
  public Future<Void> free() {
    return channel.onContext(() -> {
      if (!queued) {
        return channel.free();
      }
      // a release still in flight (or a link still to come): this rank's node must finish first
      if (idle == null) {
        idle = Promise.promise();
      }
      return idle.future().compose(v -> channel.free());
    });
  }

  // ------------------------------------------------------------------ local requests

  private void pump() {
    if (held != null) {
      return; // unlock() releases first; the node's onIdle pumps again
    }
    if (!queued) {
      if (!waiting.isEmpty()) {
        active = waiting.poll();
        queued = true;
        queue.enqueue();
      }
    } else if (releasing && !speculated && active == null && !waiting.isEmpty() && queue.canSpeculate()) {
      active = waiting.poll();
      speculated = true;
      queue.speculate();
    } else if (active == null && !trying && !releasing && !waiting.isEmpty()) {
      active = waiting.poll(); // a ghost place in the queue serves the next request
    }
  }

  private void held(long token, boolean previousHolderDied) {
    Request r = active;
    active = null;
    releasing = false;
    speculated = false;
    if (r == null) {
      releasing = true;
      queue.release(previousHolderDied); // a withdrawn place: pass it on, with the news of a death
      pump();
      return;
    }
    if (r.timer >= 0) {
      channel.context().owner().cancelTimer(r.timer);
    }
    held = new Grant(token, previousHolderDied);
    r.promise.complete(held);
  }

  private void expire(Request r, long timeoutMs) {
    if (r.promise.future().isComplete()) {
      return;
    }
    if (!waiting.remove(r) && active == r) {
      active = waiting.poll(); // our place stays in the queue, for the next request or as a ghost
    }
    r.promise.fail(RmaException.of(ErrorClass.TIMEOUT, "Mutex.lock at rank %d: not granted within %d ms; the "
        + "request was withdrawn", channel.me, timeoutMs));
  }

  private void failAll(Throwable cause) {
    queued = false;
    trying = false;
    releasing = false;
    speculated = false;
    held = null;
    if (active != null) {
      active.promise.tryFail(cause);
      active = null;
    }
    for (Request r; (r = waiting.poll()) != null;) {
      r.promise.tryFail(cause);
    }
    if (idle != null) {
      Promise<Void> p = idle;
      idle = null;
      p.complete();
    }
  }
}
