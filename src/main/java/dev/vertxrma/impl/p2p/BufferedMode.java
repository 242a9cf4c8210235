package dev.vertxrma.impl.p2p;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import io.vertx.core.Future;
import io.vertx.core.Promise;

/**
 * MPI's buffered mode at one rank: the one buffer MPI_Buffer_attach gives the rank (a
 * {@link BsendBuffer}), MPI_Buffer_detach, and MPI_Bsend's copy of a message into that buffer,
 * which completes the send at once; the buffer space is freed when the message is delivered.
 * Runs on the rank's context, as {@link PointToPoint}, which owns it.
 */
final class BufferedMode {

  private final Endpoint ep;
  /** The attached buffer; {@code null} when none is. */
  private BsendBuffer attached;

  BufferedMode(Endpoint ep) {
    this.ep = ep;
  }

  /**
   * Buffered send of frame {@code f} to job rank {@code dest}, rank {@code commDest} of the
   * sending communicator (for messages): {@code count} elements of {@code type} from {@code buf}
   * are packed into the attached buffer; BUFFER when it has no room (or none is attached).
   */
  Future<Void> send(Frame f, MemoryRef buf, TypeMap type, int count, int dest, int commDest) {
    long bytes = DatatypeEngine.packedBlockSize(type, count);
    BsendBuffer b = attached != null ? attached : new BsendBuffer(null, null, 0);
    BsendBuffer.Entry entry = b.allocate(bytes, commDest);
    // the copy into the attached buffer is what frees the user's buffer at once
    MemoryRef region = b.memory();
    long at = region.address() + entry.offset + Comm.BSEND_OVERHEAD;
    DatatypeEngine.pack(buf.base(), buf.address(), type, count, region.base(), at);
    f.count = (int) bytes;
    if (ep.isLocal(dest)) {
      // same JVM: the receiver copies straight out of the attached buffer
      f.local = new Frame.LocalBytes(region.base(), at);
    } else {
      f.payload = new byte[f.count];
      Memory.copy(region.base(), at, f.payload, Memory.ARRAY_BYTE_BASE_OFFSET, bytes);
    }
    BsendBuffer owner = b;
    ep.request(dest, f).onComplete(ar -> owner.delivered(entry));
    return ep.context().succeededFuture();
  }

  /** MPI_Buffer_attach of {@code size} bytes of {@code buffer}; {@code rank} names this rank in errors. */
  Future<Void> attach(dev.vertxrma.Buf buffer, int size, int rank) {
    if (attached != null) {
      return ep.context().failedFuture(RmaException.of(ErrorClass.BUFFER,
          "rank %d already has a buffer attached; detach it first (one buffer per rank)", rank));
    }
    if (size < 0) {
      return ep.context().failedFuture(RmaException.of(ErrorClass.ARG, "buffer size %d is negative", size));
    }
    Object memory = buffer == null ? null : buffer.memory();
    if (!(memory instanceof byte[]) && !(memory instanceof net.openhft.chronicle.bytes.BytesStore)) {
      return ep.context().failedFuture(RmaException.of(ErrorClass.BUFFER,
          "bufferAttach takes a byte[] or a BytesStore, not %s", buffer == Comm.IN_PLACE ? "Comm.IN_PLACE"
              : memory == null ? "null" : memory.getClass().getName()));
    }
    MemoryRef mem = MemoryRef.of(buffer, 0);
    if (mem.bytesAvailable() < size) {
      return ep.context().failedFuture(RmaException.of(ErrorClass.BUFFER,
          "buffer of %d bytes is smaller than the size %d given to bufferAttach", mem.bytesAvailable(), size));
    }
    attached = new BsendBuffer(buffer, mem, size);
    return ep.context().succeededFuture();
  }

  /** MPI_Buffer_detach: completes with the buffer and its size once every buffered message was delivered. */
  Future<dev.vertxrma.DetachedBuffer> detach(int rank) {
    if (attached == null) {
      return ep.context().failedFuture(RmaException.of(ErrorClass.BUFFER, "rank %d has no buffer attached", rank));
    }
    BsendBuffer b = attached;
    Promise<dev.vertxrma.DetachedBuffer> p = ep.context().promise();
    return ep.withTimeout(b.detach(p), "bufferDetach").andThen(ar -> {
      if (attached == b) {
        attached = null;
      }
    });
  }

  /** Fails a pending detach (job failure). */
  void fail(RmaException cause) {
    if (attached != null) {
      attached.fail(cause);
    }
  }
}
