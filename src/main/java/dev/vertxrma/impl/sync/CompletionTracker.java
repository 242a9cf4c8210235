package dev.vertxrma.impl.sync;

import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.internal.ContextInternal;
import java.util.ArrayList;
import java.util.List;

/**
 * Origin-side completion counting of one window: the operations issued to each target that are
 * not yet known complete, and the first failure among them. Flush and every epoch-closing call
 * wait on it. Used on the rank's context only.
 */
public final class CompletionTracker {

  private final ContextInternal context;
  private final List<List<Future<?>>> pending;
  private final int[] issuedInEpoch;
  private RmaException firstError;

  /** A tracker for a window over {@code size} ranks. */
  public CompletionTracker(ContextInternal context, int size) {
    this.context = context;
    this.pending = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      pending.add(new ArrayList<>());
    }
    this.issuedInEpoch = new int[size];
  }

  /** Records an operation to {@code target}; its failure becomes the epoch's error. */
  public void track(int target, Future<?> op) {
    issuedInEpoch[target]++;
    if (op.isComplete() && op.succeeded()) {
      return;
    }
    pending.get(target).add(op);
    op.onFailure(e -> {
      if (firstError == null) {
        firstError = e instanceof RmaException ? (RmaException) e
            : new RmaException(dev.vertxrma.ErrorClass.INTERN, String.valueOf(e), e);
      }
    });
  }

  /** Number of operations issued to {@code target} since {@link #resetEpochCounts()}. */
  public int issuedInEpoch(int target) {
    return issuedInEpoch[target];
  }

  /** Whether any operation was issued since {@link #resetEpochCounts()}. */
  public boolean anyIssuedInEpoch() {
    for (int n : issuedInEpoch) {
      if (n > 0) {
        return true;
      }
    }
    return false;
  }

  /** Starts counting a new epoch. */
  public void resetEpochCounts() {
    java.util.Arrays.fill(issuedInEpoch, 0);
  }

  /** Completes when every operation issued so far to {@code target} has completed (success or not). */
  public Future<Void> flush(int target) {
    List<Future<?>> ops = pending.get(target);
    if (ops.isEmpty()) {
      return context.succeededFuture();
    }
    List<Future<?>> snapshot = new ArrayList<>(ops);
    ops.clear();
    return Future.join(snapshot).transform(ar -> context.succeededFuture());
  }

  /** Completes when every operation issued so far has completed. */
  public Future<Void> flushAll() {
    List<Future<?>> all = new ArrayList<>();
    for (List<Future<?>> ops : pending) {
      all.addAll(ops);
      ops.clear();
    }
    if (all.isEmpty()) {
      return context.succeededFuture();
    }
    return Future.join(all).transform(ar -> context.succeededFuture());
  }

  /** The first failure since the last call, cleared; {@code null} if none. */
  public RmaException takeError() {
    RmaException e = firstError;
    firstError = null;
    return e;
  }
}
