package dev.vertxrma.impl.p2p;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;

/**
 * The probes of one rank (MPI_Probe, MPI_Iprobe): a probe reports the status of the first message
 * in the {@link UnexpectedMessages} queue that a receive of its source and tag would match, and
 * leaves it there; one that finds none waits here for such a message to be queued. A message that
 * a posted receive takes on arrival is never seen by a probe. Matched probes, which take the
 * message, are {@link MatchedProbes}'. Runs on the rank's context, as {@link PointToPoint}.
 */
final class PendingProbes {

  /** A probe waiting for a matching message; it completes with the message's status and leaves it queued. */
  private static final class PendingProbe {
    final Channel ch;
    final int ctx;
    final int source;
    final int tag;
    final Promise<Status> promise;
    /** Answered or failed: its deadline no longer matters. */
    boolean ended;

    PendingProbe(Channel ch, int source, int tag, Promise<Status> promise) {
      this.ch = ch;
      this.ctx = ch.ctx();
      this.source = source;
      this.tag = tag;
      this.promise = promise;
    }

    boolean matches(Frame f) {
      return PointToPoint.matchesEnvelope(f, ctx, source, tag);
    }
  }

  private static final Status PROC_NULL_STATUS = new Status(Comm.PROC_NULL, Comm.ANY_TAG, 0, 0);

  private final PointToPoint p2p;
  private final Endpoint ep;
  private final UnexpectedMessages unexpected;
  private final LinkedList<PendingProbe> probes = new LinkedList<>();

  /** The probes of {@code p2p}'s rank {@code ep}, over its queue of unreceived messages {@code unexpected}. */
  PendingProbes(PointToPoint p2p, Endpoint ep, UnexpectedMessages unexpected) {
    this.p2p = p2p;
    this.ep = ep;
    this.unexpected = unexpected;
  }

  /**
   * The status MPI_Probe reports for a queued message: its source in {@code ch}'s numbering and its
   * count in bytes (MPI_BYTE), no datatype being known.
   */
  static Status probeStatus(Channel ch, Frame f) {
    return new Status(ch.rankOf(f.src), f.tag, f.count, f.count);
  }

  /**
   * MPI_Probe: completes with the status of the first message a receive of {@code source}/{@code
   * tag} would match, as soon as there is one, without receiving it. A message that a posted
   * receive takes on arrival is never seen by a probe.
   */
  Future<Status> probe(Channel ch, int source, int tag) {
    if (source == Comm.PROC_NULL) {
      return ep.context().succeededFuture(PROC_NULL_STATUS);
    }
    RmaException failure = ep.failure();
    if (failure != null) {
      return ep.context().failedFuture(failure);
    }
    Frame f = unexpected.first(ch.ctx(), source, tag);
    if (f != null) {
      return ep.context().succeededFuture(probeStatus(ch, f));
    }
    RmaException gone = p2p.blocked(ch, source);
    if (gone != null) {
      return ep.context().failedFuture(gone);
    }
    Promise<Status> p = ep.context().promise();
    PendingProbe probe = new PendingProbe(ch, source, tag, p);
    probes.addLast(probe);
    long ms = ep.waitTimeoutMs();
    ep.atDeadline(() -> probe.ended, () -> {
      if (probes.remove(probe)) {
        probe.ended = true;
        p.tryFail(RmaException.of(ErrorClass.TIMEOUT, "probe at rank %d for a message from %s with tag %s found none "
            + "within %d ms", ch.myRank(), PointToPoint.sourceName(ch, source),
            tag == Comm.ANY_TAG ? "ANY_TAG" : String.valueOf(tag), ms));
      }
    });
    return p.future();
  }

  /**
   * MPI_Iprobe: the status of the first message a receive of {@code source}/{@code tag} would
   * match that has arrived, or {@code null} if none has (yet).
   */
  Status iprobe(Channel ch, int source, int tag) {
    if (source == Comm.PROC_NULL) {
      return PROC_NULL_STATUS;
    }
    RmaException failure = ep.failure();
    if (failure != null) {
      throw failure;
    }
    Frame f = unexpected.first(ch.ctx(), source, tag);
    return f == null ? null : probeStatus(ch, f);
  }

  /**
   * Message {@code f} was queued (no posted receive took it): every pending probe it matches
   * completes with its status.
   */
  void arrived(Frame f) {
    if (!probes.isEmpty()) {
      for (Iterator<PendingProbe> it = probes.iterator(); it.hasNext(); ) {
        PendingProbe p = it.next();
        if (p.matches(f)) {
          it.remove();
          p.ended = true;
          p.promise.tryComplete(probeStatus(p.ch, f));
        }
      }
    }
  }

  /**
   * Takes every pending probe that can no longer be matched ({@link PointToPoint#blocked}) out of
   * the queue; the task returned fails them. {@link PointToPoint#recheck()} takes them out along
   * with the posted receives that can no longer be matched, and runs it once it has failed those.
   */
  Runnable removeBlocked() {
    List<PendingProbe> gone = new ArrayList<>();
    List<RmaException> goneWhy = new ArrayList<>();
    for (Iterator<PendingProbe> it = probes.iterator(); it.hasNext(); ) {
      PendingProbe p = it.next();
      RmaException b = p2p.blocked(p.ch, p.source);
      if (b != null) {
        it.remove();
        p.ended = true;
        gone.add(p);
        goneWhy.add(b);
      }
    }
    return () -> {
      for (int i = 0; i < gone.size(); i++) {
        gone.get(i).promise.tryFail(goneWhy.get(i));
      }
    };
  }

  /** Fails every pending probe (job failure). */
  void fail(RmaException cause) {
    List<PendingProbe> waiting = new ArrayList<>(probes);
    probes.clear();
    for (PendingProbe p : waiting) {
      p.ended = true;
      p.promise.tryFail(cause);
    }
  }
}
