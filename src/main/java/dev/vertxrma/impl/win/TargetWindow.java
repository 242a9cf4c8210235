package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.LockType;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.DynamicMemory;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.impl.memory.TargetMemory;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.ops.OperationFrames;
import dev.vertxrma.impl.ops.RmaOperation;
import dev.vertxrma.impl.ops.RmaTarget;
import dev.vertxrma.impl.ops.TargetTypes;
import dev.vertxrma.impl.sync.PscwEpoch;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameCodec;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.InboundBudget;
import dev.vertxrma.impl.transport.PayloadSource;
import dev.vertxrma.impl.transport.PendingReplies;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The target side of one rank's window, a single-owner engine (see {@link SingleOwner}): the
 * admission and application of operations, its exposure state (fence epoch, held operations and
 * the post/wait exposure in its {@link ExposureEpochs}; the lock queue and the NOCHECK holders),
 * its region map and its memory's lifetime. Operations from same-JVM origins
 * are {@linkplain #tryApplyNow applied on the origin's thread} when the state is free; everything
 * else — frames from other JVMs, operations that found the state owned, the target rank's own
 * synchronization calls, attach, detach and free — is queued to the owner and answered after.
 * Nothing here ever blocks a thread.
 */
final class TargetWindow {

  private final Endpoint endpoint;
  private final SingleOwner owner;
  /** The owner word and the state origins of other JVMs read (fence epoch, locks held, freed). */
  private final WindowControl control;
  private final int rank;
  private final WindowMemory memory;
  /** Derived target datatypes decoded from other JVMs' operations (the owner's only). */
  private final TargetTypes types = new TargetTypes();
  private final DynamicMemory dynamic;
  private final TargetMemory target;
  private final SharedMapping mapping;
  private final int dispUnit;
  private final Supplier<String> name;
  /** Operations under post/start/complete/wait are checked against its exposure as they are applied. */
  private final PscwEpoch pscw;
  /** The target side of fence and post/start/complete/wait. */
  private final ExposureEpochs exposure;
  private final TargetLocks locks;
  private boolean freed;
  /** Replies to operations and synchronization requests, and the bulk acknowledgement of one-way operations. */
  private final TargetReplies replies;
  /** The window's notification counters (notified RMA); set once, at creation. */
  private WindowNotifications notifications;

  TargetWindow(Endpoint endpoint, WindowMemory memory, DynamicMemory dynamic, SharedMapping mapping, int dispUnit,
      boolean noLocks, PscwEpoch pscw, Supplier<String> name) {
    this(endpoint, memory, dynamic, mapping, dispUnit, noLocks, pscw, name,
        WindowControl.onHeap(endpoint.size()), false);
  }

  /**
   * A target window whose owner word and published state live in {@code control}: on the heap,
   * or in the window's host segment ({@code shared}) where origins of the host's other JVMs take
   * the word and read the state (the on-node path, {@link SegmentPeers}).
   */
  TargetWindow(Endpoint endpoint, WindowMemory memory, DynamicMemory dynamic, SharedMapping mapping, int dispUnit,
      boolean noLocks, PscwEpoch pscw, Supplier<String> name, WindowControl control, boolean shared) {
    this.endpoint = endpoint;
    this.control = control;
    int at = endpoint.rank();
    this.owner = new SingleOwner(endpoint.context(), control, shared, endpoint::failure,
        () -> "window " + name.get() + " at rank " + at, this::ownerClosed);
    this.rank = endpoint.rank();
    this.memory = memory;
    this.dynamic = dynamic;
    this.target = memory != null ? memory : dynamic;
    this.mapping = mapping;
    this.dispUnit = dispUnit;
    this.pscw = pscw;
    this.locks = new TargetLocks(rank, noLocks, name, control);
    this.name = name;
    this.replies = new TargetReplies(endpoint, owner, name);
    this.exposure = new ExposureEpochs(this, owner, control, replies, pscw, endpoint.size(), rank, name);
  }

  /** The target side of fence and post/start/complete/wait on this window. */
  ExposureEpochs exposure() {
    return exposure;
  }

  /** Whether the window is freed here. As the owner. */
  boolean isFreed() {
    return freed;
  }

  long size() {
    return target.size();
  }

  /** The derived target datatypes this window has decoded (tests). */
  TargetTypes types() {
    return types;
  }

  /** The window's own memory at this rank ({@code null} for a dynamic window): MPI_Win_shared_query of a same-JVM rank. */
  WindowMemory memory() {
    return memory;
  }

  /** The control block: owner word, published state, host barrier slot. */
  WindowControl control() {
    return control;
  }

  /** The owner word's holder ({@link dev.vertxrma.impl.memory.HolderMark}), 0 if free. Any thread. */
  long ownerWordHolder() {
    return control.holder();
  }

  /**
   * Takes the owner word back from {@code holder} if it still holds it, and lets the queued work
   * run: for the failure handling, once the ranks of the holder's process are declared dead while
   * that process may still exist (stopped, partitioned), which the target's own wait does not
   * take it back from. True if taken back. Any thread.
   */
  boolean reclaimOwnerWordFrom(long holder) {
    if (!control.reclaimFrom(holder)) {
      return false;
    }
    owner.wake();
    return true;
  }

  /**
   * The owner closed (the job failed while another process holds the word, or the word holds
   * garbage): what waits inside the state fails with {@code cause} — the post/start/wait epochs'
   * pending futures, the operations held for a later fence epoch. As the owner.
   */
  private void ownerClosed(RmaException cause) {
    exposure.ownerClosed(cause);
  }

  // ------------------------------------------------------------------ operations

  /**
   * Same-JVM fast path, on the origin's thread: applies operation {@code op} (in place: its result
   * goes straight into the origin's buffer) now if the state is free, nothing is queued before it
   * and its epoch admits it. True if applied; false if it could not be (the caller then sends it,
   * and it is queued); throws the {@link RmaException} the origin's future fails with. The
   * operation is not kept.
   */
  boolean tryApplyNow(RmaOperation op) {
    return owner.tryRun(applyIfAdmitted, op);
  }

  private final java.util.function.Predicate<RmaOperation> applyIfAdmitted = op -> {
    if (!admits(op)) {
      return false;
    }
    applyAdmitted(op);
    return true;
  };

  /**
   * Same-JVM fast path of {@code lock}, on the origin's thread: grants {@code src}'s lock now if
   * the state is free, nothing is queued and the lock is compatible with those held. True if
   * granted; false if the caller must send the request (it is then queued, or its error reported).
   */
  boolean tryLockNow(int src, LockType type) {
    if (locks.noLocks() || !owner.tryAcquire()) {
      return false;
    }
    try {
      return !freed && locks.tryGrant(src, type);
    } finally {
      owner.release();
    }
  }

  /**
   * Same-JVM fast path of {@code unlock}: releases {@code src}'s lock now if the state is free and
   * nothing is queued (a waiting lock it lets through is answered once ownership is released).
   * False if the caller must send the request.
   */
  boolean tryUnlockNow(int src) {
    if (!owner.tryAcquire()) {
      return false;
    }
    try {
      return !freed && locks.tryRelease(src);
    } finally {
      owner.release();
    }
  }

  /**
   * Operations carrying at most this many bytes are applied on arrival ({@link #onFrame}); a larger
   * one on the rank's context, so that a bulk transfer holds the data plane's loop, which serves
   * every rank of the JVM, no longer than a small one.
   */
  static final int APPLY_ON_ARRIVAL_MAX = 64 * 1024;
  /** {@link #handle} as a field: a frame handled on arrival allocates no lambda. */
  private final java.util.function.Predicate<Frame> handleFrame = f -> {
    handle(f);
    return true;
  };

  /**
   * Any frame for this window (operation or synchronization), from any thread: queued to the
   * owner; an RMA operation of at most {@link #APPLY_ON_ARRIVAL_MAX} bytes is handled at once, on
   * this thread, when the state is free and nothing is queued before it (the data plane's thread:
   * no hop to the rank's context before the reply).
   */
  void onFrame(Frame f) {
    boolean onArrival = FrameType.isOperation(f.type) && f.payloadLength() <= APPLY_ON_ARRIVAL_MAX;
    if (!onArrival || !owner.tryRun(handleFrame, f)) {
      owner.execute(new QueuedFrame(f));
    }
  }

  /**
   * A frame queued to the owner: handled, or refused with the cause if the owner closes first. An
   * operation from another JVM counts against its connection's {@link InboundBudget} while it
   * waits here (its payload and a header's worth), so that a stalled owner stops the reading.
   */
  private final class QueuedFrame implements SingleOwner.Abandonable {
    private final Frame f;
    private final InboundBudget budget;
    private final long bytes;

    QueuedFrame(Frame f) {
      this.f = f;
      this.budget = FrameType.isOperation(f.type) ? f.inbound : null;
      this.bytes = f.payloadLength() + FrameCodec.HEADER_BYTES;
      if (budget != null) {
        budget.acquire(bytes);
      }
    }

    @Override
    public void run() {
      try {
        handle(f);
      } finally {
        left();
      }
    }

    /** It left the queue: its bytes no longer count. */
    private void left() {
      if (budget != null) {
        budget.release(bytes);
      }
    }

    @Override
    public void abandon(RmaException cause) {
      left();
      if (FrameType.isOperation(f.type)) {
        RmaOperation op = OperationFrames.fromFrame(f);
        if (op.answered()) {
          replies.answerError(op, cause.errorClass(), PendingReplies.messageOf(cause));
        } else {
          TargetReplies.release(op);
        }
      } else if (f.corr > 0) {
        owner.defer(() -> endpoint.replyError(f, cause));
      }
    }
  }

  private void handle(Frame f) {
    if (FrameType.isOperation(f.type)) {
      onOperation(OperationFrames.fromFrame(f));
      return;
    }
    try {
      if (exposure.onSyncFrame(f)) {
        return;
      }
      switch (f.type) {
        case FrameType.LOCK:
          locks.onRequest(f, replies::replyLater, (request, why) -> owner.defer(() -> endpoint.reply(request,
              ErrorClass.WIN, why)));
          return;
        case FrameType.UNLOCK:
          locks.release(f.src);
          replies.replyLater(f);
          return;
        case FrameType.LOCK_CANCEL:
          locks.cancel(f.src);
          return;
        case FrameType.ACK_REQ:
          replies.acks().onRequest(f);
          return;
        default:
          throw refused(ErrorClass.OTHER, "frame type %s is not for a window's target", FrameType.name(f.type));
      }
    } catch (RmaException e) {
      if (f.corr > 0) {
        owner.defer(() -> endpoint.replyError(f, e));
      } else {
        endpoint.rejectInput(f + " on window " + name.get() + ": " + e.getMessage());
      }
    } catch (RuntimeException e) {
      endpoint.rejectInput(f + " on window " + name.get(), e);
      if (f.corr > 0) {
        owner.defer(() -> endpoint.reply(f, ErrorClass.INTERN, "internal error at rank " + rank + ": " + e));
      }
    }
  }

  /** An operation that came as a frame (from another JVM, or queued here): applied, held for its fence epoch, or refused. */
  private void onOperation(RmaOperation op) {
    try {
      if (!admits(op)) {
        exposure.hold(op);
        return;
      }
      replies.answer(op, applyAdmitted(op));
    } catch (RmaException e) {
      if (op.answered()) {
        replies.answerError(op, e.errorClass(), PendingReplies.messageOf(e));
      } else {
        TargetReplies.release(op);
        endpoint.rejectInput(op + " on window " + name.get() + ": " + e.getMessage());
      }
    } catch (RuntimeException e) {
      endpoint.rejectInput(op + " on window " + name.get(), e);
      if (op.answered()) {
        replies.answerError(op, ErrorClass.INTERN, "internal error at rank " + rank + ": " + e);
      } else {
        TargetReplies.release(op);
      }
    }
  }

  /**
   * Whether the epoch rules let {@code op} be applied now: false if it belongs to a later fence
   * epoch (held, or sent the slow way); RMA_SYNC or WIN if it may never be.
   */
  private boolean admits(RmaOperation op) {
    if (freed) {
      throw refused(ErrorClass.WIN, "window %s at rank %d was freed", name.get(), rank);
    }
    switch (op.syncMode) {
      case RmaOperation.SYNC_FENCE:
        return exposure.fenceAdmits(op);
      case RmaOperation.SYNC_PSCW:
        return true; // checked against the exposure as it is applied
      case RmaOperation.SYNC_PASSIVE:
        // the origin's NOCHECK assertion is no permission: it must hold a lock the target knows of
        if (!locks.admits(op.origin)) {
          throw refused(ErrorClass.RMA_SYNC, "operation from rank %d reached rank %d without a lock on "
              + "window %s", op.origin, rank, name.get());
        }
        return true;
      default:
        throw refused(ErrorClass.RMA_SYNC, "operation from rank %d with unknown synchronization mode %d",
            op.origin, op.syncMode);
    }
  }

  /** The window's notification counters; once, at creation. */
  void useNotifications(WindowNotifications n) {
    this.notifications = n;
  }

  /**
   * Applies admitted operation {@code op} as the owner; returns the data its reply carries, or {@code null}. A
   * notified one is checked first and counted once its data is in place (or read).
   */
  PayloadSource applyAdmitted(RmaOperation op) {
    if (op.notifyIndex != RmaOperation.NO_NOTIFY) {
      notifications.checkTarget(op, rank); // before anything is decoded or touched
    }
    types.resolve(op); // a derived type from another JVM: decoded once per origin and wire form
    if (op.notifyIndex != RmaOperation.NO_NOTIFY) {
      PayloadSource out = RmaTarget.apply(op, target, dispUnit, rank);
      notifications.notified(op.notifyIndex);
      return out;
    }
    if (op.syncMode != RmaOperation.SYNC_PSCW) {
      return RmaTarget.apply(op, target, dispUnit, rank);
    }
    try {
      pscw.admit(op.origin);
      return RmaTarget.apply(op, target, dispUnit, rank);
    } finally {
      pscw.operationDone();
    }
  }

  /**
   * A refusal of an incoming request: it goes back to the origin (or into the rejected-input
   * count) as a class and a message, so no stack trace is captured — junk can come in floods.
   */
  static RmaException refused(ErrorClass errorClass, String format, Object... args) {
    return new RmaException(errorClass, String.format(format, args), false);
  }

  // ------------------------------------------------------------------ the target rank's own calls

  /**
   * Runs {@code body} as the owner (now if the state is free, else after what is queued); the
   * future completes on the rank's context once ownership is released, failed with the body's
   * {@link RmaException}. Called on the home context.
   */
  <T> Future<T> owned(Supplier<T> body) {
    return owned(body, false);
  }

  /**
   * {@link #owned(Supplier)}; if the owner closes before the body runs ({@link SingleOwner}: the
   * job failed while another process holds the word), the future fails with the cause, or, if
   * {@code local}, the body runs anyway as the home context's owner of the state (what only this
   * JVM reaches: giving back the window's memory here).
   */
  private <T> Future<T> owned(Supplier<T> body, boolean local) {
    Promise<T> p = endpoint.context().promise();
    owner.execute(new SingleOwner.Abandonable() {
      @Override
      public void run() {
        T v;
        try {
          v = body.get();
        } catch (RmaException e) {
          owner.defer(() -> p.tryFail(e));
          return;
        } catch (RuntimeException | Error e) {
          // a bug, not bad input: the caller's future fails with it (never waits for ever); an
          // Error then goes on to the rank's context, which fails the rank by name
          RmaException internal = new RmaException(ErrorClass.INTERN, "internal error at rank " + rank + " on window "
              + name.get() + ": " + e, e);
          owner.defer(() -> p.tryFail(internal));
          if (e instanceof Error) {
            throw (Error) e;
          }
          return;
        }
        owner.defer(() -> p.tryComplete(v));
      }

      @Override
      public void abandon(RmaException cause) {
        if (local) {
          run();
        } else {
          owner.defer(() -> p.tryFail(cause));
        }
      }
    });
    return p.future();
  }

  /**
   * Why MPI_Win_set_info cannot switch locks off at this target now (a rank holds or waits for a
   * lock here), or the empty string.
   */
  Future<String> noLocksRefusal(boolean value) {
    return owned(() -> locks.noLocksRefusal(value));
  }

  /** MPI_Win_set_info's {@code no_locks} at this target, once every rank agreed. */
  Future<Void> setNoLocks(boolean value) {
    return owned(() -> {
      locks.setNoLocks(value);
      return null;
    });
  }

  /** MPI_Win_attach through the owner: no operation runs while the region map changes. */
  Future<Void> attach(BytesStore<?, ?> store) {
    return owned(() -> {
      dynamic.attach(store, rank);
      return null;
    });
  }

  /**
   * MPI_Win_detach through the owner: when the future completes no operation can reach the store
   * any more (one running on another thread has finished), so the caller may release it.
   */
  Future<Void> detach(BytesStore<?, ?> store) {
    return owned(() -> {
      dynamic.detach(store, rank);
      return null;
    });
  }

  /**
   * Origin {@code r} died while the job goes on (ULFM): a lock it held or waited for is given up
   * at once, so the next request is granted, and a wait for its complete or a start for its post
   * fails with {@code cause}.
   */
  void originDied(int r, RmaException cause) {
    owner.execute(() -> {
      locks.originDied(r);
      exposure.originDied(r, cause);
    });
  }

  /** Fails pending synchronizations (the job failed); also if the owner closes first (as it then does). */
  void fail(RmaException cause) {
    owner.rankFailed(cause);
    exposure.fail(cause);
  }

  /**
   * Releases the memory through the owner: once the future completes no operation touches it; held
   * and later operations fail with WIN. If the owner closed (the job failed while another process
   * holds the word) the memory is still given back here: no thread of this JVM can reach it any more.
   */
  Future<Void> release() {
    return owned(this::releaseOwned, true).compose(free -> free == null ? Future.succeededFuture()
        : freeOffLoop(free));
  }

  /**
   * Releases a large memory on a worker thread: giving back a window the JVM touched costs about
   * 27 ms per GiB. If no worker takes it (Vert.x is closing), this thread does.
   */
  private Future<Void> freeOffLoop(Runnable free) {
    return endpoint.context().<Void>executeBlocking(() -> {
      free.run();
      return null;
    }, false).recover(e -> {
      free.run();
      return Future.succeededFuture();
    });
  }

  /** Marks the window freed; returns the release of a large memory, for a worker, or {@code null}. */
  private Runnable releaseOwned() {
    if (freed) {
      return null;
    }
    freed = true;
    control.setFreed();
    Runnable free = null;
    if (memory != null || mapping != null) {
      // no operation touches the memory from now on (each checks freed as the owner)
      free = () -> {
        if (memory != null) {
          memory.release();
        }
        if (mapping != null) {
          mapping.unmap();
        }
      };
      if (!(memory != null && memory.releaseMayBlock() || mapping != null && mapping.unmapMayBlock())) {
        free.run();
        free = null;
      }
    }
    if (dynamic != null) {
      dynamic.detachAll();
    }
    locks.clear();
    exposure.windowFreed();
    return free;
  }
}
