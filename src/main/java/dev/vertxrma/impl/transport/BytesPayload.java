package dev.vertxrma.impl.transport;

import dev.vertxrma.impl.memory.Memory;

/** Data already packed into an array, as a {@link PayloadSource}: {@link #toBytes()} hands out the array itself. */
public final class BytesPayload implements PayloadSource {

  private final byte[] bytes;

  /** {@code bytes}, not copied. */
  public BytesPayload(byte[] bytes) {
    this.bytes = bytes;
  }

  /** The array itself. */
  public byte[] bytes() {
    return bytes;
  }

  @Override
  public int length() {
    return bytes.length;
  }

  @Override
  public void packInto(Object base, long address) {
    Memory.copy(bytes, Memory.ARRAY_BYTE_BASE_OFFSET, base, address, bytes.length);
  }

  @Override
  public byte[] toBytes() {
    return bytes;
  }
}
