package dev.vertxrma.impl.win;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.ErrorHandler;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.memory.DynamicMemory;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.observe.Observers;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.impl.observe.Sync;
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
 * One rank's window: the {@link Win} facade. It checks that the window is live, hands each call
 * to the part that does it on the rank's context — RMA operations to {@link OriginOperations},
 * fence and post/start/complete/wait to {@link ActiveTargetSync}, lock/unlock/flush to
 * {@link PassiveTargetSync}, attach/detach and the memory's lifetime to the single-owner
 * {@link TargetWindow} — and keeps the window's attributes, info and error handler.
 */
final class WinImpl implements Win, RegisteredWindow {

  private static final int WINDOW_CTX_BASE = 1 << 20;

  private final WindowRegistry registry;
  private final Endpoint rp;
  private final CommImpl comm;
  private final WindowState state;
  private final int id;
  private final int rank;
  private final WindowMemory memory;
  private final DynamicMemory dynamic;
  private final SharedMapping mapping;
  private final int dispUnit;
  private final Flavor flavor;
  private volatile Info info;
  private final Collectives coll;
  private final CompletionTracker tracker;
  private final ErrorHandling errors;
  private final PassiveEpoch passive;
  private final ActiveTargetSync active;
  private final PassiveTargetSync passiveSync;
  private final OriginOperations origin;
  /** This rank's window as a target: exposure state, lock queue, memory (single owner). */
  private final TargetWindow targetWindow;
  /** Changed only by {@link #setInfo}, on the rank's context. */
  private boolean noLocks;
  /** Traces and metrics of this window ({@link RankObserver#NOOP} when neither is on). */
  private final RankObserver observer;
  /** {@link #flushNow} as a function, made once (a flush that completes at once allocates nothing). */
  private final Function<Integer, Future<Void>> flushNow = this::flushNow;

  WinImpl(WindowRegistry registry, CommImpl comm, int id, WindowMemory memory, DynamicMemory dynamic,
      SharedMapping mapping, int dispUnit, Flavor flavor, Info info) {
    this.registry = registry;
    this.rp = comm.endpoint(); // the communicator's ranks: targets, groups and frames' sources are its own
    this.comm = comm;
    this.id = id;
    this.rank = rp.rank();
    this.state = new WindowState(id, rank, rp.size());
    this.memory = memory;
    this.dynamic = dynamic;
    this.mapping = mapping;
    this.dispUnit = dispUnit;
    this.flavor = flavor;
    this.info = effectiveInfo(info);
    this.coll = new Collectives(rp, comm.p2p(), collectiveContext(id), registry.process().job().sharedBarriers());
    // observed in job ranks (the window's own are its communicator's)
    this.observer = RankObserver.inJobRanks(Observers.forWindow(registry.process().job().jobName(),
        registry.process().rank(), registry.process().trace()), rp::jobRank);
    this.tracker = new CompletionTracker(rp.context(), rp.size(), observer, id);
    this.errors = new ErrorHandling("window " + id + " of rank " + rank,
        e -> comm.abort("ERRORS_ARE_FATAL on window " + state.name() + ": " + e.getMessage()));
    PscwEpoch pscw = new PscwEpoch(rp.context(), rank, rp.size());
    this.passive = new PassiveEpoch(rank, rp.size());
    this.noLocks = "true".equalsIgnoreCase(this.info.get(Info.NO_LOCKS));
    this.targetWindow = new TargetWindow(rp, memory, dynamic, mapping, dispUnit, noLocks, pscw, state::name);
    this.active = new ActiveTargetSync(rp, state, tracker, coll, pscw, passive, targetWindow, observer);
    this.origin = new OriginOperations(rp, comm, errors, registry, state, flavor == Flavor.DYNAMIC, tracker, pscw,
        passive, active, observer);
    tracker.ackRequests(origin::requestAck);
    active.localPeers(origin::localPeer);
    this.passiveSync = new PassiveTargetSync(rp, id, passive, tracker, origin::localPeer, tracker::reportErrors,
        state::name);
  }

  private static Info effectiveInfo(Info given) {
    Info i = given;
    if (i.get(Info.ACCUMULATE_ORDERING) == null) {
      i = i.with(Info.ACCUMULATE_ORDERING, "rar,raw,war,waw");
    }
    if (i.get(Info.ACCUMULATE_OPS) == null) {
      i = i.with(Info.ACCUMULATE_OPS, "same_op_no_op");
    }
    if (i.get(Info.NO_LOCKS) == null) {
      i = i.with(Info.NO_LOCKS, "false");
    }
    return i;
  }

  @Override
  public int id() {
    return id;
  }

  /** The observer of this window (traces, metrics). */
  RankObserver observer() {
    return observer;
  }

  /**
   * A call of this window on its rank's context ({@link WorldComm#call}), its failure handled by
   * the window's error handler and observed.
   */
  private <T> Future<T> call(Supplier<Future<T>> body) {
    return observer.failures(id, comm.call(errors, body));
  }

  /** This rank's window as a target. */
  @Override
  public TargetWindow targetWindow() {
    return targetWindow;
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
    checkLive("memory");
    if (memory == null) {
      throw RmaException.of(ErrorClass.RMA_FLAVOR, "memory of window %s: a dynamic window has no memory of its own "
          + "(MPI's base MPI_BOTTOM, size 0); its memory is the stores attached to it", state.name());
    }
    return memory.store();
  }

  @Override
  public long baseAddress() {
    checkLive("baseAddress");
    if (memory == null) {
      return 0; // MPI_BOTTOM: a dynamic window's accesses are at absolute addresses
    }
    if (memory.base() != null) {
      throw RmaException.of(ErrorClass.BUFFER, "baseAddress of window %s: its memory at rank %d is a byte[]-backed "
          + "store, which has no native address (create the window over a native store to have one)", state.name(),
          rank);
    }
    return memory.address();
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
    checkRank(r, "size");
    return state.size(r);
  }

  @Override
  public int dispUnit(int r) {
    checkRank(r, "dispUnit");
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
    return info;
  }

  /** The info keys {@link #setInfo} honours, and the values each takes. */
  private static void checkInfoValue(String key, String value) {
    boolean ok;
    switch (key) {
      case Info.NO_LOCKS:
        ok = value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false");
        break;
      case Info.ACCUMULATE_ORDERING:
        ok = value.equals("none") || value.matches("(rar|raw|war|waw)(,(rar|raw|war|waw))*");
        break;
      case Info.ACCUMULATE_OPS:
        ok = value.equals("same_op") || value.equals("same_op_no_op");
        break;
      default:
        ok = true; // unknown keys are kept and ignored, as MPI allows
    }
    if (!ok) {
      throw RmaException.of(ErrorClass.INFO, "setInfo: %s=%s is not a valid value of %s", key, value, key);
    }
  }

  @Override
  public Future<Void> setInfo(Info hints) {
    return call(() -> {
      checkLive("setInfo");
      Info next = info;
      if (hints != null) {
        for (String key : hints.keys()) {
          checkInfoValue(key, hints.get(key));
          next = next.with(key, hints.get(key));
        }
      }
      Info merged = next;
      boolean wantNoLocks = "true".equalsIgnoreCase(merged.get(Info.NO_LOCKS));
      Future<String> targetRefusal = wantNoLocks == noLocks ? rp.context().succeededFuture("")
          : targetWindow.noLocksRefusal(wantNoLocks);
      // every rank learns every rank's verdict: the hints change everywhere or nowhere
      return targetRefusal.map(r -> !r.isEmpty() ? r : wantNoLocks != noLocks && passive.isOpen()
          ? "rank " + rank + " holds a passive-target epoch on window " + state.name() : "")
          .compose(refusal -> coll.allgather(refusal.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
          .compose(verdicts -> {
        for (byte[] v : verdicts) {
          if (v.length > 0) {
            return rp.context().<Void>failedFuture(RmaException.of(ErrorClass.RMA_SYNC,
                "setInfo no_locks=%s refused: %s", wantNoLocks, new String(v, java.nio.charset.StandardCharsets.UTF_8)));
          }
        }
        return targetWindow.setNoLocks(wantNoLocks);
      }).compose(v -> {
        noLocks = wantNoLocks;
        info = merged;
        return coll.barrier(); // every rank has switched before any goes on
      });
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

  // ------------------------------------------------------------------ checks

  private void checkLive(String call) {
    state.checkLive(call);
  }

  private void checkRank(int r, String call) {
    state.checkRank(r, call);
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
    return getAccumulate(origin, originOffset, 1, type, result, resultOffset, 1, type, targetRank, targetDisp, 1,
        type, op);
  }

  @Override
  public Future<Long> fetchAndOp(long value, int targetRank, long targetDisp, Op op) {
    long[] in = {value};
    long[] out = new long[1];
    // the value is the future's: the operation counts as complete only once the future has it
    return this.origin.issue(this.origin.call().getAccumulate(op, Buf.of(in), 0, 1, Datatype.LONG, Buf.of(out), 0, 1,
        Datatype.LONG, targetRank, targetDisp, 1, Datatype.LONG), () -> out[0]);
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

  // ------------------------------------------------------------------ fence and post/start/complete/wait

  @Override
  public Future<Void> fence(Mode... assertions) {
    return call(() -> {
      checkLive("fence");
      return active.fence(assertions);
    });
  }

  @Override
  public Future<Void> post(Group group, Mode... assertions) {
    return call(() -> {
      checkLive("post");
      if (group == null) {
        throw new RmaException(ErrorClass.GROUP, "post group is null");
      }
      return active.post(windowRanks(group, "post"), assertions);
    });
  }

  @Override
  public Future<Void> start(Group group, Mode... assertions) {
    return call(() -> {
      checkLive("start");
      if (group == null) {
        throw new RmaException(ErrorClass.GROUP, "start group is null");
      }
      return active.start(windowRanks(group, "start"), assertions);
    });
  }

  @Override
  public Future<Void> complete() {
    return call(() -> {
      checkLive("complete");
      return active.complete();
    });
  }

  @Override
  public Future<Void> waitFor() {
    return call(() -> {
      checkLive("waitFor");
      return active.waitFor();
    });
  }

  @Override
  public Future<Boolean> test() {
    return call(() -> {
      checkLive("test");
      return active.test();
    });
  }

  // ------------------------------------------------------------------ passive target

  @Override
  public Future<Void> lock(LockType type, int targetRank, Mode... assertions) {
    return call(() -> {
      checkLive("lock");
      int bits = Mode.bits(assertions);
      if (type == null) {
        throw new RmaException(ErrorClass.ARG, "lock type is null");
      }
      if (targetRank == Comm.PROC_NULL) {
        return rp.context().succeededFuture(); // no epoch, no state: a no-op like every call on PROC_NULL
      }
      checkRank(targetRank, "lock");
      checkLockable("lock");
      return observer.sync(id, type == LockType.EXCLUSIVE ? Sync.LOCK_EXCLUSIVE : Sync.LOCK_SHARED, targetRank,
          passiveSync.lock(type, targetRank, (bits & Mode.NOCHECK.bit()) != 0));
    });
  }

  private void checkLockable(String call) {
    if (noLocks) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "%s on window %s, created with info no_locks=true", call,
          state.name());
    }
    if (active.inPscwEpoch()) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "%s at rank %d during a post/start epoch on window %s", call, rank,
          state.name());
    }
    active.leaveFenceMode(call);
  }

  @Override
  public Future<Void> unlock(int targetRank) {
    return call(() -> {
      checkLive("unlock");
      if (targetRank == Comm.PROC_NULL) {
        return rp.context().succeededFuture();
      }
      checkRank(targetRank, "unlock");
      return observer.sync(id, Sync.UNLOCK, targetRank, passiveSync.unlock(targetRank));
    });
  }

  @Override
  public Future<Void> lockAll(Mode... assertions) {
    return call(() -> {
      checkLive("lockAll");
      int bits = Mode.bits(assertions);
      checkLockable("lockAll");
      return observer.sync(id, Sync.LOCK_ALL, -1, passiveSync.lockAll((bits & Mode.NOCHECK.bit()) != 0));
    });
  }

  @Override
  public Future<Void> unlockAll() {
    return call(() -> {
      checkLive("unlockAll");
      return observer.sync(id, Sync.UNLOCK_ALL, -1, passiveSync.unlockAll());
    });
  }

  @Override
  public Future<Void> flush(int targetRank) {
    return observer.failures(id, comm.call(errors, flushNow, targetRank));
  }

  private Future<Void> flushNow(Integer targetRank) {
    checkLive("flush");
    if (targetRank == Comm.PROC_NULL) {
      return rp.context().succeededFuture();
    }
    checkRank(targetRank, "flush");
    return observer.sync(id, Sync.FLUSH, targetRank, passiveSync.flush(targetRank));
  }

  @Override
  public Future<Void> flushAll() {
    return call(() -> {
      checkLive("flushAll");
      return observer.sync(id, Sync.FLUSH_ALL, -1, passiveSync.flushAll());
    });
  }

  @Override
  public Future<Void> flushLocal(int targetRank) {
    return flush(targetRank);
  }

  @Override
  public Future<Void> flushLocalAll() {
    return flushAll();
  }

  @Override
  public Future<Void> sync() {
    return call(() -> {
      checkLive("sync");
      return passiveSync.sync();
    });
  }

  // ------------------------------------------------------------------ request-based operations

  private <T> Future<T> request(int targetRank, String call, Supplier<Future<T>> op) {
    return comm.call(errors, () -> {
      if (targetRank != Comm.PROC_NULL) {
        try {
          checkRank(targetRank, call);
          passiveSync.checkHeld(targetRank, call);
        } catch (RmaException e) {
          return observer.failures(id, rp.context().failedFuture(e)); // the operation observes its own failures
        }
      }
      return op.get();
    });
  }


  @Override
  public Future<Void> rput(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return request(targetRank, "rput", () -> put(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType));
  }

  @Override
  public Future<Void> rget(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return request(targetRank, "rget", () -> get(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType));
  }

  @Override
  public Future<Void> raccumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      int targetRank, long targetDisp, int targetCount, Datatype targetType, Op op) {
    return request(targetRank, "raccumulate", () -> accumulate(origin, originOffset, originCount, originType,
        targetRank, targetDisp, targetCount, targetType, op));
  }

  @Override
  public Future<Void> rgetAccumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      Buf result, int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp,
      int targetCount, Datatype targetType, Op op) {
    return request(targetRank, "rgetAccumulate", () -> getAccumulate(origin, originOffset, originCount, originType,
        result, resultOffset, resultCount, resultType, targetRank, targetDisp, targetCount, targetType, op));
  }

  // ------------------------------------------------------------------ dynamic and shared windows

  @Override
  public Future<Void> attach(BytesStore<?, ?> store) {
    return call(() -> {
      checkLive("attach");
      requireDynamic("attach");
      return targetWindow.attach(store);
    });
  }

  @Override
  public Future<Void> detach(BytesStore<?, ?> store) {
    return call(() -> {
      checkLive("detach");
      requireDynamic("detach");
      return targetWindow.detach(store);
    });
  }

  private DynamicMemory requireDynamic(String call) {
    if (dynamic == null) {
      throw RmaException.of(ErrorClass.RMA_FLAVOR, "%s on window %s of flavor %s: only dynamic windows "
          + "(Win.createDynamic) take attached memory", call, state.name(), flavor);
    }
    return dynamic;
  }

  @Override
  public Future<SharedSegment> sharedQuery(int targetRank) {
    return call(() -> {
      checkLive("sharedQuery");
      if (mapping == null) {
        throw RmaException.of(ErrorClass.RMA_FLAVOR, "sharedQuery on window %s of flavor %s: only windows from "
            + "Win.allocateShared have shared segments", state.name(), flavor);
      }
      checkRank(targetRank, "sharedQuery");
      long offset = SharedLayout.offset(state.sizes(), targetRank);
      long bytes = state.size(targetRank);
      return rp.context().succeededFuture(new SharedSegment(mapping.segment(offset, bytes), bytes,
          state.unit(targetRank)));
    });
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
    } else {
      targetWindow.onFrame(f);
    }
  }

  /**
   * A post or start group, whose members are processes named by job rank ({@link Group}), in
   * this window's rank numbering; GROUP for a process outside the window's communicator.
   */
  private Group windowRanks(Group group, String call) {
    int[] job = group.ranks();
    int[] ranks = new int[job.length];
    for (int i = 0; i < job.length; i++) {
      ranks[i] = rp.rankOf(job[i]);
      int np = registry.process().size();
      if (job[i] >= np) {
        throw RmaException.of(ErrorClass.RANK, "%s group %s names rank %d, the job has %d ranks", call, group, job[i],
            np);
      }
      if (ranks[i] < 0) {
        throw RmaException.of(ErrorClass.GROUP, "%s group %s names job rank %d, which is not in the communicator of "
            + "window %s", call, group, job[i], state.name());
      }
    }
    return Group.of(rank, ranks);
  }

  // ------------------------------------------------------------------ free

  @Override
  public Future<Void> free() {
    return call(() -> {
      checkLive("free");
      if (active.inPscwEpoch()) {
        throw RmaException.of(ErrorClass.RMA_SYNC, "free of window %s at rank %d inside a post/start epoch "
            + "(complete and waitFor first)", state.name(), rank);
      }
      active.checkNotPassive("free");
      state.freeing();
      return rp.withTimeout(tracker.flushAll().compose(v -> coll.barrier()), "free").compose(v -> releaseNow());
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
    coll.close();
    return targetWindow.release();
  }

  /** The job failed: fail pending synchronizations. */
  @Override
  public void fail(RmaException cause) {
    targetWindow.fail(cause);
  }

  @Override
  public String toString() {
    return "Win[" + state.name() + " id=" + id + " rank=" + rank + " size=" + targetWindow.size() + " unit=" + dispUnit
        + "]";
  }
}
