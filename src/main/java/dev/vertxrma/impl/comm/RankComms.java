package dev.vertxrma.impl.comm;

import dev.vertxrma.impl.coll.AgreedIds;
import dev.vertxrma.impl.p2p.PointToPoint;
import dev.vertxrma.impl.runtime.RankProcess;

/**
 * What all communicators of one rank share: the rank process, its point-to-point engine, the
 * communicator context ids (the world's and COMM_SELF's fixed ones, and the agreement on the ids
 * of new communicators that {@link CommFactory} takes part in) and COMM_SELF, once made.
 */
final class RankComms {

  /** Point-to-point context of the world; its collectives use the next id. */
  static final int WORLD_CTX = 0;
  static final int WORLD_COLL_CTX = 1;
  /** COMM_SELF's contexts: fixed, since a communicator of one rank needs no agreement. */
  static final int SELF_CTX = 2;
  /** The first context id agreed for a new communicator; each takes two (point-to-point, collectives). */
  static final int FIRST_CTX = 4;
  /** Communicator contexts stay below the contexts of windows' own traffic (WinImpl: 2^20 + window id). */
  static final int CTX_LIMIT = 1 << 20;

  final RankProcess rp;
  final PointToPoint p2p;
  /** Context ids of new communicators, agreed over their parents. */
  final AgreedIds contexts;
  /** COMM_SELF, made at its first use ({@link CommImpl#self}, under this object's monitor). */
  CommImpl self;

  /** The ULFM state of each communicator of this rank, by its context id. */
  private final java.util.Map<Integer, CommRecovery> recoveries = new java.util.HashMap<>();
  /**
   * Agreement and revoke frames for communicators this rank has not made yet (another member
   * finished making it first), delivered when it is made; at most {@link #EARLY_LIMIT}.
   */
  private final java.util.Map<Integer, java.util.List<dev.vertxrma.impl.transport.Frame>> early =
      new java.util.HashMap<>();
  private int earlyCount;
  static final int EARLY_LIMIT = 4096;

  RankComms(RankProcess rp, PointToPoint p2p) {
    this.rp = rp;
    this.p2p = p2p;
    this.contexts = new AgreedIds(rp.context(), FIRST_CTX, 2, CTX_LIMIT, "communicator context ids");
    rp.handle(dev.vertxrma.impl.transport.FrameType.AGREE, this::onFrame);
    rp.handle(dev.vertxrma.impl.transport.FrameType.REVOKE, this::onFrame);
    rp.onPeersFailed((ranks, cause) -> {
      p2p.recheck();
      for (CommRecovery r : new java.util.ArrayList<>(recoveries.values())) {
        r.membersFailed();
      }
    });
    rp.onFailure(cause -> recoveries.values().forEach(r -> r.fail(cause)));
  }

  /** Registers the ULFM state of a new communicator with context id {@code ctx}; delivers early frames. */
  void register(int ctx, CommRecovery recovery) {
    recoveries.put(ctx, recovery);
    java.util.List<dev.vertxrma.impl.transport.Frame> waiting = early.remove(ctx);
    if (waiting != null) {
      earlyCount -= waiting.size();
      waiting.forEach(recovery::onFrame);
    }
  }

  /** Forgets a freed communicator. */
  void unregister(int ctx) {
    recoveries.remove(ctx);
  }

  private void onFrame(dev.vertxrma.impl.transport.Frame f) {
    CommRecovery r = recoveries.get(f.ctx);
    if (r != null) {
      r.onFrame(f);
      return;
    }
    if (f.ctx < FIRST_CTX || f.ctx >= CTX_LIMIT || earlyCount >= EARLY_LIMIT) {
      throw dev.vertxrma.RmaException.of(dev.vertxrma.ErrorClass.OTHER, "%s for communicator context %d, which "
          + "rank %d does not have", dev.vertxrma.impl.transport.FrameType.name(f.type), f.ctx, rp.rank());
    }
    early.computeIfAbsent(f.ctx, k -> new java.util.ArrayList<>()).add(f);
    earlyCount++;
  }
}
