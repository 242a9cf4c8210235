package dev.vertxrma.impl.p2p;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Message;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;

/**
 * The matched probes of one rank (MPI_Mprobe, MPI_Improbe, MPI_Mrecv): a matched probe takes the
 * first message a receive of its source and tag would match out of the queue of unreceived
 * messages and hands it over as a {@link Matched} message, which {@code mrecv} receives exactly
 * once. A message in a handle is out of matching: no receive, probe or other matched probe sees
 * it. Runs on the rank's context, as {@link PointToPoint}, whose queues it works on.
 */
final class MatchedProbes {

  /** A message taken out of matching, until {@code mrecv} receives it. */
  static final class Matched implements Message {
    final PointToPoint owner;
    final int ctx;
    final Status status;
    /** The message; {@code null} once received. */
    Frame frame;

    Matched(PointToPoint owner, int ctx, Status status, Frame frame) {
      this.owner = owner;
      this.ctx = ctx;
      this.status = status;
      this.frame = frame;
    }

    @Override
    public Status status() {
      return status;
    }

    @Override
    public String toString() {
      return "Message[source " + status.source() + ", tag " + status.tag() + ", " + status.byteCount() + " bytes"
          + (frame == null ? ", received]" : "]");
    }
  }

  /** A matched probe waiting for a message. */
  private static final class Pending {
    final Channel ch;
    final int source;
    final int tag;
    final Promise<Message> promise;
    /** Answered or failed: its deadline no longer matters. */
    boolean ended;

    Pending(Channel ch, int source, int tag, Promise<Message> promise) {
      this.ch = ch;
      this.source = source;
      this.tag = tag;
      this.promise = promise;
    }
  }

  private final PointToPoint p2p;
  private final Endpoint ep;
  /** The queue of unreceived messages a matched probe takes its message out of. */
  private final UnexpectedMessages unexpected;
  private final LinkedList<Pending> pending = new LinkedList<>();

  MatchedProbes(PointToPoint p2p, Endpoint ep, UnexpectedMessages unexpected) {
    this.p2p = p2p;
    this.ep = ep;
    this.unexpected = unexpected;
  }

  private Matched take(Channel ch, Frame f) {
    return new Matched(p2p, ch.ctx(), PendingProbes.probeStatus(ch, f), f);
  }

  /**
   * MPI_Mprobe: the first unreceived message that a receive of {@code source}/{@code tag} (a job
   * rank, or a wildcard) would match, taken out of the queue; if there is none yet, the first
   * such message to arrive that no posted receive takes.
   */
  Future<Message> mprobe(Channel ch, int source, int tag) {
    if (source == Comm.PROC_NULL) {
      return ep.context().succeededFuture(Message.NO_PROC);
    }
    RmaException failure = ep.failure();
    if (failure != null) {
      return ep.context().failedFuture(failure);
    }
    Frame f = unexpected.take(ch.ctx(), source, tag);
    if (f != null) {
      return ep.context().succeededFuture(take(ch, f));
    }
    RmaException gone = p2p.blocked(ch, source);
    if (gone != null) {
      return ep.context().failedFuture(gone);
    }
    Promise<Message> p = ep.context().promise();
    Pending probe = new Pending(ch, source, tag, p);
    pending.addLast(probe);
    long ms = ep.waitTimeoutMs();
    ep.atDeadline(() -> probe.ended, () -> {
      if (pending.remove(probe)) {
        probe.ended = true;
        p.tryFail(RmaException.of(ErrorClass.TIMEOUT, "mprobe at rank %d for a message from %s with tag %s found "
            + "none within %d ms", ch.myRank(), PointToPoint.sourceName(ch, source),
            tag == Comm.ANY_TAG ? "ANY_TAG" : String.valueOf(tag), ms));
      }
    });
    return p.future();
  }

  /** MPI_Improbe: as {@link #mprobe} for a message that has arrived already, or {@code null}. */
  Message improbe(Channel ch, int source, int tag) {
    if (source == Comm.PROC_NULL) {
      return Message.NO_PROC;
    }
    RmaException failure = ep.failure();
    if (failure != null) {
      throw failure;
    }
    Frame f = unexpected.take(ch.ctx(), source, tag);
    return f == null ? null : take(ch, f);
  }

  /**
   * An arrival that no posted receive took and that is queued now: the first pending matched
   * probe that matches takes it out of the queue.
   */
  void arrived(Frame f) {
    for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
      Pending m = it.next();
      if (PointToPoint.matchesEnvelope(f, m.ch.ctx(), m.source, m.tag)) {
        if (!unexpected.remove(f)) {
          return; // taken meanwhile, by a receive posted from a probe's callback
        }
        it.remove();
        m.ended = true;
        m.promise.tryComplete(take(m.ch, f));
        return;
      }
    }
  }

  /**
   * MPI_Mrecv of {@code message} into {@code buf} (already range-checked) on {@code ch}: the
   * handle is spent, also when the receive fails with TRUNCATE or TYPE (the message was received,
   * as by a receive); a refused handle is left as it was.
   */
  Future<Status> mrecv(Channel ch, MemoryRef buf, TypeMap type, int count, Message message,
      String what) {
    if (message == Message.NO_PROC) {
      return ep.context().succeededFuture(Message.NO_PROC.status());
    }
    RmaException refused = refusal(ch, message, what);
    if (refused != null) {
      return ep.context().failedFuture(refused);
    }
    Matched m = (Matched) message;
    Frame f = m.frame;
    m.frame = null;
    Promise<Status> p = ep.context().promise();
    p2p.deliver(ch, buf, type, count, f, p);
    return p.future();
  }

  /** Why {@code message} cannot be received on {@code ch} at this rank, or {@code null}. */
  private RmaException refusal(Channel ch, Message message, String what) {
    if (message == null) {
      return RmaException.of(ErrorClass.REQUEST, "%s at rank %d: the message is null (MPI_MESSAGE_NULL); pass one "
          + "that mprobe or improbe returned", what, ch.myRank());
    }
    if (!(message instanceof Matched m) || m.owner != p2p) {
      return RmaException.of(ErrorClass.REQUEST, "%s at rank %d: %s was not matched by an mprobe or improbe of this "
          + "rank; a message is received by the rank that matched it", what, ch.myRank(), message);
    }
    if (m.ctx != ch.ctx()) {
      return RmaException.of(ErrorClass.REQUEST, "%s at rank %d: %s was matched on another communicator; receive it "
          + "with the mrecv of the communicator whose mprobe returned it", what, ch.myRank(), message);
    }
    if (m.frame == null) {
      return RmaException.of(ErrorClass.REQUEST, "%s at rank %d: the message from rank %d with tag %d (%d bytes) was "
          + "received already; a matched message is received exactly once", what, ch.myRank(), m.status.source(),
          m.status.tag(), m.status.byteCount());
    }
    return null;
  }

  /** Fails every pending matched probe that can no longer be matched ({@link PointToPoint#recheck()}). */
  void recheck() {
    List<Pending> failed = new ArrayList<>();
    List<RmaException> why = new ArrayList<>();
    for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
      Pending m = it.next();
      RmaException b = p2p.blocked(m.ch, m.source);
      if (b != null) {
        it.remove();
        m.ended = true;
        failed.add(m);
        why.add(b);
      }
    }
    for (int i = 0; i < failed.size(); i++) {
      failed.get(i).promise.tryFail(why.get(i));
    }
  }

  /** Fails every pending matched probe (job failure). */
  void fail(RmaException cause) {
    List<Pending> waiting = new ArrayList<>(pending);
    pending.clear();
    for (Pending m : waiting) {
      m.ended = true;
      m.promise.tryFail(cause);
    }
  }
}
