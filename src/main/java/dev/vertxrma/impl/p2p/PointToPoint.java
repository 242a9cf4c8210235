package dev.vertxrma.impl.p2p;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.Op;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;

/**
 * Point-to-point messaging of one rank: eager standard sends, synchronous sends acknowledged on
 * match, buffered sends through {@link BufferedMode} (the attached buffer), and the matching of
 * arrivals against posted receives with MPI's rules (source or ANY_SOURCE, tag or ANY_TAG, same context;
 * non-overtaking: both queues are scanned in arrival/post order). Matched probes, which take a
 * message out of the queue for a later receive of it, are {@link MatchedProbes}', plain probes
 * {@link PendingProbes}'; the messages no receive has taken yet wait in {@link UnexpectedMessages}.
 * Runs on the rank's context.
 *
 * <p>One engine serves every communicator of the rank: each talks to it through its
 * {@link Channel}, which carries the communicator's context id and rank numbering. Matching is on
 * the context id and the job rank of the source; statuses and messages give the communicator's
 * ranks.
 */
public final class PointToPoint {

  /** The send modes of MPI. */
  public enum SendMode { STANDARD, SYNCHRONOUS, BUFFERED }

  /** The channel of a communicator with context id {@code ctx} and rank numbering {@code comm}. */
  public Channel channel(int ctx, Endpoint comm) {
    return new Channel(this, probes, matched, ctx, comm, false);
  }

  /**
   * The channel of a collective's traffic over {@code comm}: once a member has died or the
   * communicator is revoked ({@link Endpoint#groupFailure()}), every receive on it fails, since
   * the message may never come.
   */
  public Channel collectiveChannel(int ctx, Endpoint comm) {
    return new Channel(this, probes, matched, ctx, comm, true);
  }

  /**
   * Why a receive or probe of job rank {@code source} (or ANY_SOURCE) on {@code ch} cannot wait:
   * on a collective channel, the communicator's group failure; else its revocation, an
   * unacknowledged failure for ANY_SOURCE, or the source's death. {@code null} if it may wait.
   */
  RmaException blocked(Channel ch, int source) {
    Endpoint c = ch.comm();
    if (ch.collective()) {
      return c.groupFailure();
    }
    RmaException e = c.revocation();
    if (e != null) {
      return e;
    }
    return source == Comm.ANY_SOURCE ? c.anySourceFailure() : ep.peerFailure(source);
  }

  /**
   * Fails every posted receive and pending probe that can no longer be matched (ULFM): its source
   * died, it is from ANY_SOURCE on a communicator with an unacknowledged failure, its
   * communicator was revoked, or it belongs to a collective of a communicator that lost a member.
   * Called when ranks die or a communicator is revoked.
   */
  public void recheck() {
    List<PostedRecv> failed = new ArrayList<>();
    List<RmaException> why = new ArrayList<>();
    for (Iterator<PostedRecv> it = posted.iterator(); it.hasNext(); ) {
      PostedRecv r = it.next();
      RmaException b = blocked(r.ch, r.source);
      if (b != null) {
        it.remove();
        r.ended = true;
        failed.add(r);
        why.add(b);
      }
    }
    Runnable failProbes = probes.removeBlocked();
    for (int i = 0; i < failed.size(); i++) {
      failed.get(i).fail(why.get(i));
    }
    failProbes.run();
    matched.recheck();
  }

  /** A receive waiting for its message. */
  private final class PostedRecv {
    final Channel ch;
    final int ctx;
    final int source;
    final int tag;
    final MemoryRef buf;
    final TypeMap type;
    final int count;
    final Promise<Status> promise;
    final Promise<byte[]> raw;
    /** Matched or failed: its deadline no longer matters. */
    boolean ended;

    PostedRecv(Channel ch, int source, int tag, MemoryRef buf, TypeMap type, int count, Promise<Status> promise,
        Promise<byte[]> raw) {
      this.ch = ch;
      this.ctx = ch.ctx();
      this.source = source;
      this.tag = tag;
      this.buf = buf;
      this.type = type;
      this.count = count;
      this.promise = promise;
      this.raw = raw;
    }

    boolean matches(Frame f) {
      return matchesEnvelope(f, ctx, source, tag);
    }

    void fail(RmaException e) {
      if (promise != null) {
        promise.tryFail(e);
      } else {
        raw.tryFail(e);
      }
    }
  }

  static boolean matchesEnvelope(Frame f, int ctx, int source, int tag) {
    return f.ctx == ctx && (source == Comm.ANY_SOURCE || source == f.src) && (tag == Comm.ANY_TAG || tag == f.tag);
  }

  private final Endpoint ep;
  private final LinkedList<PostedRecv> posted = new LinkedList<>();
  /** Messages that arrived before a receive matched them. */
  private final UnexpectedMessages unexpected = new UnexpectedMessages();
  private final PendingProbes probes;
  private final MatchedProbes matched;
  private final BufferedMode buffered;
  private final AbortedCalls aborted = new AbortedCalls();

  /** This rank's trace: told of every message sent and received ({@link RankObserver#NOOP} when not traced). */
  private final RankObserver trace;
  /** Messages sent by this rank, the last one's number: it travels in the frame's {@code disp} for the trace. */
  private long messagesSent;

  /** Creates the engine of one rank, not traced. */
  public PointToPoint(Endpoint ep) {
    this(ep, RankObserver.NOOP);
  }

  /** Creates the engine of one rank, whose messages {@code trace} is told of. */
  public PointToPoint(Endpoint ep, RankObserver trace) {
    this.ep = ep;
    this.trace = trace;
    this.probes = new PendingProbes(this, ep, unexpected);
    this.matched = new MatchedProbes(this, ep, unexpected);
    this.buffered = new BufferedMode(ep);
  }

  /** Buffered mode at this rank: the attached buffer. */
  BufferedMode buffered() {
    return buffered;
  }

  /** Sends to job rank {@code dest} on {@code ch}'s context. */
  Future<Void> send(Channel ch, MemoryRef buf, TypeMap type, int count, int dest, int tag, SendMode mode) {
    if (dest == Comm.PROC_NULL) {
      return ep.context().succeededFuture();
    }
    RmaException gone = ch.comm().revocation();
    if (gone == null) {
      gone = ep.peerFailure(dest);
    }
    if (gone != null) {
      return ep.context().failedFuture(gone);
    }
    Frame f = Frame.of(mode == SendMode.SYNCHRONOUS ? FrameType.SSEND : FrameType.SEND, ep.rank(), ch.ctx());
    f.tag = tag;
    f.disp = ++messagesSent;
    trace.messageSent(dest, tag, type.size() * (long) count, f.disp);
    switch (mode) {
      case STANDARD:
        f.payload = DatatypeEngine.pack(buf.base(), buf.address(), type, count);
        f.count = f.payload.length;
        ep.send(dest, f);
        return ep.context().succeededFuture();
      case SYNCHRONOUS:
        f.payload = DatatypeEngine.pack(buf.base(), buf.address(), type, count);
        f.count = f.payload.length;
        return ep.withTimeout(ep.request(dest, f).<Void>mapEmpty(), () -> "ssend to rank " + ch.rankOf(dest));
      case BUFFERED:
      default:
        return buffered.send(f, buf, type, count, dest, ch.rankOf(dest));
    }
  }

  /** Sends raw bytes to job rank {@code dest} on context {@code ctx}. */
  void sendBytes(int ctx, int dest, int tag, byte[] data) {
    Frame f = Frame.of(FrameType.SEND, ep.rank(), ctx);
    f.tag = tag;
    f.payload = data;
    f.count = data.length;
    ep.send(dest, f);
  }

  /** A raw message whose {@code code} is a failure's error class and whose payload is its message. */
  void sendFailure(int ctx, int dest, int tag, RmaException failure) {
    String prefix = failure.errorClass() + ": ";
    String message = failure.getMessage() == null ? "" : failure.getMessage();
    Frame f = Frame.of(FrameType.SEND, ep.rank(), ctx);
    f.tag = tag;
    f.code = failure.errorClass().code();
    f.payload = (message.startsWith(prefix) ? message.substring(prefix.length()) : message)
        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    f.count = f.payload.length;
    ep.send(dest, f);
  }

  /**
   * Fails collective call tags {@code [first, first + span)} of {@code ch} at this rank and at job
   * ranks {@code dests} ({@link AbortedCalls}): this rank failed the call before it took part.
   * Receives of the call fail with {@code failure}, its messages here are dropped now and when
   * they come, and each of {@code dests} does the same on the abort frame it is sent.
   */
  void abortCall(Channel ch, int first, int span, RmaException failure, int[] dests) {
    for (int dest : dests) {
      ep.send(dest, AbortedCalls.frame(ep.rank(), ch.ctx(), first, span, failure));
    }
    aborted.record(ch.ctx(), first, span, failure);
    failAborted(ch.ctx(), failure);
  }

  /** An abort frame arrived: its call's receives fail, its messages are dropped. */
  private void onAbort(Frame f) {
    failAborted(f.ctx, aborted.record(f));
  }

  /** Fails the posted receives and drops the queued messages that belong to calls aborted on context {@code ctx}. */
  private void failAborted(int ctx, RmaException failure) {
    List<PostedRecv> failed = new ArrayList<>();
    for (Iterator<PostedRecv> it = posted.iterator(); it.hasNext(); ) {
      PostedRecv r = it.next();
      if (r.raw != null && r.ctx == ctx && aborted.failureOf(ctx, r.tag) != null) {
        it.remove();
        r.ended = true;
        failed.add(r);
      }
    }
    unexpected.dropAborted(ctx, aborted, this::ack);
    for (PostedRecv r : failed) {
      r.fail(aborted.failureOf(ctx, r.tag));
    }
  }

  /**
   * Receives into {@code buf} from job rank {@code source}; fails with TRUNCATE when the message is
   * longer than the buffer.
   */
  Future<Status> recv(Channel ch, MemoryRef buf, TypeMap type, int count, int source, int tag) {
    if (source == Comm.PROC_NULL) {
      return ep.context().succeededFuture(new Status(Comm.PROC_NULL, Comm.ANY_TAG, 0, 0));
    }
    Promise<Status> p = ep.context().promise();
    post(new PostedRecv(ch, source, tag, buf, type, count, p, null));
    return p.future();
  }

  /** Receives a raw message from job rank {@code source} (collective algorithms). */
  Future<byte[]> recvBytes(Channel ch, int source, int tag) {
    return recvBytes(ch, source, tag, true);
  }

  /** As above; {@code bounded}: whether the job's wait timeout ends the receive. */
  Future<byte[]> recvBytes(Channel ch, int source, int tag, boolean bounded) {
    Promise<byte[]> p = ep.context().promise();
    post(new PostedRecv(ch, source, tag, null, null, 0, null, p), bounded);
    return p.future();
  }

  /** {@code source} (a job rank, or a wildcard) named in {@code ch}'s numbering, for messages. */
  static String sourceName(Channel ch, int source) {
    return source == Comm.ANY_SOURCE ? "ANY_SOURCE" : "rank " + ch.rankOf(source);
  }

  private void post(PostedRecv r) {
    post(r, true);
  }

  private void post(PostedRecv r, boolean bounded) {
    RmaException failure = ep.failure();
    if (failure != null) {
      r.fail(failure);
      return;
    }
    if (r.raw != null && !aborted.isEmpty()) {
      RmaException abort = aborted.failureOf(r.ctx, r.tag);
      if (abort != null) {
        r.ended = true;
        r.fail(abort); // a rank failed this collective call before it took part
        return;
      }
    }
    Frame queued = unexpected.take(r.ctx, r.source, r.tag);
    if (queued != null) {
      complete(r, queued);
      return;
    }
    RmaException gone = blocked(r.ch, r.source);
    if (gone != null) {
      r.ended = true;
      r.fail(gone);
      return;
    }
    posted.addLast(r);
    if (!bounded) {
      return;
    }
    long ms = ep.waitTimeoutMs();
    ep.atDeadline(() -> r.ended, () -> {
      if (posted.remove(r)) {
        r.ended = true;
        r.fail(RmaException.of(ErrorClass.TIMEOUT, "receive at rank %d from %s with tag %s matched no message "
            + "within %d ms", r.ch.myRank(), sourceName(r.ch, r.source),
            r.tag == Comm.ANY_TAG ? "ANY_TAG" : String.valueOf(r.tag), ms));
      }
    });
  }

  /** Handles an arriving SEND or SSEND frame. */
  public void onMessage(Frame f) {
    if (f.count < 0 || (f.payload != null && f.payload.length != f.count)) {
      throw RmaException.of(ErrorClass.OTHER, "message from rank %d declares %d bytes but carries %d", f.src,
          f.count, f.payload == null ? 0 : f.payload.length);
    }
    if (AbortedCalls.isAbort(f)) {
      onAbort(f);
      return;
    }
    if (!aborted.isEmpty() && aborted.failureOf(f.ctx, f.tag) != null) {
      ack(f); // a late message of a collective call that failed here
      return;
    }
    for (Iterator<PostedRecv> it = posted.iterator(); it.hasNext(); ) {
      PostedRecv r = it.next();
      if (r.matches(f)) {
        it.remove();
        r.ended = true;
        complete(r, f);
        return;
      }
    }
    unexpected.add(f);
    if (f.type == FrameType.SEND) {
      ack(f); // a buffered send's data is now held here: its buffer space can be reused
    }
    probes.arrived(f);
    matched.arrived(f); // after the probes: they report what is queued, a matched probe then takes it
  }

  private void complete(PostedRecv r, Frame f) {
    Frame.LocalBytes in = f.local instanceof Frame.LocalBytes ? (Frame.LocalBytes) f.local : null;
    Object srcBase = in != null ? in.base() : f.payload;
    long srcAddr = in != null ? in.address() : Memory.ARRAY_BYTE_BASE_OFFSET;
    if (r.raw != null && f.code != 0) {
      ack(f);
      r.raw.tryFail(new RmaException(ErrorClass.ofCode(f.code), new String(f.payload == null ? new byte[0] : f.payload,
          java.nio.charset.StandardCharsets.UTF_8), false));
      return;
    }
    if (r.raw != null) {
      byte[] data = f.payload;
      if (data == null) {
        data = new byte[f.count];
        Memory.copy(srcBase, srcAddr, data, Memory.ARRAY_BYTE_BASE_OFFSET, f.count);
      }
      r.raw.tryComplete(data);
      ack(f);
      return;
    }
    deliver(r.ch, r.buf, r.type, r.count, f, r.promise);
  }

  /**
   * Receives message {@code f} into {@code count} elements of {@code type} at {@code buf} and
   * completes {@code promise} with its status; TRUNCATE when the message is longer than the
   * buffer, TYPE when it is not a whole number of elements (the buffer then untouched). The
   * message is received either way (a synchronous sender is told).
   */
  void deliver(Channel ch, MemoryRef buf, TypeMap type, int count, Frame f, Promise<Status> promise) {
    Frame.LocalBytes in = f.local instanceof Frame.LocalBytes ? (Frame.LocalBytes) f.local : null;
    Object srcBase = in != null ? in.base() : f.payload;
    long srcAddr = in != null ? in.address() : Memory.ARRAY_BYTE_BASE_OFFSET;
    long capacity = type.size() * (long) count;
    if (f.count > capacity) {
      ack(f);
      promise.tryFail(RmaException.of(ErrorClass.TRUNCATE, "message of %d bytes from rank %d (tag %d) is longer "
          + "than the receive buffer of %d x %s = %d bytes at rank %d", f.count, ch.rankOf(f.src), f.tag, count,
          type.name(), capacity, ch.myRank()));
      return;
    }
    long size = type.size();
    if (size > 0 && f.count % size != 0) {
      ack(f);
      promise.tryFail(RmaException.of(ErrorClass.TYPE, "message of %d bytes from rank %d (tag %d) is not a whole "
          + "number of %s (%d bytes each) at rank %d", f.count, ch.rankOf(f.src), f.tag, type.name(), size,
          ch.myRank()));
      return;
    }
    int elements = size == 0 ? 0 : (int) (f.count / size);
    if (elements > 0) {
      DatatypeEngine.unpack(srcBase, srcAddr, buf.base(), buf.address(), type, elements, Op.REPLACE);
    }
    ack(f);
    trace.messageReceived(f.src, f.tag, f.count, f.disp);
    promise.tryComplete(new Status(ch.rankOf(f.src), f.tag, elements, f.count));
  }

  /** Tells a synchronous sender of the match, or a buffered sender that its buffer space is free. */
  private void ack(Frame f) {
    if (f.corr != 0) {
      ep.reply(f, null, null);
      f.corr = 0;
    }
  }

  /** Fails every posted receive, pending probe and matched probe, and a pending detach (job failure). */
  public void fail(RmaException cause) {
    List<PostedRecv> all = new ArrayList<>(posted);
    posted.clear();
    for (PostedRecv r : all) {
      r.ended = true;
      r.fail(cause);
    }
    probes.fail(cause);
    matched.fail(cause);
    buffered.fail(cause);
  }
}
