package dev.vertxrma.impl.sync;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;

/**
 * Post/start/complete/wait (generalized active target) state of one window at one rank.
 *
 * <p>Access side: {@code start} waits for a POST from every rank of its group (counted per
 * source, so a POST that arrives before start is kept); {@code complete} tells each target how
 * many operations it sent. Exposure side: {@code post} opens the window to a group; operations
 * from members are counted as they are processed; {@code waitFor} completes when every member
 * has sent COMPLETE and all the operations it announced have been processed here.
 */
public final class PscwEpoch {

  private final ContextInternal context;
  private final int rank;
  // access side
  private final int[] postsReceived;
  private Group accessGroup;
  private Promise<Void> startPromise;
  private boolean startNoCheck;
  private boolean startSatisfied;
  /** Why the last start was withdrawn (it timed out), until the next complete or start. */
  private RmaException withdrawn;
  // exposure side
  private Group exposureGroup;
  private final int[] processed;
  private final int[] announced;
  private Promise<Void> waitPromise;

  /** State for a window over {@code size} ranks, seen from {@code rank}. */
  public PscwEpoch(ContextInternal context, int rank, int size) {
    this.context = context;
    this.rank = rank;
    this.postsReceived = new int[size];
    this.processed = new int[size];
    this.announced = new int[size];
  }

  // ------------------------------------------------------------------ access side

  /** The group of the open access epoch, or {@code null}. */
  public Group accessGroup() {
    return accessGroup;
  }

  /** Checks that {@code start(group)} is allowed now, changing nothing; RMA_SYNC or RANK otherwise. */
  public void checkStart(Group group) {
    if (accessGroup != null) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "start at rank %d while the access epoch to %s is still open "
          + "(call complete first)", rank, accessGroup);
    }
    checkMembers(group, "start");
  }

  public void checkMembers(Group group, String call) {
    for (int m : group.ranks()) {
      if (m >= postsReceived.length) {
        throw RmaException.of(ErrorClass.RANK, "%s group %s names rank %d, the window has %d ranks", call, group, m,
            postsReceived.length);
      }
    }
  }

  /** Opens the access epoch; completes once every member posted (at once with NOCHECK). */
  public Future<Void> start(Group group, boolean noCheck) {
    checkStart(group);
    withdrawn = null;
    accessGroup = group;
    startNoCheck = noCheck;
    startSatisfied = false;
    startPromise = context.promise();
    tryStart(false);
    return startPromise.future();
  }

  /** Whether the current start has all its posts (its completion is then under way). */
  public boolean startSatisfied() {
    return startPromise != null && startSatisfied;
  }

  /** Whether the current exposure's members have all completed (its wait's completion is then under way). */
  public boolean exposureDone() {
    return exposureGroup != null && waitPromise != null && allDone();
  }

  /** A POST from {@code src} arrived. */
  public void onPost(int src) {
    postsReceived[src]++;
    tryStart(true);
  }

  /**
   * Completes start once every member posted: at once when called from start itself (NOCHECK, or
   * the posts were already here), from a task of its own when a POST arrives at the window's owner.
   */
  private void tryStart(boolean deferred) {
    if (startPromise == null || startSatisfied) {
      return;
    }
    if (!startNoCheck) {
      for (int m : accessGroup.ranks()) {
        if (postsReceived[m] == 0) {
          return;
        }
      }
      for (int m : accessGroup.ranks()) {
        postsReceived[m]--;
      }
    }
    startSatisfied = true;
    if (deferred) {
      completeLater(startPromise, null);
    } else {
      startPromise.complete();
    }
  }

  /**
   * Completes a synchronization promise from a task of its own: this state is changed under the
   * window's single owner, and the caller's continuation (which may issue operations into
   * other windows) must never run while it owns the window.
   */
  private void completeLater(Promise<Void> p, RmaException failure) {
    context.runOnContext(v -> {
      if (failure == null) {
        p.tryComplete();
      } else {
        p.tryFail(failure);
      }
    });
  }

  /**
   * Withdraws a start that timed out: the access epoch ends at once, the operations held for it
   * fail with {@code cause}, and the next {@code complete} fails with RMA_SYNC at once. A POST that
   * arrives later still counts for the next start.
   */
  public void withdrawStart(RmaException cause) {
    if (startPromise == null) {
      return;
    }
    Promise<Void> p = startPromise;
    startSatisfied = true;
    accessGroup = null;
    startPromise = null;
    withdrawn = cause;
    p.tryFail(cause);
  }

  /**
   * The future of the current start, for complete; RMA_SYNC without a start, naming the
   * withdrawn one if the last start timed out.
   */
  public Future<Void> startedForComplete() {
    if (accessGroup == null && withdrawn != null) {
      RmaException cause = withdrawn;
      withdrawn = null;
      throw RmaException.of(ErrorClass.RMA_SYNC, "complete at rank %d: its start was withdrawn (%s); the access "
          + "epoch is already closed", rank, cause.getMessage());
    }
    return startedOrFail("complete");
  }

  /** The future of the current start (operations and complete wait for it); fails RMA_SYNC without start. */
  public Future<Void> startedOrFail(String call) {
    if (accessGroup == null) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "%s at rank %d without a matching start", call, rank);
    }
    return startPromise.future();
  }

  /**
   * Rank {@code r} of the window died while the job goes on (ULFM): a start still waiting for its
   * post is withdrawn with {@code cause} (the access epoch ends; on the rank's context).
   */
  public void accessMemberDied(int r, RmaException cause) {
    if (startPromise != null && !startSatisfied && accessGroup != null && accessGroup.contains(r)) {
      withdrawStart(cause);
    }
  }

  /** Ends the access epoch. */
  public void endAccess() {
    accessGroup = null;
    startPromise = null;
  }

  /**
   * Rank {@code r} of the window died while the job goes on (ULFM): a wait for its complete fails
   * with {@code cause} (the target side, as the window's owner).
   */
  public void memberDied(int r, RmaException cause) {
    if (waitPromise != null && exposureGroup != null && exposureGroup.contains(r)) {
      completeLater(waitPromise, cause);
    }
  }

  /** Fails a pending start (window freed, job failed). */
  public void fail(RmaException cause) {
    if (startPromise != null) {
      completeLater(startPromise, cause);
    }
    if (waitPromise != null) {
      completeLater(waitPromise, cause);
    }
  }

  // ------------------------------------------------------------------ exposure side

  /** The group of the open exposure epoch, or {@code null}. */
  public Group exposureGroup() {
    return exposureGroup;
  }

  /** Checks that {@code post(group)} is allowed now, changing nothing; RMA_SYNC or RANK otherwise. */
  public void checkPost(Group group) {
    if (exposureGroup != null) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "post at rank %d while the exposure epoch to %s is still open "
          + "(call waitFor first)", rank, exposureGroup);
    }
    checkMembers(group, "post");
  }

  /** Opens the exposure epoch to {@code group}. */
  public void post(Group group) {
    checkPost(group);
    exposureGroup = group;
    java.util.Arrays.fill(processed, 0);
    java.util.Arrays.fill(announced, -1);
    waitPromise = context.promise();
  }

  /**
   * Target side: counts an operation from {@code src} and checks it is allowed now;
   * RMA_SYNC if this rank has not posted to {@code src}. The caller applies the operation and then
   * calls {@link #operationDone()}, so that waitFor never completes before the data is in place.
   */
  public void admit(int src) {
    processed[src]++;
    if (exposureGroup == null || !exposureGroup.contains(src)) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "operation from rank %d reached rank %d, which has not posted its "
          + "window to it (exposure group %s)", src, rank, exposureGroup == null ? "none" : exposureGroup);
    }
  }

  /** Target side: an admitted operation has been applied (or rejected). */
  public void operationDone() {
    checkWaitDone();
  }

  /** Target side: COMPLETE from {@code src}, which sent {@code ops} operations in its epoch. */
  public void onComplete(int src, int ops) {
    if (exposureGroup == null || !exposureGroup.contains(src)) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "complete from rank %d reached rank %d, which has not posted to it",
          src, rank);
    }
    announced[src] = ops;
    checkWaitDone();
  }

  private boolean allDone() {
    for (int m : exposureGroup.ranks()) {
      if (announced[m] < 0 || processed[m] < announced[m]) {
        return false;
      }
    }
    return true;
  }

  private void checkWaitDone() {
    if (exposureGroup != null && waitPromise != null && allDone()) {
      completeLater(waitPromise, null);
    }
  }

  /** Completes when every member completed; the caller then ends the epoch with {@link #endExposure()}. */
  public Future<Void> waitFor() {
    if (exposureGroup == null) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "waitFor at rank %d without a matching post", rank);
    }
    checkWaitDone();
    return waitPromise.future();
  }

  /** Access side: the target {@code src} withdrew a post (its waitFor timed out): forgotten unless a start took it. */
  public void onPostWithdrawn(int src) {
    if (src >= 0 && src < postsReceived.length && postsReceived[src] > 0) {
      postsReceived[src]--;
    }
  }

  /**
   * Exposure side: the waitFor of the current exposure timed out: the epoch ends here, its wait
   * fails with {@code cause}, and what its members still send is refused (RMA_SYNC).
   */
  public void withdrawExposure(RmaException cause) {
    exposureGroup = null;
    Promise<Void> p = waitPromise;
    waitPromise = null;
    if (p != null) {
      p.tryFail(cause);
    }
  }

  /** Ends the exposure epoch after waitFor completed. */
  public void endExposure() {
    exposureGroup = null;
  }

  /** MPI_Win_test: whether waitFor would complete now; if so the exposure epoch ends. */
  public boolean test() {
    if (exposureGroup == null) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "test at rank %d without a matching post", rank);
    }
    if (allDone()) {
      completeLater(waitPromise, null);
      exposureGroup = null;
      return true;
    }
    return false;
  }
}
