package dev.vertxrma.impl.memory;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.nio.ByteBuffer;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A checked view of a user buffer at an offset, in {@link Memory}'s base/address convention.
 *
 * <p>Accepted buffers: a fixed-size Chronicle {@link BytesStore} in native memory or wrapping a
 * {@code byte[]} (offset in bytes), or a Java primitive array {@code byte[] char[] short[] int[]
 * long[] float[] double[] boolean[]} (offset in elements, as in mpiJava's
 * {@code send(double[] buf, int offset, ...)}); a Vert.x {@link io.vertx.core.buffer.Buffer} (its
 * {@code length()} bytes) or a writable {@link ByteBuffer}, direct or array-backed (index 0 to its
 * {@code limit()}; position ignored), both with the offset in bytes. The view keeps a reference to the buffer, so the
 * memory stays reachable while the view is in use; a native store must not be released meanwhile.
 */
public final class MemoryRef {

  private static final String ACCEPTED = "a native or byte[]-backed BytesStore, a Vert.x Buffer, a writable "
      + "ByteBuffer (direct or array-backed), or byte[], char[], short[], int[], long[], float[], double[], boolean[]";

  /** The view of the buffer of a call that passes no buffer ({@code null}) and count 0. */
  private static final MemoryRef EMPTY = new MemoryRef(null, new byte[0], Memory.ARRAY_BYTE_BASE_OFFSET, 0, 0);

  private final Object buffer;
  private final Object base;
  private final long address;
  private final long bytesBefore;
  private final long bytesAvailable;

  private MemoryRef(Object buffer, Object base, long address, long bytesBefore, long bytesAvailable) {
    this.buffer = buffer;
    this.base = base;
    this.address = address;
    this.bytesBefore = bytesBefore;
    this.bytesAvailable = bytesAvailable;
  }

  /**
   * A view of {@code buf} starting {@code offset} into it.
   *
   * @param buf a {@link BytesStore} or a Java primitive array
   * @param offset bytes for a BytesStore, elements for an array; 0 to the buffer's length
   * @throws RmaException {@link ErrorClass#BUFFER} for a null buffer, an unsupported class, a
   *     released store or an offset outside the buffer; {@link ErrorClass#ARG} for a BytesStore
   *     that is neither native nor backed by a {@code byte[]}, or that is an elastic {@link Bytes}
   */
  public static MemoryRef of(Object buf, long offset) {
    return resolve(buf, offset, MemoryRef::new);
  }

  /**
   * Receives what {@link #resolve} found in a buffer: {@link MemoryRef} makes a view of it,
   * {@link MemoryView} takes it in (the allocation-free form).
   *
   * @param <R> what the sink gives back
   */
  public interface Sink<R> {
    /** The buffer's memory at the offset: as {@link #buffer()}, {@link #base()} and so on. */
    R take(Object buffer, Object base, long address, long bytesBefore, long bytesAvailable);
  }

  /**
   * Resolves {@code buf} at {@code offset} as {@link #of(Object, long)} does, handing the result
   * to {@code sink}.
   *
   * @throws RmaException as {@link #of(Object, long)}
   */
  public static <R> R resolve(Object buf, long offset, Sink<R> sink) {
    if (buf == null) {
      throw new RmaException(ErrorClass.BUFFER, "buffer is null");
    }
    Class<?> c = buf.getClass();
    if (!c.isArray()) { // arrays first: they are the common case, and the interface tests below are not free
      if (buf instanceof BytesStore) {
        return ofStore((BytesStore<?, ?>) buf, offset, sink);
      }
      if (buf instanceof ByteBuffer) {
        return ofByteBuffer((ByteBuffer) buf, offset, sink);
      }
      if (buf instanceof io.vertx.core.buffer.Buffer) {
        return ofVertxBuffer((io.vertx.core.buffer.Buffer) buf, offset, sink);
      }
    }
    Class<?> component = c.getComponentType();
    if (component == null || !component.isPrimitive()) {
      throw RmaException.of(ErrorClass.BUFFER, "unsupported buffer class %s; accepted: %s", c.getName(), ACCEPTED);
    }
    long length = java.lang.reflect.Array.getLength(buf);
    if (offset < 0 || offset > length) {
      throw RmaException.of(ErrorClass.BUFFER, "offset %d is outside the %s of length %d", offset, c.getSimpleName(), length);
    }
    long scale = Memory.arrayIndexScale(c);
    return sink.take(buf, buf, Memory.arrayBaseOffset(c) + offset * scale, offset * scale, (length - offset) * scale);
  }

  /**
   * A view of {@code buf}'s memory starting {@code offset} into it.
   *
   * @param buf the caller's buffer; {@code null} fails with BUFFER
   * @param offset as {@link #of(Object, long)}
   * @return the view
   * @throws RmaException BUFFER for {@link dev.vertxrma.Comm#IN_PLACE}, and as {@link #of(Object, long)}
   */
  public static MemoryRef of(dev.vertxrma.Buf buf, long offset) {
    if (buf == dev.vertxrma.Comm.IN_PLACE) {
      throw RmaException.of(ErrorClass.BUFFER, "Comm.IN_PLACE views no memory; pass a buffer made with Buf.of");
    }
    return of(buf == null ? null : buf.memory(), offset);
  }

  private static <R> R ofByteBuffer(ByteBuffer bb, long offset, Sink<R> sink) {
    if (bb.isReadOnly()) {
      throw RmaException.of(ErrorClass.BUFFER, "a read-only ByteBuffer cannot be addressed; pass a writable one");
    }
    long length = bb.limit();
    if (offset < 0 || offset > length) {
      throw RmaException.of(ErrorClass.BUFFER, "offset %d is outside the ByteBuffer's limit %d", offset, length);
    }
    if (bb.isDirect()) {
      return sink.take(bb, null, Memory.directAddress(bb) + offset, offset, length - offset);
    }
    if (bb.hasArray()) {
      return sink.take(bb, bb.array(), Memory.ARRAY_BYTE_BASE_OFFSET + bb.arrayOffset() + offset, offset,
          length - offset);
    }
    throw RmaException.of(ErrorClass.BUFFER, "ByteBuffer %s is neither direct nor array-backed", bb.getClass().getName());
  }

  private static <R> R ofVertxBuffer(io.vertx.core.buffer.Buffer buf, long offset, Sink<R> sink) {
    long length = buf.length();
    if (offset < 0 || offset > length) {
      throw RmaException.of(ErrorClass.BUFFER, "offset %d is outside the Buffer of length %d", offset, length);
    }
    if (!(buf instanceof io.vertx.core.internal.buffer.BufferInternal)) {
      throw RmaException.of(ErrorClass.BUFFER, "Buffer %s is not a Vert.x core buffer", buf.getClass().getName());
    }
    io.netty.buffer.ByteBuf bytes = ((io.vertx.core.internal.buffer.BufferInternal) buf).getByteBuf();
    if (bytes.hasMemoryAddress()) {
      return sink.take(buf, null, bytes.memoryAddress() + offset, offset, length - offset);
    }
    if (bytes.hasArray()) {
      return sink.take(buf, bytes.array(), Memory.ARRAY_BYTE_BASE_OFFSET + bytes.arrayOffset() + offset, offset,
          length - offset);
    }
    throw RmaException.of(ErrorClass.BUFFER, "Buffer %s has neither an array nor a native address (a composite "
        + "buffer?); copy it into Buffer.buffer(bytes)", buf.getClass().getName());
  }

  private static <R> R ofStore(BytesStore<?, ?> bs, long offset, Sink<R> sink) {
    if (bs instanceof Bytes) {
      throw RmaException.of(ErrorClass.ARG,
          "a Bytes (%s) may grow and move; pass a fixed-size BytesStore such as bytes.bytesStore()", bs.getClass().getName());
    }
    if (bs.refCount() <= 0) {
      throw RmaException.of(ErrorClass.BUFFER, "BytesStore %s has been released", bs.getClass().getName());
    }
    long capacity = Math.min(bs.capacity(), bs.realCapacity());
    if (offset < 0 || offset > capacity) {
      throw RmaException.of(ErrorClass.BUFFER, "offset %d is outside the BytesStore of capacity %d", offset, capacity);
    }
    if (bs.isDirectMemory()) {
      long start;
      try {
        start = bs.addressForRead(0);
      } catch (RuntimeException e) {
        throw new RmaException(ErrorClass.BUFFER, "cannot address BytesStore " + bs.getClass().getName(), e);
      }
      if (start == 0) {
        throw RmaException.of(ErrorClass.BUFFER, "BytesStore %s has no native address", bs.getClass().getName());
      }
      return sink.take(bs, null, start + offset, offset, capacity - offset);
    }
    Object underlying = bs.underlyingObject();
    if (underlying instanceof byte[] && bs.start() == 0 && capacity <= ((byte[]) underlying).length) {
      return sink.take(bs, underlying, Memory.ARRAY_BYTE_BASE_OFFSET + offset, offset, capacity - offset);
    }
    throw RmaException.of(ErrorClass.ARG,
        "BytesStore %s is neither native nor backed by a byte[] (underlying %s)",
        bs.getClass().getName(), underlying == null ? "null" : underlying.getClass().getName());
  }

  /**
   * A view of no memory: zero bytes, at a valid address (of an empty {@code byte[]}), for a call
   * with count 0 whose buffer is {@code null} (MPI requires nothing of the buffer of such a call).
   */
  public static MemoryRef empty() {
    return EMPTY;
  }

  /**
   * A view of raw memory for internal use: {@code bytes} bytes at {@code base}/{@code address}.
   * Nothing is checked; the caller vouches for the range.
   */
  public static MemoryRef ofRaw(Object base, long address, long bytes) {
    return new MemoryRef(base, base, address, 0, bytes);
  }

  /** The immutable twin of a filled {@link MemoryView}. */
  static MemoryRef ofView(Object buffer, Object base, long address, long bytesBefore, long bytesAvailable) {
    return new MemoryRef(buffer, base, address, bytesBefore, bytesAvailable);
  }

  /** The buffer this view was made from (kept reachable by the view); {@code null} for {@link #empty()}. */
  public Object buffer() {
    return buffer;
  }

  /**
   * Whether the buffer is a store that has been released since the view was made: its memory may
   * belong to someone else now, so nothing may be written there (a late reply to a call whose
   * synchronization failed).
   */
  public boolean released() {
    return buffer instanceof net.openhft.chronicle.bytes.BytesStore
        && ((net.openhft.chronicle.bytes.BytesStore<?, ?>) buffer).refCount() <= 0;
  }

  /** The Unsafe base object: {@code null} for native memory, else the primitive array. */
  public Object base() {
    return base;
  }

  /** The Unsafe address of the offset position. */
  public long address() {
    return address;
  }

  /** Bytes from the start of the buffer to the offset position (0 for {@link #ofRaw}). */
  public long bytesBefore() {
    return bytesBefore;
  }

  /** Bytes from the offset position to the end of the buffer. */
  public long bytesAvailable() {
    return bytesAvailable;
  }

  @Override
  public String toString() {
    return "MemoryRef[" + (base == null ? "native" : base.getClass().getSimpleName())
        + ", before=" + bytesBefore + ", available=" + bytesAvailable + "]";
  }
}
