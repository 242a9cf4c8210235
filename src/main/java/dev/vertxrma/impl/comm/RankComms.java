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

  RankComms(RankProcess rp, PointToPoint p2p) {
    this.rp = rp;
    this.p2p = p2p;
    this.contexts = new AgreedIds(rp.context(), FIRST_CTX, 2, CTX_LIMIT, "communicator context ids");
  }
}
