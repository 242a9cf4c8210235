package dev.vertxrma.impl.ops;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.buffer.Buffer;

/**
 * The wire form of a {@link TypeMap}: how an origin sends its target datatype with an RMA
 * operation ({@link TypeMap#wireBytes}), and how the target reads it back ({@link RmaTarget}).
 * Reading is a trust boundary: {@link #decode} checks every field of input that came from the
 * network before using it.
 */
final class TypeMapWire {

  private static final int HEADER_BYTES = 1 + 5 * Long.BYTES + Integer.BYTES;
  private static final int SEGMENT_BYTES = Long.BYTES + 1 + Integer.BYTES;

  private TypeMapWire() {
  }

  /** Bytes {@link #encode} writes for {@code t}. */
  static int encodedSize(TypeMap t) {
    return t.isPredefined() ? 1 : HEADER_BYTES + SEGMENT_BYTES * t.segmentCount();
  }

  /**
   * Appends the wire form. A predefined type is one byte, its {@link BasicType#code()}. A derived
   * type is a 0 byte, then (big-endian) lb, extent, trueLb, trueUb, size as longs, the segment
   * count as an int, and per segment: displacement (long), type code (byte), length (int).
   */
  static void encode(TypeMap t, Buffer out) {
    BasicType predefined = t.predefinedType();
    if (predefined != null) {
      out.appendByte((byte) predefined.code());
      return;
    }
    int n = t.segmentCount();
    out.appendByte((byte) 0)
        .appendLong(t.lb())
        .appendLong(t.extent())
        .appendLong(t.trueLb())
        .appendLong(t.trueUb())
        .appendLong(t.size())
        .appendInt(n);
    for (int i = 0; i < n; i++) {
      out.appendLong(t.segmentDisp(i)).appendByte((byte) t.segmentType(i).code()).appendInt(t.segmentLength(i));
    }
  }

  /**
   * Reads a type that is the whole of {@code wire} ({@link #decode}, then no trailing byte).
   *
   * @throws RmaException {@link ErrorClass#TYPE} as {@link #decode}, and for trailing bytes
   */
  static TypeMap decodeWhole(byte[] wire) {
    int[] end = new int[1];
    TypeMap t = decode(Buffer.buffer(wire), 0, end);
    if (end[0] != wire.length) {
      throw RmaException.of(ErrorClass.TYPE, "target datatype encoding has %d trailing bytes", wire.length - end[0]);
    }
    return t;
  }

  /**
   * Reads a type written by {@link #encode} from {@code in} at {@code offset}. A predefined type
   * decodes to the shared predefined instance; a derived one to a new, committed type (its
   * lb/ub count as natural, not explicit, bounds). This is a trust boundary: every field is
   * validated before use and nothing is allocated beyond what the input's length allows.
   *
   * @param endOut if not null, {@code endOut[0]} receives the offset just after the type
   * @throws RmaException {@link ErrorClass#TYPE} for truncated or inconsistent input: unknown type
   *     codes, more than {@link TypeMap#MAX_SEGMENTS} segments, segment lengths below 1, negative
   *     extent or size, arithmetic overflow, a size that is not the sum of the segments, or true
   *     bounds that do not match the segments
   */
  static TypeMap decode(Buffer in, int offset, int[] endOut) {
    int length = in.length();
    if (offset < 0 || offset >= length) {
      throw RmaException.of(ErrorClass.TYPE, "encoded datatype: offset %d outside buffer of %d bytes", offset, length);
    }
    int tag = in.getByte(offset) & 0xFF;
    if (tag != 0) {
      TypeMap t = TypeMap.predefined(BasicType.ofCode(tag));
      if (endOut != null) {
        endOut[0] = offset + 1;
      }
      return t;
    }
    if (length - offset < HEADER_BYTES) {
      throw RmaException.of(ErrorClass.TYPE, "encoded datatype: %d bytes left, header needs %d", length - offset, HEADER_BYTES);
    }
    int p = offset + 1;
    long lb = in.getLong(p);
    long extent = in.getLong(p + 8);
    long trueLb = in.getLong(p + 16);
    long trueUb = in.getLong(p + 24);
    long size = in.getLong(p + 32);
    int n = in.getInt(p + 40);
    p += 44;
    if (extent < 0 || size < 0 || trueUb < trueLb) {
      throw RmaException.of(ErrorClass.TYPE, "encoded datatype: extent %d, size %d, true bounds [%d, %d)",
          extent, size, trueLb, trueUb);
    }
    long ub = lb + extent;
    if (((lb ^ ub) & (extent ^ ub)) < 0) {
      throw RmaException.of(ErrorClass.TYPE, "encoded datatype: lb %d + extent %d overflows", lb, extent);
    }
    if (n < 0 || n > TypeMap.MAX_SEGMENTS || n > (length - p) / SEGMENT_BYTES) {
      throw RmaException.of(ErrorClass.TYPE,
          "encoded datatype: segment count %d (max %d, %d bytes left)", n, TypeMap.MAX_SEGMENTS, length - p);
    }
    long[] segs = new long[n << 1];
    long sum = 0;
    long elements = 0;
    long minDisp = Long.MAX_VALUE;
    long maxEnd = Long.MIN_VALUE;
    BasicType homogeneous = null;
    boolean mixed = false;
    for (int i = 0; i < n; i++, p += SEGMENT_BYTES) {
      long disp = in.getLong(p);
      BasicType t = BasicType.ofCode(in.getByte(p + 8) & 0xFF);
      int count = in.getInt(p + 9);
      if (count < 1) {
        throw RmaException.of(ErrorClass.TYPE, "encoded datatype: segment %d has length %d", i, count);
      }
      long bytes = (long) count * t.size();
      long end = disp + bytes;
      if (((disp ^ end) & (bytes ^ end)) < 0) {
        throw RmaException.of(ErrorClass.TYPE, "encoded datatype: segment %d at %d + %d bytes overflows", i, disp, bytes);
      }
      sum += bytes; // at most 2^20 segments of at most 12 * 2^31 bytes: cannot overflow
      elements += count;
      minDisp = Math.min(minDisp, disp);
      maxEnd = Math.max(maxEnd, end);
      if (homogeneous == null && !mixed) {
        homogeneous = t;
      } else if (homogeneous != t) {
        homogeneous = null;
        mixed = true;
      }
      segs[i << 1] = disp;
      segs[(i << 1) + 1] = ((long) t.ordinal() << 32) | count;
    }
    if (sum != size) {
      throw RmaException.of(ErrorClass.TYPE, "encoded datatype: size %d but segments hold %d bytes", size, sum);
    }
    if (n == 0 ? (trueLb != 0 || trueUb != 0) : (trueLb != minDisp || trueUb != maxEnd)) {
      throw RmaException.of(ErrorClass.TYPE, "encoded datatype: true bounds [%d, %d) but segments span [%d, %d)",
          trueLb, trueUb, n == 0 ? 0 : minDisp, n == 0 ? 0 : maxEnd);
    }
    if (endOut != null) {
      endOut[0] = p;
    }
    return new TypeMap("decoded(" + n + " segments, " + size + "B)", segs, n, size, elements, lb, ub,
        trueLb, trueUb, false, homogeneous, true);
  }
}
