package dev.vertxrma.testing;

import dev.vertxrma.Buf;
import java.nio.ByteBuffer;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * For tests that build buffers of many kinds in one table: the {@link Buf} of a buffer held as an
 * {@code Object}. User code knows its buffer's type and calls {@link Buf#of} directly.
 */
public final class AnyBuf {

  private AnyBuf() {
  }

  /**
   * @param o an array, store, Vert.x buffer or ByteBuffer, or {@code null}
   * @return its {@link Buf}; {@code null} for {@code null}
   * @throws IllegalArgumentException for any other object (a test bug)
   */
  public static Buf of(Object o) {
    if (o == null) {
      return null;
    } else if (o instanceof byte[]) {
      return Buf.of((byte[]) o);
    } else if (o instanceof char[]) {
      return Buf.of((char[]) o);
    } else if (o instanceof short[]) {
      return Buf.of((short[]) o);
    } else if (o instanceof int[]) {
      return Buf.of((int[]) o);
    } else if (o instanceof long[]) {
      return Buf.of((long[]) o);
    } else if (o instanceof float[]) {
      return Buf.of((float[]) o);
    } else if (o instanceof double[]) {
      return Buf.of((double[]) o);
    } else if (o instanceof boolean[]) {
      return Buf.of((boolean[]) o);
    } else if (o instanceof BytesStore) {
      return Buf.of((BytesStore<?, ?>) o);
    } else if (o instanceof io.vertx.core.buffer.Buffer) {
      return Buf.of((io.vertx.core.buffer.Buffer) o);
    } else if (o instanceof ByteBuffer) {
      return Buf.of((ByteBuffer) o);
    }
    throw new IllegalArgumentException("not a buffer: " + o.getClass().getName());
  }
}
