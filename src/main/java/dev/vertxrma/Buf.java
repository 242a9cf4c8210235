package dev.vertxrma;

import java.nio.ByteBuffer;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * An MPI buffer: the local memory a call of {@link Win} or {@link Comm} reads or writes (the
 * {@code origin_addr}, {@code result_addr} or {@code buf} argument of the MPI call). Only the
 * kinds of memory the library can address can be made into one, so passing anything else (a
 * {@code Long[]}, a {@code List}) is a compile-time error.
 *
 * <p>A {@code Buf} is a view, not a copy: it holds a reference to the array or store, and every
 * call reads or writes that memory directly. Make it once and reuse it; it costs nothing to keep.
 * The offset a call takes with a buffer counts <b>elements</b> for a Java primitive array
 * (as mpiJava's {@code send(double[] buf, int offset, ...)}) and <b>bytes</b> for every other kind.
 *
 * <ul>
 *   <li>{@code byte[] char[] short[] int[] long[] float[] double[] boolean[]}: the array's element
 *       type must agree with the call's datatype ({@link ErrorClass#TYPE} otherwise; a
 *       {@code byte[]} goes with any datatype; the table is in {@link Datatype});</li>
 *   <li>a Chronicle {@link BytesStore} of fixed size, in native memory or wrapping a
 *       {@code byte[]} (an elastic {@code Bytes} fails with {@link ErrorClass#ARG}; a released
 *       store with {@link ErrorClass#BUFFER});</li>
 *   <li>a Vert.x {@link io.vertx.core.buffer.Buffer}: its {@code length()} bytes (a buffer grown
 *       later is seen at its new length by later calls);</li>
 *   <li>a writable {@link ByteBuffer}, direct or array-backed: index 0 to its {@code limit()},
 *       its position ignored (a read-only one fails with {@link ErrorClass#BUFFER}).</li>
 * </ul>
 *
 * <p>Multi-byte values are in the platform's native byte order in every kind of buffer.
 * A call with count 0 may pass {@code null} for its buffer. Misuse that Java's types cannot
 * express (an offset past the end, a store released meanwhile) fails the call's future with
 * {@link ErrorClass#BUFFER} and leaves every window unchanged.
 *
 * <p>{@link Comm#IN_PLACE} is a {@code Buf} of its own: MPI_IN_PLACE, accepted by the collective
 * calls that document it and refused with {@link ErrorClass#BUFFER} everywhere else.
 */
public final class Buf {

  /** The one instance behind {@link Comm#IN_PLACE}; it views no memory. */
  static final Buf IN_PLACE = new Buf(null);

  /** The one instance behind {@link Comm#BOTTOM}: address 0, offsets and type displacements absolute. */
  static final Buf BOTTOM = new Buf(null);

  private final Object memory;

  private Buf(Object memory) {
    this.memory = memory;
  }

  /** @param a the array; {@code null} makes a buffer every call rejects with BUFFER unless its count is 0
   *  @return a view of {@code a} (any datatype: raw bytes; one element per value for
   *      {@link Datatype#BYTE}, {@link Datatype#INT8}, {@link Datatype#UINT8}) */
  public static Buf of(byte[] a) {
    return new Buf(a);
  }

  /** @param a the array
   *  @return a view of {@code a} (datatype {@link Datatype#CHAR}) */
  public static Buf of(char[] a) {
    return new Buf(a);
  }

  /** @param a the array
   *  @return a view of {@code a} (datatypes {@link Datatype#SHORT}, {@link Datatype#INT16}, {@link Datatype#UINT16}) */
  public static Buf of(short[] a) {
    return new Buf(a);
  }

  /** @param a the array
   *  @return a view of {@code a} (datatypes {@link Datatype#INT}, {@link Datatype#INT32}, {@link Datatype#UINT32},
   *      {@link Datatype#INT_INT}) */
  public static Buf of(int[] a) {
    return new Buf(a);
  }

  /** @param a the array
   *  @return a view of {@code a} (datatypes {@link Datatype#LONG}, {@link Datatype#AINT}, {@link Datatype#INT64},
   *      {@link Datatype#UINT64}) */
  public static Buf of(long[] a) {
    return new Buf(a);
  }

  /** @param a the array
   *  @return a view of {@code a} (datatype {@link Datatype#FLOAT}) */
  public static Buf of(float[] a) {
    return new Buf(a);
  }

  /** @param a the array
   *  @return a view of {@code a} (datatype {@link Datatype#DOUBLE}) */
  public static Buf of(double[] a) {
    return new Buf(a);
  }

  /** @param a the array
   *  @return a view of {@code a} (datatype {@link Datatype#BOOLEAN}, also named {@link Datatype#C_BOOL}) */
  public static Buf of(boolean[] a) {
    return new Buf(a);
  }

  /** @param store a fixed-size native or {@code byte[]}-backed store
   *  @return a view of {@code store}, offsets in bytes */
  public static Buf of(BytesStore<?, ?> store) {
    return new Buf(store);
  }

  /** @param buffer a Vert.x buffer
   *  @return a view of {@code buffer}'s {@code length()} bytes, offsets in bytes */
  public static Buf of(io.vertx.core.buffer.Buffer buffer) {
    return new Buf(buffer);
  }

  /** @param buffer a writable buffer, direct or array-backed
   *  @return a view of {@code buffer} from index 0 to its limit, offsets in bytes */
  public static Buf of(ByteBuffer buffer) {
    return new Buf(buffer);
  }

  /**
   * The memory this buffer views.
   *
   * @return the array, {@link BytesStore}, Vert.x {@code Buffer} or {@link ByteBuffer} given to
   *     {@code of}; {@code null} for {@link Comm#IN_PLACE} and {@link Comm#BOTTOM}
   */
  public Object memory() {
    return memory;
  }

  @Override
  public String toString() {
    if (this == IN_PLACE) {
      return "Buf[IN_PLACE]";
    }
    if (this == BOTTOM) {
      return "Buf[BOTTOM]";
    }
    return "Buf[" + (memory == null ? "null" : memory.getClass().getSimpleName()) + "]";
  }
}
