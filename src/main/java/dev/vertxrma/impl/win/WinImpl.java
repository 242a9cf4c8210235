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
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.memory.DynamicMemory;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.observe.Observers;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.impl.observe.Sync;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.runtime.ErrorHandling;
import dev.vertxrma.impl.runtime.CommImpl;
import dev.vertxrma.impl.sync.CompletionTracker;
import dev.vertxrma.impl.sync.PassiveEpoch;
import dev.vertxrma.impl.sync.PscwEpoch;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * One rank's window, its origin side: argument and range checks against the sizes announced at
 * creation, the epoch an operation is issued in (issue-time accounting, {@link CompletionTracker}),
 * the same-JVM fast path or wire form of each operation, and the synchronization calls. Its target
 * side is the single-owner {@link TargetWindow}.
 */
final class WinImpl implements Win {

  /** Synchronization mode an operation was issued under (frame tag). */
  static final int SYNC_FENCE = 1;
  static final int SYNC_PSCW = 2;
  static final int SYNC_PASSIVE = 3;
  private static final int WINDOW_CTX_BASE = 1 << 20;

  private final WindowRegistry registry;
  private final Endpoint rp;
  private final CommImpl comm;
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
  private final PscwEpoch pscw;
  /**
   * The exposure epoch in issue order: set by {@code post}, cleared by {@code waitFor} (or a
   * {@code test} that answered true). The target side's own view, in {@link TargetWindow}, lags
   * behind while the owner has queued work; checks made at call time use this one.
   */
  private Group exposure;
  private final PassiveEpoch passive;
  private final PassiveTargetSync passiveSync;
  /** This rank's window as a target: exposure state, lock queue, memory (single owner). */
  private final TargetWindow targetWindow;
  /** The frame same-JVM operations are built in (see {@link #frame}); used on the rank's context only. */
  private final Frame scratch = new Frame();
  /** Same-JVM peers' target windows, resolved on first use (the fast path). */
  private final TargetWindow[] peers;
  /** Changed only by {@link #setInfo}, on the rank's context. */
  private boolean noLocks;
  /** Origin side of fence: the epoch operations are issued in now, and whether it is open. */
  private long fenceEpoch;
  private boolean fenceOpen;
  /** The target side of the last fence called: the next one advances after it. */
  private Future<Void> lastFenceAdvance = Future.succeededFuture();
  private long[] sizes;
  private int[] units;
  private String name;
  private boolean freed;
  private boolean freeing;
  /** The reply future of the frame the running operation body sent (see {@link #track} and {@link #run}). */
  private Future<?> lastSent;
  /** Traces and metrics of this window ({@link RankObserver#NOOP} when neither is on). */
  private final RankObserver observer;
  /** The issue number of the operation whose body runs now (for the observer). */
  private long issuing;

  WinImpl(WindowRegistry registry, CommImpl comm, int id, WindowMemory memory, DynamicMemory dynamic,
      SharedMapping mapping, int dispUnit, Flavor flavor, Info info) {
    this.registry = registry;
    this.rp = comm.endpoint(); // the communicator's ranks: targets, groups and frames' sources are its own
    this.comm = comm;
    this.id = id;
    this.rank = rp.rank();
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
        e -> comm.abort("ERRORS_ARE_FATAL on window " + this.name + ": " + e.getMessage()));
    this.pscw = new PscwEpoch(rp.context(), rank, rp.size());
    this.passive = new PassiveEpoch(rank, rp.size());
    this.noLocks = "true".equalsIgnoreCase(this.info.get(Info.NO_LOCKS));
    this.name = "win" + id;
    this.targetWindow = new TargetWindow(rp, memory, dynamic, mapping, dispUnit, noLocks, pscw, this::name);
    this.peers = new TargetWindow[rp.size()];
    this.passiveSync = new PassiveTargetSync(rp, id, passive, tracker, this::localPeer, this::reportErrors,
        this::name);
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

  int id() {
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
  TargetWindow targetWindow() {
    return targetWindow;
  }

  /** The context id of window {@code id}'s own collective traffic (creation, fence, free). */
  static int collectiveContext(int id) {
    return WINDOW_CTX_BASE + id;
  }

  /** Every rank's window size and displacement unit, agreed at creation. */
  void setAttributes(long[] sizes, int[] units) {
    this.sizes = sizes;
    this.units = units;
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
      throw RmaException.of(ErrorClass.RMA_FLAVOR, "window %s is dynamic: its memory is what was attached", name);
    }
    return memory.store();
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
    return sizes[r];
  }

  @Override
  public int dispUnit(int r) {
    checkRank(r, "dispUnit");
    return units[r];
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
          ? "rank " + rank + " holds a passive-target epoch on window " + name : "")
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
    return name;
  }

  @Override
  public void setName(String name) {
    this.name = name == null ? "" : name;
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
    if (freed || freeing) {
      throw RmaException.of(ErrorClass.WIN, "%s on window %s at rank %d after free", call, name, rank);
    }
  }

  private void checkRank(int r, String call) {
    if (r < 0 || r >= rp.size()) {
      throw RmaException.of(ErrorClass.RANK, "%s: target rank %d is not in [0, %d)", call, r, rp.size());
    }
  }

  /** The synchronization mode an operation to {@code target} is issued under; RMA_SYNC if none. */
  private int syncFor(int target, String call) {
    Group access = pscw.accessGroup();
    if (access != null) {
      if (!access.contains(target)) {
        throw RmaException.of(ErrorClass.RMA_SYNC, "%s to rank %d, which is not in the start group %s", call, target,
            access);
      }
      return SYNC_PSCW;
    }
    if (passive.holds(target)) {
      return SYNC_PASSIVE;
    }
    if (fenceOpen) {
      return SYNC_FENCE;
    }
    throw RmaException.of(ErrorClass.RMA_SYNC, "%s to rank %d at rank %d outside an access epoch: call fence, start, "
        + "lock or lockAll on window %s first", call, target, rank, name);
  }

  /** Origin-side range check against the target's announced size (the target checks again). */
  private void checkTargetRange(int target, long disp, TypeMap tt, int count, String call) {
    if (flavor == Flavor.DYNAMIC) {
      return; // attached regions are known only at the target, which checks
    }
    long start;
    try {
      start = Math.multiplyExact(disp, (long) units[target]);
    } catch (ArithmeticException e) {
      start = -1;
    }
    if (start < 0) {
      throw RmaException.of(ErrorClass.RMA_RANGE, "%s target disp=%d x unit %d is outside window size %d at rank %d",
          call, disp, units[target], sizes[target], target);
    }
    if (!DatatypeEngine.fits(tt, count, start, sizes[target])) {
      DatatypeEngine.checkAccess(tt, count, start, sizes[target], String.format("%s target range [disp=%d, unit %d) "
          + "of window size %d at rank %d", call, disp, units[target], sizes[target], target), ErrorClass.RMA_RANGE);
    }
  }

  /** What an issued operation is waiting for: the reply of the frame it sent, if it sent one. */
  private static final class Issued {
    Future<?> sent;
  }

  /**
   * Runs an RMA operation on the rank's context. Its epoch is decided, and it is counted in its
   * target's completion count, now, when it is issued (issue-time accounting): an operation issued
   * while {@code start} still waits for posts, or while its lock is not granted yet, is held until
   * then, and every flush, unlock, complete or fence called in between waits for it. It counts as
   * complete once its own future has completed and, if it sent a frame, the target has answered.
   * {@code body} gets the synchronization mode the operation was issued under.
   */
  private <T> Future<T> op(int targetRank, String call, IntFunction<Future<T>> body) {
    return call(() -> {
      if (targetRank < 0 || targetRank >= rp.size()) {
        return body.apply(0); // PROC_NULL (no-op) or a bad rank (the body fails): nothing to count
      }
      checkLive(call);
      int issuedIn = syncFor(targetRank, call);
      long seq = tracker.issue(targetRank);
      Future<?> gate = null;
      if (pscw.accessGroup() != null) {
        gate = pscw.startedOrFail("operation");
      } else if (passive.holds(targetRank)) {
        gate = passive.granted(targetRank);
      }
      if (gate == null || gate.succeeded()) {
        // the common case, allocation-free when the body completes at once (same-JVM fast path)
        issuing = seq;
        Future<T> result = runNow(body, issuedIn);
        Future<?> sent = takeLastSent();
        if (result.isComplete() && (sent == null || sent.isComplete())) {
          tracker.complete(targetRank, seq, sent == null ? null : sent.cause());
        } else {
          result.onComplete(ar -> completeIssued(targetRank, seq, sent));
        }
        return result;
      }
      Issued issued = new Issued();
      Future<T> result = gate.transform(ar -> ar.failed() ? rp.context().failedFuture(ar.cause())
          : comm.call(errors, () -> {
            issuing = seq;
            Future<T> f = runNow(body, issuedIn);
            issued.sent = takeLastSent();
            return f;
          }));
      result.onComplete(ar -> completeIssued(targetRank, seq, issued.sent));
      return result;
    });
  }

  /** The reply future of the frame the body just run sent, or {@code null}; cleared. */
  private Future<?> takeLastSent() {
    Future<?> sent = lastSent;
    lastSent = null;
    return sent;
  }

  /**
   * Issued operation {@code seq}'s future completed: it is complete once the frame it sent (if
   * any) is answered.
   */
  private void completeIssued(int targetRank, long seq, Future<?> sent) {
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
  private <T> Future<T> runNow(IntFunction<Future<T>> body, int issuedIn) {
    lastSent = null;
    try {
      return body.apply(issuedIn);
    } catch (RmaException e) {
      return rp.context().failedFuture(e);
    } catch (RuntimeException e) {
      return rp.context().failedFuture(new RmaException(ErrorClass.INTERN, "internal error at rank " + rank + ": "
          + e, e));
    }
  }

  /**
   * Sends operation frame {@code f}. A same-JVM target applies it right here, on this thread, when
   * its window is free and nothing waits before it (no hop to its event loop and back); otherwise,
   * as for a target in another JVM, the frame is queued there and answered by a reply.
   */
  private Future<Frame> send(int targetRank, Frame f, boolean local) {
    if (local && rp.failure() == null) {
      TargetWindow peer = peer(targetRank);
      if (peer != null) {
        Object r = peer.tryApplyNow(f);
        if (r == TargetWindow.APPLIED) {
          return rp.context().succeededFuture();
        }
        if (r instanceof byte[]) {
          Frame reply = Frame.of(FrameType.REPLY, targetRank, id);
          reply.payload = (byte[]) r;
          return rp.context().succeededFuture(reply);
        }
        if (r != null) {
          return rp.context().failedFuture((RmaException) r);
        }
      }
    }
    return rp.request(targetRank, f == scratch ? f.copy() : f);
  }

  /** The same-JVM target window of rank {@code r} while the job runs, else {@code null}. */
  private TargetWindow localPeer(int r) {
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

  private Frame frame(byte type, int target, int issuedIn, long disp, int count, TypeMap tt, boolean local) {
    // a same-JVM operation is built in the scratch frame: applied at once it is never kept, and
    // {@link #send} copies it when it has to wait at the target
    Frame f = local ? scratch.reset(type, rank, id) : Frame.of(type, rank, id);
    int sync = issuedIn;
    f.tag = sync;
    f.epoch = sync == SYNC_PASSIVE ? 0 : fenceEpoch;
    f.disp = disp;
    f.count = count;
    if (local) {
      f.localType = tt;
    } else {
      f.typeBytes = tt.wireBytes();
    }
    observer.opIssued(id, type, target, tt.size() * (long) count, issuing);
    return f;
  }

  private static void unpackReply(Frame reply, MemoryRef m, TypeMap t, int count) {
    long expected = t.size() * (long) count;
    long got = reply.payload == null ? 0 : reply.payload.length;
    if (got != expected) {
      throw RmaException.of(ErrorClass.OTHER, "reply carries %d bytes, expected %d", got, expected);
    }
    if (got > 0) {
      DatatypeEngine.unpack(reply.payload, m.base(), m.address(), t, count);
    }
  }

  // ------------------------------------------------------------------ operations

  /** A checked origin buffer of an operation: its type map, memory and count. */
  private record OriginBuffer(TypeMap type, MemoryRef mem, int count) {

    static OriginBuffer of(Buf buf, int offset, int count, Datatype type, String what) {
      TypeMap t = CommImpl.typeMap(type, what);
      return new OriginBuffer(t, CommImpl.buffer(buf, offset, count, t, what), count);
    }

    /** Same JVM: the target reads it in place; otherwise its packed bytes travel as the payload. */
    void attachTo(Frame f, boolean local) {
      if (local) {
        f.localBase = mem.base();
        f.localAddress = mem.address();
        f.localOriginType = type;
        f.localOriginCount = count;
      } else {
        f.payload = DatatypeEngine.pack(mem.base(), mem.address(), type, count);
      }
    }

    /** Same JVM: the target writes it in place; otherwise the reply's payload is unpacked into it. */
    Future<Void> receive(Future<Frame> reply, boolean local) {
      return local ? reply.mapEmpty() : reply.map(r -> {
        unpackReply(r, mem, type, count);
        return null;
      });
    }
  }

  /**
   * Notes a sent operation for {@link #op}: its completion (the target's reply) completes the
   * issued operation, and its failure is kept for the synchronization that completes it.
   * Operations of fence and PSCW epochs are also counted for the epoch ({@code complete}
   * announces the counts).
   */
  private <T> Future<T> track(int targetRank, int sync, Future<T> op) {
    if (sync != SYNC_PASSIVE) {
      tracker.sentInEpoch(targetRank);
    }
    lastSent = op;
    return op;
  }

  @Override
  public Future<Void> put(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return write("put", FrameType.PUT, Op.REPLACE, origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType);
  }

  @Override
  public Future<Void> accumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      int targetRank, long targetDisp, int targetCount, Datatype targetType, Op op) {
    return write("accumulate", FrameType.ACC, op, origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType);
  }

  /**
   * put and accumulate: the future completes at origin completion — at once when the data was
   * packed for the wire, when the target has copied it on the same-JVM path.
   */
  private Future<Void> write(String call, byte type, Op op, Buf origin, int originOffset, int originCount,
      Datatype originType, int targetRank, long targetDisp, int targetCount, Datatype targetType) {
    return op(targetRank, call, issuedIn -> {
      checkLive(call);
      boolean accumulate = type == FrameType.ACC;
      TypeMap tt = CommImpl.typeMap(targetType, accumulate ? "accumulate target" : "put target");
      OriginBuffer o = OriginBuffer.of(origin, originOffset, originCount, originType,
          accumulate ? "accumulate origin" : "put origin");
      if (accumulate) {
        checkOp(op, tt);
      }
      if (targetRank == Comm.PROC_NULL) {
        return rp.context().succeededFuture();
      }
      checkRank(targetRank, call);
      int sync = issuedIn;
      DatatypeEngine.checkSignatures(o.type(), originCount, tt, targetCount, accumulate);
      checkTargetRange(targetRank, targetDisp, tt, targetCount, call);
      boolean local = rp.isLocal(targetRank);
      Frame f = frame(type, targetRank, sync, targetDisp, targetCount, tt, local);
      f.code = op.code();
      o.attachTo(f, local);
      Future<Void> done = track(targetRank, sync, send(targetRank, f, local).mapEmpty());
      return local ? done : rp.context().succeededFuture();
    });
  }

  @Override
  public Future<Void> get(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return op(targetRank, "get", issuedIn -> {
      checkLive("get");
      TypeMap tt = CommImpl.typeMap(targetType, "get target");
      OriginBuffer o = OriginBuffer.of(origin, originOffset, originCount, originType, "get origin");
      if (targetRank == Comm.PROC_NULL) {
        return rp.context().succeededFuture();
      }
      checkRank(targetRank, "get");
      int sync = issuedIn;
      DatatypeEngine.checkSignatures(tt, targetCount, o.type(), originCount, false);
      checkTargetRange(targetRank, targetDisp, tt, targetCount, "get");
      boolean local = rp.isLocal(targetRank);
      Frame f = frame(FrameType.GET, targetRank, sync, targetDisp, targetCount, tt, local);
      if (local) {
        o.attachTo(f, true);
      }
      return track(targetRank, sync, o.receive(send(targetRank, f, local), local));
    });
  }

  private static void checkOp(Op op, TypeMap t) {
    if (op == null) {
      throw new RmaException(ErrorClass.OP, "op is null");
    }
    DatatypeEngine.checkOp(op, t);
  }

  @Override
  public Future<Void> getAccumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      Buf result, int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp,
      int targetCount, Datatype targetType, Op op) {
    return op(targetRank, "getAccumulate", issuedIn -> {
      checkLive("getAccumulate");
      TypeMap tt = CommImpl.typeMap(targetType, "getAccumulate target");
      checkOp(op, tt);
      OriginBuffer o = op == Op.NO_OP ? null
          : OriginBuffer.of(origin, originOffset, originCount, originType, "getAccumulate origin");
      OriginBuffer r = OriginBuffer.of(result, resultOffset, resultCount, resultType, "getAccumulate result");
      if (targetRank == Comm.PROC_NULL) {
        return rp.context().succeededFuture();
      }
      checkRank(targetRank, "getAccumulate");
      int sync = issuedIn;
      if (o != null) {
        DatatypeEngine.checkSignatures(o.type(), originCount, tt, targetCount, true);
      }
      DatatypeEngine.checkSignatures(tt, targetCount, r.type(), resultCount, true);
      checkTargetRange(targetRank, targetDisp, tt, targetCount, "getAccumulate");
      boolean local = rp.isLocal(targetRank);
      Frame f = frame(FrameType.GET_ACC, targetRank, sync, targetDisp, targetCount, tt, local);
      f.code = op.code();
      if (o != null) {
        o.attachTo(f, local);
      }
      if (local) {
        f.localBase2 = r.mem().base();
        f.localAddress2 = r.mem().address();
        f.localResultType = r.type();
        f.localResultCount = resultCount;
      }
      return track(targetRank, sync, r.receive(send(targetRank, f, local), local));
    });
  }

  @Override
  public Future<Void> fetchAndOp(Buf origin, int originOffset, Buf result, int resultOffset, Datatype type,
      int targetRank, long targetDisp, Op op) {
    if (type instanceof TypeMap && !((TypeMap) type).isPredefined()) {
      return rp.context().failedFuture(RmaException.of(ErrorClass.TYPE,
          "fetchAndOp takes a predefined datatype, not %s", ((TypeMap) type).name()));
    }
    return getAccumulate(origin, originOffset, 1, type, result, resultOffset, 1, type, targetRank, targetDisp, 1,
        type, op);
  }

  @Override
  public Future<Long> fetchAndOp(long value, int targetRank, long targetDisp, Op op) {
    long[] in = {value};
    long[] out = new long[1];
    return fetchAndOp(Buf.of(in), 0, Buf.of(out), 0, Datatype.LONG, targetRank, targetDisp, op).map(v -> out[0]);
  }

  @Override
  public Future<Void> compareAndSwap(Buf origin, int originOffset, Buf compare, int compareOffset,
      Buf result, int resultOffset, Datatype type, int targetRank, long targetDisp) {
    return op(targetRank, "compareAndSwap", issuedIn -> {
      checkLive("compareAndSwap");
      TypeMap t = CommImpl.typeMap(type, "compareAndSwap");
      DatatypeEngine.checkCompareAndSwapType(t);
      MemoryRef om = CommImpl.buffer(origin, originOffset, 1, t, "compareAndSwap origin");
      MemoryRef cm = CommImpl.buffer(compare, compareOffset, 1, t, "compareAndSwap compare");
      MemoryRef rm = CommImpl.buffer(result, resultOffset, 1, t, "compareAndSwap result");
      if (targetRank == Comm.PROC_NULL) {
        return rp.context().succeededFuture();
      }
      checkRank(targetRank, "compareAndSwap");
      int sync = issuedIn;
      checkTargetRange(targetRank, targetDisp, t, 1, "compareAndSwap");
      boolean local = rp.isLocal(targetRank);
      Frame f = frame(FrameType.CAS, targetRank, sync, targetDisp, 1, t, local);
      int size = (int) t.size();
      f.payload = new byte[2 * size];
      Memory.copy(om.base(), om.address(), f.payload, Memory.ARRAY_BYTE_BASE_OFFSET, size);
      Memory.copy(cm.base(), cm.address(), f.payload, Memory.ARRAY_BYTE_BASE_OFFSET + size, size);
      return track(targetRank, sync, new OriginBuffer(t, rm, 1).receive(send(targetRank, f, local), false));
    });
  }

  @Override
  public Future<Long> compareAndSwap(long compare, long value, int targetRank, long targetDisp) {
    long[] in = {value};
    long[] cmp = {compare};
    long[] out = new long[1];
    return compareAndSwap(Buf.of(in), 0, Buf.of(cmp), 0, Buf.of(out), 0, Datatype.LONG, targetRank, targetDisp).map(v -> out[0]);
  }

  // ------------------------------------------------------------------ fence

  @Override
  public Future<Void> fence(Mode... assertions) {
    return call(() -> {
      checkLive("fence");
      int bits = Mode.bits(assertions);
      if (pscw.accessGroup() != null || exposure != null) {
        throw RmaException.of(ErrorClass.RMA_SYNC, "fence at rank %d inside a post/start epoch on window %s",
            rank, name);
      }
      checkNotPassive("fence");
      boolean noPrecede = (bits & Mode.NOPRECEDE.bit()) != 0;
      boolean noSucceed = (bits & Mode.NOSUCCEED.bit()) != 0;
      if (noPrecede && tracker.anyIssuedInEpoch()) {
        throw RmaException.of(ErrorClass.RMA_SYNC, "fence(NOPRECEDE) at rank %d, but operations were issued in the "
            + "epoch it closes", rank);
      }
      long[] issuedBefore = tracker.snapshot();
      // operations issued from now on, even before this fence completes, belong to the next epoch:
      // their targets hold them until their own fence has opened it
      fenceEpoch++;
      fenceOpen = !noSucceed;
      tracker.resetEpochCounts();
      Future<Void> closing = noPrecede ? rp.context().succeededFuture()
          : tracker.await(issuedBefore).compose(v -> coll.barrier());
      Future<Void> previous = lastFenceAdvance;
      Future<Void> advanced = rp.withTimeout(closing, "fence")
          .compose(v -> previous.transform(p -> targetWindow.advanceFence(!noSucceed)));
      lastFenceAdvance = advanced;
      // NOPRECEDE: this fence completes no operation, so it has no error to report
      return observer.sync(id, noSucceed ? Sync.FENCE_END : Sync.FENCE, -1,
          noPrecede ? advanced : advanced.compose(v -> reportErrors(issuedBefore)));
    });
  }

  /**
   * After a synchronization: fails with the first error of the operations it completed, those
   * issued to each target {@code t} no later than {@code completed[t]}, unless an earlier
   * synchronization has reported it already (see {@link CompletionTracker#takeError}).
   */
  private Future<Void> reportErrors(long[] completed) {
    RmaException e = tracker.takeError(completed);
    return e == null ? rp.context().succeededFuture() : rp.context().failedFuture(e);
  }

  /** Leaving the fence mode for post/start or lock: allowed only if the fence epoch is empty. */
  private void leaveFenceMode(String call) {
    if (fenceOpen) {
      if (tracker.anyIssuedInEpoch()) {
        throw RmaException.of(ErrorClass.RMA_SYNC, "%s at rank %d while a fence epoch with operations is open: end it "
            + "with fence(NOSUCCEED) first", call, rank);
      }
      fenceOpen = false;
      targetWindow.closeFence();
    }
  }

  private void checkNotPassive(String call) {
    if (passive.isOpen()) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "%s at rank %d inside a passive-target (lock) epoch on window %s: "
          + "unlock first", call, rank, name);
    }
  }

  // ------------------------------------------------------------------ post/start/complete/wait

  @Override
  public Future<Void> post(Group group, Mode... assertions) {
    return call(() -> {
      checkLive("post");
      int bits = Mode.bits(assertions);
      if (group == null) {
        throw new RmaException(ErrorClass.GROUP, "post group is null");
      }
      Group members = windowRanks(group, "post");
      checkNotPassive("post");
      if (exposure != null) {
        throw RmaException.of(ErrorClass.RMA_SYNC, "post at rank %d while the exposure epoch to %s is still open "
            + "(call waitFor first)", rank, exposure);
      }
      pscw.checkMembers(members, "post");
      leaveFenceMode("post");
      exposure = members;
      // the exposure is open at this target before any origin learns of the post
      return observer.sync(id, Sync.POST, -1, targetWindow.post(members)).map(v -> {
        if ((bits & Mode.NOCHECK.bit()) == 0) {
          for (int m : members.ranks()) {
            rp.send(m, Frame.of(FrameType.POST, rank, id));
          }
        }
        return null;
      });
    });
  }

  @Override
  public Future<Void> start(Group group, Mode... assertions) {
    return call(() -> {
      checkLive("start");
      int bits = Mode.bits(assertions);
      if (group == null) {
        throw new RmaException(ErrorClass.GROUP, "start group is null");
      }
      Group members = windowRanks(group, "start");
      checkNotPassive("start");
      pscw.checkStart(members);
      leaveFenceMode("start");
      tracker.resetEpochCounts();
      return observer.sync(id, Sync.START, -1,
          rp.withTimeout(pscw.start(members, (bits & Mode.NOCHECK.bit()) != 0), "start (waiting for posts)"))
          .onFailure(e -> {
            if (e instanceof RmaException && ((RmaException) e).errorClass() == ErrorClass.TIMEOUT) {
              pscw.withdrawStart((RmaException) e); // the window stays usable
            }
          });
    });
  }

  @Override
  public Future<Void> complete() {
    return call(() -> {
      checkLive("complete");
      Future<Void> started = pscw.startedForComplete();
      long[] issuedBefore = tracker.snapshot();
      // every operation issued before complete (held until start matched or not) is done before
      // the targets learn how many to expect
      return observer.sync(id, Sync.COMPLETE, -1, rp.withTimeout(started.compose(v -> tracker.await(issuedBefore)),
          "complete")).compose(v -> {
        Group g = pscw.accessGroup();
        for (int m : g.ranks()) {
          Frame f = Frame.of(FrameType.COMPLETE, rank, id);
          f.count = tracker.issuedInEpoch(m);
          rp.send(m, f);
        }
        pscw.endAccess();
        tracker.resetEpochCounts();
        return reportErrors(issuedBefore);
      });
    });
  }

  @Override
  public Future<Void> waitFor() {
    return call(() -> {
      checkLive("waitFor");
      Group group = exposure;
      if (group == null) {
        throw RmaException.of(ErrorClass.RMA_SYNC, "waitFor at rank %d without a matching post", rank);
      }
      exposure = null;
      return observer.sync(id, Sync.WAIT, -1, rp.withTimeout(targetWindow.waitFor(),
          "waitFor (waiting for complete from " + group + ")"));
    });
  }

  @Override
  public Future<Boolean> test() {
    return call(() -> {
      checkLive("test");
      if (exposure == null) {
        throw RmaException.of(ErrorClass.RMA_SYNC, "test at rank %d without a matching post", rank);
      }
      return targetWindow.test().map(done -> {
        if (done) {
          exposure = null;
        }
        return done;
      });
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
      throw RmaException.of(ErrorClass.RMA_SYNC, "%s on window %s, created with info no_locks=true", call, name);
    }
    if (pscw.accessGroup() != null || exposure != null) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "%s at rank %d during a post/start epoch on window %s", call, rank,
          name);
    }
    leaveFenceMode(call);
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
    return call(() -> {
      checkLive("flush");
      if (targetRank == Comm.PROC_NULL) {
        return rp.context().succeededFuture();
      }
      checkRank(targetRank, "flush");
      return observer.sync(id, Sync.FLUSH, targetRank, passiveSync.flush(targetRank));
    });
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
          + "(Win.createDynamic) take attached memory", call, name, flavor);
    }
    return dynamic;
  }

  @Override
  public Future<SharedSegment> sharedQuery(int targetRank) {
    return call(() -> {
      checkLive("sharedQuery");
      if (mapping == null) {
        throw RmaException.of(ErrorClass.RMA_FLAVOR, "sharedQuery on window %s of flavor %s: only windows from "
            + "Win.allocateShared have shared segments", name, flavor);
      }
      checkRank(targetRank, "sharedQuery");
      long offset = SharedLayout.offset(sizes, targetRank);
      return rp.context().succeededFuture(new SharedSegment(mapping.segment(offset, sizes[targetRank]),
          sizes[targetRank], units[targetRank]));
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
  void onFrame(Frame f) {
    int src = rp.rankOf(f.src);
    if (src < 0) {
      throw new RmaException(ErrorClass.RANK, "job rank " + f.src + " is not a member of the communicator of window "
          + id + " at job rank " + registry.process().rank(), false);
    }
    f.src = src;
    targetWindow.onFrame(f);
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
            + "window %s", call, group, job[i], name);
      }
    }
    return Group.of(rank, ranks);
  }

  // ------------------------------------------------------------------ free

  @Override
  public Future<Void> free() {
    return call(() -> {
      checkLive("free");
      if (pscw.accessGroup() != null || exposure != null) {
        throw RmaException.of(ErrorClass.RMA_SYNC, "free of window %s at rank %d inside a post/start epoch "
            + "(complete and waitFor first)", name, rank);
      }
      checkNotPassive("free");
      freeing = true;
      return rp.withTimeout(tracker.flushAll().compose(v -> coll.barrier()), "free").compose(v -> releaseNow());
    });
  }

  /**
   * Leaves the registry at once and releases the memory through the target's owner (free, rank
   * shutdown): the future completes when no operation can touch the memory any more.
   */
  Future<Void> releaseNow() {
    if (!freed) {
      observer.windowFreed(id);
    }
    freed = true;
    registry.unregister(this);
    coll.close();
    return targetWindow.release();
  }

  /** The job failed: fail pending synchronizations. */
  void fail(RmaException cause) {
    targetWindow.fail(cause);
  }

  @Override
  public String toString() {
    return "Win[" + name + " id=" + id + " rank=" + rank + " size=" + targetWindow.size() + " unit=" + dispUnit
        + "]";
  }
}
