package dev.vertxrma.impl.ops;

import dev.vertxrma.Datatype;
import dev.vertxrma.Datatype.Order;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.buffer.Buffer;
import java.util.Arrays;
import java.util.function.Function;

/**
 * The type map behind a {@link Datatype}, its opaque handle: an MPI type map flattened, for ONE
 * instance of the type, into segments. Segment {@code i} is {@link #segmentLength(int) n}
 * contiguous elements of one {@link BasicType} (packed at {@link BasicType#size()} bytes each)
 * starting {@link #segmentDisp(int) disp} bytes from the start of the instance. Segments are in
 * type-map order; adjacent segments of the same basic type that touch are merged; no segment is
 * empty.
 *
 * <p>Bounds follow MPI: {@code lb}/{@code ub} are the least/greatest data displacement unless
 * some component was {@link #resized}, in which case the explicit markers win ("sticky" lb/ub);
 * no alignment padding is added to derived types. {@code trueLb}/{@code trueUb} always bound the
 * data. A type with no data has true bounds 0/0.
 *
 * <p>Flattening is eager and bounded: a type may have at most {@link #MAX_SEGMENTS} segments,
 * otherwise its constructor throws {@link ErrorClass#INTERN}.
 *
 * <p>Instances are immutable apart from the committed flag, and safe to share between threads.
 * The implementation reaches the type map of a {@code Datatype} through {@link #of(Datatype)}
 * only; a type decoded from the wire has no {@code Datatype}.
 */
public final class TypeMap {

  /** Reads the handle of a {@link Datatype}; given by {@link #readHandlesWith}. */
  private static volatile Function<Datatype, TypeMap> handles;

  /** Cached {@link #wireBytes()}. */
  private volatile byte[] wire;

  /** The most segments one type may flatten to, locally and on the wire. */
  public static final int MAX_SEGMENTS = 1 << 20;

  /** Upper bound on segment appends while flattening one type, so construction stays fast. */
  static final long MAX_FLATTEN_STEPS = 1L << 26;

  private static final int HEADER_BYTES = 1 + 5 * Long.BYTES + Integer.BYTES;
  private static final int SEGMENT_BYTES = Long.BYTES + 1 + Integer.BYTES;
  private static final BasicType[] TYPES = BasicType.values();
  private static final TypeMap[] PREDEFINED = new TypeMap[TYPES.length];

  static {
    for (BasicType t : TYPES) {
      PREDEFINED[t.ordinal()] = new TypeMap(t, t.name());
    }
  }

  private final String name;
  private final BasicType predefined;
  /** Two longs per segment: displacement, then {@code (type ordinal << 32) | length}. */
  private final long[] segments;
  private final int segmentCount;
  private final long size;
  private final long elementCount;
  private final long lb;
  private final long ub;
  private final long trueLb;
  private final long trueUb;
  private final boolean explicitBounds;
  private final BasicType homogeneousType;
  private volatile boolean committed;

  private TypeMap(BasicType t, String name) {
    this.name = name;
    this.predefined = t;
    this.segments = new long[] {0, ((long) t.ordinal() << 32) | 1};
    this.segmentCount = 1;
    this.size = t.size();
    this.elementCount = 1;
    this.lb = 0;
    this.ub = t.predefinedExtent();
    this.trueLb = 0;
    this.trueUb = t.size();
    this.explicitBounds = false;
    this.homogeneousType = t;
    this.committed = true;
  }

  private TypeMap(String name, long[] segments, int segmentCount, long size, long elementCount, long lb, long ub,
      long trueLb, long trueUb, boolean explicitBounds, BasicType homogeneousType, boolean committed) {
    this.name = name;
    this.predefined = null;
    this.segments = segments;
    this.segmentCount = segmentCount;
    this.size = size;
    this.elementCount = elementCount;
    this.lb = lb;
    this.ub = ub;
    this.trueLb = trueLb;
    this.trueUb = trueUb;
    this.explicitBounds = explicitBounds;
    this.homogeneousType = homogeneousType;
    this.committed = committed;
  }

  /** The predefined datatype of a basic kind (always committed). */
  public static TypeMap predefined(BasicType t) {
    return PREDEFINED[t.ordinal()];
  }

  /**
   * A second name for the predefined datatype of a basic kind, for a public constant that names
   * the same MPI datatype as another one (as {@link Datatype#C_BOOL} and {@link Datatype#BOOLEAN}
   * both name MPI_C_BOOL): the same kind, layout and wire form, so the two match each other in
   * every call; only {@link #name()} differs. A type received from another rank decodes to the
   * kind's {@link #predefined(BasicType) first name}.
   */
  public static TypeMap predefinedAlias(BasicType t, String name) {
    return new TypeMap(t, name);
  }

  /**
   * The type map behind a {@link Datatype}: the one way from the public type to its handle (the
   * implementation calls it where a call's datatype argument comes in, {@link BufferArguments}).
   *
   * @throws RmaException {@link ErrorClass#TYPE} for {@code null}
   */
  public static TypeMap of(Datatype d) {
    if (d == null) {
      throw new RmaException(ErrorClass.TYPE, "datatype is null");
    }
    return handles.apply(d);
  }

  /**
   * Internal, for {@link Datatype} only: gives the function that reads a datatype's handle, which is
   * private to {@code Datatype} so that the public API shows no accessor. {@code Datatype}'s class
   * initializer calls it, before any datatype exists.
   *
   * @throws IllegalStateException when called a second time
   */
  public static synchronized void readHandlesWith(Function<Datatype, TypeMap> reader) {
    if (handles != null) {
      throw new IllegalStateException("the reader of Datatype handles is given once, by Datatype");
    }
    handles = reader;
  }

  // ---------------------------------------------------------------------------------------------
  // Constructors of derived types (MPI_Type_*)

  /** MPI_Type_contiguous; see {@link Datatype#contiguous}. */
  public static TypeMap contiguous(int count, TypeMap old) {
    TypeMap o = oldType(old);
    checkCount("contiguous count", -1, count);
    Builder b = new Builder("contiguous(" + count + ", " + o.name + ")");
    b.addCopies(o, 0, count);
    return b.build();
  }

  /** MPI_Type_vector; see {@link Datatype#vector}. */
  public static TypeMap vector(int count, int blocklength, int stride, TypeMap old) {
    TypeMap o = oldType(old);
    checkCount("vector count", -1, count);
    checkCount("vector blocklength", -1, blocklength);
    Builder b = new Builder("vector(" + count + ", " + blocklength + ", " + stride + ", " + o.name + ")");
    long strideBytes = b.mul(stride, o.extent(), "vector stride times extent");
    b.addStrided(o, count, blocklength, strideBytes);
    return b.build();
  }

  /** MPI_Type_create_hvector; see {@link Datatype#hvector}. */
  public static TypeMap hvector(int count, int blocklength, long strideBytes, TypeMap old) {
    TypeMap o = oldType(old);
    checkCount("hvector count", -1, count);
    checkCount("hvector blocklength", -1, blocklength);
    Builder b = new Builder("hvector(" + count + ", " + blocklength + ", " + strideBytes + "B, " + o.name + ")");
    b.addStrided(o, count, blocklength, strideBytes);
    return b.build();
  }

  /** MPI_Type_indexed; see {@link Datatype#indexed}. */
  public static TypeMap indexed(int[] blocklengths, int[] displacements, TypeMap old) {
    TypeMap o = oldType(old);
    checkArrays("indexed", blocklengths, "blocklengths", displacements == null ? -1 : displacements.length, "displacements");
    Builder b = new Builder("indexed(" + blocklengths.length + " blocks, " + o.name + ")");
    for (int i = 0; i < blocklengths.length; i++) {
      checkCount("indexed blocklengths", i, blocklengths[i]);
      long disp = b.mul(displacements[i], o.extent(), "indexed displacement times extent");
      b.addCopies(o, disp, blocklengths[i]);
    }
    return b.build();
  }

  /** MPI_Type_create_hindexed; see {@link Datatype#hindexed}. */
  public static TypeMap hindexed(int[] blocklengths, long[] byteDisplacements, TypeMap old) {
    TypeMap o = oldType(old);
    checkArrays("hindexed", blocklengths, "blocklengths",
        byteDisplacements == null ? -1 : byteDisplacements.length, "byteDisplacements");
    Builder b = new Builder("hindexed(" + blocklengths.length + " blocks, " + o.name + ")");
    for (int i = 0; i < blocklengths.length; i++) {
      checkCount("hindexed blocklengths", i, blocklengths[i]);
      b.addCopies(o, byteDisplacements[i], blocklengths[i]);
    }
    return b.build();
  }

  /** MPI_Type_create_indexed_block; see {@link Datatype#indexedBlock}. */
  public static TypeMap indexedBlock(int blocklength, int[] displacements, TypeMap old) {
    TypeMap o = oldType(old);
    checkCount("indexedBlock blocklength", -1, blocklength);
    if (displacements == null) {
      throw new RmaException(ErrorClass.ARG, "indexedBlock displacements is null");
    }
    Builder b = new Builder("indexedBlock(" + blocklength + ", " + displacements.length + " blocks, " + o.name + ")");
    for (int i = 0; i < displacements.length; i++) {
      long disp = b.mul(displacements[i], o.extent(), "indexedBlock displacement times extent");
      b.addCopies(o, disp, blocklength);
    }
    return b.build();
  }

  /** MPI_Type_create_struct; see {@link Datatype#struct}. */
  public static TypeMap struct(int[] blocklengths, long[] byteDisplacements, TypeMap[] types) {
    checkArrays("struct", blocklengths, "blocklengths",
        byteDisplacements == null ? -1 : byteDisplacements.length, "byteDisplacements");
    if (types == null || types.length != blocklengths.length) {
      throw RmaException.of(ErrorClass.ARG, "struct types has length %s, blocklengths has length %d",
          types == null ? "null" : String.valueOf(types.length), blocklengths.length);
    }
    StringBuilder name = new StringBuilder("struct(");
    for (int i = 0; i < types.length; i++) {
      if (types[i] == null) {
        throw RmaException.of(ErrorClass.TYPE, "struct types[%d] is null", i);
      }
      checkCount("struct blocklengths", i, blocklengths[i]);
      if (i < 4) {
        name.append(i == 0 ? "" : ", ").append(blocklengths[i]).append('x').append(types[i].name);
      } else if (i == 4) {
        name.append(", ...");
      }
    }
    Builder b = new Builder(name.append(')').toString());
    for (int i = 0; i < types.length; i++) {
      b.addCopies(types[i], byteDisplacements[i], blocklengths[i]);
    }
    return b.build();
  }

  /** MPI_Type_create_subarray; see {@link Datatype#subarray}. */
  public static TypeMap subarray(int[] sizes, int[] subsizes, int[] starts, Order order, TypeMap old) {
    TypeMap o = oldType(old);
    if (sizes == null || subsizes == null || starts == null || order == null) {
      throw new RmaException(ErrorClass.ARG, "subarray sizes, subsizes, starts and order must not be null");
    }
    int ndims = sizes.length;
    if (ndims == 0 || subsizes.length != ndims || starts.length != ndims) {
      throw RmaException.of(ErrorClass.ARG, "subarray needs ndims >= 1 and equal lengths: sizes %d, subsizes %d, starts %d",
          ndims, subsizes.length, starts.length);
    }
    for (int i = 0; i < ndims; i++) {
      if (sizes[i] < 1 || subsizes[i] < 1 || subsizes[i] > sizes[i] || starts[i] < 0 || starts[i] > sizes[i] - subsizes[i]) {
        throw RmaException.of(ErrorClass.ARG,
            "subarray dimension %d: size %d, subsize %d, start %d (need size >= 1, 1 <= subsize <= size, 0 <= start <= size - subsize)",
            i, sizes[i], subsizes[i], starts[i]);
      }
    }
    Builder b = new Builder("subarray(" + ndims + "d " + order + ", " + o.name + ")");
    // Dimension order from the fastest-varying to the slowest.
    int[] dims = new int[ndims];
    for (int k = 0; k < ndims; k++) {
      dims[k] = order == Order.C ? ndims - 1 - k : k;
    }
    // Byte stride of each dimension, and the byte size of the whole array.
    long[] strideBytes = new long[ndims];
    long stride = o.extent();
    for (int k = 0; k < ndims; k++) {
      strideBytes[dims[k]] = stride;
      stride = b.mul(stride, sizes[dims[k]], "subarray total size");
    }
    long total = stride;
    int inner = dims[0];
    long innerStart = b.mul(starts[inner], strideBytes[inner], "subarray start");
    int[] idx = new int[ndims];
    while (true) {
      long disp = innerStart;
      for (int k = 1; k < ndims; k++) {
        int d = dims[k];
        disp = b.add(disp, b.mul((long) starts[d] + idx[d], strideBytes[d], "subarray offset"), "subarray offset");
      }
      b.addCopies(o, disp, subsizes[inner]);
      int k = 1;
      while (k < ndims && ++idx[dims[k]] == subsizes[dims[k]]) {
        idx[dims[k]] = 0;
        k++;
      }
      if (k == ndims) {
        break;
      }
    }
    b.forceBounds(0, total);
    return b.build();
  }

  /** MPI_Type_create_resized; see {@link Datatype#resized}. */
  public static TypeMap resized(TypeMap old, long lb, long extent) {
    TypeMap o = oldType(old);
    if (extent < 0) {
      throw RmaException.of(ErrorClass.ARG, "resized extent %d is negative", extent);
    }
    Builder b = new Builder("resized(" + o.name + ", " + lb + ", " + extent + ")");
    b.addCopies(o, 0, 1);
    b.forceBounds(lb, b.add(lb, extent, "resized lb plus extent"));
    return b.build();
  }

  private static TypeMap oldType(TypeMap old) {
    if (old == null) {
      throw new RmaException(ErrorClass.TYPE, "old datatype is null");
    }
    return old;
  }

  private static void checkCount(String what, int index, int value) {
    if (value < 0) {
      throw RmaException.of(ErrorClass.COUNT, "%s%s %d is negative", what, index < 0 ? "" : "[" + index + "]", value);
    }
  }

  private static void checkArrays(String ctor, int[] a, String aName, int bLength, String bName) {
    if (a == null || bLength < 0 || a.length != bLength) {
      throw RmaException.of(ErrorClass.ARG, "%s %s (length %s) and %s (length %s) must be non-null and of equal length",
          ctor, aName, a == null ? "null" : String.valueOf(a.length), bName, bLength < 0 ? "null" : String.valueOf(bLength));
    }
  }

  // ---------------------------------------------------------------------------------------------
  // What Datatype shows

  /** MPI_Type_commit: marks the type usable for communication; returns this. */
  public TypeMap commit() {
    committed = true;
    return this;
  }

  public boolean isCommitted() {
    return committed;
  }

  public boolean isPredefined() {
    return predefined != null;
  }

  public long size() {
    return size;
  }

  public long lb() {
    return lb;
  }

  public long ub() {
    return ub;
  }

  public long extent() {
    return ub - lb;
  }

  public long trueLb() {
    return trueLb;
  }

  public long trueExtent() {
    return trueUb - trueLb;
  }

  public String name() {
    return name;
  }

  public String toString() {
    return name;
  }

  // ---------------------------------------------------------------------------------------------
  // Engine accessors

  /** The basic kind of a predefined type; {@code null} for a derived type. */
  public BasicType predefinedType() {
    return predefined;
  }

  /** Upper bound of the data of one instance, in bytes from its start (MPI true ub). */
  public long trueUb() {
    return trueUb;
  }

  /** Whether lb/ub were set explicitly, by {@link #resized} or subarray, somewhere in this type. */
  public boolean hasExplicitBounds() {
    return explicitBounds;
  }

  /** Number of segments of one instance. */
  public int segmentCount() {
    return segmentCount;
  }

  /** Byte displacement of segment {@code i} from the start of the instance. */
  public long segmentDisp(int i) {
    return segments[i << 1];
  }

  /** Basic kind of the elements of segment {@code i}. */
  public BasicType segmentType(int i) {
    return TYPES[(int) (segments[(i << 1) + 1] >>> 32)];
  }

  /** Number of elements (at least 1) in segment {@code i}. */
  public int segmentLength(int i) {
    return (int) segments[(i << 1) + 1];
  }

  /**
   * Whether {@code count} instances are one run of packed data: one segment, and the data fills
   * the extent ({@code size == extent}), so instance {@code k+1}'s data follows instance {@code k}'s.
   */
  public boolean isContiguous() {
    return segmentCount == 1 && size == ub - lb;
  }

  /** The one basic kind all segments use, or {@code null} if they mix kinds or there are none. */
  public BasicType homogeneousType() {
    return homogeneousType;
  }

  /** Number of basic elements in one instance (a pair is one element). */
  public long elementCount() {
    return elementCount;
  }

  // ---------------------------------------------------------------------------------------------
  // Wire form

  /**
   * The wire form of this type map, encoded once and cached (a type map does not change once
   * built). Callers must not modify the array.
   */
  public byte[] wireBytes() {
    byte[] w = wire;
    if (w == null) {
      Buffer b = Buffer.buffer(encodedSize());
      encode(b);
      w = b.getBytes();
      wire = w;
    }
    return w;
  }

  /** Bytes {@link #encode} writes for this type. */
  public int encodedSize() {
    return predefined != null ? 1 : HEADER_BYTES + SEGMENT_BYTES * segmentCount;
  }

  /**
   * Appends the wire form. A predefined type is one byte, its {@link BasicType#code()}. A derived
   * type is a 0 byte, then (big-endian) lb, extent, trueLb, trueUb, size as longs, the segment
   * count as an int, and per segment: displacement (long), type code (byte), length (int).
   */
  public void encode(Buffer out) {
    if (predefined != null) {
      out.appendByte((byte) predefined.code());
      return;
    }
    out.appendByte((byte) 0)
        .appendLong(lb)
        .appendLong(ub - lb)
        .appendLong(trueLb)
        .appendLong(trueUb)
        .appendLong(size)
        .appendInt(segmentCount);
    for (int i = 0; i < segmentCount; i++) {
      out.appendLong(segmentDisp(i)).appendByte((byte) segmentType(i).code()).appendInt(segmentLength(i));
    }
  }

  /**
   * Reads a type written by {@link #encode} from {@code in} at {@code offset}. A predefined type
   * decodes to the shared predefined instance; a derived one to a new, committed type (its
   * lb/ub count as natural, not explicit, bounds). This is a trust boundary: every field is
   * validated before use and nothing is allocated beyond what the input's length allows.
   *
   * @param endOut if not null, {@code endOut[0]} receives the offset just after the type
   * @throws RmaException {@link ErrorClass#TYPE} for truncated or inconsistent input: unknown type
   *     codes, more than {@link #MAX_SEGMENTS} segments, segment lengths below 1, negative extent
   *     or size, arithmetic overflow, a size that is not the sum of the segments, or true bounds
   *     that do not match the segments
   */
  public static TypeMap decode(Buffer in, int offset, int[] endOut) {
    int length = in.length();
    if (offset < 0 || offset >= length) {
      throw RmaException.of(ErrorClass.TYPE, "encoded datatype: offset %d outside buffer of %d bytes", offset, length);
    }
    int tag = in.getByte(offset) & 0xFF;
    if (tag != 0) {
      TypeMap t = predefined(BasicType.ofCode(tag));
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
    if (n < 0 || n > MAX_SEGMENTS || n > (length - p) / SEGMENT_BYTES) {
      throw RmaException.of(ErrorClass.TYPE,
          "encoded datatype: segment count %d (max %d, %d bytes left)", n, MAX_SEGMENTS, length - p);
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

  // ---------------------------------------------------------------------------------------------

  /** Accumulates segments and bounds while a derived type is being flattened. */
  private static final class Builder {
    private final String name;
    private long[] segs = new long[8];
    private int n;
    private long steps;
    private long size;
    private long elements;
    private BasicType homogeneous;
    private boolean mixed;
    private boolean anyExplicit;
    private long explicitLb = Long.MAX_VALUE;
    private long explicitUb = Long.MIN_VALUE;
    private boolean anyNatural;
    private long naturalLb = Long.MAX_VALUE;
    private long naturalUb = Long.MIN_VALUE;
    private boolean anyData;
    private long dataLb = Long.MAX_VALUE;
    private long dataUb = Long.MIN_VALUE;
    private boolean forced;
    private long forcedLb;
    private long forcedUb;

    Builder(String name) {
      this.name = name.length() <= 200 ? name : name.substring(0, 197) + "...";
    }

    /** {@code a * b}; {@code what} is a constant naming the product for the error message. */
    long mul(long a, long b, String what) {
      long r = a * b;
      long hi = Math.multiplyHigh(a, b);
      if ((hi == 0 && r >= 0) || (hi == -1 && r < 0)) {
        return r;
      }
      throw RmaException.of(ErrorClass.ARG, "%s: %s (%d * %d) overflows a 64-bit byte count", name, what, a, b);
    }

    /** {@code a + b}; {@code what} is a constant naming the sum for the error message. */
    long add(long a, long b, String what) {
      long r = a + b;
      if (((a ^ r) & (b ^ r)) < 0) {
        throw RmaException.of(ErrorClass.ARG, "%s: %s (%d + %d) overflows a 64-bit byte displacement", name, what, a, b);
      }
      return r;
    }

    /** {@code a - b}, checked like {@link #add}. */
    long sub(long a, long b, String what) {
      long r = a - b;
      if (((a ^ b) & (a ^ r)) < 0) {
        throw RmaException.of(ErrorClass.ARG, "%s: %s (%d - %d) overflows a 64-bit byte displacement", name, what, a, b);
      }
      return r;
    }

    /** {@code count} blocks of {@code blocklength} copies of {@code old}, block i at {@code i * strideBytes}. */
    void addStrided(TypeMap old, int count, int blocklength, long strideBytes) {
      long blockBytes = mul(blocklength, old.extent(), "blocklength times extent");
      if (old.isContiguous() && strideBytes == blockBytes) {
        addCopies(old, 0, mul(count, blocklength, "count times blocklength"));
        return;
      }
      for (int i = 0; i < count; i++) {
        addCopies(old, mul(i, strideBytes, "block index times stride"), blocklength);
      }
    }

    /** {@code copies} instances of {@code old}, one extent apart, the first at byte {@code disp}. */
    void addCopies(TypeMap old, long disp, long copies) {
      if (copies == 0 || (old.segmentCount == 0 && !old.explicitBounds)) {
        return;
      }
      long ext = old.extent();
      long last = mul(copies - 1, ext, "copies times extent");
      long lo = Math.min(0, last);
      long hi = Math.max(0, last);
      String where = "block displacement";
      if (old.explicitBounds) {
        anyExplicit = true;
        explicitLb = Math.min(explicitLb, add(add(disp, old.lb, where), lo, where));
        explicitUb = Math.max(explicitUb, add(add(disp, old.ub, where), hi, where));
      } else {
        anyNatural = true;
        naturalLb = Math.min(naturalLb, add(add(disp, old.lb, where), lo, where));
        naturalUb = Math.max(naturalUb, add(add(disp, old.ub, where), hi, where));
      }
      if (old.segmentCount == 0) {
        return;
      }
      anyData = true;
      dataLb = Math.min(dataLb, add(add(disp, old.trueLb, where), lo, where));
      dataUb = Math.max(dataUb, add(add(disp, old.trueUb, where), hi, where));
      if (old.isContiguous()) {
        addRun(add(disp, old.segmentDisp(0), where), old.segmentType(0),
            mul(copies, old.segmentLength(0), "copies times elements"));
        return;
      }
      if (copies > (MAX_FLATTEN_STEPS - steps) / old.segmentCount) {
        throw tooLarge();
      }
      for (long k = 0; k < copies; k++) {
        long base = disp + k * ext; // within [disp + lo, disp + hi], checked above
        for (int i = 0; i < old.segmentCount; i++) {
          addRun(base + old.segmentDisp(i), old.segmentType(i), old.segmentLength(i));
        }
      }
    }

    /** {@code count} packed elements of {@code t} at byte {@code disp}, merged with the previous segment if they touch. */
    private void addRun(long disp, BasicType t, long count) {
      long bytes = mul(count, t.size(), "elements times element size");
      add(disp, bytes, "segment end");
      size = add(size, bytes, "total size");
      elements += count;
      if (homogeneous == null && !mixed) {
        homogeneous = t;
      } else if (homogeneous != t) {
        homogeneous = null;
        mixed = true;
      }
      while (count > 0) {
        if (++steps > MAX_FLATTEN_STEPS) {
          throw tooLarge();
        }
        int chunk = (int) Math.min(count, Integer.MAX_VALUE);
        int last = n - 1;
        if (last >= 0) {
          long lastMeta = segs[(last << 1) + 1];
          int lastLen = (int) lastMeta;
          if ((int) (lastMeta >>> 32) == t.ordinal()
              && segs[last << 1] + (long) lastLen * t.size() == disp
              && lastLen <= Integer.MAX_VALUE - chunk) {
            segs[(last << 1) + 1] = lastMeta + chunk;
            disp += (long) chunk * t.size();
            count -= chunk;
            continue;
          }
        }
        if (n == MAX_SEGMENTS) {
          throw tooLarge();
        }
        if ((n << 1) == segs.length) {
          segs = Arrays.copyOf(segs, segs.length << 1);
        }
        segs[n << 1] = disp;
        segs[(n << 1) + 1] = ((long) t.ordinal() << 32) | chunk;
        n++;
        disp += (long) chunk * t.size();
        count -= chunk;
      }
    }

    private RmaException tooLarge() {
      return RmaException.of(ErrorClass.INTERN, "%s flattens to more than %d segments (or %d steps); not supported",
          name, MAX_SEGMENTS, MAX_FLATTEN_STEPS);
    }

    /** Sets explicit lb/ub markers that replace all others (resized, subarray). */
    void forceBounds(long lb, long ub) {
      forced = true;
      forcedLb = lb;
      forcedUb = ub;
    }

    TypeMap build() {
      long lb;
      long ub;
      boolean explicit;
      if (forced) {
        lb = forcedLb;
        ub = forcedUb;
        explicit = true;
      } else if (anyExplicit) {
        lb = explicitLb;
        ub = explicitUb;
        explicit = true;
      } else if (anyNatural) {
        lb = naturalLb;
        ub = naturalUb;
        explicit = false;
      } else {
        lb = 0;
        ub = 0;
        explicit = false;
      }
      sub(ub, lb, "extent ub - lb");
      long[] exact = n == segs.length >> 1 ? segs : Arrays.copyOf(segs, n << 1);
      return new TypeMap(name, exact, n, size, elements, lb, ub,
          anyData ? dataLb : 0, anyData ? dataUb : 0, explicit, homogeneous, false);
    }
  }
}
