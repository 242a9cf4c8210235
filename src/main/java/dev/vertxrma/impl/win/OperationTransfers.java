package dev.vertxrma.impl.win;

import dev.vertxrma.Comm;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.memory.MemoryView;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.impl.ops.BufferArguments;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.OperationFrames;
import dev.vertxrma.impl.ops.RmaOperation;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.sync.CompletionTracker;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.PayloadSource;
import dev.vertxrma.impl.transport.ReceivedPayload;
import io.vertx.core.Future;

/**
 * The transfer of an issued RMA operation — put, accumulate, get, getAccumulate, compareAndSwap —
 * from this origin to its target, once {@link OriginOperations} has decided its epoch and counted
 * it: its buffers are checked against its datatypes and the target's announced size, and it
 * reaches the target by one of three paths. A same-JVM target's window applies it right here,
 * reading and writing the origin's buffers in place, when that window is free (the fast path); a
 * rank of another JVM of this host whose segment is mapped here has it applied in that segment by
 * this origin (the on-node path, {@link SegmentPeers}); otherwise it travels as a frame over the
 * data plane (a put or accumulate one way, a fetching operation answered by a reply).
 *
 * <p>An operation that completes at once allocates nothing here: its buffers go into reused
 * {@link MemoryView}s and the operation into a reused {@link RmaOperation}, cleared by
 * {@link #clear()} once the call is done; one that has to wait at its target is copied. On the
 * rank's context only, like the rest of the origin side.
 */
final class OperationTransfers {

  private final Endpoint rp;
  private final WindowRegistry registry;
  private final WindowState state;
  private final int id;
  private final int rank;
  private final CompletionTracker tracker;
  private final RankObserver observer;
  private final OriginChecks checks;
  /** Gets of large data to other JVMs, paced so that a target packs a few replies at a time. */
  private final PacedGets largeGets;
  /** The window's notification counters: whether a peer's are in its mapped control page. */
  private WindowNotifications notifications;
  /** The host segments of ranks in other JVMs of this host (the on-node path); none until set. */
  private SegmentPeers segments;
  /** Same-JVM peers' target windows, resolved on first use (the fast path). */
  private final TargetWindow[] peers;
  /** The record same-JVM operations are built in (see {@link #operation}); used on the rank's context only. */
  private final RmaOperation scratch = new RmaOperation();
  private final MemoryView originView = new MemoryView();
  private final MemoryView resultView = new MemoryView();
  private final MemoryView compareView = new MemoryView();
  /** A succeeded future of the rank's context, handed out for every operation that completes at once. */
  private final Future<Void> done;

  OperationTransfers(Endpoint rp, WindowRegistry registry, WindowState state, CompletionTracker tracker,
      RankObserver observer, OriginChecks checks, Future<Void> done) {
    this.rp = rp;
    this.registry = registry;
    this.state = state;
    this.id = state.id;
    this.rank = state.rank;
    this.tracker = tracker;
    this.observer = observer;
    this.checks = checks;
    this.done = done;
    this.peers = new TargetWindow[rp.size()];
    this.segments = SegmentPeers.none(rp.size());
    this.largeGets = new PacedGets(rp);
  }

  /** Drops what the reused records hold: the call that filled them is done (a held call runs a copy). */
  void clear() {
    originView.clear();
    resultView.clear();
    compareView.clear();
    scratch.clear();
  }

  /**
   * A put or accumulate to another JVM, sent one way: no reply; it completes with the
   * acknowledgement that covers it ({@link CompletionTracker#oneWay}), and a failure at the
   * target comes as an {@link FrameType#OP_FAILED} notice.
   */
  private void sendOneWay(RmaCall c, int targetRank, RmaOperation op) {
    op.oneWayNumber = tracker.oneWay(targetRank, c.seq);
    c.oneWay = true;
    rp.send(targetRank, OperationFrames.toFrame(op));
    tracker.oneWaySent(targetRank);
  }

  // ------------------------------------------------------------------ frames

  /**
   * Sends operation {@code op}. A same-JVM target applies it right here, on this thread, when its
   * window is free and nothing waits before it (no hop to its event loop and back); otherwise, as
   * for a target in another JVM, it goes as a frame, is queued there and answered by a reply.
   */
  @SuppressWarnings("unchecked")
  private Future<Frame> send(int targetRank, RmaOperation op, boolean local) {
    if (local && rp.failure() == null) {
      TargetWindow peer = peer(targetRank);
      if (peer != null) {
        try {
          if (peer.tryApplyNow(op)) {
            return (Future<Frame>) (Future<?>) done;
          }
        } catch (RmaException e) {
          return rp.context().failedFuture(e);
        }
      }
    }
    return rp.request(targetRank, OperationFrames.toFrame(op == scratch ? op.copy() : op));
  }

  /** Sets the window segments of the ranks in this host's other JVMs (the on-node path); once, at creation. */
  void segmentPeers(SegmentPeers peers) {
    this.segments = peers;
  }

  /** Sets the window's notification counters (where on-node origins add to them); once, at creation. */
  void notifications(WindowNotifications n) {
    this.notifications = n;
  }

  /**
   * Whether an operation to rank {@code r} of another JVM, issued in sync mode {@code issuedIn},
   * may be applied by this origin in {@code r}'s host segment: {@code r}'s segment is mapped here,
   * the epoch is not post/start (whose target counts the operations it applied), and none of this
   * origin's operations to {@code r} that went over the data plane is still incomplete (it would
   * be overtaken). A notified operation also needs {@code r}'s counters in its control page.
   */
  private boolean onHost(RmaCall c, int r, int issuedIn) {
    return segments.reaches(r) && tracker.networkQuiet(r) && rp.failure() == null
        && (c.notify == RmaOperation.NO_NOTIFY || notifications.inPageAt(r));
  }

  /**
   * Notes an operation applied in rank {@code targetRank}'s host segment: complete already. One of
   * a fence epoch counts for the epoch (fence's NOPRECEDE check); one of a post/start epoch is not
   * announced in the COMPLETE, as the target counts only what reaches it over the data plane.
   */
  private Future<Void> applied(RmaCall c, int targetRank, int sync) {
    if (c.notify != RmaOperation.NO_NOTIFY) {
      notifications.wakePeer(targetRank); // counted in its page already: wake it if it is parked
    }
    if (sync == RmaOperation.SYNC_FENCE) {
      tracker.sentInEpoch(targetRank);
    }
    c.sent = done;
    return done;
  }

  /** The same-JVM target window of rank {@code r} while the job runs, else {@code null}. */
  TargetWindow localPeer(int r) {
    return rp.isLocal(r) && rp.failure() == null ? peer(r) : null;
  }

  private TargetWindow peer(int r) {
    TargetWindow p = peers[r];
    if (p == null) {
      p = registry.peer(rp.jobRank(r), id);
      peers[r] = p;
    }
    return p;
  }

  private RmaOperation operation(RmaCall c, byte kind, int target, int issuedIn, long disp, int count, TypeMap tt,
      boolean local) {
    return operation(c, kind, target, issuedIn, disp, count, tt, local, true);
  }

  /** {@link #operation}; {@code observe} false for an operation built a second time (after the on-node path declined it). */
  private RmaOperation operation(RmaCall c, byte kind, int target, int issuedIn, long disp, int count, TypeMap tt,
      boolean local, boolean observe) {
    // a same-JVM operation is built in the scratch record: applied at once it is never kept, and
    // {@link #send} copies it when it has to wait at the target
    RmaOperation op = (local ? scratch : new RmaOperation()).reset(kind, id, rank);
    op.syncMode = issuedIn;
    op.fenceEpoch = issuedIn == RmaOperation.SYNC_FENCE ? c.fenceEpoch : 0; // as issued, even if it ran later
    op.targetDisp = disp;
    op.targetCount = count;
    op.notifyIndex = c.notify;
    op.inPlace = local;
    if (local) {
      op.targetType = tt;
    } else {
      op.targetTypeWire = tt.wireBytes();
    }
    if (observe) {
      byte observed = "fetchAndOp".equals(c.name) ? dev.vertxrma.impl.observe.Observers.FETCH_AND_OP
          : c.notify != RmaOperation.NO_NOTIFY ? (byte) (kind + dev.vertxrma.impl.observe.Observers.NOTIFIED) : kind;
      observer.opIssued(id, observed, target, tt.size() * (long) count, c.seq);
    }
    return op;
  }

  /**
   * Same JVM: the target reads the origin in place; otherwise its packed bytes travel as the
   * payload. Returns, if {@code tellPacked}, the promise that completes once it is packed (within
   * the call, or later: {@link PayloadSource#PACKED_LATER_FROM} bytes or more, or any size while
   * the link is congested), else {@code null}.
   */
  private io.vertx.core.Promise<Void> attachOrigin(RmaOperation op, boolean local, MemoryView o, TypeMap type,
      int count, boolean tellPacked) {
    if (local) {
      op.originInPlace(o.base(), o.address(), type, count);
      return null;
    }
    PackedOrigin p = new PackedOrigin(o.base(), o.address(), type, count, tellPacked ? rp.context() : null);
    op.payloadSource = p;
    return p.packed;
  }

  /**
   * The future of a fetching operation: same JVM ({@code into} null), the target has written the
   * result in place; otherwise the reply's payload is unpacked into {@code into}.
   */
  private Future<Void> receive(Future<Frame> reply, MemoryRef into, TypeMap type, int count) {
    if (into == null) {
      return empty(reply);
    }
    return reply.map(r -> {
      try {
        FetchedReply.unpack(r, into, type, count);
      } finally {
        ReceivedPayload.release(r);
      }
      return null;
    });
  }

  /** {@code f} without its value: the shared succeeded future when it has already succeeded. */
  private Future<Void> empty(Future<?> f) {
    return f.succeeded() ? done : f.mapEmpty();
  }

  /**
   * Notes a sent operation for {@link OriginOperations}: its completion (the target's reply) completes
   * the issued operation, and its failure is kept for the synchronization that completes it.
   * Operations of fence and PSCW epochs are also counted for the epoch ({@code complete}
   * announces the counts).
   */
  private <T> Future<T> track(RmaCall c, int targetRank, int sync, Future<T> op) {
    if (sync != RmaOperation.SYNC_PASSIVE) {
      tracker.sentInEpoch(targetRank);
    }
    c.sent = op;
    return op;
  }

  // ------------------------------------------------------------------ the operations

  /**
   * put and accumulate: the future completes at origin completion — at once when the data was
   * packed for the wire, when the target has copied it on the same-JVM path.
   */
  Future<Void> write(RmaCall c, int issuedIn, boolean first) {
    String call = c.name;
    boolean accumulate = c.type == FrameType.ACC;
    TypeMap tt = BufferArguments.typeMap(c.targetType, accumulate ? "accumulate target" : "put target");
    String what = accumulate ? "accumulate origin" : "put origin";
    TypeMap ot = BufferArguments.typeMap(c.originType, what);
    MemoryView o = BufferArguments.buffer(c.origin, c.originOffset, c.originCount, ot, what, originView);
    if (accumulate) {
      OriginChecks.checkOp(c.op, tt);
    }
    int targetRank = c.target;
    if (targetRank == Comm.PROC_NULL) {
      return done;
    }
    state.checkRank(targetRank, call);
    DatatypeEngine.checkSignatures(ot, c.originCount, tt, c.targetCount, accumulate);
    checks.checkTargetRange(targetRank, c.targetDisp, tt, c.targetCount, call);
    boolean local = rp.isLocal(targetRank);
    boolean host = first && onHost(c, targetRank, issuedIn);
    RmaOperation op = operation(c, c.type, targetRank, issuedIn, c.targetDisp, c.targetCount, tt, local || host,
        first);
    op.opCode = c.op.code();
    io.vertx.core.Promise<Void> packed = attachOrigin(op, local || host, o, ot, c.originCount, true);
    if (host) {
      return segments.tryApply(targetRank, op) ? applied(c, targetRank, issuedIn) : write(c, issuedIn, false);
    }
    if (!local) {
      tracker.viaNetwork(targetRank, c.seq);
      if (issuedIn != RmaOperation.SYNC_PASSIVE) {
        tracker.sentInEpoch(targetRank);
      }
      if (rp.failure() != null) {
        throw rp.failure();
      }
      sendOneWay(c, targetRank, op);
      // packed at once, or when the connection can take it (the origin buffer is free once it is,
      // or once the connection is gone without it: the failure is the synchronization's to report)
      return packed == null || packed.future().isComplete() ? done : packed.future();
    }
    return track(c, targetRank, issuedIn, empty(send(targetRank, op, local)));
  }

  /** get: the future completes once the result is in the origin buffer. */
  Future<Void> get(RmaCall c, int issuedIn, boolean first) {
    TypeMap tt = BufferArguments.typeMap(c.targetType, "get target");
    TypeMap ot = BufferArguments.typeMap(c.resultType, "get origin");
    MemoryView o = BufferArguments.buffer(c.result, c.resultOffset, c.resultCount, ot, "get origin", resultView);
    int targetRank = c.target;
    if (targetRank == Comm.PROC_NULL) {
      return done;
    }
    state.checkRank(targetRank, "get");
    DatatypeEngine.checkSignatures(tt, c.targetCount, ot, c.resultCount, false);
    checks.checkTargetRange(targetRank, c.targetDisp, tt, c.targetCount, "get");
    boolean local = rp.isLocal(targetRank);
    boolean host = first && onHost(c, targetRank, issuedIn);
    RmaOperation op = operation(c, FrameType.GET, targetRank, issuedIn, c.targetDisp, c.targetCount, tt,
        local || host, first);
    if (host) { // read in place from the target's segment
      op.resultInPlace(o.base(), o.address(), ot, c.resultCount);
      return segments.tryApply(targetRank, op) ? applied(c, targetRank, issuedIn) : get(c, issuedIn, false);
    }
    MemoryRef into = local ? null : o.toRef(); // kept until the reply comes
    if (local) { // the target writes the get's buffer in place
      op.resultInPlace(o.base(), o.address(), ot, c.resultCount);
    } else {
      tracker.viaNetwork(targetRank, c.seq);
    }
    Future<Frame> reply = local ? send(targetRank, op, true)
        : largeGets.request(targetRank, OperationFrames.toFrame(op), DatatypeEngine.packedSize(tt, c.targetCount));
    return track(c, targetRank, issuedIn, receive(reply, into, ot, c.resultCount));
  }

  /** getAccumulate (and fetchAndOp): the future completes once the target's former data is in the result buffer. */
  Future<Void> getAccumulate(RmaCall c, int issuedIn, boolean first) {
    TypeMap tt = BufferArguments.typeMap(c.targetType, "getAccumulate target");
    Op op = c.op;
    OriginChecks.checkOp(op, tt);
    TypeMap ot = null;
    MemoryView o = null;
    if (op != Op.NO_OP) {
      ot = BufferArguments.typeMap(c.originType, "getAccumulate origin");
      o = BufferArguments.buffer(c.origin, c.originOffset, c.originCount, ot, "getAccumulate origin", originView);
    }
    TypeMap rt = BufferArguments.typeMap(c.resultType, "getAccumulate result");
    MemoryView r = BufferArguments.buffer(c.result, c.resultOffset, c.resultCount, rt, "getAccumulate result", resultView);
    int targetRank = c.target;
    if (targetRank == Comm.PROC_NULL) {
      return done;
    }
    state.checkRank(targetRank, "getAccumulate");
    if (o != null) {
      DatatypeEngine.checkSignatures(ot, c.originCount, tt, c.targetCount, true);
    }
    DatatypeEngine.checkSignatures(tt, c.targetCount, rt, c.resultCount, true);
    checks.checkTargetRange(targetRank, c.targetDisp, tt, c.targetCount, "getAccumulate");
    boolean local = rp.isLocal(targetRank);
    boolean host = first && onHost(c, targetRank, issuedIn);
    RmaOperation rma = operation(c, FrameType.GET_ACC, targetRank, issuedIn, c.targetDisp, c.targetCount, tt,
        local || host, first);
    rma.opCode = op.code();
    if (o != null) {
      attachOrigin(rma, local || host, o, ot, c.originCount, false);
    }
    if (host) { // applied in the target's segment, the result written in place
      rma.resultInPlace(r.base(), r.address(), rt, c.resultCount);
      return segments.tryApply(targetRank, rma) ? applied(c, targetRank, issuedIn)
          : getAccumulate(c, issuedIn, false);
    }
    MemoryRef into = local ? null : r.toRef(); // kept until the reply comes
    if (local) { // the target writes the result in place
      rma.resultInPlace(r.base(), r.address(), rt, c.resultCount);
    } else {
      tracker.viaNetwork(targetRank, c.seq);
    }
    return track(c, targetRank, issuedIn, receive(send(targetRank, rma, local), into, rt, c.resultCount));
  }

  /** compareAndSwap: the future completes once the target's former element is in the result buffer. */
  Future<Void> compareAndSwap(RmaCall c, int issuedIn, boolean first) {
    TypeMap t = BufferArguments.typeMap(c.targetType, "compareAndSwap");
    DatatypeEngine.checkCompareAndSwapType(t);
    MemoryView o = BufferArguments.buffer(c.origin, c.originOffset, 1, t, "compareAndSwap origin", originView);
    MemoryView cmp = BufferArguments.buffer(c.compare, c.compareOffset, 1, t, "compareAndSwap compare", compareView);
    MemoryView r = BufferArguments.buffer(c.result, c.resultOffset, 1, t, "compareAndSwap result", resultView);
    int targetRank = c.target;
    if (targetRank == Comm.PROC_NULL) {
      return done;
    }
    state.checkRank(targetRank, "compareAndSwap");
    checks.checkTargetRange(targetRank, c.targetDisp, t, 1, "compareAndSwap");
    boolean local = rp.isLocal(targetRank);
    boolean host = first && onHost(c, targetRank, issuedIn);
    RmaOperation op = operation(c, FrameType.CAS, targetRank, issuedIn, c.targetDisp, 1, t, local || host, first);
    MemoryRef into = null;
    if (local || host) { // the target reads origin and compare, and writes the result, in place
      op.originInPlace(o.base(), o.address(), t, 1);
      op.compareBase = cmp.base();
      op.compareAddress = cmp.address();
      op.resultInPlace(r.base(), r.address(), t, 1);
    } else {
      int size = (int) t.size();
      op.payload = new byte[2 * size];
      Memory.copy(o.base(), o.address(), op.payload, Memory.ARRAY_BYTE_BASE_OFFSET, size);
      Memory.copy(cmp.base(), cmp.address(), op.payload, Memory.ARRAY_BYTE_BASE_OFFSET + size, size);
      into = r.toRef(); // kept until the reply comes
      tracker.viaNetwork(targetRank, c.seq);
    }
    if (host) {
      return segments.tryApply(targetRank, op) ? applied(c, targetRank, issuedIn)
          : compareAndSwap(c, issuedIn, false);
    }
    return track(c, targetRank, issuedIn, receive(send(targetRank, op, local), into, t, 1));
  }
}
