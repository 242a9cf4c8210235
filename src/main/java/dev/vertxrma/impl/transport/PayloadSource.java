package dev.vertxrma.impl.transport;

import dev.vertxrma.impl.memory.Memory;

/**
 * A frame's payload that is packed when the frame is encoded, straight into the data-plane record
 * ({@link FrameCodec#record}): no intermediate array between the origin's buffer and the bytes
 * that leave the JVM. {@link DataPlane#send} encodes a payload shorter than {@link #PACKED_LATER_FROM}
 * before it returns, so such a source is read within the call that sends its frame; a longer one
 * is packed when the connection can take it (not all at once when many are sent together, and
 * with no more of them in memory than the socket is writing), on the data plane's context, and
 * its source must stay readable until then (until {@link #packInto} has returned, or the
 * request the frame carries has been answered or failed).
 */
public interface PayloadSource {

  /** Payloads of at least this many bytes to another JVM are packed when the connection can take them. */
  int PACKED_LATER_FROM = 64 * 1024;

  /** The payload's length in bytes. */
  int length();

  /** Packs the payload's {@link #length()} bytes at {@code base}/{@code address} (Unsafe convention). */
  void packInto(Object base, long address);

  /**
   * The frame was dropped without being packed (its connection is gone): the source will not be
   * read. Nothing by default.
   */
  default void dropped() {
  }

  /** The payload as an array (the paths that do not encode into a record). */
  default byte[] toBytes() {
    byte[] b = new byte[length()];
    packInto(b, Memory.ARRAY_BYTE_BASE_OFFSET);
    return b;
  }
}
