package dev.vertxrma.impl.comm;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.runtime.GroupFaults;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;
import java.util.Arrays;

/**
 * The ULFM calls of one communicator of a rank: revoke (passed on by every member once, so that
 * it reaches every survivor even if the revoker dies while sending it), the failed members and
 * their acknowledgement, the fault-tolerant agreement and shrink. On the rank's context.
 */
final class CommRecovery {

  private final CommImpl comm;
  private final Endpoint ep;
  private final GroupFaults faults;
  private final int ctx;
  private final Agreement agreement;

  CommRecovery(CommImpl comm, Endpoint ep, GroupFaults faults, int ctx) {
    this.comm = comm;
    this.ep = ep;
    this.faults = faults;
    this.ctx = ctx;
    this.agreement = new Agreement(ep, faults, ctx, comm.name());
  }

  /** MPI_Comm_revoke at this rank. */
  Future<Void> revoke() {
    revoked(ep.rank());
    return ep.context().succeededFuture();
  }

  /**
   * The communicator is revoked (by member {@code by}): marks it, passes the notice on to every
   * other member the first time, and fails what waits on it.
   */
  void revoked(int by) {
    if (!faults.revoke(RmaException.of(ErrorClass.REVOKED, "%s was revoked by its rank %d", comm.name(), by))) {
      return;
    }
    for (int r = 0; r < ep.size(); r++) {
      if (r != ep.rank() && ep.peerFailure(r) == null) {
        Frame f = Frame.of(FrameType.REVOKE, ep.rank(), ctx);
        f.tag = by;
        ep.send(r, f);
      }
    }
    comm.p2p().recheck();
    comm.collectives().recheck();
    comm.process().revoked(); // windows over it: a fence or free waiting in memory fails too
  }

  boolean isRevoked() {
    return faults.revocation() != null;
  }

  /** MPI_Comm_get_failed: the failed members as job ranks, in the order learned. */
  Group failed() {
    int[] dead = faults.failed();
    int[] job = new int[dead.length];
    for (int i = 0; i < dead.length; i++) {
      job[i] = ep.jobRank(dead[i]);
    }
    return Group.of(ep.jobRank(ep.rank()), job);
  }

  int ackFailed(int numToAck) {
    if (numToAck < 0) {
      throw RmaException.of(ErrorClass.ARG, "ackFailed(%d): the count of failures to acknowledge is >= 0", numToAck);
    }
    return faults.ack(numToAck);
  }

  /** MPI_Comm_agree. */
  Future<Integer> agree(int flag) {
    return agreement.agree(flag, 0).map(d -> {
      learn(d);
      return d.flag;
    });
  }

  /** MPI_Comm_shrink: an agreement on the failed members and on the new context id. */
  Future<Comm> shrink() {
    dev.vertxrma.impl.coll.AgreedIds ids = comm.comms().contexts;
    dev.vertxrma.impl.coll.AgreedIds.Turn turn = ids.turn();
    return turn.proposal().compose(id -> agreement.agree(1, id)).transform(ar -> {
      if (ar.failed()) {
        turn.end();
        return Future.failedFuture(ar.cause());
      }
      Agreement.Decision d = ar.result();
      String exhausted = ids.exhausted(d.max);
      if (exhausted != null) {
        turn.end();
        return Future.failedFuture(new RmaException(ErrorClass.COMM, "shrink of " + comm.name() + ": " + exhausted));
      }
      turn.claim(d.max);
      learn(d);
      int[] survivors = new int[ep.size() - d.failed.cardinality()];
      int n = 0;
      for (int r = 0; r < ep.size(); r++) {
        if (!d.failed.get(r)) {
          survivors[n++] = ep.jobRank(r);
        }
      }
      return Future.succeededFuture(comm.derive(survivors, d.max, "the communicator shrink of " + comm.name()
          + " without " + Arrays.toString(Agreement.failedRanks(d))));
    });
  }

  /** The members a decision found failed become known dead here too. */
  private void learn(Agreement.Decision d) {
    int[] unknown = d.failed.stream().filter(r -> r != ep.rank() && ep.peerFailure(r) == null)
        .map(ep::jobRank).toArray();
    if (unknown.length > 0) {
      comm.process().peersFailed(unknown, RmaException.of(ErrorClass.PROC_FAILED,
          "job rank(s) %s were found dead by an agreement on %s", Arrays.toString(unknown), comm.name()));
    }
  }

  /** A REVOKE or AGREE frame for this communicator from job rank {@code f.src}. */
  void onFrame(Frame f) {
    int src = ep.rankOf(f.src);
    if (src < 0) {
      throw RmaException.of(ErrorClass.OTHER, "%s from job rank %d, which is not a member of %s",
          FrameType.name(f.type), f.src, comm.name());
    }
    if (f.type == FrameType.REVOKE) {
      revoked(f.tag >= 0 && f.tag < ep.size() ? f.tag : src);
    } else {
      agreement.onFrame(f, src);
    }
  }

  /** Members died: agreements in flight move on. */
  void membersFailed() {
    agreement.membersFailed();
  }

  /** The job failed or the rank finished: agreements in flight fail. */
  void fail(RmaException cause) {
    agreement.fail(cause);
  }
}
