package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.impl.ops.OperationFrames;
import dev.vertxrma.impl.comm.CommImpl;
import dev.vertxrma.impl.runtime.ErrorHandling;
import dev.vertxrma.impl.runtime.RankFuture;
import dev.vertxrma.impl.sync.CompletionTracker;
import dev.vertxrma.impl.sync.PassiveEpoch;
import dev.vertxrma.impl.sync.PscwEpoch;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;
import io.vertx.core.internal.ContextInternal;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The origin side of RMA communication on one window: put, accumulate, get, getAccumulate and
 * compareAndSwap. Each call's arguments are checked against the sizes announced at creation; its
 * epoch is decided, and it is counted in its target's completion count, when it is issued
 * (issue-time accounting, {@link CompletionTracker}); then it either runs at once — handed to
 * {@link OperationTransfers}, which takes it to its target in place (a same-JVM window or a
 * mapped host segment) or as a frame — or, issued while {@code start} still waits for posts or
 * its lock is not granted yet, it is held until then; one of a fence epoch to a target of another
 * JVM past its credit ({@link FenceCredit}) is held until that target has opened the epoch.
 *
 * <p>A call that completes at once on the rank's own thread allocates nothing here beyond what
 * the caller gets back: its arguments go into one reused {@link RmaCall} (and its buffers and
 * operation into {@link OperationTransfers}' reused records); a call that has to wait copies them.
 */
final class OriginOperations {

  private final Endpoint rp;
  private final CommImpl comm;
  private final ErrorHandling errors;
  private final WindowState state;
  private final int id;
  private final int rank;
  private final CompletionTracker tracker;
  private final PscwEpoch pscw;
  private final PassiveEpoch passive;
  private final RankObserver observer;
  private final OriginChecks checks;
  /** Takes each operation that runs to its target. */
  private final OperationTransfers transfers;
  /** The fence epoch operations are issued in. */
  private final ActiveTargetSync active;
  /** What a fence epoch may send to a target in another JVM before that target has opened it. */
  private final FenceCredit credit;
  /** Every rank's notification counts, for the checks of notified operations; set once, at creation. */
  private WindowNotifications notifications;
  /** The call the rank's own thread fills (see {@link #call()}), and whether one is being issued in it. */
  private final RmaCall reusable = new RmaCall();
  private boolean reusableTaken;
  /** A succeeded future of the rank's context, handed out for every call that completes at once. */
  private final Future<Void> done;
  /** {@link #issueNow} as a function, made once. */
  private final Function<RmaCall, Future<Void>> issueNow = this::issueNow;
  /**
   * Per target, the last operation whose count waits for its future's listeners (its number and
   * the future of its answer), for {@link #onlyListenersPending}; the future is dropped once counted.
   */
  private final long[] lastUncountedSeq;
  private final Future<?>[] lastUncountedSent;

  OriginOperations(Endpoint rp, CommImpl comm, ErrorHandling errors, WindowRegistry registry, WindowState state,
      boolean dynamic, CompletionTracker tracker, PscwEpoch pscw, PassiveEpoch passive, ActiveTargetSync active,
      RankObserver observer) {
    this.rp = rp;
    this.comm = comm;
    this.errors = errors;
    this.state = state;
    this.id = state.id;
    this.rank = state.rank;
    this.tracker = tracker;
    this.pscw = pscw;
    this.passive = passive;
    this.observer = observer;
    this.active = active;
    this.credit = new FenceCredit(rp, id, FenceCredit.DEFAULT_CREDIT_BYTES, !dynamic);
    this.checks = new OriginChecks(state, dynamic, pscw, passive, active);
    this.done = RankFuture.succeeded(rp.context());
    this.transfers = new OperationTransfers(rp, registry, state, tracker, observer, checks, done);
    this.lastUncountedSeq = new long[rp.size()];
    this.lastUncountedSent = new Future<?>[rp.size()];
  }

  /** Sets the window segments of the ranks in this host's other JVMs (the on-node path); once, at creation. */
  void segmentPeers(SegmentPeers peers) {
    transfers.segmentPeers(peers);
    credit.segmentPeers(peers);
  }

  /** Sets the window's notification counts (notified RMA's checks and on-node counters); once, at creation. */
  void notifications(WindowNotifications n) {
    this.notifications = n;
    transfers.notifications(n);
  }

  /** The same-JVM target window of rank {@code r} while the job runs, else {@code null}. */
  TargetWindow localPeer(int r) {
    return transfers.localPeer(r);
  }

  /**
   * The call to fill: the reused one on the rank's own thread, a new one elsewhere (the call
   * then hops to the rank's context) or while another is being issued.
   */
  RmaCall call() {
    if (!reusableTaken && rp.context().isRunningOnContext()) {
      reusableTaken = true;
      return reusable;
    }
    return new RmaCall();
  }

  /**
   * Issues {@code c} on the rank's context: the operation's future (for put and accumulate, local
   * completion; for the others, the result is in place), its failure handled by the window's
   * error handler.
   */
  Future<Void> issue(RmaCall c) {
    return issue(c, null);
  }

  /**
   * {@link #issue(RmaCall)}, the future completing with {@code value.get()} once the operation
   * has completed ({@code null}: with nothing). The operation counts as complete for the
   * synchronizations that cover it only after that future has completed and its listeners have
   * run (ARCHITECTURE decision 14): a value read in a synchronization's callback is in place.
   */
  <T> Future<T> issue(RmaCall c, Supplier<T> value) {
    ContextInternal ctx = rp.context();
    if (!ctx.isRunningOnContext()) { // c is a call of its own here, never the reusable one
      RankFuture<T> p = RankFuture.promise(ctx);
      ctx.runOnContext(v -> issueHere(c, value).onComplete(p)); // p settles before the count's tail listener
      return p;
    }
    try {
      return issueHere(c, value);
    } finally {
      if (c == reusable) { // issued on the rank's thread, so done with (a held call runs a copy)
        c.clear();
        transfers.clear();
        reusableTaken = false;
      }
    }
  }

  @SuppressWarnings("unchecked")
  private <T> Future<T> issueHere(RmaCall c, Supplier<T> value) {
    Future<Void> op = comm.call(errors, issueNow, c);
    Future<T> visible = observer.failures(id, value == null ? (Future<T>) op : op.map(v -> value.get()));
    if (c.seq != 0) {
      countWhenComplete(c, visible);
    }
    return visible;
  }

  /**
   * Counts issued call {@code c} complete for the synchronizations that wait for it once the
   * future its caller holds has completed, after that future's listeners (a tail listener): at
   * once if it has. A call sent one way is counted by the acknowledgement that covers it instead.
   */
  private void countWhenComplete(RmaCall c, Future<?> visible) {
    int target = c.target;
    long seq = c.seq;
    RmaCall held = c.held;
    if (held == null) {
      if (c.oneWay) {
        return;
      }
      Future<?> sent = c.sent; // c may be the reusable call: read now
      if (visible.isComplete()) {
        completeCounted(target, seq, sent);
      } else {
        if (sent != null) {
          lastUncountedSeq[target] = seq;
          lastUncountedSent[target] = sent;
        }
        whenListenersRan(visible, () -> completeCounted(target, seq, sent));
      }
      return;
    }
    // the body runs later, on the held copy: its outcome is read there once the future completed
    whenListenersRan(visible, () -> {
      if (!held.oneWay) {
        completeCounted(target, seq, held.sent);
      }
    });
  }

  @SuppressWarnings("unchecked")
  private static void whenListenersRan(Future<?> f, Runnable action) {
    if (f instanceof RankFuture) {
      ((RankFuture<Object>) f).addTailListener((v, e) -> action.run());
    } else {
      f.onComplete(ar -> action.run());
    }
  }

  /**
   * Runs an RMA operation on the rank's context. Its epoch is decided, and it is counted in its
   * target's completion count, now, when it is issued (issue-time accounting): an operation issued
   * while {@code start} still waits for posts, or while its lock is not granted yet, is held until
   * then (one of a fence epoch past its target's credit, until that target has opened the epoch),
   * and every flush, unlock, complete or fence called in between waits for it. It counts as
   * complete once its own future has completed and, if it sent a frame, the target has answered.
   */
  private Future<Void> issueNow(RmaCall c) {
    state.checkLive(c.name); // once, here, for every path (the bodies run only after it)
    int targetRank = c.target;
    if (targetRank < 0 || targetRank >= rp.size()) {
      return runNow(c, 0); // PROC_NULL (no-op) or a bad rank (the body fails): nothing to count
    }
    RmaException dead = rp.peerFailure(targetRank);
    if (dead != null) {
      throw dead; // ULFM: the target died; nothing is sent or counted, whatever the epoch
    }
    int issuedIn = checks.syncFor(targetRank, c.name);
    if (c.notify != dev.vertxrma.impl.ops.RmaOperation.NO_NOTIFY) {
      notifications.checkOrigin(c.name, targetRank, c.notify, issuedIn); // before anything is counted or moves
    }
    c.seq = tracker.issue(targetRank);
    c.fenceEpoch = active.fenceEpoch();
    Future<?> gate = null;
    if (pscw.accessGroup() != null) {
      gate = pscw.startedOrFail("operation");
    } else if (passive.holds(targetRank)) {
      gate = passive.granted(targetRank);
    }
    if (gate == null && issuedIn == dev.vertxrma.impl.ops.RmaOperation.SYNC_FENCE && !rp.isLocal(targetRank)) {
      long epoch = c.fenceEpoch;
      long bytes = FenceCredit.bytesOf(c);
      if (!credit.tryPass(targetRank, epoch, bytes)) {
        RmaCall held = heldCopy(c);
        // failed before it ran: reported by the synchronization that completes it, as a sent one's failure is
        return credit.hold(targetRank, epoch, bytes, () -> comm.call(errors, () -> runNow(held, issuedIn)),
            cause -> held.sent = rp.context().failedFuture(cause));
      }
    }
    if (gate == null || gate.succeeded()) {
      return runNow(c, issuedIn); // the common case, allocation-free when the body completes at once
    }
    RmaCall held = heldCopy(c);
    return gate.transform(ar -> ar.failed() ? rp.context().failedFuture(ar.cause())
        : comm.call(errors, () -> runNow(held, issuedIn)));
  }

  /** The instance of issued call {@code c} that waits and runs its body later. */
  private RmaCall heldCopy(RmaCall c) {
    RmaCall held = c == reusable ? c.copy() : c;
    held.seq = c.seq;
    c.held = held;
    return held;
  }

  /**
   * Fails the operations held at this origin for their targets' fence epochs ({@link FenceCredit})
   * with {@code cause}: the fence timed out, or the window is released here.
   */
  void failHeld(RmaException cause) {
    credit.failAll(cause);
  }

  /** The most bytes this origin held for one target's fence epoch at once (tests). */
  long mostHeldForFence() {
    return credit.mostHeld();
  }


  /**
   * Whether the one operation to {@code target} not counted complete yet is the last one issued
   * and has its answer: only its future's listeners are still running, and its count follows them
   * (a synchronization waiting for it needs no deadline).
   */
  boolean onlyListenersPending(int target) {
    Future<?> sent = lastUncountedSent[target];
    return sent != null && sent.isComplete() && tracker.outstanding(target) == 1
        && lastUncountedSeq[target] == tracker.issuedCount(target);
  }

  /** The acknowledgement request of one-way operations to {@code target}, the first {@code upTo} of them. */
  Future<?> requestAck(int target, long upTo) {
    return rp.request(target, SyncFrames.ackRequest(rank, id, upTo));
  }

  /** {@link FrameType#OP_FAILED} from a target: one of this rank's one-way operations failed there. */
  void onOperationFailed(Frame f) {
    byte[] text = f.payloadBytes();
    String message = text == null ? "(no message)" : new String(text, java.nio.charset.StandardCharsets.UTF_8);
    RmaException e = new RmaException(ErrorClass.ofCode(OperationFrames.failedOperationErrorCode(f)), message);
    if (!tracker.oneWayFailed(f.src, OperationFrames.failedOperationNumber(f), e)) {
      rp.rejectInput("a failure notice for no one-way operation of this rank: " + f);
    }
  }

  /**
   * Issued operation {@code seq}'s future completed: it is complete once the frame it sent (if
   * any) is answered.
   */
  private void completeCounted(int targetRank, long seq, Future<?> sent) {
    if (lastUncountedSeq[targetRank] == seq) {
      lastUncountedSent[targetRank] = null; // no reference kept past the count
    }
    if (sent == null) {
      tracker.complete(targetRank, seq, null); // nothing sent: the operation's own future has the error
    } else if (sent.isComplete()) {
      tracker.complete(targetRank, seq, sent.cause());
    } else {
      sent.onComplete(x -> tracker.complete(targetRank, seq, x.cause()));
    }
  }

  /**
   * Runs the body of an issued operation. Its failure becomes the operation's future here, not
   * an exception, so the operation counted as issued is always counted as complete too.
   */
  private Future<Void> runNow(RmaCall c, int issuedIn) {
    c.sent = null;
    try {
      switch (c.type) {
        case FrameType.PUT:
        case FrameType.ACC:
          return transfers.write(c, issuedIn, true);
        case FrameType.GET:
          return transfers.get(c, issuedIn, true);
        case FrameType.GET_ACC:
          return transfers.getAccumulate(c, issuedIn, true);
        case FrameType.CAS:
          return transfers.compareAndSwap(c, issuedIn, true);
        default:
          throw new IllegalStateException("not an RMA operation: " + FrameType.name(c.type));
      }
    } catch (RmaException e) {
      return rp.context().failedFuture(e);
    } catch (RuntimeException e) {
      return rp.context().failedFuture(new RmaException(ErrorClass.INTERN, "internal error at rank " + rank + ": "
          + e, e));
    }
  }
}
