package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.LockType;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.runtime.RankFuture;
import dev.vertxrma.impl.sync.CompletionTracker;
import dev.vertxrma.impl.sync.PassiveEpoch;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The origin side of passive-target synchronization on one window: {@code lock}, {@code unlock},
 * {@code lockAll}, {@code unlockAll}, {@code flush}, {@code flushAll} and {@code sync}. It asks the
 * targets for locks (on the target's window itself when it is in this JVM and free), and
 * releases them once every operation issued in the epoch is complete. The window's facade checks the
 * call's arguments and the window's other epochs first; everything here runs on the rank's
 * context.
 */
final class PassiveTargetSync {

  private final Endpoint rp;
  private final int rank;
  private final int id;
  private final PassiveEpoch passive;
  private final CompletionTracker tracker;
  private final IntFunction<TargetWindow> localPeer;
  private final Function<long[], Future<Void>> errors;
  private final Supplier<String> name;
  /** A succeeded future of the rank's context, for every flush that completes at once. */
  private final Future<Void> done;

  /**
   * @param localPeer the same-JVM target window of a rank, or {@code null}
   * @param errors for a snapshot of the issued counts, the first unreported error of the operations
   *     it covers, as a failed future (else succeeded); taken, so it is reported once
   * @param name the window's name, for messages
   */
  /** Whether the only operation to a target not counted yet waits just for its future's listeners. */
  private final java.util.function.IntPredicate onlyListenersPending;

  PassiveTargetSync(Endpoint rp, int id, PassiveEpoch passive, CompletionTracker tracker,
      IntFunction<TargetWindow> localPeer, Function<long[], Future<Void>> errors, Supplier<String> name,
      SegmentPeers segments, java.util.function.IntPredicate onlyListenersPending) {
    this.segments = segments;
    this.onlyListenersPending = onlyListenersPending;
    this.rp = rp;
    this.rank = rp.rank();
    this.id = id;
    this.passive = passive;
    this.tracker = tracker;
    this.localPeer = localPeer;
    this.errors = errors;
    this.name = name;
    this.done = RankFuture.succeeded(rp.context());
  }

  /** The segments of the window's ranks in the host's other JVMs: their locks are taken there when free. */
  private final SegmentPeers segments;

  /** MPI_Win_lock on {@code targetRank}; RMA_SYNC inside lockAll or if already held. */
  Future<Void> lock(LockType type, int targetRank, boolean noCheck) {
    if (passive.isAll()) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "lock of rank %d at rank %d inside lockAll", targetRank, rank);
    }
    return acquire(type, targetRank, noCheck);
  }

  /**
   * MPI_Win_unlock: completes once the epoch's operations are complete and the target released it;
   * fails with the first error among those operations that no flush has reported.
   */
  Future<Void> unlock(int targetRank) {
    passive.checkUnlock(targetRank);
    long[] issuedBefore = tracker.snapshot(targetRank);
    return release(targetRank, issuedBefore).compose(v -> errors.apply(issuedBefore));
  }

  /** MPI_Win_lock_all: a shared lock on every rank; RMA_SYNC if any lock is held. */
  Future<Void> lockAll(boolean noCheck) {
    if (passive.isOpen()) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "lockAll at rank %d while it already holds locks on window %s",
          rank, name.get());
    }
    passive.setAll(true);
    List<Future<Void>> grants = new ArrayList<>();
    for (int r = 0; r < rp.size(); r++) {
      grants.add(acquire(LockType.SHARED, r, noCheck));
    }
    return Future.all(grants).mapEmpty();
  }

  /** MPI_Win_unlock_all (errors as {@link #unlock}); RMA_SYNC without a matching lockAll. */
  Future<Void> unlockAll() {
    if (!passive.isAll()) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "unlockAll at rank %d without a matching lockAll", rank);
    }
    long[] issuedBefore = tracker.snapshot();
    List<Future<Void>> releases = new ArrayList<>();
    for (int r = 0; r < rp.size(); r++) {
      if (passive.holds(r)) {
        releases.add(release(r, tracker.snapshot(r)));
      }
    }
    return Future.join(releases).transform(ar -> ar.succeeded() ? errors.apply(issuedBefore)
        : rp.context().failedFuture(ar.cause()));
  }

  /**
   * MPI_Win_flush: completes when every operation issued to {@code targetRank} before it is
   * complete; fails with the first error among those operations that no earlier synchronization
   * has reported (errors of operations to other targets are left to their own synchronization).
   */
  Future<Void> flush(int targetRank) {
    checkHeld(targetRank, "flush");
    Future<?> grant = passive.granted(targetRank);
    if (grant.succeeded() && tracker.isComplete(targetRank) && !tracker.hasError()) {
      return done; // nothing to wait for, nothing to report: no snapshot needed
    }
    long[] issuedBefore = tracker.snapshot(targetRank);
    if (grant.succeeded()) { // the tracker completes the flush's own future, errors and all
      RankFuture<Void> flushed = RankFuture.promise(rp.context());
      tracker.awaitReporting(issuedBefore, flushed);
      // a flush called from the listener of the operation it waits for (op, then flush) waits
      // only for that future's other listeners, which run now: no deadline to arm for it
      if (!flushed.isComplete() && !onlyListenersPending.test(targetRank)) {
        rp.failAtDeadline(flushed, () -> "flush of rank " + targetRank);
      }
      return flushed;
    }
    Future<Void> done = grant.transform(g -> tracker.await(issuedBefore));
    if (!done.isComplete()) {
      done = rp.withTimeout(done, () -> "flush of rank " + targetRank);
    }
    if (done.succeeded() && !tracker.hasError()) {
      return done;
    }
    // one rank future, completed by one listener: adopted as the call's future as it is
    RankFuture<Void> flushed = RankFuture.promise(rp.context());
    done.onComplete((v, failure) -> {
      if (failure != null) {
        flushed.tryFail(failure);
      } else {
        errors.apply(issuedBefore).onComplete(flushed);
      }
    });
    return flushed;
  }

  /** MPI_Win_flush_all: every operation issued before it, to any target, is complete. */
  Future<Void> flushAll() {
    if (!passive.isOpen()) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "flushAll at rank %d outside a passive-target epoch", rank);
    }
    long[] issuedBefore = tracker.snapshot();
    List<Future<?>> grants = new ArrayList<>();
    for (int r = 0; r < rp.size(); r++) {
      if (passive.holds(r)) {
        grants.add(passive.granted(r));
      }
    }
    return rp.withTimeout(Future.join(grants).transform(g -> tracker.await(issuedBefore)), "flushAll")
        .compose(v -> errors.apply(issuedBefore));
  }

  /** MPI_Win_sync: a full memory fence between the window's public and private copies. */
  Future<Void> sync() {
    if (!passive.isOpen()) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "sync at rank %d outside a passive-target epoch on window %s",
          rank, name.get());
    }
    java.lang.invoke.VarHandle.fullFence();
    return rp.context().succeededFuture();
  }

  /** RMA_SYNC unless a passive-target epoch on {@code targetRank} is open (request-based operations need one). */
  void checkHeld(int targetRank, String call) {
    if (!passive.holds(targetRank)) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "%s of rank %d at rank %d outside a passive-target epoch (lock or "
          + "lockAll) on window %s", call, targetRank, rank, name.get());
    }
  }

  private Future<Void> acquire(LockType type, int targetRank, boolean noCheck) {
    if (passive.holds(targetRank)) {
      // checked before any frame leaves: a rejected lock must not reach the target
      throw RmaException.of(ErrorClass.RMA_SYNC, "rank %d already holds a lock on the window at rank %d", rank,
          targetRank);
    }
    // the previous epoch's unlock of this target may still be under way: request after it
    Future<?> previous = passive.releasing(targetRank);
    Future<Void> granted;
    if (noCheck) {
      // NOCHECK: the origin asserts no conflicting lock, so the target neither queues nor checks
      // the request; it is still told (one round trip per epoch, not per operation), because it
      // admits an operation only from a rank it knows holds a lock
      Supplier<Future<Void>> announce = () -> {
        Frame f = SyncFrames.lockRequest(rank, id, type, true);
        return rp.withTimeout(rp.request(targetRank, f).<Void>mapEmpty(), () -> "NOCHECK lock on rank " + targetRank);
      };
      granted = previous == null ? announce.get() : previous.transform(ar -> announce.get());
    } else {
      Supplier<Future<Void>> request = () -> {
        TargetWindow peer = localPeer.apply(targetRank);
        if (peer != null && peer.tryLockNow(rank, type)) {
          return rp.context().succeededFuture(); // same JVM, lock free: granted on this thread
        }
        if (peer == null && segments.tryLock(targetRank, rank, type)) {
          return rp.context().succeededFuture(); // same host, lock free: granted in its segment
        }
        Frame f = SyncFrames.lockRequest(rank, id, type, false);
        return rp.withTimeout(rp.request(targetRank, f).<Void>mapEmpty(), () -> type + " lock on rank " + targetRank)
            .onFailure(e -> {
              if (e instanceof RmaException && ((RmaException) e).errorClass() == ErrorClass.TIMEOUT) {
                // withdrawn at the target too: no lock left queued, or granted to a rank that gave up
                rp.send(targetRank, Frame.of(FrameType.LOCK_CANCEL, rank, id));
                rp.withdraw(f.corr); // the target answers a cancelled request never: nothing to wait for
              }
            });
      };
      granted = previous == null ? request.get() : previous.transform(ar -> request.get());
    }
    passive.begin(targetRank, type, granted);
    Future<Void> grant = granted;
    granted.onFailure(e -> passive.endIf(targetRank, grant));
    // a NOCHECK lock is the caller's at once; operations issued before the target has recorded
    // it are held until then (they, flush and unlock wait on the recorded grant)
    return noCheck ? rp.context().succeededFuture() : granted;
  }

  /**
   * Ends the passive-target epoch on {@code targetRank} now (a lock may be issued again at once)
   * and releases it: after the grant, once the operations counted in {@code issuedBefore} (those
   * issued to it before this call) are complete, the target is told to unlock. Fails with the
   * grant's failure if the lock was never granted.
   */
  private Future<Void> release(int targetRank, long[] issuedBefore) {
    Future<?> grant = passive.granted(targetRank);
    passive.end(targetRank);
    Future<Void> released = grant.transform(g -> {
      Future<Void> drained = tracker.await(issuedBefore);
      if (g.failed()) {
        return drained.compose(v -> rp.context().<Void>failedFuture(g.cause()));
      }
      return drained.compose(v -> {
        TargetWindow peer = localPeer.apply(targetRank);
        if (peer != null && peer.tryUnlockNow(rank)) {
          return rp.context().<Void>succeededFuture(); // same JVM, window free: released on this thread
        }
        if (peer == null && segments.tryUnlock(targetRank, rank)) {
          return rp.context().<Void>succeededFuture(); // same host, nobody waiting: released in its segment
        }
        return rp.request(targetRank, Frame.of(FrameType.UNLOCK, rank, id)).<Void>mapEmpty();
      });
    });
    Future<Void> timed = rp.withTimeout(released, () -> "unlock of rank " + targetRank);
    passive.releasing(targetRank, timed);
    return timed;
  }
}
