package dev.vertxrma.impl.p2p;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.MemoryRef;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayDeque;

/**
 * The buffer attached with MPI_Buffer_attach and its allocator: the standard's model
 * implementation of buffered mode, a circular queue of pending message entries stored in
 * successive locations of the buffer, free space between the queue's tail and its head.
 * An entry is freed when its message has been delivered to the destination rank.
 */
final class BsendBuffer {

  /** A pending message entry: {@code [offset, offset + length)} of the buffer. */
  static final class Entry {
    final long offset;
    final long length;
    boolean delivered;

    Entry(long offset, long length) {
      this.offset = offset;
      this.length = length;
    }
  }

  private final dev.vertxrma.Buf userBuffer;
  private final MemoryRef memory;
  private final long capacity;
  private final ArrayDeque<Entry> queue = new ArrayDeque<>();
  private Promise<dev.vertxrma.DetachedBuffer> detachPromise;

  BsendBuffer(dev.vertxrma.Buf userBuffer, MemoryRef memory, long capacity) {
    this.userBuffer = userBuffer;
    this.memory = memory;
    this.capacity = capacity;
  }

  MemoryRef memory() {
    return memory;
  }

  /**
   * Reserves room for a message of {@code dataBytes} bytes plus {@link Comm#BSEND_OVERHEAD};
   * fails with {@link ErrorClass#BUFFER} when the circular allocator finds no contiguous space.
   */
  Entry allocate(long dataBytes, int dest) {
    if (detachPromise != null) {
      throw RmaException.of(ErrorClass.BUFFER, "bsend to rank %d while the attached buffer is being detached", dest);
    }
    reclaim();
    long need = dataBytes + Comm.BSEND_OVERHEAD;
    long start = -1;
    if (queue.isEmpty()) {
      start = need <= capacity ? 0 : -1;
    } else {
      long head = queue.peekFirst().offset;
      Entry last = queue.peekLast();
      long tail = last.offset + last.length;
      if (tail > head) {
        // used region is [head, tail): free space at the end, then at the start before head
        if (capacity - tail >= need) {
          start = tail;
        } else if (head >= need) {
          start = 0;
        }
      } else {
        // wrapped: used is [head, capacity) and [0, tail); free is [tail, head)
        if (head - tail >= need) {
          start = tail;
        }
      }
    }
    if (start < 0) {
      long inUse = 0;
      for (Entry e : queue) {
        inUse += e.length;
      }
      throw RmaException.of(ErrorClass.BUFFER, "bsend of %d bytes (%d data + %d overhead) to rank %d does not fit "
          + "in the attached buffer: %d bytes, %d in use by %d undelivered message(s)%s", need, dataBytes,
          Comm.BSEND_OVERHEAD, dest, capacity, inUse, queue.size(),
          capacity == 0 ? " (no buffer attached: call bufferAttach first)" : "");
    }
    Entry e = new Entry(start, need);
    queue.addLast(e);
    return e;
  }

  /** Marks an entry delivered; frees it (and any delivered entries behind it) from the head. */
  void delivered(Entry e) {
    e.delivered = true;
    reclaim();
    if (detachPromise != null && queue.isEmpty()) {
      detachPromise.tryComplete(detached());
    }
  }

  private void reclaim() {
    while (!queue.isEmpty() && queue.peekFirst().delivered) {
      queue.pollFirst();
    }
  }

  private dev.vertxrma.DetachedBuffer detached() {
    return new dev.vertxrma.DetachedBuffer(userBuffer, (int) capacity);
  }

  /** Starts detaching: completes with the user's buffer and its size once every message was delivered. */
  Future<dev.vertxrma.DetachedBuffer> detach(Promise<dev.vertxrma.DetachedBuffer> promise) {
    detachPromise = promise;
    reclaim();
    if (queue.isEmpty()) {
      promise.tryComplete(detached());
    }
    return promise.future();
  }

  /** Fails a pending detach (job failure). */
  void fail(RmaException cause) {
    if (detachPromise != null) {
      detachPromise.tryFail(cause);
    }
  }
}
