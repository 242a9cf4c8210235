package dev.vertxrma.impl.p2p;

import dev.vertxrma.Comm;
import dev.vertxrma.Message;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.p2p.PointToPoint.SendMode;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;

/**
 * The point-to-point traffic of one communicator on its rank's {@link PointToPoint} engine: its
 * context id (messages on other contexts never match) and its rank numbering ({@code comm}: ranks
 * given here are the communicator's, translated to job ranks for the wire and back for
 * statuses). Made by {@link PointToPoint#channel}; runs on the rank's context, as the engine.
 */
public final class Channel {
  private final PointToPoint p2p;
  private final PendingProbes probes;
  private final MatchedProbes matched;
  private final int ctx;
  private final Endpoint comm;
  /** Whether it carries a collective's messages: a dead member or a revocation then fails every receive. */
  private final boolean collective;

  Channel(PointToPoint p2p, PendingProbes probes, MatchedProbes matched, int ctx, Endpoint comm, boolean collective) {
    this.p2p = p2p;
    this.probes = probes;
    this.matched = matched;
    this.ctx = ctx;
    this.comm = comm;
    this.collective = collective;
  }

  /** The communicator's view of the rank. */
  Endpoint comm() {
    return comm;
  }

  /** Whether it carries a collective's messages. */
  boolean collective() {
    return collective;
  }

  /** The job rank of a communicator rank; ANY_SOURCE and PROC_NULL stay. */
  private int job(int r) {
    return r == Comm.ANY_SOURCE || r == Comm.PROC_NULL ? r : comm.jobRank(r);
  }

  /**
   * Sends {@code count} elements of {@code type} from {@code buf} (already range-checked) to
   * communicator rank {@code dest}.
   */
  public Future<Void> send(MemoryRef buf, TypeMap type, int count, int dest, int tag, SendMode mode) {
    return p2p.send(this, buf, type, count, job(dest), tag, mode);
  }

  /** Receives into {@code buf} from communicator rank {@code source} (or ANY_SOURCE, PROC_NULL). */
  public Future<Status> recv(MemoryRef buf, TypeMap type, int count, int source, int tag) {
    return p2p.recv(this, buf, type, count, job(source), tag);
  }

  /** MPI_Probe on this communicator. */
  public Future<Status> probe(int source, int tag) {
    return probes.probe(this, job(source), tag);
  }

  /** MPI_Iprobe on this communicator: the status, or {@code null}. */
  public Status iprobe(int source, int tag) {
    return probes.iprobe(this, job(source), tag);
  }

  /** MPI_Mprobe on this communicator: the message, taken out of matching. */
  public Future<Message> mprobe(int source, int tag) {
    return matched.mprobe(this, job(source), tag);
  }

  /** MPI_Improbe on this communicator: the message, taken out of matching, or {@code null}. */
  public Message improbe(int source, int tag) {
    return matched.improbe(this, job(source), tag);
  }

  /**
   * MPI_Mrecv on this communicator of {@code message} into {@code buf} (already range-checked);
   * {@code what} names the call in errors.
   */
  public Future<Status> mrecv(MemoryRef buf, TypeMap type, int count, Message message, String what) {
    return matched.mrecv(this, buf, type, count, message, what);
  }

  /** Sends raw bytes (collective algorithms); completes at once (eager). */
  public void sendBytes(int dest, int tag, byte[] data) {
    p2p.sendBytes(ctx, job(dest), tag, data);
  }

  /**
   * Sends, instead of raw bytes, the failure of this rank's part of a collective call: the raw
   * receive that matches it fails with {@code failure}'s class and message, so the ranks that
   * wait for this one fail at once instead of at their timeout.
   */
  public void sendFailure(int dest, int tag, RmaException failure) {
    p2p.sendFailure(ctx, job(dest), tag, failure);
  }

  /**
   * This rank failed collective call tags {@code [first, first + span)} before it took part (its
   * arguments were wrong): every other rank of the communicator is told, so that its receives of
   * the call fail with {@code failure} at once instead of at their timeout, and the call's
   * messages are dropped here and there (never matched by a later call).
   */
  public void abortCall(int first, int span, RmaException failure) {
    int[] others = new int[comm.size() - 1];
    for (int r = 0, i = 0; r < comm.size(); r++) {
      if (r != comm.rank()) {
        others[i++] = comm.jobRank(r);
      }
    }
    p2p.abortCall(this, first, span, failure, others);
  }

  /**
   * Receives a message of any length as raw bytes (collective algorithms); a failure sent with
   * {@link #sendFailure} fails it.
   */
  public Future<byte[]> recvBytes(int source, int tag) {
    return p2p.recvBytes(this, job(source), tag);
  }

  /**
   * Receives raw bytes like {@link #recvBytes}, but without the job's wait timeout: it ends when
   * a message matches or the job fails. For the inner steps of a collective whose caller bounds
   * its own wait, and which must still meet a rank that arrives after that caller gave up (one
   * such receive per step: nothing piles up).
   */
  public Future<byte[]> recvBytesUntilMatched(int source, int tag) {
    return p2p.recvBytes(this, job(source), tag, false);
  }

  /** MPI_Buffer_attach: the rank's one buffer (errors name this communicator's rank). */
  public Future<Void> bufferAttach(dev.vertxrma.Buf buffer, int size) {
    return p2p.buffered().attach(buffer, size, comm.rank());
  }

  /** MPI_Buffer_detach (errors name this communicator's rank). */
  public Future<dev.vertxrma.DetachedBuffer> bufferDetach() {
    return p2p.buffered().detach(comm.rank());
  }

  /** The communicator rank of job rank {@code jobRank} (a message's source). */
  int rankOf(int jobRank) {
    return comm.rankOf(jobRank);
  }

  /** This rank in the communicator. */
  int myRank() {
    return comm.rank();
  }

  /** The context id of this communicator's traffic. */
  int ctx() {
    return ctx;
  }
}
