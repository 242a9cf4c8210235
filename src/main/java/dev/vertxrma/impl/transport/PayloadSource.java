package dev.vertxrma.impl.transport;

import dev.vertxrma.impl.memory.Memory;

/**
 * A frame's payload that is packed when the frame is encoded, straight into the data-plane record
 * ({@link FrameCodec#record}): no intermediate array between the origin's buffer and the bytes
 * that leave the JVM. {@link DataPlane#send} encodes before it returns, so a payload source is
 * read within the call that sends its frame.
 */
public interface PayloadSource {

  /** The payload's length in bytes. */
  int length();

  /** Packs the payload's {@link #length()} bytes at {@code base}/{@code address} (Unsafe convention). */
  void packInto(Object base, long address);

  /** The payload as an array (the paths that do not encode into a record). */
  default byte[] toBytes() {
    byte[] b = new byte[length()];
    packInto(b, Memory.ARRAY_BYTE_BASE_OFFSET);
    return b;
  }
}
