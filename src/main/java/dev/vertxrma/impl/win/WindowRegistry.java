package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.runtime.RankProcess;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The windows of one rank, by id: dispatches RMA and synchronization frames to their window,
 * hands out window ids (windows are created collectively in the same order everywhere, so the
 * n-th window has the same id at every rank), and releases windows left unfreed when the rank
 * shuts down.
 */
final class WindowRegistry {

  private static final System.Logger LOG = System.getLogger(WindowRegistry.class.getName());
  private static final byte[] FRAME_TYPES = {FrameType.PUT, FrameType.GET, FrameType.ACC, FrameType.GET_ACC,
      FrameType.CAS, FrameType.POST, FrameType.COMPLETE, FrameType.LOCK, FrameType.UNLOCK, FrameType.LOCK_CANCEL};

  private final RankProcess process;
  /** Read by origin threads delivering same-JVM operations inline, hence concurrent. */
  private final Map<Integer, WinImpl> windows = new java.util.concurrent.ConcurrentHashMap<>();
  private int lastId;

  private WindowRegistry(RankProcess process) {
    this.process = process;
    for (byte t : FRAME_TYPES) {
      process.handle(t, this::onFrame);
    }
    process.onFailure(cause -> new ArrayList<>(windows.values()).forEach(w -> w.fail(cause)));
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

  /** The id this rank would give its next window; the ranks agree on the largest proposal. */
  int proposeId() {
    return lastId + 1;
  }

  /** Takes {@code id} as the id of a window just agreed on: later proposals are above it. */
  void claimId(int id) {
    lastId = Math.max(lastId, id);
  }

  void register(WinImpl w) {
    windows.put(w.id(), w);
  }

  void unregister(WinImpl w) {
    windows.remove(w.id());
  }

  /**
   * The target window of window {@code id} at rank {@code r} of this Vert.x instance (the
   * same-JVM fast path), or {@code null} if that rank is elsewhere or has no such window.
   */
  TargetWindow peer(int r, int id) {
    RankProcess p = process.job().localRank(r);
    WindowRegistry peerRegistry = p == null ? null : p.existingService(WindowRegistry.class);
    WinImpl w = peerRegistry == null ? null : peerRegistry.windows.get(id);
    return w == null ? null : w.targetWindow();
  }

  private void onFrame(Frame f) {
    WinImpl w = windows.get(f.ctx);
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
    List<WinImpl> left = new ArrayList<>(windows.values());
    left.sort(java.util.Comparator.comparingInt(WinImpl::id));
    StringBuilder sb = new StringBuilder().append(left.size()).append(left.size() == 1 ? " window" : " windows")
        .append(" not freed:");
    for (WinImpl w : left) {
      sb.append(' ').append('\'').append(w.name()).append('\'').append(" (id ").append(w.id()).append(", ")
          .append(w.flavor()).append(" flavor)");
    }
    return sb.toString();
  }

  private void releaseAll() {
    if (!windows.isEmpty() && process.failure() == null) {
      LOG.log(System.Logger.Level.WARNING, "rank " + process.rank() + " ended with " + windows.size() + " window(s) not freed; releasing them");
    }
    for (WinImpl w : new ArrayList<>(windows.values())) {
      w.releaseNow();
    }
    windows.clear();
  }
}
