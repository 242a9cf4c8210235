package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win.Flavor;
import dev.vertxrma.Win.SharedSegment;
import dev.vertxrma.impl.memory.DynamicMemory;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;
import java.util.function.IntFunction;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The calls of one rank's window about its memory, each after checking that the window is live
 * and of the flavor the call needs (RMA_FLAVOR otherwise): the memory and its base address
 * (MPI_WIN_BASE; MPI_BOTTOM for a dynamic window), the memory of the ranks reachable by load
 * and store (MPI_Win_shared_query) and the memory attached to a dynamic window (MPI_Win_attach,
 * MPI_Win_detach, through the single-owner {@link TargetWindow}).
 */
final class WindowMemoryCalls {

  private final WinImpl win;
  private final Endpoint rp;
  private final WindowState state;
  private final TargetWindow targetWindow;
  private final Flavor flavor;
  /** The window's own memory; {@code null} for a dynamic window. */
  private final WindowMemory memory;
  /** A dynamic window's attached memory; {@code null} for other flavors. */
  private final DynamicMemory dynamic;
  /** A shared window's mapping of every rank's segment; {@code null} for other flavors. */
  private final SharedMapping mapping;
  /** The window's hints: those fixed at creation say how a shared window's segments lie. */
  private final WindowInfo hints;
  /** The same-JVM target window of a rank, or {@code null}. */
  private final IntFunction<TargetWindow> localPeer;
  /** The host segments of ranks in other JVMs mapped here, or {@code null}. */
  private final SegmentPeers segmentPeers;

  WindowMemoryCalls(WinImpl win, Endpoint rp, WindowState state, TargetWindow targetWindow, Flavor flavor,
      WindowMemory memory, DynamicMemory dynamic, SharedMapping mapping, WindowInfo hints,
      IntFunction<TargetWindow> localPeer, SegmentPeers segmentPeers) {
    this.hints = hints;
    this.localPeer = localPeer;
    this.segmentPeers = segmentPeers;
    this.win = win;
    this.rp = rp;
    this.state = state;
    this.targetWindow = targetWindow;
    this.flavor = flavor;
    this.memory = memory;
    this.dynamic = dynamic;
    this.mapping = mapping;
  }

  /** The window's memory at this rank; RMA_FLAVOR for a dynamic window, which has none of its own. */
  BytesStore<?, ?> memory() {
    state.checkLive("memory");
    if (memory == null) {
      throw RmaException.of(ErrorClass.RMA_FLAVOR, "memory of window %s: a dynamic window has no memory of its own "
          + "(MPI's base MPI_BOTTOM, size 0); its memory is the stores attached to it", state.name());
    }
    return memory.store();
  }

  /** MPI_WIN_BASE: the native address of the memory, 0 for a dynamic window; BUFFER for byte[]-backed memory. */
  long baseAddress() {
    state.checkLive("baseAddress");
    if (memory == null) {
      return 0; // MPI_BOTTOM: a dynamic window's accesses are at absolute addresses
    }
    if (memory.base() != null) {
      throw RmaException.of(ErrorClass.BUFFER, "baseAddress of window %s: its memory at rank %d is a byte[]-backed "
          + "store, which has no native address (create the window over a native store to have one)", state.name(),
          state.rank);
    }
    return memory.address();
  }

  /** MPI_Win_attach. */
  Future<Void> attach(BytesStore<?, ?> store) {
    return win.call(() -> {
      state.checkLive("attach");
      requireDynamic("attach");
      return targetWindow.attach(store);
    });
  }

  /** MPI_Win_detach. */
  Future<Void> detach(BytesStore<?, ?> store) {
    return win.call(() -> {
      state.checkLive("detach");
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

  /**
   * MPI_Win_shared_query: rank {@code targetRank}'s memory as this rank can load from and store
   * to it. A shared window: the rank's segment in the mapping ({@link SharedLayout} from the
   * creation-time hints). An {@code allocate} or {@code create} window (MPI 4.1): this rank's own
   * memory, a same-JVM rank's memory (one address space), or an {@code allocate} window's host
   * segment of another JVM of this host mapped here (the on-node path); a rank whose memory is
   * not reachable so (another host, another JVM's {@code create} memory, the data plane) gives
   * size 0 and no memory. RMA_FLAVOR for a dynamic window, whose memory has no one base.
   */
  Future<SharedSegment> sharedQuery(int targetRank) {
    return win.call(() -> {
      state.checkLive("sharedQuery");
      if (dynamic != null) {
        throw RmaException.of(ErrorClass.RMA_FLAVOR, "sharedQuery on window %s of flavor %s: a dynamic window's "
            + "memory is the stores attached to it, with no one base to share; query a window from allocateShared, "
            + "allocate or create", state.name(), flavor);
      }
      int r = targetRank;
      if (r == dev.vertxrma.Comm.PROC_NULL) {
        // MPI: the segment of the lowest rank whose size is not zero (rank 0's, empty, if none)
        r = 0;
        for (int p = 0; p < rp.size(); p++) {
          if (state.size(p) > 0) {
            r = p;
            break;
          }
        }
      }
      state.checkRank(r, "sharedQuery");
      long bytes = state.size(r);
      if (mapping != null) {
        Info given = hints.get();
        boolean noncontig = WindowInfo.noncontig(given);
        SharedLayout layout = SharedLayout.of(state.sizes(), noncontig, WindowInfo.alignment(given,
            SharedLayout.NONCONTIG_ALIGN));
        return rp.context().succeededFuture(new SharedSegment(mapping.segment(layout.offset(r), bytes), bytes,
            state.unit(r)));
      }
      WindowMemory reached = r == state.rank ? memory : reachable(r);
      return rp.context().succeededFuture(reached == null ? new SharedSegment(null, 0, state.unit(r))
          : new SharedSegment(reached.store(), bytes, state.unit(r)));
    });
  }

  /** Rank {@code r}'s window memory if this rank can load from and store to it, else {@code null}. */
  private WindowMemory reachable(int r) {
    TargetWindow local = localPeer.apply(r);
    if (local != null) {
      return local.memory();
    }
    return segmentPeers == null ? null : segmentPeers.memory(r);
  }
}
