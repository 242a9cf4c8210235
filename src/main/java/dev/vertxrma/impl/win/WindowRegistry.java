package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.coll.AgreedIds;
import dev.vertxrma.impl.runtime.RankProcess;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The windows of one rank, by id: dispatches RMA and synchronization frames to their window,
 * hands out window ids (agreed by the ranks of the window's communicator, so an id names one
 * window at each of its members, whatever communicators the rank's windows are over), and
 * releases windows left unfreed when the rank shuts down.
 */
final class WindowRegistry {

  private static final System.Logger LOG = System.getLogger(WindowRegistry.class.getName());
  private static final byte[] FRAME_TYPES = {FrameType.PUT, FrameType.GET, FrameType.ACC, FrameType.GET_ACC,
      FrameType.CAS, FrameType.POST, FrameType.COMPLETE, FrameType.LOCK, FrameType.UNLOCK, FrameType.LOCK_CANCEL,
      FrameType.ACK_REQ, FrameType.OP_FAILED, FrameType.POST_WITHDRAWN, FrameType.PAGE_WAKE,
      FrameType.EPOCH_OPEN};

  private final RankProcess process;
  /** Read by origin threads delivering same-JVM operations inline, hence concurrent. */
  private final Map<Integer, RegisteredWindow> windows = new java.util.concurrent.ConcurrentHashMap<>();
  /** Window ids: agreed, from 1; a window's own traffic uses context 2^20 + id. */
  private final AgreedIds ids;

  private WindowRegistry(RankProcess process) {
    this.process = process;
    this.ids = new AgreedIds(process.context(), 1, 1, Integer.MAX_VALUE - (1 << 20), "window ids");
    for (byte t : FRAME_TYPES) {
      process.handle(t, this::onFrame);
    }
    process.onFailure(cause -> new ArrayList<>(windows.values()).forEach(w -> w.fail(cause)));
    process.onPeersFailed((ranks, cause) -> new ArrayList<>(windows.values()).forEach(w -> w.peersFailed(ranks, cause)));
    process.onRevocation(() -> new ArrayList<>(windows.values()).forEach(RegisteredWindow::recheck));
    process.onClose(this::releaseAll);
    process.onFinalizeCheck(this::unfreed);
  }

  /** The registry of a rank, installed on first use. */
  static WindowRegistry of(RankProcess process) {
    return process.service(WindowRegistry.class, WindowRegistry::new);
  }

  RankProcess process() {
    return process;
  }

  /** The window ids of this rank: each creation proposes the next free one; the ranks agree on the largest. */
  AgreedIds ids() {
    return ids;
  }

  void register(RegisteredWindow w) {
    windows.put(w.id(), w);
  }

  void unregister(RegisteredWindow w) {
    windows.remove(w.id());
  }

  /**
   * The target window of window {@code id} at rank {@code r} of this Vert.x instance (the
   * same-JVM fast path), or {@code null} if that rank is elsewhere or has no such window.
   */
  TargetWindow peer(int r, int id) {
    RankProcess p = process.job().localRank(r);
    WindowRegistry peerRegistry = p == null ? null : p.existingService(WindowRegistry.class);
    RegisteredWindow w = peerRegistry == null ? null : peerRegistry.windows.get(id);
    return w == null ? null : w.targetWindow();
  }

  private void onFrame(Frame f) {
    RegisteredWindow w = windows.get(f.ctx);
    if (w == null && f.type == FrameType.PAGE_WAKE) {
      return; // a wake that crossed the window's free: nothing waits any more
    }
    if (w == null) {
      // a frame from the network: no formatter, no stack trace (junk can come in floods)
      throw new RmaException(ErrorClass.WIN, "rank " + process.rank() + " has no window " + f.ctx
          + " (never created here, or already freed)", false);
    }
    w.onFrame(f);
  }

  /** The windows this rank created and has not freed, described for a finalize check; {@code null} if none. */
  private String unfreed() {
    if (windows.isEmpty()) {
      return null;
    }
    List<RegisteredWindow> left = new ArrayList<>(windows.values());
    left.sort(java.util.Comparator.comparingInt(RegisteredWindow::id));
    StringBuilder sb = new StringBuilder().append(left.size()).append(left.size() == 1 ? " window" : " windows")
        .append(" not freed:");
    for (RegisteredWindow w : left) {
      sb.append(' ').append('\'').append(w.name()).append('\'').append(" (id ").append(w.id()).append(", ")
          .append(w.flavor()).append(" flavor)");
    }
    return sb.toString();
  }

  private void releaseAll() {
    if (!windows.isEmpty() && process.failure() == null) {
      LOG.log(System.Logger.Level.WARNING, "rank " + process.rank() + " ended with " + windows.size() + " window(s) not freed; releasing them");
    }
    for (RegisteredWindow w : new ArrayList<>(windows.values())) {
      w.releaseNow();
    }
    windows.clear();
  }
}
