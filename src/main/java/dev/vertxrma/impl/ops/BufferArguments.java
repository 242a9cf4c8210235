package dev.vertxrma.impl.ops;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.AddressedMemory;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.memory.MemoryView;

/**
 * The checks of a call's buffer arguments, MPI's (buffer, count, datatype) triple, before the
 * call does anything: the datatype is committed, the count is not negative, and the buffer holds
 * {@code count} elements of the datatype from its offset ({@link Comm#IN_PLACE},
 * {@link Comm#BOTTOM} and a null buffer with count 0 handled apart). Communicators and windows
 * both call them, so that a send and a put refuse the same bad buffer with the same error class.
 * All methods throw {@link RmaException}; the caller fails its future with it.
 */
public final class BufferArguments {

  private BufferArguments() {
  }

  /**
   * The type map behind a call's datatype argument, committed.
   *
   * @throws RmaException TYPE for a null or uncommitted datatype
   */
  public static TypeMap typeMap(Datatype type, String what) {
    if (type == null) {
      throw RmaException.of(ErrorClass.TYPE, "%s: datatype is null", what);
    }
    TypeMap t = TypeMap.of(type);
    if (!t.isCommitted()) {
      throw RmaException.of(ErrorClass.TYPE, "%s: datatype %s is not committed (call commit() first)", what, t.name());
    }
    return t;
  }

  /**
   * A checked view of {@code count} elements of {@code type} at {@code buf[offset]}: the one place
   * every origin, result and message buffer goes through. A {@code null} buffer is allowed with
   * count 0 only (an empty message or operation; the offset is then ignored). A Java array must
   * hold the datatype's elements ({@link DatatypeEngine#checkArrayElements}; a {@code byte[]} or
   * a BytesStore holds any).
   *
   * @throws RmaException COUNT for a negative count; BUFFER for {@link Comm#IN_PLACE} (the calls
   *     that accept it test for it first), a null buffer with a positive count, or a buffer too
   *     small from {@code offset} for the count (see also {@link MemoryRef#of}); TYPE for an array
   *     whose element type contradicts the datatype
   */
  public static MemoryRef buffer(Buf buf, int offset, int count, TypeMap type, String what) {
    MemoryRef special = specialBuffer(buf, offset, count, type, what);
    if (special != null) {
      return special;
    }
    MemoryRef mem = MemoryRef.of(buf, offset);
    checkElements(buf, offset, mem.buffer(), mem.bytesBefore(), mem.bytesAvailable(), count, type, what);
    return mem;
  }

  /**
   * {@link #buffer(Buf, int, int, TypeMap, String)} filling {@code into} instead of making a
   * view (nothing allocated on a call's fast path).
   *
   * @return {@code into}
   * @throws RmaException as {@link #buffer(Buf, int, int, TypeMap, String)}
   */
  public static MemoryView buffer(Buf buf, int offset, int count, TypeMap type, String what, MemoryView into) {
    MemoryRef special = specialBuffer(buf, offset, count, type, what);
    if (special != null) {
      return into.take(special);
    }
    MemoryRef.resolve(buf.memory(), offset, into);
    checkElements(buf, offset, into.buffer(), into.bytesBefore(), into.bytesAvailable(), count, type, what);
    return into;
  }

  /**
   * The view of {@link Comm#BOTTOM} for {@code count} elements of {@code type}: absolute addresses,
   * each byte checked to lie in live memory whose address the program took.
   */
  private static MemoryRef absolute(int offset, int count, TypeMap type, String what) {
    if (offset != 0) {
      throw RmaException.of(ErrorClass.BUFFER, "%s: Comm.BOTTOM takes offset 0 (the type's displacements are the "
          + "addresses), got %d", what, offset);
    }
    checkAbsolute(0, count, type, what);
    return MemoryRef.ofRaw(null, 0, Long.MAX_VALUE / 2);
  }

  /**
   * Every byte of {@code count} elements of {@code type} at absolute address {@code start} lies in
   * live memory whose address the program took ({@link Comm#BOTTOM}'s check, also for each block of
   * a v-collective).
   *
   * @throws RmaException BUFFER naming the first element that reaches outside it
   */
  public static void checkAbsolute(long start, int count, TypeMap type, String what) {
    for (long k = 0; k < count; k++) {
      long base = start + k * type.extent();
      for (int i = 0; i < type.segmentCount(); i++) {
        long at = base + type.segmentDisp(i);
        long bytes = (long) type.segmentLength(i) * type.segmentType(i).size();
        if (!AddressedMemory.covers(at, bytes)) {
          throw RmaException.of(ErrorClass.BUFFER, "%s: Comm.BOTTOM with %s reaches 0x%x..0x%x (element %d), which is "
              + "not inside a live native store whose address was taken with Win.address", what, type.name(), at,
              at + bytes, k);
        }
      }
    }
  }

  /** The view of a negative count, IN_PLACE, a null buffer or BOTTOM (or its error); {@code null} for a plain buffer. */
  private static MemoryRef specialBuffer(Buf buf, int offset, int count, TypeMap type, String what) {
    if (count < 0) {
      throw RmaException.of(ErrorClass.COUNT, "%s: count %d is negative", what, count);
    }
    if (buf == Comm.IN_PLACE) {
      throw RmaException.of(ErrorClass.BUFFER, "%s: Comm.IN_PLACE is not allowed here; pass a buffer (IN_PLACE is "
          + "only the send buffer of allreduce, allgather(v), alltoall(v), reduceScatter, scan and exscan, of reduce "
          + "and gather(v) at root, and the receive buffer of scatter(v) at root)", what);
    }
    if (buf == null) {
      if (count == 0) {
        return MemoryRef.empty();
      }
      throw RmaException.of(ErrorClass.BUFFER, "%s: buffer is null but count is %d (only a call with count 0 may "
          + "pass no buffer)", what, count);
    }
    if (buf == Comm.BOTTOM) {
      return absolute(offset, count, type, what);
    }
    return null;
  }

  /** A resolved buffer holds the datatype's elements and {@code count} of them from the offset. */
  private static void checkElements(Buf buf, int offset, Object memory, long before, long available, int count,
      TypeMap type, String what) {
    Class<?> kind = memory.getClass();
    if (kind.isArray()) {
      DatatypeEngine.checkArrayElements(kind.getComponentType(), type, what);
    }
    if (!DatatypeEngine.fits(type, count, before, before + available)) {
      DatatypeEngine.checkAccess(type, count, MemoryRef.of(buf, offset), what + " buffer"); // throws, with the message
    }
  }
}
