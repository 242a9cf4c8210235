package dev.vertxrma.impl.sync;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * Origin-side completion counting of one window (issue-time accounting): per target, the number
 * of operations {@link #issue issued} and the number {@link #complete completed}. An operation is
 * counted when it is issued, even if it is held until a lock is granted or a {@code start} is
 * matched; flush and every epoch-closing call take a {@link #snapshot} of the issued counts when
 * they are called and wait until the completed counts reach it. Nothing is cleared by a flush, so
 * any number of flushes, in any order, each wait for exactly what was issued before them.
 * Also counts, per target, the operations sent in the current fence or PSCW epoch (the counts
 * {@code complete} announces). Used on the rank's context only.
 */
public final class CompletionTracker {

  private static final class Waiter {
    final long[] needed;
    final Promise<Void> done;

    Waiter(long[] needed, Promise<Void> done) {
      this.needed = needed;
      this.done = done;
    }
  }

  private final ContextInternal context;
  private final long[] issued;
  private final long[] completed;
  private final int[] sentInEpoch;
  private final List<Waiter> waiters = new ArrayList<>();
  private RmaException firstError;

  /** A tracker for a window over {@code size} ranks. */
  public CompletionTracker(ContextInternal context, int size) {
    this.context = context;
    this.issued = new long[size];
    this.completed = new long[size];
    this.sentInEpoch = new int[size];
  }

  /** An operation to {@code target} is issued: it counts from now until {@link #complete}. */
  public void issue(int target) {
    issued[target]++;
  }

  /**
   * An issued operation to {@code target} is complete; {@code failure}, if not null, becomes the
   * epoch's error (reported by the next flush or epoch-closing call).
   */
  public void complete(int target, Throwable failure) {
    completed[target]++;
    if (failure != null && firstError == null) {
      firstError = failure instanceof RmaException ? (RmaException) failure
          : new RmaException(ErrorClass.INTERN, String.valueOf(failure), failure);
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
      ready.forEach(w -> w.done.complete());
    }
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

  /** The number of operations issued to {@code target} so far. */
  public long issued(int target) {
    return issued[target];
  }

  /** Whether an operation failed since the last {@link #takeError()}. */
  public boolean hasError() {
    return firstError != null;
  }

  /** Completes when the completed count of {@code target} has reached {@code needed} (flush). */
  public Future<Void> await(int target, long needed) {
    if (completed[target] >= needed) {
      return context.succeededFuture();
    }
    long[] n = new long[issued.length];
    n[target] = needed;
    return await(n);
  }

  /** Completes when, for every target, the completed count has reached {@code needed}. */
  public Future<Void> await(long[] needed) {
    if (reached(needed)) {
      return context.succeededFuture();
    }
    Promise<Void> p = context.promise();
    waiters.add(new Waiter(needed, p));
    return p.future();
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

  /** The first failure since the last call, cleared; {@code null} if none. */
  public RmaException takeError() {
    RmaException e = firstError;
    firstError = null;
    return e;
  }
}
