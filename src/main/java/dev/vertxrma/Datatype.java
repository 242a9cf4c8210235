package dev.vertxrma;

import dev.vertxrma.impl.ops.BasicType;
import dev.vertxrma.impl.ops.DerivedTypes;
import dev.vertxrma.impl.ops.TypeMap;

/**
 * An MPI datatype: the layout of the elements one operation reads or writes (MPI_Datatype).
 *
 * <p>The constants are the predefined types, always committed. The static factories build
 * derived types like the MPI_Type_* constructors; a derived type must be {@link #commit()
 * committed} before it is used for communication, and may be used to build further types
 * before that. The factories check their arguments at once and throw {@link RmaException}:
 * {@link ErrorClass#COUNT} for a negative count or block length, {@link ErrorClass#ARG} for null
 * or mismatched arrays, bad subarray bounds or a displacement that overflows 64 bits,
 * {@link ErrorClass#TYPE} for a null datatype, {@link ErrorClass#INTERN} for a type too
 * fragmented to flatten (over a million separate pieces per instance).
 *
 * <p>Bounds follow MPI: lb/ub are the least/greatest byte displacement of the data, unless set
 * explicitly by {@link #resized} (or {@link #subarray}), which then stick to every type built
 * from it; {@code extent = ub - lb}. Derived types get no alignment padding. Elements are in
 * the platform's native byte order; Java arrays of any primitive type are addressed in bytes.
 *
 * <p><b>Java arrays.</b> A {@code byte[]} (like a {@code BytesStore}, a Vert.x {@code Buffer}
 * or a {@code ByteBuffer}) is raw memory and holds any datatype. Any other primitive array holds
 * exactly the datatypes whose elements are its element type, and a call that gives it another
 * datatype fails with {@link ErrorClass#TYPE}; a derived type counts as the one predefined type
 * it is built from (a type that mixes predefined types needs raw memory).
 * <table>
 *   <caption>Which Java array holds which datatype</caption>
 *   <tr><th scope="col">array</th><th scope="col">datatypes</th></tr>
 *   <tr><td>{@code byte[]}</td><td>any; one element per value for {@link #BYTE}, {@link #INT8},
 *       {@link #UINT8}</td></tr>
 *   <tr><td>{@code short[]}</td><td>{@link #SHORT}, {@link #INT16}, {@link #UINT16}</td></tr>
 *   <tr><td>{@code char[]}</td><td>{@link #CHAR}</td></tr>
 *   <tr><td>{@code int[]}</td><td>{@link #INT}, {@link #INT32}, {@link #UINT32},
 *       {@link #INT_INT} (two {@code int}s per element)</td></tr>
 *   <tr><td>{@code long[]}</td><td>{@link #LONG}, {@link #AINT}, {@link #INT64},
 *       {@link #UINT64}</td></tr>
 *   <tr><td>{@code float[]}, {@code double[]}</td><td>{@link #FLOAT}, {@link #DOUBLE}</td></tr>
 *   <tr><td>{@code boolean[]}</td><td>{@link #BOOLEAN}, which is {@link #C_BOOL}</td></tr>
 * </table>
 * An unsigned value lives in the signed Java array of its width, bit for bit: the
 * {@code UINT32} value 4294967295 is the {@code int} -1 ({@code Integer.toUnsignedLong} reads it
 * back), the {@code UINT64} value 2^64 - 1 the {@code long} -1 ({@code Long.toUnsignedString}).
 *
 * <p><b>Operations.</b> MPI's table of which reduction operation is defined on which datatype:
 * SUM, PROD, MAX, MIN on the integer types (CHAR, SHORT, INT, LONG, AINT, INT8..INT64,
 * UINT8..UINT64) and FLOAT, DOUBLE; LAND, LOR, LXOR on the integer types and {@link #C_BOOL};
 * BAND, BOR, BXOR on the integer types and {@link #BYTE}; MAXLOC, MINLOC on the pair types;
 * REPLACE and NO_OP on every type. Any other combination fails with {@link ErrorClass#OP} and
 * leaves the target alone. So {@code BYTE} (MPI_BYTE, uninterpreted bytes) takes only the bit
 * operations, and {@code C_BOOL} only the logical ones. Integer arithmetic wraps modulo 2^n as in
 * C; on the unsigned types (CHAR, UINT8..UINT64) MAX and MIN compare unsigned (MAX of
 * {@code 0xFFFF_FFFF_FFFF_FFFF} and 1 as {@code UINT64} is {@code 0xFFFF_FFFF_FFFF_FFFF}), the
 * only place where signedness changes a result. Compare-and-swap takes one predefined integer
 * type, {@code C_BOOL} or {@code BYTE}, and compares bit patterns.
 *
 * <p><b>Matching.</b> Each constant is one MPI datatype, and the type signatures of the two sides
 * of a transfer must match predefined type by predefined type (MPI's type-matching rule), else
 * {@link ErrorClass#TYPE}: {@code INT} (MPI_INT) and {@code INT32} (MPI_INT32_T) are different
 * types even though both are 4-byte signed integers, as are {@code LONG}, {@code AINT} and
 * {@code INT64}, or {@code INT8}, {@code UINT8} and {@code BYTE}. {@link #BOOLEAN} and
 * {@link #C_BOOL} are two names of one type and match.
 *
 * <p><b>Handles.</b> Like an MPI_Datatype, a {@code Datatype} is a handle: it holds the flattened
 * type map that the implementation walks, which it does not show. Every constructor call makes a
 * new type; two datatypes are {@link Object#equals equal} only when they are the same object (so
 * {@link #BOOLEAN} and {@link #C_BOOL}, two objects, are not, though they match in every call).
 * A datatype is safe to share between threads and ranks; {@link #commit()} is its only change.
 */
public final class Datatype {

  static {
    // The one way from a datatype to its type map, given to the implementation before any datatype exists.
    TypeMap.readHandlesWith(d -> d.map);
  }

  /** A raw byte (MPI_BYTE). */
  public static final Datatype BYTE = new Datatype(TypeMap.predefined(BasicType.BYTE));
  /** A Java {@code char}, 2 bytes, unsigned (MPI_UNSIGNED_SHORT semantics). */
  public static final Datatype CHAR = new Datatype(TypeMap.predefined(BasicType.CHAR));
  /** A 2-byte signed integer (MPI_SHORT). */
  public static final Datatype SHORT = new Datatype(TypeMap.predefined(BasicType.SHORT));
  /** A 4-byte signed integer (MPI_INT). */
  public static final Datatype INT = new Datatype(TypeMap.predefined(BasicType.INT));
  /** An 8-byte signed integer (MPI_LONG). */
  public static final Datatype LONG = new Datatype(TypeMap.predefined(BasicType.LONG));
  /** A 4-byte IEEE float (MPI_FLOAT). */
  public static final Datatype FLOAT = new Datatype(TypeMap.predefined(BasicType.FLOAT));
  /** An 8-byte IEEE double (MPI_DOUBLE). */
  public static final Datatype DOUBLE = new Datatype(TypeMap.predefined(BasicType.DOUBLE));
  /**
   * A logical in one byte: 0 is false, anything else true (MPI_C_BOOL); the Java {@code boolean}.
   * The same datatype as {@link #C_BOOL}, under its Java name.
   */
  public static final Datatype BOOLEAN = new Datatype(TypeMap.predefined(BasicType.BOOLEAN));
  /** An 8-byte address or displacement integer (MPI_AINT). */
  public static final Datatype AINT = new Datatype(TypeMap.predefined(BasicType.AINT));
  /** An {@code int} value and an {@code int} index, for MAXLOC/MINLOC (MPI_2INT). */
  public static final Datatype INT_INT = new Datatype(TypeMap.predefined(BasicType.INT_INT));
  /** A {@code long} value and an {@code int} index: size 12, extent 16 (MPI_LONG_INT). */
  public static final Datatype LONG_INT = new Datatype(TypeMap.predefined(BasicType.LONG_INT));
  /** A {@code float} value and an {@code int} index (MPI_FLOAT_INT). */
  public static final Datatype FLOAT_INT = new Datatype(TypeMap.predefined(BasicType.FLOAT_INT));
  /** A {@code double} value and an {@code int} index: size 12, extent 16 (MPI_DOUBLE_INT). */
  public static final Datatype DOUBLE_INT = new Datatype(TypeMap.predefined(BasicType.DOUBLE_INT));
  /** An 8-bit signed integer (MPI_INT8_T); unlike {@link #BYTE} it takes arithmetic. */
  public static final Datatype INT8 = new Datatype(TypeMap.predefined(BasicType.INT8));
  /** A 16-bit signed integer (MPI_INT16_T). */
  public static final Datatype INT16 = new Datatype(TypeMap.predefined(BasicType.INT16));
  /** A 32-bit signed integer (MPI_INT32_T). */
  public static final Datatype INT32 = new Datatype(TypeMap.predefined(BasicType.INT32));
  /** A 64-bit signed integer (MPI_INT64_T). */
  public static final Datatype INT64 = new Datatype(TypeMap.predefined(BasicType.INT64));
  /** An 8-bit unsigned integer, 0..255 (MPI_UINT8_T); held in a {@code byte[]}. */
  public static final Datatype UINT8 = new Datatype(TypeMap.predefined(BasicType.UINT8));
  /** A 16-bit unsigned integer, 0..65535 (MPI_UINT16_T); held in a {@code short[]}. */
  public static final Datatype UINT16 = new Datatype(TypeMap.predefined(BasicType.UINT16));
  /** A 32-bit unsigned integer, 0..2^32 - 1 (MPI_UINT32_T); held in an {@code int[]}. */
  public static final Datatype UINT32 = new Datatype(TypeMap.predefined(BasicType.UINT32));
  /** A 64-bit unsigned integer, 0..2^64 - 1 (MPI_UINT64_T); held in a {@code long[]}. */
  public static final Datatype UINT64 = new Datatype(TypeMap.predefined(BasicType.UINT64));
  /**
   * C's {@code bool} (MPI_C_BOOL): one byte, 0 is false, anything else true; the logical
   * operations LAND, LOR, LXOR store 1 or 0, arithmetic and bit operations are refused
   * ({@link ErrorClass#OP}). The same datatype as {@link #BOOLEAN} (held in a
   * {@code boolean[]}), under its MPI name: the two match each other in every call.
   */
  public static final Datatype C_BOOL = new Datatype(TypeMap.predefinedAlias(BasicType.BOOLEAN, "C_BOOL"));

  /** Storage order of a {@link #subarray}: row-major (C) or column-major (Fortran). */
  public enum Order {
    /** Row-major: the last dimension varies fastest (MPI_ORDER_C). */
    C,
    /** Column-major: the first dimension varies fastest (MPI_ORDER_FORTRAN). */
    FORTRAN
  }

  /** The opaque handle: the flattened type map that the implementation works on. */
  private final TypeMap map;

  private Datatype(TypeMap map) {
    this.map = map;
  }

  /**
   * MPI_Type_contiguous: {@code count} copies of {@code old}, one extent apart.
   *
   * @param count the number of copies, {@code >= 0}
   * @param old the element type (committed or not)
   * @return the new type, not yet committed
   * @throws RmaException {@link ErrorClass#COUNT} for a negative count, {@link ErrorClass#TYPE}
   *     for a null {@code old}, {@link ErrorClass#ARG} when the size overflows 64 bits,
   *     {@link ErrorClass#INTERN} for a type too fragmented to flatten
   */
  public static Datatype contiguous(int count, Datatype old) {
    return new Datatype(DerivedTypes.contiguous(count, map(old)));
  }

  /**
   * MPI_Type_vector: {@code count} blocks of {@code blocklength} copies of {@code old}, block
   * starts {@code stride} extents of {@code old} apart; the stride may be negative.
   *
   * @param count the number of blocks, {@code >= 0}
   * @param blocklength the copies of {@code old} per block, {@code >= 0}
   * @param stride the distance between block starts, in extents of {@code old}
   * @param old the element type (committed or not)
   * @return the new type, not yet committed
   * @throws RmaException {@link ErrorClass#COUNT} for a negative count or block length,
   *     {@link ErrorClass#TYPE} for a null {@code old}, {@link ErrorClass#ARG} when a
   *     displacement overflows 64 bits, {@link ErrorClass#INTERN} for a type too fragmented to
   *     flatten
   */
  public static Datatype vector(int count, int blocklength, int stride, Datatype old) {
    return new Datatype(DerivedTypes.vector(count, blocklength, stride, map(old)));
  }

  /**
   * MPI_Type_create_hvector: as {@link #vector}, with the stride in bytes.
   *
   * @param count the number of blocks, {@code >= 0}
   * @param blocklength the copies of {@code old} per block, {@code >= 0}
   * @param strideBytes the distance between block starts, in bytes
   * @param old the element type (committed or not)
   * @return the new type, not yet committed
   * @throws RmaException as {@link #vector}
   */
  public static Datatype hvector(int count, int blocklength, long strideBytes, Datatype old) {
    return new Datatype(DerivedTypes.hvector(count, blocklength, strideBytes, map(old)));
  }

  /**
   * MPI_Type_indexed: block {@code i} is {@code blocklengths[i]} copies of {@code old} at
   * {@code displacements[i]} extents of {@code old}.
   *
   * @param blocklengths the copies of {@code old} per block, each {@code >= 0}
   * @param displacements the block starts in extents of {@code old}, as many as blocks
   * @param old the element type (committed or not)
   * @return the new type, not yet committed
   * @throws RmaException {@link ErrorClass#ARG} for null arrays or arrays of different lengths,
   *     or a displacement that overflows 64 bits; {@link ErrorClass#COUNT} for a negative block
   *     length; {@link ErrorClass#TYPE} for a null {@code old}; {@link ErrorClass#INTERN} for a
   *     type too fragmented to flatten
   */
  public static Datatype indexed(int[] blocklengths, int[] displacements, Datatype old) {
    return new Datatype(DerivedTypes.indexed(blocklengths, displacements, map(old)));
  }

  /**
   * MPI_Type_create_hindexed: as {@link #indexed}, with displacements in bytes.
   *
   * @param blocklengths the copies of {@code old} per block, each {@code >= 0}
   * @param byteDisplacements the block starts in bytes, as many as blocks
   * @param old the element type (committed or not)
   * @return the new type, not yet committed
   * @throws RmaException as {@link #indexed}
   */
  public static Datatype hindexed(int[] blocklengths, long[] byteDisplacements, Datatype old) {
    return new Datatype(DerivedTypes.hindexed(blocklengths, byteDisplacements, map(old)));
  }

  /**
   * MPI_Type_create_indexed_block: as {@link #indexed} with the same length for every block.
   *
   * @param blocklength the copies of {@code old} per block, {@code >= 0}
   * @param displacements the block starts in extents of {@code old}
   * @param old the element type (committed or not)
   * @return the new type, not yet committed
   * @throws RmaException {@link ErrorClass#ARG} for null displacements or one that overflows 64
   *     bits, {@link ErrorClass#COUNT} for a negative block length, {@link ErrorClass#TYPE} for a
   *     null {@code old}, {@link ErrorClass#INTERN} for a type too fragmented to flatten
   */
  public static Datatype indexedBlock(int blocklength, int[] displacements, Datatype old) {
    return new Datatype(DerivedTypes.indexedBlock(blocklength, displacements, map(old)));
  }

  /**
   * MPI_Type_create_struct: block {@code i} is {@code blocklengths[i]} copies of {@code types[i]}
   * at byte {@code byteDisplacements[i]}. No padding is added: to lay out a C struct with
   * trailing padding, {@link #resized} the result.
   *
   * @param blocklengths the copies per block, each {@code >= 0}
   * @param byteDisplacements the block starts in bytes, as many as blocks
   * @param types the element type of each block, as many as blocks
   * @return the new type, not yet committed
   * @throws RmaException {@link ErrorClass#ARG} for null arrays or arrays of different lengths,
   *     or a displacement that overflows 64 bits; {@link ErrorClass#COUNT} for a negative block
   *     length; {@link ErrorClass#TYPE} for a null element of {@code types};
   *     {@link ErrorClass#INTERN} for a type too fragmented to flatten
   */
  public static Datatype struct(int[] blocklengths, long[] byteDisplacements, Datatype[] types) {
    return new Datatype(DerivedTypes.struct(blocklengths, byteDisplacements, maps(types)));
  }

  /**
   * MPI_Type_create_subarray: the {@code subsizes} block starting at {@code starts} of an
   * {@code sizes} array of {@code old} in the given storage order; lb 0 and extent the whole
   * array.
   *
   * @param sizes the array's size in each dimension, each {@code >= 1}
   * @param subsizes the block's size in each dimension, {@code 1 <= subsizes[i] <= sizes[i]}
   * @param starts the block's start in each dimension,
   *     {@code 0 <= starts[i] <= sizes[i] - subsizes[i]}
   * @param order the storage order of the array
   * @param old the element type (committed or not)
   * @return the new type, not yet committed
   * @throws RmaException {@link ErrorClass#ARG} for null or zero-length arrays, arrays of
   *     different lengths, bounds outside the ranges above, a null order, or a size that
   *     overflows 64 bits; {@link ErrorClass#TYPE} for a null {@code old};
   *     {@link ErrorClass#INTERN} for a type too fragmented to flatten
   */
  public static Datatype subarray(int[] sizes, int[] subsizes, int[] starts, Order order, Datatype old) {
    return new Datatype(DerivedTypes.subarray(sizes, subsizes, starts, order, map(old)));
  }

  /**
   * MPI_Type_create_resized: {@code old} with lb and extent set explicitly.
   *
   * @param old the type to resize (committed or not)
   * @param lb the new lower bound in bytes
   * @param extent the new extent in bytes, {@code >= 0}
   * @return the new type, not yet committed
   * @throws RmaException {@link ErrorClass#ARG} for a negative extent or {@code lb + extent}
   *     overflowing 64 bits, {@link ErrorClass#TYPE} for a null {@code old}
   */
  public static Datatype resized(Datatype old, long lb, long extent) {
    return new Datatype(DerivedTypes.resized(map(old), lb, extent));
  }

  /**
   * MPI_Type_commit: makes the type usable in communication. Committing twice is harmless.
   *
   * @return this type
   */
  public Datatype commit() {
    map.commit();
    return this;
  }

  /**
   * Whether the type has been committed.
   *
   * @return {@code true} after {@link #commit()}; always for predefined types
   */
  public boolean isCommitted() {
    return map.isCommitted();
  }

  /**
   * Whether this is one of the predefined constants.
   *
   * @return {@code true} for {@link #BYTE}, {@link #INT}, ..., {@code false} for derived types
   */
  public boolean isPredefined() {
    return map.isPredefined();
  }

  /**
   * MPI_Type_size: the bytes of data in one instance, without gaps.
   *
   * @return the size in bytes
   */
  public long size() {
    return map.size();
  }

  /**
   * MPI_Type_get_extent: the lower bound.
   *
   * @return the lower bound in bytes
   */
  public long lb() {
    return map.lb();
  }

  /**
   * The upper bound.
   *
   * @return {@code lb() + extent()}, in bytes
   */
  public long ub() {
    return map.ub();
  }

  /**
   * MPI_Type_get_extent: the distance between consecutive instances.
   *
   * @return the extent in bytes
   */
  public long extent() {
    return map.extent();
  }

  /**
   * MPI_Type_get_true_extent: where the data starts, ignoring explicit bounds.
   *
   * @return the byte displacement of the first data byte
   */
  public long trueLb() {
    return map.trueLb();
  }

  /**
   * MPI_Type_get_true_extent: the span of the data, ignoring explicit bounds.
   *
   * @return the bytes from the first data byte to past the last one
   */
  public long trueExtent() {
    return map.trueExtent();
  }

  /**
   * MPI_Type_get_name: a readable name.
   *
   * @return the predefined constant's name, or a summary of the constructor
   */
  public String name() {
    return map.name();
  }

  /**
   * The type's {@link #name()}.
   *
   * @return the predefined constant's name, or a summary of the constructor
   */
  @Override
  public String toString() {
    return map.name();
  }

  /** The handle of a datatype argument, {@code null} for {@code null} (the type map's constructors say TYPE). */
  private static TypeMap map(Datatype d) {
    return d == null ? null : d.map;
  }

  /** The handles of {@code struct}'s types, {@code null} where the type is. */
  private static TypeMap[] maps(Datatype[] types) {
    if (types == null) {
      return null;
    }
    TypeMap[] maps = new TypeMap[types.length];
    for (int i = 0; i < types.length; i++) {
      maps[i] = map(types[i]);
    }
    return maps;
  }
}
