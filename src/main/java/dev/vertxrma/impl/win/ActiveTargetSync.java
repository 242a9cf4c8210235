package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.Mode;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.impl.observe.Sync;
import dev.vertxrma.impl.runtime.RankFuture;
import dev.vertxrma.impl.sync.CompletionTracker;
import dev.vertxrma.impl.sync.PassiveEpoch;
import dev.vertxrma.impl.sync.PscwEpoch;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;

/**
 * Active-target synchronization on one window, both sides of it: {@code fence}, and
 * {@code post}/{@code start}/{@code complete}/{@code waitFor}/{@code test}. It owns the origin's
 * fence epoch (the epoch operations are issued in, and whether one is open) and the exposure
 * epoch in issue order; the target's own view of both is in {@link ExposureEpochs}. Everything here
 * runs on the rank's context, after the window's facade has checked that it is live.
 */
final class ActiveTargetSync {

  private final Endpoint rp;
  private final WindowState state;
  private final int rank;
  private final CompletionTracker tracker;
  private final Collectives coll;
  /** The barrier of a fence: the window's message-based one, or its host barrier ({@link dev.vertxrma.impl.coll.HostBarrier}). */
  private java.util.function.Supplier<Future<Void>> fenceBarrier;
  private final PscwEpoch pscw;
  private final PassiveEpoch passive;
  /** The target side of fence and post/wait at this rank. */
  private final ExposureEpochs targetSide;
  private final RankObserver observer;
  /** The fence epoch operations are issued in now, and whether it is open. */
  private long fenceEpoch;
  private boolean fenceOpen;
  /** The target side of the last fence called: the next one advances after it. */
  private Future<Void> lastFenceAdvance = Future.succeededFuture();
  /**
   * The exposure epoch in issue order: set by {@code post}, cleared by {@code waitFor} (or a
   * {@code test} that answered true). The target side's own view, in {@link ExposureEpochs}, lags
   * behind while the owner has queued work; checks made at call time use this one.
   */
  private Group exposure;
  /** This window's same-JVM peers' target windows (see {@link #localPeers}). */
  private java.util.function.IntFunction<TargetWindow> localPeer = r -> null;
  /** Fails the operations this origin holds for targets of other JVMs ({@link FenceCredit}); set once. */
  private java.util.function.Consumer<RmaException> heldAtOrigin = cause -> { };
  /** The current exposure's post told its members (POST frames; not so under NOCHECK). */
  private boolean exposureAnnounced;
  /** Posts and completes to and from ranks of the host's other JVMs, through their control blocks; or {@code null}. */
  private PscwPages pages;

  ActiveTargetSync(Endpoint rp, WindowState state, CompletionTracker tracker, Collectives coll, PscwEpoch pscw,
      PassiveEpoch passive, TargetWindow targetWindow, RankObserver observer) {
    this.rp = rp;
    this.state = state;
    this.rank = state.rank;
    this.tracker = tracker;
    this.coll = coll;
    this.fenceBarrier = coll::barrierBoundedByCaller;
    this.pscw = pscw;
    this.passive = passive;
    this.targetSide = targetWindow.exposure();
    this.observer = observer;
  }

  /** Whether a fence epoch is open: operations issued now belong to it. */
  boolean fenceOpen() {
    return fenceOpen;
  }

  /** The fence epoch operations are issued in now (frames carry it). */
  long fenceEpoch() {
    return fenceEpoch;
  }

  /** Whether a post/start access or exposure epoch is open (as issued). */
  boolean inPscwEpoch() {
    return pscw.accessGroup() != null || exposure != null;
  }

  /** MPI_Win_fence. */
  Future<Void> fence(Mode... assertions) {
    int bits = Mode.bits(assertions);
    if (inPscwEpoch()) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "fence at rank %d inside a post/start epoch on window %s",
          rank, state.name());
    }
    checkNotPassive("fence");
    boolean noPrecede = (bits & Mode.NOPRECEDE.bit()) != 0;
    boolean noSucceed = (bits & Mode.NOSUCCEED.bit()) != 0;
    if (noPrecede && tracker.anyIssuedInEpoch()) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "fence(NOPRECEDE) at rank %d, but operations were issued in the "
          + "epoch it closes", rank);
    }
    // settled: every operation issued so far has completed and no failure waits to be reported,
    // so the fence is its barrier and the target's advance (no snapshot, no wait, no report)
    boolean settled = tracker.allCompleted() && !tracker.hasError();
    long[] issuedBefore = settled ? null : tracker.snapshot();
    // operations issued from now on, even before this fence completes, belong to the next epoch:
    // their targets hold them until their own fence has opened it
    fenceEpoch++;
    fenceOpen = !noSucceed;
    tracker.resetEpochCounts();
    Future<Void> previous = lastFenceAdvance;
    RankFuture<Void> done = RankFuture.promise(rp.context());
    lastFenceAdvance = done;
    if (noPrecede) {
      // this fence completes no operation, so it has no error to report
      afterClosing(previous, noSucceed, null, done);
    } else {
      Future<Void> closing = settled ? fenceBarrier.get()
          : tracker.await(issuedBefore).compose(v -> fenceBarrier.get());
      rp.withTimeout(closing, "fence").onComplete((v, failure) -> {
        if (failure == null) {
          afterClosing(previous, noSucceed, issuedBefore, done);
        } else {
          withdrawnOnTimeout(failure).onComplete((w, ignored) -> done.tryFail(failure));
        }
      });
    }
    return observer.sync(state.id, noSucceed ? Sync.FENCE_END : Sync.FENCE, -1, done);
  }

  /**
   * The target side of a fence whose closing succeeded, once the previous fence's has advanced:
   * enters the next epoch and applies what was held for it; then {@code done} completes, failed
   * with the first error of the operations in {@code covered} (nothing to report when null).
   */
  private void afterClosing(Future<Void> previous, boolean noSucceed, long[] covered, RankFuture<Void> done) {
    if (!previous.isComplete()) {
      previous.onComplete((v, ignored) -> afterClosing(previous, noSucceed, covered, done));
      return;
    }
    targetSide.advanceFence(!noSucceed).onComplete((v, failure) -> {
      if (failure != null) {
        done.tryFail(failure);
        return;
      }
      RmaException error = covered == null ? null : tracker.takeError(covered);
      if (error == null) {
        done.tryComplete(null);
      } else {
        done.tryFail(error);
      }
    });
  }

  /**
   * When a fence's closing failed with TIMEOUT ({@code failure}), the operations this rank sent to
   * same-JVM targets, which those hold for a later epoch and which reach this rank's buffers in
   * place, are withdrawn there first, and those it holds itself for targets of other JVMs (past
   * their credit) fail: when the fence's future fails, none of them will read or write those
   * buffers. Completes once they are (at once for any other failure).
   */
  private Future<Void> withdrawnOnTimeout(Throwable failure) {
    if (!(failure instanceof RmaException) || ((RmaException) failure).errorClass() != ErrorClass.TIMEOUT) {
      return rp.context().succeededFuture();
    }
    heldAtOrigin.accept((RmaException) failure);
    java.util.List<Future<Void>> withdrawn = new java.util.ArrayList<>();
    for (int t = 0; t < rp.size(); t++) {
      TargetWindow peer = t == rank ? null : localPeer.apply(t);
      if (peer != null) {
        withdrawn.add(peer.exposure().withdrawHeld(rank, (RmaException) failure));
      }
    }
    // the withdrawn operations' failures reach this rank as replies queued on its context before
    // the withdrawals complete: one hop through that context and their futures have failed
    io.vertx.core.Promise<Void> after = rp.context().promise();
    Future.join(withdrawn).onComplete(ar -> rp.context().runOnContext(v -> after.complete()));
    return after.future();
  }

  /** Fences meet in {@code hostBarrier} from now on (every rank of the window switches at creation). */
  void useHostBarrier(dev.vertxrma.impl.coll.HostBarrier hostBarrier) {
    this.fenceBarrier = hostBarrier::arrive;
  }

  /** Sends posts and completes through control blocks where {@code pages} can (set once, at creation). */
  void usePages(PscwPages pages) {
    this.pages = pages;
  }

  /** A PAGE_WAKE frame: a peer wrote into this rank's block while it was parked. */
  void onPageWake() {
    if (pages != null) {
      pages.onWake();
    }
  }

  /** Posts and completes this rank wrote into peers' control blocks (tests). */
  long pagesWritten() {
    return pages == null ? 0 : pages.written();
  }

  /** Where this window's same-JVM peers are ({@code null} for a rank of another JVM); set once. */
  void localPeers(java.util.function.IntFunction<TargetWindow> peers) {
    this.localPeer = peers;
  }

  /** How the operations this origin holds for their targets' fence epochs fail ({@link FenceCredit}); set once. */
  void heldAtOrigin(java.util.function.Consumer<RmaException> fail) {
    this.heldAtOrigin = fail;
  }

  /** Leaving the fence mode for post/start or lock: allowed only if the fence epoch is empty. */
  void leaveFenceMode(String call) {
    if (fenceOpen) {
      if (tracker.anyIssuedInEpoch()) {
        throw RmaException.of(ErrorClass.RMA_SYNC, "%s at rank %d while a fence epoch with operations is open: end it "
            + "with fence(NOSUCCEED) first", call, rank);
      }
      fenceOpen = false;
      targetSide.closeFence();
    }
  }

  /** RMA_SYNC inside a passive-target epoch. */
  void checkNotPassive(String call) {
    if (passive.isOpen()) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "%s at rank %d inside a passive-target (lock) epoch on window %s: "
          + "unlock first", call, rank, state.name());
    }
  }

  /** MPI_Win_post to {@code members} (window ranks). */
  Future<Void> post(Group members, Mode... assertions) {
    int bits = Mode.bits(assertions);
    checkNotPassive("post");
    if (exposure != null) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "post at rank %d while the exposure epoch to %s is still open "
          + "(call waitFor first)", rank, exposure);
    }
    pscw.checkMembers(members, "post");
    leaveFenceMode("post");
    exposure = members;
    exposureAnnounced = (bits & Mode.NOCHECK.bit()) == 0;
    // the exposure is open at this target before any origin learns of the post
    return observer.sync(state.id, Sync.POST, -1, targetSide.post(members)).map(v -> {
      if ((bits & Mode.NOCHECK.bit()) == 0) {
        for (int m : members.ranks()) {
          if (pages != null && pages.writesTo(m)) {
            pages.post(m);
          } else {
            rp.send(m, Frame.of(FrameType.POST, rank, state.id));
          }
        }
      }
      return null;
    });
  }

  /** MPI_Win_start on {@code members} (window ranks). */
  Future<Void> start(Group members, Mode... assertions) {
    int bits = Mode.bits(assertions);
    checkNotPassive("start");
    pscw.checkStart(members);
    leaveFenceMode("start");
    tracker.resetEpochCounts();
    boolean noCheck = (bits & Mode.NOCHECK.bit()) != 0;
    if (pages != null && !noCheck) {
      targetSide.readPages(); // posts already written count for this start at once
    }
    Future<Void> started = rp.withTimeout(pscw.start(members, noCheck), "start (waiting for posts)");
    if (pages != null && !noCheck) {
      pages.watch(started, members, pscw::startSatisfied);
    }
    return observer.sync(state.id, Sync.START, -1, started)
        .onFailure(e -> {
          if (e instanceof RmaException && ((RmaException) e).errorClass() == ErrorClass.TIMEOUT) {
            pscw.withdrawStart((RmaException) e); // the window stays usable
          }
        });
  }

  /** MPI_Win_complete. */
  Future<Void> complete() {
    Future<Void> started = pscw.startedForComplete();
    long[] issuedBefore = tracker.snapshot();
    // every operation issued before complete (held until start matched or not) is done before
    // the targets learn how many to expect
    return observer.sync(state.id, Sync.COMPLETE, -1, rp.withTimeout(started.compose(v -> tracker.await(issuedBefore)),
        "complete")).compose(v -> {
          Group g = pscw.accessGroup();
          for (int m : g.ranks()) {
            if (pages != null && pages.writesTo(m)) {
              pages.complete(m, tracker.issuedInEpoch(m));
            } else {
              rp.send(m, SyncFrames.complete(rank, state.id, tracker.issuedInEpoch(m)));
            }
          }
          pscw.endAccess();
          tracker.resetEpochCounts();
          return tracker.reportErrors(issuedBefore);
        });
  }

  /** MPI_Win_wait. */
  Future<Void> waitFor() {
    Group group = exposure;
    if (group == null) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "waitFor at rank %d without a matching post", rank);
    }
    exposure = null;
    boolean announced = exposureAnnounced;
    Future<Void> waited = rp.withTimeout(targetSide.waitFor(), "waitFor (waiting for complete from " + group + ")");
    if (pages != null) {
      pages.watch(waited, group, pscw::exposureDone);
    }
    return observer.sync(state.id, Sync.WAIT, -1, waited.onFailure(e -> {
      if (e instanceof RmaException && ((RmaException) e).errorClass() == ErrorClass.TIMEOUT) {
        // withdrawn here and at the members, before the caller hears of it: its next post is a new epoch
        targetSide.withdrawExposure((RmaException) e);
        if (announced) {
          for (int m : group.ranks()) {
            rp.send(m, Frame.of(FrameType.POST_WITHDRAWN, rank, state.id));
          }
        }
      }
    }));
  }

  /** MPI_Win_test. */
  Future<Boolean> test() {
    if (exposure == null) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "test at rank %d without a matching post", rank);
    }
    return targetSide.test().map(done -> {
      if (done) {
        exposure = null;
      }
      return done;
    });
  }
}
