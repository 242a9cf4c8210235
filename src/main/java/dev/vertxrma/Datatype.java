package dev.vertxrma;

import dev.vertxrma.impl.ops.BasicType;
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
 */
public interface Datatype {

  /** A raw byte (MPI_BYTE). */
  Datatype BYTE = TypeMap.predefined(BasicType.BYTE);
  /** A Java {@code char}, 2 bytes, unsigned (MPI_UNSIGNED_SHORT semantics). */
  Datatype CHAR = TypeMap.predefined(BasicType.CHAR);
  /** A 2-byte signed integer (MPI_SHORT). */
  Datatype SHORT = TypeMap.predefined(BasicType.SHORT);
  /** A 4-byte signed integer (MPI_INT). */
  Datatype INT = TypeMap.predefined(BasicType.INT);
  /** An 8-byte signed integer (MPI_LONG). */
  Datatype LONG = TypeMap.predefined(BasicType.LONG);
  /** A 4-byte IEEE float (MPI_FLOAT). */
  Datatype FLOAT = TypeMap.predefined(BasicType.FLOAT);
  /** An 8-byte IEEE double (MPI_DOUBLE). */
  Datatype DOUBLE = TypeMap.predefined(BasicType.DOUBLE);
  /** A logical in one byte: 0 is false, anything else true (MPI_C_BOOL). */
  Datatype BOOLEAN = TypeMap.predefined(BasicType.BOOLEAN);
  /** An 8-byte address or displacement integer (MPI_AINT). */
  Datatype AINT = TypeMap.predefined(BasicType.AINT);
  /** An {@code int} value and an {@code int} index, for MAXLOC/MINLOC (MPI_2INT). */
  Datatype INT_INT = TypeMap.predefined(BasicType.INT_INT);
  /** A {@code long} value and an {@code int} index: size 12, extent 16 (MPI_LONG_INT). */
  Datatype LONG_INT = TypeMap.predefined(BasicType.LONG_INT);
  /** A {@code float} value and an {@code int} index (MPI_FLOAT_INT). */
  Datatype FLOAT_INT = TypeMap.predefined(BasicType.FLOAT_INT);
  /** A {@code double} value and an {@code int} index: size 12, extent 16 (MPI_DOUBLE_INT). */
  Datatype DOUBLE_INT = TypeMap.predefined(BasicType.DOUBLE_INT);

  /** Storage order of a {@link #subarray}: row-major (C) or column-major (Fortran). */
  enum Order {
    /** Row-major: the last dimension varies fastest (MPI_ORDER_C). */
    C,
    /** Column-major: the first dimension varies fastest (MPI_ORDER_FORTRAN). */
    FORTRAN
  }

  /** {@code count} copies of {@code old}, one extent apart (MPI_Type_contiguous). */
  static Datatype contiguous(int count, Datatype old) {
    return TypeMap.contiguous(count, old);
  }

  /**
   * {@code count} blocks of {@code blocklength} copies of {@code old}, block starts
   * {@code stride} extents of {@code old} apart; the stride may be negative (MPI_Type_vector).
   */
  static Datatype vector(int count, int blocklength, int stride, Datatype old) {
    return TypeMap.vector(count, blocklength, stride, old);
  }

  /** As {@link #vector}, with the stride in bytes (MPI_Type_create_hvector). */
  static Datatype hvector(int count, int blocklength, long strideBytes, Datatype old) {
    return TypeMap.hvector(count, blocklength, strideBytes, old);
  }

  /**
   * Block {@code i} is {@code blocklengths[i]} copies of {@code old} at {@code displacements[i]}
   * extents of {@code old} (MPI_Type_indexed).
   */
  static Datatype indexed(int[] blocklengths, int[] displacements, Datatype old) {
    return TypeMap.indexed(blocklengths, displacements, old);
  }

  /** As {@link #indexed}, with displacements in bytes (MPI_Type_create_hindexed). */
  static Datatype hindexed(int[] blocklengths, long[] byteDisplacements, Datatype old) {
    return TypeMap.hindexed(blocklengths, byteDisplacements, old);
  }

  /** As {@link #indexed} with the same length for every block (MPI_Type_create_indexed_block). */
  static Datatype indexedBlock(int blocklength, int[] displacements, Datatype old) {
    return TypeMap.indexedBlock(blocklength, displacements, old);
  }

  /**
   * Block {@code i} is {@code blocklengths[i]} copies of {@code types[i]} at byte
   * {@code byteDisplacements[i]} (MPI_Type_create_struct). No padding is added: to lay out a C
   * struct with trailing padding, {@link #resized} the result.
   */
  static Datatype struct(int[] blocklengths, long[] byteDisplacements, Datatype[] types) {
    return TypeMap.struct(blocklengths, byteDisplacements, types);
  }

  /**
   * The {@code subsizes} block starting at {@code starts} of an {@code sizes} array of
   * {@code old} in the given storage order; lb 0 and extent the whole array
   * (MPI_Type_create_subarray). Requires {@code sizes[i] >= 1},
   * {@code 1 <= subsizes[i] <= sizes[i]} and {@code 0 <= starts[i] <= sizes[i] - subsizes[i]}.
   */
  static Datatype subarray(int[] sizes, int[] subsizes, int[] starts, Order order, Datatype old) {
    return TypeMap.subarray(sizes, subsizes, starts, order, old);
  }

  /** {@code old} with lb and extent set explicitly; {@code extent >= 0} (MPI_Type_create_resized). */
  static Datatype resized(Datatype old, long lb, long extent) {
    return TypeMap.resized(old, lb, extent);
  }

  /** Commits the type for use in communication and returns it (MPI_Type_commit). */
  Datatype commit();

  /** Whether the type has been committed; predefined types always are. */
  boolean isCommitted();

  /** Whether this is one of the predefined constants. */
  boolean isPredefined();

  /** Bytes of data in one instance, without gaps (MPI_Type_size). */
  long size();

  /** Lower bound in bytes (MPI_Type_get_extent). */
  long lb();

  /** Upper bound in bytes: {@code lb() + extent()}. */
  long ub();

  /** Distance in bytes between consecutive instances (MPI_Type_get_extent). */
  long extent();

  /** Byte displacement of the first data byte (MPI_Type_get_true_extent). */
  long trueLb();

  /** Bytes from the first to past the last data byte (MPI_Type_get_true_extent). */
  long trueExtent();

  /** A readable name: the predefined constant's name or a summary of the constructor (MPI_Type_get_name). */
  String name();
}
