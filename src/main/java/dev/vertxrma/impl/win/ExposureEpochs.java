package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.ops.OperationFrames;
import dev.vertxrma.impl.ops.RmaOperation;
import dev.vertxrma.impl.sync.FenceEpoch;
import dev.vertxrma.impl.sync.PscwEpoch;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.PendingReplies;
import io.vertx.core.Future;
import java.util.function.Supplier;

/**
 * The target side of fence and post/start/complete/wait on one window: its fence epoch and the
 * operations held there for a later one ({@link FenceEpoch}), the origins' requests waiting for a
 * fence epoch to open ({@link EpochOpenRequests}), and the exposure side of post/wait/test with
 * the posts and completes peers of other JVMs write into the control block ({@link PscwPages}).
 * Part of its {@link TargetWindow} and owned like the rest of its state: everything here runs as
 * that window's single owner ({@link SingleOwner}), through the window's
 * {@link TargetWindow#owned(Supplier)} or its owner's queue, or is called by the window as the
 * owner (so noted).
 */
final class ExposureEpochs {

  private final TargetWindow window;
  private final SingleOwner owner;
  private final WindowControl control;
  private final int rank;
  private final Supplier<String> name;
  private final FenceEpoch<RmaOperation> fence = new FenceEpoch<>(op -> op.fenceEpoch, op -> op.origin,
      OperationFrames::heldBytes);
  /** Its exposure side is owned here; its access side belongs to the origin on the home context. */
  private final PscwEpoch pscw;
  private final TargetReplies replies;
  /** Origins of other JVMs waiting to learn that a fence epoch is open here (their credit, {@link FenceCredit}). */
  private final EpochOpenRequests epochOpen;
  /** Posts and completes peers of other JVMs write into the control block, or {@code null}. */
  private PscwPages pages;
  /** {@link #tryAsOwnerNow}'s body as a field: a task run at once allocates no lambda. */
  private final java.util.function.Predicate<Runnable> runUnlessFreed;

  /**
   * The epochs of {@code window}, whose single owner is {@code owner}, whose published state is
   * in {@code control} and whose answers go through {@code replies}; {@code origins} is the
   * number of the window's ranks.
   */
  ExposureEpochs(TargetWindow window, SingleOwner owner, WindowControl control, TargetReplies replies, PscwEpoch pscw,
      int origins, int rank, Supplier<String> name) {
    this.window = window;
    this.owner = owner;
    this.control = control;
    this.replies = replies;
    this.pscw = pscw;
    this.rank = rank;
    this.name = name;
    this.epochOpen = new EpochOpenRequests(origins, replies, name);
    this.runUnlessFreed = task -> {
      if (window.isFreed()) {
        return false;
      }
      task.run();
      return true;
    };
  }

  /**
   * A synchronization frame of these epochs ({@link FrameType#POST}, {@link FrameType#POST_WITHDRAWN},
   * {@link FrameType#COMPLETE}, {@link FrameType#EPOCH_OPEN}); false for any other type. As the
   * owner; throws the {@link RmaException} the frame is refused with.
   */
  boolean onSyncFrame(Frame f) {
    switch (f.type) {
      case FrameType.POST:
        pscw.onPost(f.src);
        return true;
      case FrameType.POST_WITHDRAWN:
        readPagesOwned(); // a post written into the block before it was withdrawn counts first
        pscw.onPostWithdrawn(f.src);
        return true;
      case FrameType.COMPLETE:
        pscw.onComplete(f.src, SyncFrames.completedCount(f));
        return true;
      case FrameType.EPOCH_OPEN:
        if (window.isFreed()) {
          throw TargetWindow.refused(ErrorClass.WIN, "window %s at rank %d was freed", name.get(), rank);
        }
        epochOpen.onRequest(f, fence.epoch());
        return true;
      default:
        return false;
    }
  }

  /**
   * Whether fence-synchronized operation {@code op} belongs to the open fence epoch (else to a
   * later one). As the owner.
   */
  boolean fenceAdmits(RmaOperation op) {
    return fence.admits(op, rank);
  }

  /** Holds operation {@code op} for the later fence epoch it belongs to. As the owner. */
  void hold(RmaOperation op) {
    fence.hold(op);
  }

  /**
   * The target side of a fence: enters the next epoch (open unless NOSUCCEED) and applies the
   * operations held for it, or refuses them if the epoch is not open (mismatched fences).
   */
  Future<Void> advanceFence(boolean openNext) {
    return window.owned(() -> {
      fence.advance(openNext, op -> {
        try {
          replies.answer(op, window.applyAdmitted(op));
        } catch (RmaException e) {
          replies.answerError(op, e.errorClass(), PendingReplies.messageOf(e));
        }
      }, held -> replies.answerError(held, ErrorClass.RMA_SYNC, String.format(
          "operation from rank %d belongs to fence epoch %d, which rank %d closed with NOSUCCEED (mismatched "
          + "fences)", held.origin, held.fenceEpoch, rank)));
      control.setFence(fence.epoch(), fence.isOpen());
      epochOpen.opened(fence.epoch());
      return null;
    });
  }

  /** Leaves the fence mode (another synchronization mode begins). */
  void closeFence() {
    owner.execute(fence::close);
  }

  /** The exposure side of post: opens the window to {@code group}; RMA_SYNC while an exposure is open. */
  Future<Void> post(Group group) {
    return window.owned(() -> {
      pscw.post(group);
      control.expose(group.ranks());
      return null;
    });
  }

  /** Reads the posts and completes written into the control block through {@code pages} from now on. */
  void usePages(PscwPages pages) {
    this.pages = pages;
  }

  /**
   * Runs {@code task} as the owner now if the state is free and nothing is queued (never queues
   * it), unless the window is freed here; true if it ran ({@link PscwPages}' way in).
   */
  boolean tryAsOwnerNow(Runnable task) {
    return owner.tryRun(runUnlessFreed, task);
  }

  /** Runs {@code task} as the owner, unless the window is freed here (then its block may be unmapped). */
  void asOwnerWhileLive(Runnable task) {
    owner.execute(() -> {
      if (!window.isFreed()) {
        task.run();
      }
    });
  }

  /** Reads the posts and completes written into the control block: now if the state is free, else once it is. */
  void readPages() {
    owner.execute(this::readPagesOwned);
  }

  private void readPagesOwned() {
    if (pages != null && !window.isFreed()) {
      pages.readOwned();
    }
  }

  /** The exposure side of wait: completes when every member of the post group has completed, then ends it. */
  Future<Void> waitFor() {
    return window.owned(() -> {
      readPagesOwned();
      return pscw.waitFor();
    }).compose(done -> done).compose(v -> window.owned(() -> {
      pscw.endExposure();
      control.endExposure();
      return null;
    }));
  }

  /**
   * Closes the exposure epoch whose waitFor timed out: {@code waitFor}'s own future fails with
   * {@code cause}, a later post is accepted, and a COMPLETE or an operation that still comes
   * from a member of the withdrawn group is refused with RMA_SYNC.
   */
  void withdrawExposure(RmaException cause) {
    owner.execute(() -> {
      pscw.withdrawExposure(cause);
      control.endExposure();
    });
  }

  /** MPI_Win_test. */
  Future<Boolean> test() {
    return window.owned(() -> {
      readPagesOwned();
      boolean done = pscw.test();
      if (done) {
        control.endExposure();
      }
      return done;
    });
  }

  /**
   * The fence of origin {@code src} (a rank of this JVM) timed out: the operations it sent for a
   * later fence epoch and that wait here fail with {@code cause} and are dropped, so that nothing
   * reads or writes the origin's buffers (which it reaches in place) after the future completes.
   */
  Future<Void> withdrawHeld(int src, RmaException cause) {
    return window.owned(() -> {
      for (RmaOperation op : fence.withdrawFrom(src)) {
        replies.answerError(op, cause.errorClass(), "withdrawn at rank " + rank + " on window " + name.get() + ": "
            + cause.getMessage());
      }
      return null;
    });
  }

  /** Operations held here for a later fence epoch (tests). */
  Future<Integer> heldCount() {
    return window.owned(fence::heldCount);
  }

  /**
   * {bytes of the operations held here for a later fence epoch now, the most held at once so far,
   * epoch-open requests waiting} ({@link OperationFrames#heldBytes}; tests).
   */
  Future<long[]> heldBytes() {
    return window.owned(() -> new long[] {fence.heldBytes(), fence.mostHeldBytes(), epochOpen.waitingCount()});
  }

  /**
   * Origin {@code r} died while the job goes on (ULFM): a wait for its complete or a start for its
   * post fails with {@code cause}, and its epoch-open request is dropped. As the owner.
   */
  void originDied(int r, RmaException cause) {
    pscw.memberDied(r, cause);
    epochOpen.originDied(r);
  }

  /**
   * The owner closed: the post/start/wait epochs' pending futures and the operations held for a
   * later fence epoch fail with {@code cause}, and so do the epoch-open requests. As the owner.
   */
  void ownerClosed(RmaException cause) {
    pscw.fail(cause);
    String why = "window " + name.get() + " at rank " + rank + " can no longer apply it: "
        + PendingReplies.messageOf(cause);
    for (RmaOperation op : fence.takeAll()) {
      replies.answerError(op, cause.errorClass(), why);
    }
    epochOpen.refuseAll(cause.errorClass(), why);
  }

  /** Fails pending synchronizations (the job failed); the post/start/wait ones also if the owner closes first. */
  void fail(RmaException cause) {
    owner.execute(new SingleOwner.Abandonable() {
      @Override
      public void run() {
        pscw.fail(cause);
        epochOpen.refuseAll(cause.errorClass(), PendingReplies.messageOf(cause));
      }

      @Override
      public void abandon(RmaException closed) {
        pscw.fail(cause);
      }
    });
  }

  /**
   * The window is freed: the operations held for a later fence epoch and the epoch-open requests
   * fail with WIN. As the owner.
   */
  void windowFreed() {
    for (RmaOperation op : fence.takeAll()) {
      replies.answerError(op, ErrorClass.WIN, "window " + name.get() + " at rank " + rank
          + " was freed before the operation's epoch");
    }
    epochOpen.refuseAll(ErrorClass.WIN, "window " + name.get() + " at rank " + rank + " was freed before the fence "
        + "epoch opened");
  }
}
