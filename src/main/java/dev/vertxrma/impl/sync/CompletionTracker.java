package dev.vertxrma.impl.sync;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.observe.RankObserver;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.agrona.collections.LongArrayQueue;

/**
 * Origin-side completion counting of one window (issue-time accounting): per target, the number
 * of operations {@link #issue issued} and the number {@link #complete completed}. An operation is
 * counted when it is issued, even if it is held until a lock is granted or a {@code start} is
 * matched; flush and every epoch-closing call take a {@link #snapshot} of the issued counts when
 * they are called and wait until the completed counts reach it. Nothing is cleared by a flush, so
 * any number of flushes, in any order, each wait for exactly what was issued before them.
 * Also counts, per target, the operations sent in the current fence or PSCW epoch (the counts
 * {@code complete} announces).
 *
 * <p>Failures are kept with the operation they belong to (its target and issue number), so that
 * each is reported once, by the first synchronization that completes that operation: a flush of
 * one target never reports, nor consumes, the failure of an operation to another target, nor of
 * one issued after it. Used on the rank's context only.
 *
 * <p><b>Bulk acknowledgement.</b> A put or accumulate to another JVM is sent {@link #oneWay one
 * way}: no reply per operation. It is complete once an acknowledgement covers it: when a
 * synchronization waits for operations to a target that has one-way operations not yet
 * acknowledged (or one is sent while it waits), one request goes to that target for everything
 * sent to it so far ({@link AckRequests}), and its one reply completes them all. A one-way
 * operation that fails at the target is {@linkplain #oneWayFailed named} by the target before the
 * acknowledgement that covers it.
 */
public final class CompletionTracker {

  private static final class Waiter {
    final long[] needed;
    final Promise<Void> done;
    /** Whether {@link #done} fails with the first unreported error of the operations it covers. */
    final boolean reporting;

    Waiter(long[] needed, Promise<Void> done, boolean reporting) {
      this.needed = needed;
      this.done = done;
      this.reporting = reporting;
    }
  }

  /** A failed operation not reported yet: its target and its issue number there (1 for the first). */
  private record Failure(int target, long seq, RmaException error) {
  }

  /** Sends the acknowledgement requests of one-way operations. */
  public interface AckRequests {
    /**
     * Asks {@code target} to answer once it has handled the first {@code upTo} one-way operations
     * sent to it; the future completes with that answer (or fails, the target lost or the window
     * gone there).
     */
    Future<?> request(int target, long upTo);
  }

  /**
   * One-way operations to a target that may wait for their acknowledgement before one is asked
   * for even though no synchronization waits: the queue of their issue numbers stays within about
   * this many (plus those sent while the answer is on its way).
   */
  static final int UNACKED_BOUND = 4096;

  private final ContextInternal context;
  private final RankObserver observer;
  private final int win;
  private final long[] issued;
  /**
   * Per target: every operation numbered up to this one is complete. Operations complete in any
   * order (a reply may overtake an acknowledgement, a same-JVM operation one held for a lock), so
   * a synchronization waits for this prefix, never for a mere count of completions.
   */
  private final long[] completed;
  /** By target: the last operation that went over the data plane (the on-node path waits for it). */
  private final long[] lastViaNetwork;
  /** Per target: operations complete ahead of an earlier one still pending ({@code null} while none ever was). */
  private final java.util.TreeSet<Long>[] ahead;
  private final int[] sentInEpoch;
  private final List<Waiter> waiters = new ArrayList<>();
  /** Unreported failures, in the order they occurred. */
  private final List<Failure> failures = new ArrayList<>(0);
  /** Per target: one-way operations sent, acknowledged, and covered by the request in flight (0 if none). */
  private final long[] oneWaySent;
  private final long[] oneWayAcked;
  private final long[] ackAsked;
  /** Per target: issue numbers of the one-way operations sent and not acknowledged yet, oldest first. */
  private final LongArrayQueue[] unacked;
  private AckRequests ackRequests;

  /** A tracker for window {@code win} over {@code size} ranks, telling {@code observer} of each completion. */
  public CompletionTracker(ContextInternal context, int size, RankObserver observer, int win) {
    this.context = context;
    this.observer = observer;
    this.win = win;
    this.issued = new long[size];
    this.completed = new long[size];
    this.lastViaNetwork = new long[size];
    @SuppressWarnings("unchecked")
    java.util.TreeSet<Long>[] a = new java.util.TreeSet[size];
    this.ahead = a;
    this.sentInEpoch = new int[size];
    this.oneWaySent = new long[size];
    this.oneWayAcked = new long[size];
    this.ackAsked = new long[size];
    this.unacked = new LongArrayQueue[size];
  }

  /** Where acknowledgement requests go; set once, before the first {@link #oneWay}. */
  public void ackRequests(AckRequests requests) {
    this.ackRequests = requests;
  }

  /**
   * Issued operation {@code seq} to {@code target} was sent one way: it completes with the
   * acknowledgement that covers it. Call it after the frame is sent (an acknowledgement request
   * this triggers must follow it).
   *
   * @return its number among the one-way operations to {@code target} (1 for the first), which
   *     its frame carries
   */
  public long oneWay(int target, long seq) {
    LongArrayQueue q = unacked[target];
    if (q == null) {
      q = unacked[target] = new LongArrayQueue();
    }
    q.offerLong(seq);
    return ++oneWaySent[target];
  }

  /** A one-way operation was sent and counted ({@link #oneWay}): asks for its acknowledgement if a synchronization waits for it. */
  public void oneWaySent(int target) {
    if (waited(target) || oneWaySent[target] - oneWayAcked[target] >= UNACKED_BOUND) {
      askAck(target);
    }
  }

  /**
   * The target reported that its one-way operation number {@code n} failed: kept for the
   * synchronization that completes it. False if no such operation waits for its acknowledgement
   * (the report is then not believed).
   */
  public boolean oneWayFailed(int target, long n, RmaException error) {
    if (target < 0 || target >= unacked.length || n <= oneWayAcked[target] || n > oneWaySent[target]) {
      return false;
    }
    long seq = nth(unacked[target], n - oneWayAcked[target] - 1);
    failures.add(new Failure(target, seq, error));
    return true;
  }

  /** Whether some synchronization waits for an operation to {@code target} not complete yet. */
  private boolean waited(int target) {
    for (Waiter w : waiters) {
      if (w.needed[target] > completed[target]) {
        return true;
      }
    }
    return false;
  }

  /**
   * Asks {@code target} to acknowledge every one-way operation sent to it so far, unless no such
   * operation waits or a request is in flight (its answer asks again if more are needed then).
   */
  private void askAck(int target) {
    long upTo = oneWaySent[target];
    if (upTo <= oneWayAcked[target] || ackAsked[target] != 0) {
      return;
    }
    ackAsked[target] = upTo;
    ackRequests.request(target, upTo).onComplete(ar -> {
      ackAsked[target] = 0;
      Throwable failure = ar.failed() ? ar.cause() : null;
      LongArrayQueue q = unacked[target];
      while (oneWayAcked[target] < upTo) {
        oneWayAcked[target]++;
        complete(target, q.pollLong(), failure);
      }
      if (waited(target) || oneWaySent[target] - oneWayAcked[target] >= UNACKED_BOUND) {
        askAck(target);
      }
    });
  }

  /**
   * An operation to {@code target} is issued: it counts from now until {@link #complete}.
   *
   * @return its issue number at that target (1 for the first), which {@link #complete} takes
   */
  public long issue(int target) {
    return ++issued[target];
  }

  /**
   * Issued operation {@code seq} to {@code target} is complete; {@code failure}, if not null, is
   * kept for the first synchronization that completes the operation ({@link #takeError}).
   */
  public void complete(int target, long seq, Throwable failure) {
    advance(target, seq);
    observer.opCompleted(win, target, seq, failure != null);
    if (failure != null) {
      failures.add(new Failure(target, seq, failure instanceof RmaException ? (RmaException) failure
          : new RmaException(ErrorClass.INTERN, String.valueOf(failure), failure)));
    }
    if (waiters.isEmpty()) {
      return;
    }
    // take the satisfied waiters out first: completing one runs callbacks that may issue, flush
    // or complete more operations, which touch the waiter list
    List<Waiter> ready = null;
    Iterator<Waiter> it = waiters.iterator();
    while (it.hasNext()) {
      Waiter w = it.next();
      if (reached(w.needed)) {
        it.remove();
        if (ready == null) {
          ready = new ArrayList<>(2);
        }
        ready.add(w);
      }
    }
    if (ready != null) {
      for (Waiter w : ready) {
        if (w.reporting && w.done.future().isComplete()) {
          continue; // it timed out: the errors it covers stay for a later synchronization
        }
        RmaException e = w.reporting ? takeError(w.needed) : null;
        if (e == null) {
          w.done.tryComplete();
        } else {
          w.done.tryFail(e);
        }
      }
    }
  }

  /**
   * Operation {@code seq} to {@code target} is complete: the complete prefix grows past it and
   * every operation kept ahead that now follows on; kept ahead if an earlier one is pending. At
   * most the operations in flight to a target are kept ahead.
   */
  private void advance(int target, long seq) {
    if (seq != completed[target] + 1) {
      if (ahead[target] == null) {
        ahead[target] = new java.util.TreeSet<>();
      }
      ahead[target].add(seq);
      return;
    }
    completed[target] = seq;
    java.util.TreeSet<Long> next = ahead[target];
    while (next != null && !next.isEmpty() && next.first() == completed[target] + 1) {
      completed[target] = next.pollFirst();
    }
  }

  /**
   * Target {@code target} died while the job goes on (ULFM): every operation to it not complete
   * yet completes with {@code cause}, so the synchronizations that wait for them (flush, unlock,
   * complete, fence, free) fail with it instead of waiting for ever.
   */
  public void failTarget(int target, RmaException cause) {
    for (long seq = completed[target] + 1; seq <= issued[target]; seq++) {
      if (ahead[target] == null || !ahead[target].contains(seq)) {
        complete(target, seq, cause);
      }
    }
  }

  /** Operation {@code seq} to {@code target} went over the data plane (not applied in shared memory). */
  public void viaNetwork(int target, long seq) {
    lastViaNetwork[target] = seq;
  }

  /**
   * Whether every operation to {@code target} that went over the data plane has completed: an
   * operation applied by the origin in shared memory now overtakes none of them.
   */
  public boolean networkQuiet(int target) {
    return completed[target] >= lastViaNetwork[target];
  }

  /** Counts an operation sent to {@code target} in the current fence or PSCW epoch. */
  public void sentInEpoch(int target) {
    sentInEpoch[target]++;
  }

  /** Number of operations sent to {@code target} since {@link #resetEpochCounts()}. */
  public int issuedInEpoch(int target) {
    return sentInEpoch[target];
  }

  /** Whether any operation was sent in the fence or PSCW epoch since {@link #resetEpochCounts()}. */
  public boolean anyIssuedInEpoch() {
    for (int n : sentInEpoch) {
      if (n > 0) {
        return true;
      }
    }
    return false;
  }

  /** Starts counting a new fence or PSCW epoch. */
  public void resetEpochCounts() {
    Arrays.fill(sentInEpoch, 0);
  }

  /** The issued counts now, for every target; {@link #await} waits until they are complete. */
  public long[] snapshot() {
    return issued.clone();
  }

  /** The issued counts now for {@code target} alone (every other target needs nothing). */
  public long[] snapshot(int target) {
    long[] s = new long[issued.length];
    s[target] = issued[target];
    return s;
  }

  /** How many operations were issued to {@code target} so far (the number of the last one). */
  public long issuedCount(int target) {
    return issued[target];
  }

  /** How many operations issued to {@code target} have not completed yet. */
  public long outstanding(int target) {
    return issued[target] - completed[target];
  }

  /** Whether every operation issued so far, to every target, has completed. */
  public boolean allCompleted() {
    for (int t = 0; t < issued.length; t++) {
      if (completed[t] < issued[t]) {
        return false;
      }
    }
    return true;
  }

  /** Whether every operation issued to {@code target} so far has completed. */
  public boolean isComplete(int target) {
    return completed[target] >= issued[target];
  }

  /**
   * After a synchronization: fails with the first error of the operations it completed, those
   * issued to each target {@code t} no later than {@code covered[t]}, unless an earlier
   * synchronization has reported it already (see {@link #takeError}).
   */
  public Future<Void> reportErrors(long[] covered) {
    RmaException e = takeError(covered);
    return e == null ? context.succeededFuture() : context.failedFuture(e);
  }

  /** Whether some operation's failure has not been reported yet. */
  public boolean hasError() {
    return !failures.isEmpty();
  }

  /**
   * Completes when, for every target, the completed count has reached {@code needed}; asks the
   * targets with one-way operations among those for their acknowledgement.
   */
  public Future<Void> await(long[] needed) {
    if (reached(needed)) {
      return context.succeededFuture();
    }
    Promise<Void> p = context.promise();
    wait(needed, p, false);
    return p.future();
  }

  /**
   * Completes {@code done} once, for every target, the completed count has reached {@code needed}
   * (at once if it has): failed with the first unreported error of the operations it covers, which
   * is {@linkplain #takeError taken}, else succeeded. For a synchronization that waits with no
   * deadline: the caller's own promise is completed, with no future in between.
   */
  public void awaitReporting(long[] needed, Promise<Void> done) {
    if (reached(needed)) {
      RmaException e = takeError(needed);
      if (e == null) {
        done.tryComplete();
      } else {
        done.tryFail(e);
      }
      return;
    }
    wait(needed, done, true);
  }

  private void wait(long[] needed, Promise<Void> done, boolean reporting) {
    waiters.add(new Waiter(needed, done, reporting));
    for (int t = 0; t < needed.length; t++) {
      if (needed[t] > completed[t]) {
        askAck(t);
      }
    }
  }

  /** Completes when every operation issued so far has completed. */
  public Future<Void> flushAll() {
    return await(snapshot());
  }

  private boolean reached(long[] needed) {
    for (int t = 0; t < needed.length; t++) {
      if (completed[t] < needed[t]) {
        return false;
      }
    }
    return true;
  }

  /**
   * The failures of the operations a synchronization completes, those issued to each target
   * {@code t} no later than {@code covered[t]} (a {@link #snapshot}): removed, so that no later
   * synchronization reports them again; the first of them is returned, {@code null} if none.
   */
  public RmaException takeError(long[] covered) {
    RmaException first = null;
    for (Iterator<Failure> it = failures.iterator(); it.hasNext(); ) {
      Failure f = it.next();
      if (f.seq() <= covered[f.target()]) {
        it.remove();
        if (first == null) {
          first = f.error();
        }
      }
    }
    return first;
  }

  /**
   * The element {@code i} places after the oldest of {@code q}: a walk from the oldest, done only
   * when a target reports a one-way operation failed (the queue holds at most about
   * {@link #UNACKED_BOUND} plus those sent while an acknowledgement is on its way).
   */
  private static long nth(LongArrayQueue q, long i) {
    LongArrayQueue.LongIterator it = q.iterator();
    for (long k = 0; k < i; k++) {
      it.nextValue();
    }
    return it.nextValue();
  }
}
