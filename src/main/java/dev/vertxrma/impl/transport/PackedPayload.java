package dev.vertxrma.impl.transport;

import dev.vertxrma.impl.memory.Memory;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

/**
 * A payload packed into pooled native memory ahead of its frame, e.g. a large get's data packed
 * at the target while it owns the window: the data-plane record takes this buffer as it is
 * ({@link FrameCodec#recordBuf}, a header and this payload written together), so the data is
 * copied once between the window and the socket. Whoever ends up with it releases it: the record
 * it goes into, or {@link #dropped()}.
 */
public final class PackedPayload implements PayloadSource {

  private ByteBuf buf;
  private final int length;

  private PackedPayload(ByteBuf buf, int length) {
    this.buf = buf;
    this.length = length;
  }

  /**
   * Room for {@code length} bytes, to be filled at {@link #base()}/{@link #address()} before the
   * frame is sent; {@code null} where native memory has no address (no Unsafe).
   */
  public static PackedPayload allocate(int length) {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
    if (!b.hasMemoryAddress()) {
      b.release();
      return null;
    }
    b.writerIndex(length);
    return new PackedPayload(b, length);
  }

  /** The Unsafe base of the bytes ({@code null}: native memory). */
  public Object base() {
    return null;
  }

  /** The Unsafe address of the first byte. */
  public long address() {
    return buf.memoryAddress();
  }

  @Override
  public int length() {
    return length;
  }

  /** Copies the bytes out and gives the memory back (the paths that do not take the buffer). */
  @Override
  public void packInto(Object base, long address) {
    Memory.copy(null, buf.memoryAddress(), base, address, length);
    release();
  }

  /** The buffer, for the record that writes it (which now owns it). */
  ByteBuf take() {
    ByteBuf b = buf;
    buf = null;
    return b;
  }

  @Override
  public void dropped() {
    release();
  }

  /** Gives the memory back (the bytes are gone after); idempotent. */
  public void release() {
    if (buf != null) {
      buf.release();
      buf = null;
    }
  }
}
