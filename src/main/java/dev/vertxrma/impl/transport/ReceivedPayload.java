package dev.vertxrma.impl.transport;

import dev.vertxrma.impl.memory.Memory;

/**
 * The payload of a frame decoded from a data-plane record, left where it arrived: {@link
 * #length()} bytes at {@link #base()}/{@link #address()} of the record's own array (no copy out
 * of it; the target unpacks from here into its window). The record is this frame's alone, so
 * the bytes stay as they are for as long as the frame is kept.
 */
public final class ReceivedPayload implements PayloadSource {

  private final byte[] array;
  private final long address;
  private final int length;

  ReceivedPayload(byte[] array, int offset, int length) {
    this.array = array;
    this.address = Memory.ARRAY_BYTE_BASE_OFFSET + offset;
    this.length = length;
  }

  /** The Unsafe base of the bytes (the record's array). */
  public Object base() {
    return array;
  }

  /** The Unsafe address of the first byte. */
  public long address() {
    return address;
  }

  @Override
  public int length() {
    return length;
  }

  @Override
  public void packInto(Object base, long address) {
    Memory.copy(array, this.address, base, address, length);
  }
}
