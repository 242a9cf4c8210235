package dev.vertxrma.impl.ops;

import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.buffer.Buffer;
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
 * some component was {@link DerivedTypes#resized resized}, in which case the explicit markers win
 * ("sticky" lb/ub); no alignment padding is added to derived types. {@code trueLb}/{@code trueUb}
 * always bound the data. A type with no data has true bounds 0/0.
 *
 * <p>Flattening is eager and bounded: a type may have at most {@link #MAX_SEGMENTS} segments,
 * otherwise its constructor throws {@link ErrorClass#INTERN}. The MPI_Type_* constructors that
 * build derived maps are {@link DerivedTypes} (flattening in {@link TypeFlattener}); the wire
 * form, written and read back from untrusted input, is {@link TypeMapWire}.
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

  /**
   * A derived type map, built by {@link TypeFlattener} or {@link TypeMapWire#decode}; takes
   * {@code segments} (two longs per segment, as the field holds them) without copying.
   */
  TypeMap(String name, long[] segments, int segmentCount, long size, long elementCount, long lb, long ub,
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

  /** Whether lb/ub were set explicitly, by resized or subarray ({@link DerivedTypes}), somewhere in this type. */
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
      Buffer b = Buffer.buffer(TypeMapWire.encodedSize(this));
      TypeMapWire.encode(this, b);
      w = b.getBytes();
      wire = w;
    }
    return w;
  }

  /** Bytes {@link #encode} writes for this type. */
  public int encodedSize() {
    return TypeMapWire.encodedSize(this);
  }

  /** Appends the wire form ({@link TypeMapWire#encode}); {@link TypeMapWire#decode} reads it back. */
  public void encode(Buffer out) {
    TypeMapWire.encode(this, out);
  }
}
