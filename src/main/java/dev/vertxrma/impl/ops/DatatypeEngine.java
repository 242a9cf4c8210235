package dev.vertxrma.impl.ops;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.memory.MemoryRef;

/**
 * The datatype engine: the one walker that moves data between two layouts, used for pack,
 * unpack, copy and accumulate, plus the argument checks MPI requires before a transfer.
 *
 * <p>A layout is {@code count} instances of a {@link TypeMap} starting at a base/address
 * ({@link Memory}'s convention), instance {@code k} at {@code address + k * extent}; or the
 * <em>packed</em> form of the same elements, back to back in type-map order. The walker visits
 * both sides in lockstep by basic elements and handles each maximal run that is contiguous on
 * both sides at once: one {@link Memory#copy} for {@link Op#REPLACE}, one
 * {@link ReductionKernel#apply} otherwise. It allocates nothing per element or segment.
 *
 * <p>The transfer methods trust their arguments: call {@link #checkAccess} for both sides and
 * {@link #checkSignatures} (and {@link #checkOp} for accumulate) first.
 */
public final class DatatypeEngine {

  private DatatypeEngine() {
  }

  // ---------------------------------------------------------------------------------------------
  // Checks

  /**
   * The datatype of a call, committed.
   *
   * @throws RmaException {@link ErrorClass#TYPE} for null or an uncommitted derived type
   */
  public static TypeMap requireCommitted(TypeMap t) {
    if (t == null) {
      throw new RmaException(ErrorClass.TYPE, "datatype is null");
    }
    if (!t.isCommitted()) {
      throw RmaException.of(ErrorClass.TYPE, "datatype %s is not committed", t.name());
    }
    return t;
  }

  /**
   * Bytes of data in {@code count} instances, {@code count * size}.
   *
   * @throws RmaException {@link ErrorClass#COUNT} for a negative count or a total beyond 2^63
   */
  public static long packedSize(TypeMap t, int count) {
    checkCount(count);
    long r = t.size() * count;
    if (Math.multiplyHigh(t.size(), count) != 0 || r < 0) {
      throw RmaException.of(ErrorClass.COUNT, "count %d of datatype %s (size %d) exceeds 2^63 bytes", count, t.name(), t.size());
    }
    return r;
  }

  /**
   * The most bytes one packed block holds (a message, a collective's block, an RMA operation's
   * payload): the largest Java array.
   */
  public static final int MAX_PACKED_BYTES = Integer.MAX_VALUE - 8;

  /**
   * {@link #packedSize} of {@code count} instances of {@code t}, for one packed block.
   *
   * @throws RmaException {@link ErrorClass#COUNT} for a negative count or more than
   *     {@link #MAX_PACKED_BYTES} bytes (the message says to move the data in parts)
   */
  public static int packedBlockSize(TypeMap t, int count) {
    long n = packedSize(t, count);
    if (n > MAX_PACKED_BYTES) {
      throw RmaException.of(ErrorClass.COUNT, "count %d of datatype %s (size %d) is %d bytes of data, more than one "
          + "message or block carries (%d bytes): move it in parts of fewer elements", count, t.name(), t.size(), n,
          MAX_PACKED_BYTES);
    }
    return (int) n;
  }

  /**
   * Bytes from the first to past the last data byte of {@code count} instances:
   * {@code (count - 1) * extent + trueExtent}, 0 for {@code count == 0} or a type without data.
   *
   * @throws RmaException {@link ErrorClass#COUNT} for a negative count or a span beyond 2^63
   */
  public static long span(TypeMap t, int count) {
    checkCount(count);
    if (count == 0 || t.segmentCount() == 0) {
      return 0;
    }
    try {
      return Math.addExact(Math.multiplyExact(count - 1L, t.extent()), t.trueExtent());
    } catch (ArithmeticException e) {
      throw RmaException.of(ErrorClass.COUNT, "count %d of datatype %s (extent %d) spans more than 2^63 bytes",
          count, t.name(), t.extent());
    }
  }

  /**
   * Checks that {@code count} instances starting {@code startByte} bytes into a buffer of
   * {@code capacityBytes} bytes stay inside it. The bytes touched are
   * {@code [startByte + trueLb, startByte + (count - 1) * extent + trueUb)}; nothing for
   * {@code count == 0} or a type without data.
   *
   * @param what names the buffer in the message, e.g. "origin buffer" or "target window"
   * @param rangeClass the class to throw when out of range or on overflow, e.g.
   *     {@link ErrorClass#BUFFER} for a local buffer, {@link ErrorClass#RMA_RANGE} for a window
   * @throws RmaException {@link ErrorClass#COUNT} for a negative count, {@link ErrorClass#TYPE}
   *     for an uncommitted type, {@code rangeClass} when out of range
   */
  /**
   * Whether {@link #checkAccess} would pass, without building a message: the allocation-free
   * check of the hot path (call {@code checkAccess} for the error when it returns false).
   */
  public static boolean fits(TypeMap t, int count, long startByte, long capacityBytes) {
    if (!t.isCommitted() || count < 0) {
      return false;
    }
    if (count == 0 || t.segmentCount() == 0) {
      return true;
    }
    long first = startByte + t.trueLb();
    long span = (count - 1L) * t.extent();
    if (count - 1L != 0 && span / (count - 1L) != t.extent()) {
      return false;
    }
    long end = startByte + span + t.trueUb();
    return first >= 0 && end <= capacityBytes && end >= startByte && first <= end && startByte >= 0;
  }

  public static void checkAccess(TypeMap t, int count, long startByte, long capacityBytes, String what,
      ErrorClass rangeClass) {
    requireCommitted(t);
    checkCount(count);
    if (count == 0 || t.segmentCount() == 0) {
      return;
    }
    long first;
    long end;
    try {
      first = Math.addExact(startByte, t.trueLb());
      end = Math.addExact(Math.addExact(startByte, Math.multiplyExact(count - 1L, t.extent())), t.trueUb());
    } catch (ArithmeticException e) {
      throw RmaException.of(rangeClass, "%s: count %d of datatype %s (extent %d) at byte %d overflows 64-bit addressing",
          what, count, t.name(), t.extent(), startByte);
    }
    if (first < 0 || end > capacityBytes) {
      throw RmaException.of(rangeClass,
          "%s: count %d of datatype %s (extent %d, true lb %d, true ub %d) at byte %d touches [%d, %d), outside [0, %d)",
          what, count, t.name(), t.extent(), t.trueLb(), t.trueUb(), startByte, first, end, capacityBytes);
    }
  }

  /**
   * {@link #checkAccess} for a user buffer view: the whole buffer is the bound, so negative
   * displacements may reach before the view's offset. Throws {@link ErrorClass#BUFFER}.
   */
  public static void checkAccess(TypeMap t, int count, MemoryRef ref, String what) {
    checkAccess(t, count, ref.bytesBefore(), ref.bytesBefore() + ref.bytesAvailable(), what, ErrorClass.BUFFER);
  }

  /**
   * Checks that data sent as {@code srcCount} of {@code srcType} fits {@code dstCount} of
   * {@code dstType}. For put/get ({@code accumulate == false}) the type signatures must match:
   * same number of bytes and the same basic kinds element by element. For accumulate both types
   * must be built from one basic kind, the same on both sides, with the same element count.
   *
   * @throws RmaException {@link ErrorClass#TRUNCATE} if the destination holds less data than
   *     the source, {@link ErrorClass#TYPE} for any other mismatch, {@link ErrorClass#COUNT}
   *     for a negative count
   */
  public static void checkSignatures(TypeMap srcType, int srcCount, TypeMap dstType, int dstCount, boolean accumulate) {
    long srcBytes = packedSize(srcType, srcCount);
    long dstBytes = packedSize(dstType, dstCount);
    if (accumulate && srcBytes != 0) {
      BasicType s = srcType.homogeneousType();
      BasicType d = dstType.homogeneousType();
      if (s == null || d == null || s != d) {
        throw RmaException.of(ErrorClass.TYPE,
            "accumulate needs origin and target datatypes of one and the same basic type; origin %s is %s, target %s is %s",
            srcType.name(), s == null ? "mixed" : s, dstType.name(), d == null ? "mixed" : d);
      }
    }
    if (srcBytes != dstBytes) {
      throw RmaException.of(srcBytes > dstBytes ? ErrorClass.TRUNCATE : ErrorClass.TYPE,
          "origin count %d of %s is %d bytes but target count %d of %s is %d bytes",
          srcCount, srcType.name(), srcBytes, dstCount, dstType.name(), dstBytes);
    }
    if (srcBytes == 0 || (srcType == dstType && srcCount == dstCount)) {
      return;
    }
    BasicType s = srcType.homogeneousType();
    if (s != null && s == dstType.homogeneousType()) {
      return; // same kind and same byte count: same signature
    }
    Cursor src = new Cursor();
    Cursor dst = new Cursor();
    src.init(null, 0, srcType, srcCount, true);
    dst.init(null, 0, dstType, dstCount, true);
    long mismatch = walk(src, dst, null);
    if (mismatch >= 0) {
      throw RmaException.of(ErrorClass.TYPE,
          "type signatures differ at element %d: origin %s has %s, target %s has %s",
          mismatch, srcType.name(), src.runType, dstType.name(), dst.runType);
    }
  }

  /**
   * Checks MPI's table of which operation is defined on which datatype: SUM, PROD, MAX, MIN on
   * integer (signed and unsigned) and floating types; LAND, LOR, LXOR on integer and logical
   * (C_BOOL); BAND, BOR, BXOR on integer and BYTE; MAXLOC, MINLOC on pair types; REPLACE and NO_OP on any. A derived type
   * counts as its one basic kind; a type without data passes (nothing is combined).
   *
   * @throws RmaException {@link ErrorClass#OP} for a null op or one not defined on the type,
   *     {@link ErrorClass#TYPE} for a null type or, with an op other than REPLACE/NO_OP, a
   *     derived type that mixes basic kinds
   */
  public static void checkOp(Op op, TypeMap t) {
    if (op == null) {
      throw new RmaException(ErrorClass.OP, "operation is null");
    }
    if (t == null) {
      throw new RmaException(ErrorClass.TYPE, "datatype is null");
    }
    if (op == Op.REPLACE || op == Op.NO_OP || t.segmentCount() == 0) {
      return;
    }
    BasicType b = t.homogeneousType();
    if (b == null) {
      throw RmaException.of(ErrorClass.TYPE, "%s needs a datatype of one basic type; %s mixes basic types",
          op.mpiName(), t.name());
    }
    if (!ReductionKernel.isDefined(op, b)) {
      throw RmaException.of(ErrorClass.OP, "%s is not defined on datatype %s",
          op.mpiName(), t.isPredefined() ? t.name() : t.name() + " of " + b);
    }
  }

  /**
   * Checks that a Java array of {@code component} elements can hold data of {@code t}: a
   * {@code byte[]} is raw memory and holds any datatype; any other array holds only a datatype
   * whose data are all of the one basic kind stored in such arrays (see
   * {@link BasicType#arrayElement()}: a {@code long[]} holds LONG, AINT, INT64 and UINT64, a
   * {@code short[]} SHORT, INT16 and UINT16, an {@code int[]} INT, INT32, UINT32 and INT_INT, a
   * {@code boolean[]} BOOLEAN (= C_BOOL), a {@code double[]} DOUBLE, ...). A type without data
   * fits any array.
   *
   * @throws RmaException {@link ErrorClass#TYPE}, naming the array and the datatype, when the
   *     array's element type contradicts the datatype, or the datatype mixes basic kinds and the
   *     array is not a {@code byte[]}
   */
  public static void checkArrayElements(Class<?> component, TypeMap t, String what) {
    if (component == byte.class || t.size() == 0) {
      return;
    }
    BasicType b = t.homogeneousType();
    Class<?> holds = b == null ? null : b.arrayElement();
    if (holds == component) {
      return;
    }
    if (holds == null) {
      throw RmaException.of(ErrorClass.TYPE, "%s: the %s[] buffer cannot hold datatype %s, which mixes element types; "
          + "use byte[] or a BytesStore (raw bytes)", what, component, t.name());
    }
    throw RmaException.of(ErrorClass.TYPE, "%s: the %s[] buffer cannot hold %s elements (datatype %s); use %s[], or "
        + "byte[] or a BytesStore for raw bytes", what, component, b, t.name(), holds);
  }

  /**
   * Checks the datatype of a compare-and-swap (MPI_Compare_and_swap): a predefined integer
   * (signed or unsigned, any width), logical (C_BOOL) or byte type.
   *
   * @throws RmaException {@link ErrorClass#TYPE} for null, derived, floating or pair types
   */
  public static void checkCompareAndSwapType(TypeMap t) {
    if (t == null) {
      throw new RmaException(ErrorClass.TYPE, "datatype is null");
    }
    BasicType b = t.predefinedType();
    if (b == null) {
      throw RmaException.of(ErrorClass.TYPE, "compare-and-swap needs a predefined datatype, not %s", t.name());
    }
    BasicType.TypeClass c = b.typeClass();
    if (c != BasicType.TypeClass.INTEGER && c != BasicType.TypeClass.LOGICAL && c != BasicType.TypeClass.BYTE) {
      throw RmaException.of(ErrorClass.TYPE, "compare-and-swap is not defined on datatype %s", t.name());
    }
  }

  private static void checkCount(int count) {
    if (count < 0) {
      throw RmaException.of(ErrorClass.COUNT, "count %d is negative", count);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Transfers

  /**
   * Moves {@code srcCount} of {@code srcType} into {@code dstCount} of {@code dstType}, element
   * by element: {@link Op#REPLACE} copies, {@link Op#NO_OP} does nothing, any other op
   * combines {@code dst = dst op src}. Contiguous types on both sides take one copy. Stops when
   * either side runs out (the signatures should have been checked to match).
   *
   * @throws RmaException {@link ErrorClass#TYPE} if the two sides' basic kinds differ at some
   *     element (data before it has been moved), {@link ErrorClass#OP} if {@code op} is not
   *     defined on the kind
   */
  public static void transfer(Object srcBase, long srcAddr, TypeMap srcType, int srcCount,
      Object dstBase, long dstAddr, TypeMap dstType, int dstCount, Op op) {
    if (op == Op.NO_OP) {
      return;
    }
    BasicType run = singleRun(srcType, srcCount, dstType, dstCount);
    if (run != null) {
      move(op, run, srcBase, srcAddr + srcType.segmentDisp(0), dstBase, dstAddr + dstType.segmentDisp(0),
          Math.min(srcType.elementCount() * srcCount, dstType.elementCount() * dstCount));
      return;
    }
    Cursor src = new Cursor();
    Cursor dst = new Cursor();
    src.init(srcBase, srcAddr, srcType, srcCount, false);
    dst.init(dstBase, dstAddr, dstType, dstCount, false);
    finish(src, dst, op);
  }

  /**
   * The basic type of a transfer that is one run on both sides (both layouts contiguous, of the
   * same kind, element counts within a long): what the cursors would do in one step, done
   * without them (no allocation on the hot path of small operations); else {@code null}.
   */
  private static BasicType singleRun(TypeMap srcType, int srcCount, TypeMap dstType, int dstCount) {
    if (srcCount <= 0 || dstCount <= 0 || !srcType.isContiguous() || !dstType.isContiguous()) {
      return null;
    }
    BasicType run = srcType.segmentType(0);
    if (run != dstType.segmentType(0) || Math.multiplyHigh(srcType.elementCount(), srcCount) != 0
        || Math.multiplyHigh(dstType.elementCount(), dstCount) != 0 || srcType.elementCount() * srcCount < 0
        || dstType.elementCount() * dstCount < 0) {
      return null;
    }
    return run;
  }

  /**
   * Packs {@code count} of {@code type} into consecutive bytes at {@code dstBase}/{@code dstAddr}
   * (MPI_Pack without the position).
   *
   * @return bytes written, {@code count * type.size()}
   */
  public static long pack(Object srcBase, long srcAddr, TypeMap type, int count, Object dstBase, long dstAddr) {
    BasicType run = singleRun(type, count, type, count);
    if (run != null) {
      move(Op.REPLACE, run, srcBase, srcAddr + type.segmentDisp(0), dstBase, dstAddr, type.elementCount() * count);
      return packedSize(type, count);
    }
    Cursor src = new Cursor();
    Cursor dst = new Cursor();
    src.init(srcBase, srcAddr, type, count, false);
    dst.init(dstBase, dstAddr, type, count, true);
    finish(src, dst, Op.REPLACE);
    return packedSize(type, count);
  }

  /** Packs {@code count} of {@code type} into a new array of {@code count * type.size()} bytes. */
  public static byte[] pack(Object srcBase, long srcAddr, TypeMap type, int count) {
    byte[] out = new byte[packedBlockSize(type, count)];
    pack(srcBase, srcAddr, type, count, out, Memory.ARRAY_BYTE_BASE_OFFSET);
    return out;
  }

  /** MPI_Unpack of a whole packed array into {@code dstCount} of {@code dstType}. */
  public static void unpack(byte[] packed, Object dstBase, long dstAddr, TypeMap dstType, int dstCount) {
    unpack(packed, Memory.ARRAY_BYTE_BASE_OFFSET, dstBase, dstAddr, dstType, dstCount, Op.REPLACE);
  }

  /**
   * Combines packed data into {@code dstCount} of {@code dstType}: {@code dst = dst op packed}
   * ({@link Op#REPLACE}: MPI_Unpack). The packed bytes must hold the destination's signature,
   * which is the case when they were packed from a type whose signature matched
   * ({@link #checkSignatures}).
   *
   * @return bytes consumed from the packed source, {@code dstCount * dstType.size()}
   */
  public static long unpack(Object srcBase, long srcAddr, Object dstBase, long dstAddr, TypeMap dstType, int dstCount,
      Op op) {
    long bytes = packedSize(dstType, dstCount);
    if (op == Op.NO_OP) {
      return bytes;
    }
    BasicType run = singleRun(dstType, dstCount, dstType, dstCount);
    if (run != null) {
      move(op, run, srcBase, srcAddr, dstBase, dstAddr + dstType.segmentDisp(0), dstType.elementCount() * dstCount);
      return bytes;
    }
    Cursor src = new Cursor();
    Cursor dst = new Cursor();
    src.init(srcBase, srcAddr, dstType, dstCount, true);
    dst.init(dstBase, dstAddr, dstType, dstCount, false);
    finish(src, dst, op);
    return bytes;
  }

  private static void finish(Cursor src, Cursor dst, Op op) {
    long mismatch = walk(src, dst, op);
    if (mismatch >= 0) {
      throw RmaException.of(ErrorClass.TYPE, "type signatures differ at element %d: source has %s, destination %s",
          mismatch, src.runType, dst.runType);
    }
  }

  /**
   * Walks both cursors in lockstep; with {@code op == null} only compares kinds. Returns -1
   * when one side is exhausted, or the index of the first element whose kinds differ.
   */
  private static long walk(Cursor src, Cursor dst, Op op) {
    long element = 0;
    boolean s = src.next();
    boolean d = dst.next();
    while (s && d) {
      BasicType type = src.runType;
      if (type != dst.runType) {
        return element;
      }
      long n = Math.min(src.runLeft, dst.runLeft);
      if (op != null) {
        move(op, type, src.base, src.runAddr, dst.base, dst.runAddr, n);
      }
      element += n;
      s = src.consume(n);
      d = dst.consume(n);
    }
    return -1;
  }

  /**
   * {@code dst = dst op src} over {@code n} consecutive elements of {@code type} ({@link
   * Op#REPLACE} copies): the kernel of every transfer, for callers that walk their own runs.
   */
  public static void combine(Op op, BasicType type, Object srcBase, long srcAddr, Object dstBase, long dstAddr,
      long n) {
    if (op != Op.NO_OP && n > 0) {
      move(op, type, srcBase, srcAddr, dstBase, dstAddr, n);
    }
  }

  private static void move(Op op, BasicType type, Object srcBase, long srcAddr, Object dstBase, long dstAddr, long n) {
    if (op == Op.REPLACE) {
      Memory.copy(srcBase, srcAddr, dstBase, dstAddr, n * type.size());
      return;
    }
    long step = (long) Integer.MAX_VALUE / type.size();
    while (n > 0) {
      int chunk = (int) Math.min(n, step);
      ReductionKernel.apply(op, type, srcBase, srcAddr, dstBase, dstAddr, chunk);
      long bytes = (long) chunk * type.size();
      srcAddr += bytes;
      dstAddr += bytes;
      n -= chunk;
    }
  }

  /**
   * Position in one side of a transfer: the current run of elements that are contiguous in
   * memory and of one kind. A contiguous layout, or a packed one of one kind, is a single run.
   */
  private static final class Cursor {
    Object base;
    private TypeMap type;
    private boolean packed;
    private long extent;
    private int segments;
    /** Instances left after the current one. */
    private long instancesLeft;
    /** Address of the current instance (laid out) or of the next run (packed). */
    private long position;
    /** Next segment of the current instance to visit. */
    private int segment;

    BasicType runType;
    long runAddr;
    long runLeft;

    void init(Object base, long addr, TypeMap type, int count, boolean packed) {
      this.base = base;
      this.type = type;
      this.packed = packed;
      this.extent = type.extent();
      this.segments = type.segmentCount();
      this.position = addr;
      this.segment = 0;
      this.runLeft = 0;
      this.runType = null;
      if (count <= 0 || segments == 0) {
        this.instancesLeft = -1; // exhausted
      } else if (type.isContiguous() || (packed && type.homogeneousType() != null)) {
        this.instancesLeft = 0;
        this.segment = -1; // one run of everything, loaded by next()
        long elements = type.elementCount() * count;
        if (Math.multiplyHigh(type.elementCount(), count) != 0 || elements < 0) {
          throw RmaException.of(ErrorClass.COUNT, "count %d of datatype %s is more than 2^63 elements", count, type.name());
        }
        this.runLeft = elements;
      } else {
        this.instancesLeft = count - 1L;
      }
    }

    /** Loads the next run; false when the layout is exhausted. */
    boolean next() {
      if (instancesLeft < 0) {
        return false;
      }
      if (segment < 0) { // the single run
        runType = type.segmentType(0);
        runAddr = packed ? position : position + type.segmentDisp(0);
        segment = segments;
        return true;
      }
      if (segment == segments) {
        if (instancesLeft == 0) {
          instancesLeft = -1;
          return false;
        }
        instancesLeft--;
        if (!packed) {
          position += extent;
        }
        segment = 0;
      }
      runType = type.segmentType(segment);
      runLeft = type.segmentLength(segment);
      if (packed) {
        runAddr = position;
        position += runLeft * runType.size();
      } else {
        runAddr = position + type.segmentDisp(segment);
      }
      segment++;
      return true;
    }

    /** Advances past {@code n} elements of the current run; false when the layout is exhausted. */
    boolean consume(long n) {
      runLeft -= n;
      if (runLeft > 0) {
        runAddr += n * runType.size();
        return true;
      }
      return next();
    }
  }
}
