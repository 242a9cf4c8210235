package dev.vertxrma.impl.comm;

import static dev.vertxrma.Comm.ANY_SOURCE;
import static dev.vertxrma.Comm.ANY_TAG;
import static dev.vertxrma.Comm.PROC_NULL;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.DetachedBuffer;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Message;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.ops.BufferArguments;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.p2p.Channel;
import dev.vertxrma.impl.p2p.PointToPoint.SendMode;
import io.vertx.core.Future;
import java.util.Optional;

/**
 * The point-to-point calls of one communicator (MPI_Send in its modes, MPI_Recv, the probes and
 * matched receives, MPI_Sendrecv, MPI_Buffer_attach and _detach): each checks its buffer,
 * datatype, peer rank and tag in the communicator's rank numbering, so a bad call fails its
 * future with the right error class before anything is sent, and hands the call to the
 * communicator's {@link Channel} on the rank's point-to-point engine. Every call runs through
 * {@link CommImpl#call}: on the rank's context, its failure shown to the communicator's error
 * handler.
 */
final class PointToPointCalls {

  private final CommImpl comm;
  private final Channel ch;

  PointToPointCalls(CommImpl comm, Channel ch) {
    this.comm = comm;
    this.ch = ch;
  }

  /** MPI_Send, MPI_Isend (STANDARD), MPI_Ssend, MPI_Bsend; {@code what} names the call in errors. */
  Future<Void> send(Buf buf, int offset, int count, Datatype type, int dest, int tag, SendMode mode,
      String what) {
    return comm.call(() -> {
      TypeMap t = BufferArguments.typeMap(type, what);
      MemoryRef mem = BufferArguments.buffer(buf, offset, count, t, what);
      checkPeer(dest, false, what);
      checkTag(tag, false, what);
      return ch.send(mem, t, count, dest, tag, mode);
    });
  }

  /** MPI_Recv, MPI_Irecv; {@code what} names the call in errors. */
  Future<Status> recv(Buf buf, int offset, int count, Datatype type, int source, int tag, String what) {
    return comm.call(() -> {
      TypeMap t = BufferArguments.typeMap(type, what);
      MemoryRef mem = BufferArguments.buffer(buf, offset, count, t, what);
      checkPeer(source, true, what);
      checkTag(tag, true, what);
      return ch.recv(mem, t, count, source, tag);
    });
  }

  /** MPI_Probe. */
  Future<Status> probe(int source, int tag) {
    return comm.call(() -> {
      checkPeer(source, true, "probe");
      checkTag(tag, true, "probe");
      return ch.probe(source, tag);
    });
  }

  /** MPI_Iprobe: the status, or empty if no message matches yet. */
  Future<Optional<Status>> iprobe(int source, int tag) {
    return comm.call(() -> {
      checkPeer(source, true, "iprobe");
      checkTag(tag, true, "iprobe");
      return comm.process().context().succeededFuture(Optional.ofNullable(ch.iprobe(source, tag)));
    });
  }

  /** MPI_Mprobe. */
  Future<Message> mprobe(int source, int tag) {
    return comm.call(() -> {
      checkPeer(source, true, "mprobe");
      checkTag(tag, true, "mprobe");
      return ch.mprobe(source, tag);
    });
  }

  /** MPI_Improbe: the message, or empty if none matches yet. */
  Future<Optional<Message>> improbe(int source, int tag) {
    return comm.call(() -> {
      checkPeer(source, true, "improbe");
      checkTag(tag, true, "improbe");
      return comm.process().context().succeededFuture(Optional.ofNullable(ch.improbe(source, tag)));
    });
  }

  /** MPI_Mrecv, MPI_Imrecv of a matched message; {@code what} names the call in errors. */
  Future<Status> mrecv(Buf buf, int offset, int count, Datatype type, Message message, String what) {
    return comm.call(() -> {
      TypeMap t = BufferArguments.typeMap(type, what);
      MemoryRef mem = BufferArguments.buffer(buf, offset, count, t, what);
      return ch.mrecv(mem, t, count, message, what);
    });
  }

  /** MPI_Sendrecv. */
  Future<Status> sendrecv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, int dest,
      int sendTag, Buf recvBuf, int recvOffset, int recvCount, Datatype recvType, int source, int recvTag) {
    return comm.call(() -> {
      TypeMap st = BufferArguments.typeMap(sendType, "sendrecv send");
      MemoryRef in = BufferArguments.buffer(sendBuf, sendOffset, sendCount, st, "sendrecv send");
      checkPeer(dest, false, "sendrecv dest");
      checkTag(sendTag, false, "sendrecv send");
      TypeMap rt = BufferArguments.typeMap(recvType, "sendrecv receive");
      MemoryRef out = BufferArguments.buffer(recvBuf, recvOffset, recvCount, rt, "sendrecv receive");
      checkPeer(source, true, "sendrecv source");
      checkTag(recvTag, true, "sendrecv receive");
      // the standard send packs the data and completes at once: it can never wait for the receive
      Future<Void> sent = ch.send(in, st, sendCount, dest, sendTag, SendMode.STANDARD);
      Future<Status> received = ch.recv(out, rt, recvCount, source, recvTag);
      return Future.all(sent, received).map(all -> received.result());
    });
  }

  /** MPI_Sendrecv_replace. */
  Future<Status> sendrecvReplace(Buf buf, int offset, int count, Datatype type, int dest, int sendTag,
      int source, int recvTag) {
    return comm.call(() -> {
      TypeMap t = BufferArguments.typeMap(type, "sendrecvReplace");
      MemoryRef mem = BufferArguments.buffer(buf, offset, count, t, "sendrecvReplace");
      checkPeer(dest, false, "sendrecvReplace dest");
      checkTag(sendTag, false, "sendrecvReplace send");
      checkPeer(source, true, "sendrecvReplace source");
      checkTag(recvTag, true, "sendrecvReplace receive");
      // packed (copied out) before the receive is posted, which may fill the buffer at once
      Future<Void> sent = ch.send(mem, t, count, dest, sendTag, SendMode.STANDARD);
      Future<Status> received = ch.recv(mem, t, count, source, recvTag);
      return Future.all(sent, received).map(all -> received.result());
    });
  }

  /** MPI_Buffer_attach. */
  Future<Void> bufferAttach(Buf buffer, int sizeBytes) {
    return comm.call(() -> ch.bufferAttach(buffer, sizeBytes));
  }

  /** MPI_Buffer_detach. */
  Future<DetachedBuffer> bufferDetach() {
    return comm.call(ch::bufferDetach);
  }

  /** RANK unless {@code peer} is a rank of the communicator, PROC_NULL or (if {@code allowAny}) ANY_SOURCE. */
  private void checkPeer(int peer, boolean allowAny, String what) {
    if (peer == PROC_NULL || (allowAny && peer == ANY_SOURCE)) {
      return;
    }
    if (peer < 0 || peer >= comm.size()) {
      throw RmaException.of(ErrorClass.RANK, "%s: rank %d is not in [0, %d)%s", what, peer, comm.size(),
          comm.where());
    }
  }

  /** TAG if {@code tag} is negative (and not ANY_TAG where {@code allowAny}). */
  private static void checkTag(int tag, boolean allowAny, String what) {
    if (tag < 0 && !(allowAny && tag == ANY_TAG)) {
      throw RmaException.of(ErrorClass.TAG, "%s: tag %d is negative", what, tag);
    }
  }
}
