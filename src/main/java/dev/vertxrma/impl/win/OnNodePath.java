package dev.vertxrma.impl.win;

import dev.vertxrma.impl.coll.BarrierSlot;
import dev.vertxrma.impl.coll.HostBarrier;
import dev.vertxrma.impl.p2p.PointToPoint;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;
import java.util.function.IntFunction;

/**
 * One rank's window on the on-node path (ARCHITECTURE decision 16), as its facade sets it up and
 * ends it: the segments of the window's ranks in the host's other JVMs, mapped here
 * ({@link SegmentPeers}); whether this rank reaches every rank of the window in memory, and then
 * the {@link HostBarrier} the window's fences meet in; and the unmapping of those segments once
 * the window is released.
 */
final class OnNodePath {

  /** Context ids of host barriers' wake messages: {@code HOST_BARRIER_CTX_BASE + window id}. */
  private static final int HOST_BARRIER_CTX_BASE = 1 << 21;

  private final Endpoint rp;
  private final int id;
  private final int rank;
  /** The segments of this window's ranks in the host's other JVMs, mapped here (none if none). */
  private final SegmentPeers peers;
  /** The host barrier over their control pages, once made ({@link #hostBarrier}); the rank's context only. */
  private HostBarrier hostBarrier;

  /**
   * @param rp the window's communicator's view of the rank
   * @param id the window's id
   * @param peers the segments mapped here, or {@code null} for none
   */
  OnNodePath(Endpoint rp, int id, SegmentPeers peers) {
    this.rp = rp;
    this.id = id;
    this.rank = rp.rank();
    this.peers = peers != null ? peers : SegmentPeers.none(rp.size());
  }

  /** The segments of this window's ranks in the host's other JVMs, mapped here. */
  SegmentPeers peers() {
    return peers;
  }

  /**
   * Whether every rank of this window is reached in memory: in this JVM or in a host segment
   * mapped here (then its fences can meet in shared memory, {@link HostBarrier}).
   */
  boolean reachesEveryRankInMemory() {
    for (int r = 0; r < rp.size(); r++) {
      if (r != rank && !rp.isLocal(r) && peers.control(r) == null) {
        return false;
      }
    }
    return true;
  }

  /**
   * The host barrier this window's fences meet in once every rank reaches every rank in memory
   * ({@link #reachesEveryRankInMemory}): over this rank's own control block ({@code own}), its
   * same-JVM peers' ({@code localPeer}) and the mapped segments' blocks; a parked rank is woken by
   * a message on the window's own context of {@code p2p}.
   */
  HostBarrier hostBarrier(BarrierSlot own, IntFunction<TargetWindow> localPeer, PointToPoint p2p) {
    BarrierSlot[] slots = new BarrierSlot[rp.size()];
    for (int r = 0; r < slots.length; r++) {
      slots[r] = r == rank ? own : rp.isLocal(r) ? localPeer.apply(r).control().barrierSlot()
          : peers.control(r).barrierSlot();
    }
    hostBarrier = new HostBarrier(slots, rank, p2p.collectiveChannel(HOST_BARRIER_CTX_BASE + id, rp),
        n -> (int) (n & 0x3FFF_FFFF), rp.context(), rp::groupFailure);
    return hostBarrier;
  }

  /**
   * {@code released}, followed by the unmapping of the segments mapped here (on a worker when it
   * may block): once the window's memory is released, no operation of this rank reaches a peer's
   * segment any more, and once the window's host barrier is closed on the rank's context (a fence
   * still polling fails, {@link HostBarrier#close}) no barrier reads their control pages either.
   */
  Future<Void> unmapAfter(Future<Void> released) {
    if (peers.count() == 0) {
      return released;
    }
    return released.compose(v -> {
      io.vertx.core.Promise<Void> closed = rp.context().promise();
      rp.context().runOnContext(x -> { // the host barrier reads the pages on this context only
        if (hostBarrier != null) {
          hostBarrier.close();
        }
        closed.complete();
      });
      return closed.future();
    }).compose(v -> peers.unmapMayBlock()
        ? rp.context().<Void>executeBlocking(() -> {
          peers.close();
          return null;
        }, false)
        : Future.<Void>succeededFuture().andThen(x -> peers.close()));
  }
}
