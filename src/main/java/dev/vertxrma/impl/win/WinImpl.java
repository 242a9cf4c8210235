package dev.vertxrma.impl.win;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.ErrorHandler;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.memory.DynamicMemory;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.observe.Observers;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.impl.runtime.ErrorHandling;
import dev.vertxrma.impl.comm.CommImpl;
import dev.vertxrma.impl.sync.CompletionTracker;
import dev.vertxrma.impl.sync.PassiveEpoch;
import dev.vertxrma.impl.sync.PscwEpoch;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;
import java.util.function.Function;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * One rank's window: the {@link Win} facade. It builds the window's parts and hands each call to
 * the part that does it on the rank's context — RMA operations to {@link OriginOperations}, the
 * synchronization calls (from {@link WindowSynchronization}) to {@link SynchronizationCalls} (over
 * {@link ActiveTargetSync} and {@link PassiveTargetSync}), rput/rget/raccumulate/rgetAccumulate to {@link RequestOperations},
 * the notified operations and counters (from {@link NotifiedWindow}) to {@link WindowNotifications},
 * the memory, shared segments and attach/detach to {@link WindowMemoryCalls}, info hints to
 * {@link WindowInfo}, frames for the target and the memory's lifetime to the single-owner
 * {@link TargetWindow} — and keeps the window's attributes, name and error handler, and its free.
 */
final class WinImpl extends NotifiedWindow implements Win, RegisteredWindow {

  private static final int WINDOW_CTX_BASE = 1 << 20;

  private final WindowRegistry registry;
  private final Endpoint rp;
  private final CommImpl comm;
  private final WindowState state;
  private final int id;
  private final int rank;
  private final int dispUnit;
  private final Flavor flavor;
  private final Collectives coll;
  private final CompletionTracker tracker;
  private final ErrorHandling errors;
  private final PassiveEpoch passive;
  private final PscwEpoch pscw;
  private final ActiveTargetSync active;
  private final PassiveTargetSync passiveSync;
  private final OriginOperations origin;
  /** This rank's window as a target: exposure state, lock queue, memory (single owner). */
  private final TargetWindow targetWindow;
  /** The window's info hints (no_locks among them). */
  private final WindowInfo hints;
  /** Fence, post/start/complete/wait, lock/unlock, flush and sync. */
  private final SynchronizationCalls sync;
  /** rput, rget, raccumulate, rgetAccumulate. */
  private final RequestOperations requests;
  /** The memory, its base, shared segments, attach and detach. */
  private final WindowMemoryCalls memoryCalls;
  /** The segments of this window's ranks in the host's other JVMs, mapped here, and its host barrier. */
  private final OnNodePath onNode;
  /** The notification counters (notified RMA) and awaitNotify's waiters. */
  private final WindowNotifications notifications;
  /** Traces and metrics of this window ({@link RankObserver#NOOP} when neither is on). */
  private final RankObserver observer;

  WinImpl(WindowRegistry registry, CommImpl comm, int id, WindowMemory memory, DynamicMemory dynamic,
      SharedMapping mapping, int dispUnit, Flavor flavor, Info info) {
    this(registry, comm, id, memory, dynamic, mapping, dispUnit, flavor, info, null, null);
  }

  /**
   * A window whose memory at this rank may live in a host segment ({@code segment}, or
   * {@code null}) and whose ranks in the host's other JVMs may be reached in theirs
   * ({@code peers}, or {@code null}): the on-node path.
   */
  WinImpl(WindowRegistry registry, CommImpl comm, int id, WindowMemory memory, DynamicMemory dynamic,
      SharedMapping mapping, int dispUnit, Flavor flavor, Info info, HostSegment segment, SegmentPeers peers) {
    this.registry = registry;
    this.rp = comm.endpoint(); // the communicator's ranks: targets, groups and frames' sources are its own
    this.comm = comm;
    this.id = id;
    this.rank = rp.rank();
    this.state = new WindowState(id, rank, rp.size());
    this.dispUnit = dispUnit;
    this.flavor = flavor;
    Info effective = WindowInfo.withDefaults(info);
    this.coll = new Collectives(rp, comm.p2p(), collectiveContext(id), registry.process().job().sharedBarriers());
    // observed in job ranks (the window's own are its communicator's)
    this.observer = RankObserver.inJobRanks(Observers.forWindow(registry.process().job().jobName(),
        registry.process().rank(), registry.process().trace()), rp::jobRank);
    this.tracker = new CompletionTracker(rp.context(), rp.size(), observer, id);
    this.errors = new ErrorHandling("window " + id + " of rank " + rank,
        e -> comm.abort("ERRORS_ARE_FATAL on window " + state.name() + ": " + e.getMessage()));
    this.pscw = new PscwEpoch(rp.context(), rank, rp.size());
    this.passive = new PassiveEpoch(rank, rp.size());
    this.targetWindow = new TargetWindow(rp, memory, dynamic, mapping, dispUnit, WindowInfo.noLocks(effective), pscw,
        state::name, segment != null ? segment.control() : WindowControl.onHeap(rp.size()),
        segment != null);
    this.onNode = new OnNodePath(rp, id, peers);
    this.active = new ActiveTargetSync(rp, state, tracker, coll, pscw, passive, targetWindow, observer);
    this.origin = new OriginOperations(rp, comm, errors, registry, state, flavor == Flavor.DYNAMIC, tracker, pscw,
        passive, active, observer);
    origin.segmentPeers(onNode.peers());
    this.notifications = new WindowNotifications(rp, comm, errors, state, targetWindow, coll,
        segment != null ? segment.control() : null, effective);
    notifications.segmentPeers(onNode.peers());
    origin.notifications(notifications);
    if (segment != null || onNode.peers().count() > 0) {
      ExposureEpochs exposure = targetWindow.exposure();
      PscwPages pages = new PscwPages(rp, id, segment != null ? segment.control() : null, onNode.peers(), pscw,
          exposure::asOwnerWhileLive, exposure::tryAsOwnerNow);
      exposure.usePages(pages);
      active.usePages(pages);
    }
    tracker.ackRequests(origin::requestAck);
    active.localPeers(origin::localPeer);
    active.heldAtOrigin(origin::failHeld);
    this.passiveSync = new PassiveTargetSync(rp, id, passive, tracker, origin::localPeer, tracker::reportErrors,
        state::name, onNode.peers(), origin::onlyListenersPending);
    this.hints = new WindowInfo(effective, rp, state, targetWindow, passive, coll);
    this.sync = new SynchronizationCalls(this, rp, state, registry, hints, active, passiveSync, observer);
    this.requests = new RequestOperations(this, comm, errors, rp, state, passiveSync, observer);
    this.memoryCalls = new WindowMemoryCalls(this, rp, state, targetWindow, flavor, memory, dynamic, mapping, hints,
        origin::localPeer, onNode.peers());
  }

  @Override
  public int id() {
    return id;
  }

  /**
   * Whether every rank of this window is reached in memory: in this JVM or in a host segment
   * mapped here (then its fences can meet in shared memory, {@link dev.vertxrma.impl.coll.HostBarrier}).
   */
  boolean reachesEveryRankInMemory() {
    return onNode.reachesEveryRankInMemory();
  }

  /**
   * Makes this window's fences meet in shared memory: called at every rank once all agreed that
   * each reaches every rank in memory ({@link #reachesEveryRankInMemory}).
   */
  void useHostBarrier() {
    active.useHostBarrier(onNode.hostBarrier(targetWindow.control().barrierSlot(), origin::localPeer, comm.p2p()));
  }

  /** How many of this window's ranks in other JVMs this rank reaches in their host segments (the on-node path). */
  int onNodePeers() {
    return onNode.peers().count();
  }

  /** Rank {@code r}'s control block as mapped here on the on-node path, or {@code null} (tests). */
  WindowControl onNodeControl(int r) {
    return onNode.peers().control(r);
  }

  /** Posts and completes this rank has written into other JVMs' control blocks (read on the rank's context). */
  long pscwWrittenOnNode() {
    return active.pagesWritten();
  }

  /** Operations this rank has applied in other JVMs' host segments (read on the rank's context). */
  long appliedOnNode() {
    return onNode.peers().applied();
  }

  @Override
  SynchronizationCalls synchronization() {
    return sync;
  }

  @Override
  OriginOperations originOperations() {
    return origin;
  }

  @Override
  RequestOperations requestOperations() {
    return requests;
  }

  @Override
  WindowNotifications notificationCounters() {
    return notifications;
  }

  /** The observer of this window (traces, metrics). */
  RankObserver observer() {
    return observer;
  }

  /**
   * A call of this window on its rank's context ({@link CommImpl#call}), its failure handled by
   * the window's error handler and observed.
   */
  <T> Future<T> call(Supplier<Future<T>> body) {
    return observer.failures(id, comm.call(errors, body));
  }

  /**
   * {@link #call(Supplier)} for a body that takes one argument: a body kept in a field makes a
   * call that completes at once allocate nothing here.
   */
  <A, T> Future<T> call(Function<A, Future<T>> body, A arg) {
    return observer.failures(id, comm.call(errors, body, arg));
  }

  /** This rank's window as a target. */
  @Override
  public TargetWindow targetWindow() {
    return targetWindow;
  }

  /** The most bytes this origin held back for one target's fence epoch at once ({@link FenceCredit}; tests). */
  long mostHeldForFence() {
    return origin.mostHeldForFence();
  }

  /** The context id of window {@code id}'s own collective traffic (creation, fence, free). */
  static int collectiveContext(int id) {
    return WINDOW_CTX_BASE + id;
  }

  /** Every rank's window size and displacement unit, agreed at creation. */
  void setAttributes(long[] sizes, int[] units) {
    state.setAttributes(sizes, units);
  }

  // ------------------------------------------------------------------ attributes

  @Override
  public Comm comm() {
    return comm;
  }

  @Override
  public Group group() {
    return comm.group();
  }

  @Override
  public BytesStore<?, ?> memory() {
    return memoryCalls.memory();
  }

  @Override
  public long baseAddress() {
    return memoryCalls.baseAddress();
  }

  @Override
  public long size() {
    return targetWindow.size();
  }

  @Override
  public int dispUnit() {
    return dispUnit;
  }

  @Override
  public long size(int r) {
    state.checkRank(r, "size");
    return state.size(r);
  }

  @Override
  public int dispUnit(int r) {
    state.checkRank(r, "dispUnit");
    return state.unit(r);
  }

  @Override
  public Flavor flavor() {
    return flavor;
  }

  @Override
  public MemoryModel model() {
    return MemoryModel.UNIFIED;
  }

  @Override
  public Info info() {
    return hints.get();
  }

  @Override
  public Future<Void> setInfo(Info given) {
    return call(() -> {
      state.checkLive("setInfo");
      return hints.set(given);
    });
  }

  @Override
  public String name() {
    return state.name();
  }

  @Override
  public void setName(String name) {
    state.setName(name);
  }

  @Override
  public ErrorHandler getErrhandler() {
    return errors.get();
  }

  @Override
  public void setErrhandler(ErrorHandler handler) {
    errors.set(handler);
  }

  @Override
  public Future<Void> callErrhandler(RmaException error) {
    return comm.callRaw(() -> {
      errors.call(error);
      return rp.context().succeededFuture();
    });
  }

  // ------------------------------------------------------------------ operations

  @Override
  public Future<Void> put(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return this.origin.issue(this.origin.call().write(FrameType.PUT, "put", Op.REPLACE, origin, originOffset,
        originCount, originType, targetRank, targetDisp, targetCount, targetType));
  }

  @Override
  public Future<Void> accumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      int targetRank, long targetDisp, int targetCount, Datatype targetType, Op op) {
    return this.origin.issue(this.origin.call().write(FrameType.ACC, "accumulate", op, origin, originOffset,
        originCount, originType, targetRank, targetDisp, targetCount, targetType));
  }

  @Override
  public Future<Void> get(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return this.origin.issue(this.origin.call().get(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType));
  }

  @Override
  public Future<Void> getAccumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      Buf result, int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp,
      int targetCount, Datatype targetType, Op op) {
    return this.origin.issue(this.origin.call().getAccumulate(op, origin, originOffset, originCount, originType,
        result, resultOffset, resultCount, resultType, targetRank, targetDisp, targetCount, targetType));
  }

  @Override
  public Future<Void> fetchAndOp(Buf origin, int originOffset, Buf result, int resultOffset, Datatype type,
      int targetRank, long targetDisp, Op op) {
    if (type != null && !type.isPredefined()) {
      return rp.context().failedFuture(RmaException.of(ErrorClass.TYPE,
          "fetchAndOp takes a predefined datatype, not %s", type.name()));
    }
    return this.origin.issue(this.origin.call().fetchAndOp(op, origin, originOffset, result, resultOffset, type,
        targetRank, targetDisp));
  }

  @Override
  public Future<Long> fetchAndOp(long value, int targetRank, long targetDisp, Op op) {
    long[] in = {value};
    long[] out = new long[1];
    // the value is the future's: the operation counts as complete only once the future has it
    return this.origin.issue(this.origin.call().fetchAndOp(op, Buf.of(in), 0, Buf.of(out), 0, Datatype.LONG,
        targetRank, targetDisp), () -> out[0]);
  }

  @Override
  public Future<Void> compareAndSwap(Buf origin, int originOffset, Buf compare, int compareOffset,
      Buf result, int resultOffset, Datatype type, int targetRank, long targetDisp) {
    return this.origin.issue(this.origin.call().compareAndSwap(origin, originOffset, compare, compareOffset, result,
        resultOffset, type, targetRank, targetDisp));
  }

  @Override
  public Future<Long> compareAndSwap(long compare, long value, int targetRank, long targetDisp) {
    long[] in = {value};
    long[] cmp = {compare};
    long[] out = new long[1];
    return this.origin.issue(this.origin.call().compareAndSwap(Buf.of(in), 0, Buf.of(cmp), 0, Buf.of(out), 0,
        Datatype.LONG, targetRank, targetDisp), () -> out[0]);
  }

  // ------------------------------------------------------------------ request-based operations (RequestOperations)

  @Override
  public Future<Void> rput(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return requests.rput(origin, originOffset, originCount, originType, targetRank, targetDisp, targetCount,
        targetType);
  }

  @Override
  public Future<Void> rget(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return requests.rget(origin, originOffset, originCount, originType, targetRank, targetDisp, targetCount,
        targetType);
  }

  @Override
  public Future<Void> raccumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      int targetRank, long targetDisp, int targetCount, Datatype targetType, Op op) {
    return requests.raccumulate(origin, originOffset, originCount, originType, targetRank, targetDisp, targetCount,
        targetType, op);
  }

  @Override
  public Future<Void> rgetAccumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      Buf result, int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp,
      int targetCount, Datatype targetType, Op op) {
    return requests.rgetAccumulate(origin, originOffset, originCount, originType, result, resultOffset, resultCount,
        resultType, targetRank, targetDisp, targetCount, targetType, op);
  }

  // ------------------------------------------------------------------ dynamic and shared windows

  @Override
  public Future<Void> attach(BytesStore<?, ?> store) {
    return memoryCalls.attach(store);
  }

  @Override
  public Future<Void> detach(BytesStore<?, ?> store) {
    return memoryCalls.detach(store);
  }

  @Override
  public Future<SharedSegment> sharedQuery(int targetRank) {
    return memoryCalls.sharedQuery(targetRank);
  }

  // ------------------------------------------------------------------ target side

  /** Sends a raw frame as this rank and completes with the reply (tests forge frames with it). */
  Future<Frame> requestRaw(int dst, Frame f) {
    return comm.call(errors, () -> rp.request(dst, f));
  }

  /**
   * A frame for this window's target side, from any thread: its source becomes a rank of the
   * window's communicator, the numbering of the whole window engine.
   */
  @Override
  public void onFrame(Frame f) {
    int src = rp.rankOf(f.src);
    if (src < 0) {
      throw new RmaException(ErrorClass.RANK, "job rank " + f.src + " is not a member of the communicator of window "
          + id + " at job rank " + registry.process().rank(), false);
    }
    f.src = src;
    if (f.type == FrameType.OP_FAILED) {
      origin.onOperationFailed(f); // about this rank's own operations (the origin side)
    } else if (f.type == FrameType.PAGE_WAKE) {
      active.onPageWake();
      notifications.onWakeFrame();
    } else {
      targetWindow.onFrame(f);
    }
  }

  // ------------------------------------------------------------------ free

  @Override
  public Future<Void> free() {
    return call(() -> {
      state.checkLive("free");
      if (active.inPscwEpoch()) {
        throw RmaException.of(ErrorClass.RMA_SYNC, "free of window %s at rank %d inside a post/start epoch "
            + "(complete and waitFor first)", state.name(), rank);
      }
      active.checkNotPassive("free");
      state.freeing();
      if (brokenGroup()) {
        return releaseNow(); // ULFM: no barrier to fail; the window is freed locally
      }
      return rp.withTimeout(tracker.flushAll().compose(v -> coll.barrier()), "free").transform(ar -> ar.succeeded()
          || brokenGroup() ? releaseNow() : Future.failedFuture(ar.cause()));
    });
  }

  /**
   * Leaves the registry at once and releases the memory through the target's owner (free, rank
   * shutdown): the future completes when no operation can touch the memory any more.
   */
  @Override
  public Future<Void> releaseNow() {
    if (state.markFreed()) {
      observer.windowFreed(id);
    }
    registry.unregister(this);
    notifications.failWaiters(RmaException.of(ErrorClass.WIN, "window %s was freed at rank %d while awaitNotify "
        + "waited", state.name(), rank));
    coll.close();
    origin.failHeld(new RmaException(ErrorClass.WIN, "window " + state.name() + " was released at rank " + rank
        + " before its target opened the operation's fence epoch", false));
    return onNode.unmapAfter(targetWindow.release());
  }

  /** The job failed: fail pending synchronizations. */
  @Override
  public void peersFailed(int[] jobRanks, RmaException cause) {
    for (int job : jobRanks) {
      long mark = registry.process().job().holderMarkOf(job);
      if (mark != 0 && mark != dev.vertxrma.impl.memory.HolderMark.SELF) {
        // its JVM may still exist (stopped, partitioned): a word it holds here is taken back
        targetWindow.reclaimOwnerWordFrom(mark);
      }
      int r = rp.rankOf(job);
      if (r >= 0) {
        tracker.failTarget(r, cause);
        pscw.accessMemberDied(r, cause);
        targetWindow.originDied(r, cause);
      }
    }
  }

  @Override
  public void recheck() {
    coll.recheck();
  }

  /**
   * Whether the window's communicator lost a member or was revoked (ULFM): its barrier would
   * fail, so free completes locally.
   */
  private boolean brokenGroup() {
    RmaException broken = rp.groupFailure();
    return broken != null && (broken.errorClass() == ErrorClass.PROC_FAILED || broken.errorClass() == ErrorClass.REVOKED)
        && rp.failure() == null;
  }

  @Override
  public void fail(RmaException cause) {
    targetWindow.fail(cause);
    notifications.failWaiters(cause);
  }

  @Override
  public String toString() {
    return "Win[" + state.name() + " id=" + id + " rank=" + rank + " size=" + targetWindow.size() + " unit=" + dispUnit
        + "]";
  }
}
