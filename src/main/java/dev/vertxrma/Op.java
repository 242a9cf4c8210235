package dev.vertxrma;

/**
 * The predefined reduction operations of MPI, used by accumulate, get-accumulate and
 * fetch-and-op. Which operation is defined on which datatype follows MPI's table: arithmetic on
 * integer and floating types, logical on integer and logical types, bitwise on integer types
 * and MPI_BYTE, MAXLOC/MINLOC on the value/index pair types, REPLACE and NO_OP on anything
 * (the table with the datatypes named is in {@link Datatype}). Integer arithmetic wraps modulo
 * 2^n; MAX and MIN compare the unsigned types (CHAR, UINT8..UINT64) as unsigned numbers.
 * {@link #code()} is the stable number used on the wire.
 */
public enum Op {
  /** Sum (MPI_SUM). */
  SUM(1, "MPI_SUM"),
  /** Product (MPI_PROD). */
  PROD(2, "MPI_PROD"),
  /** Maximum (MPI_MAX). */
  MAX(3, "MPI_MAX"),
  /** Minimum (MPI_MIN). */
  MIN(4, "MPI_MIN"),
  /** Logical and, result 0 or 1 (MPI_LAND). */
  LAND(5, "MPI_LAND"),
  /** Logical or, result 0 or 1 (MPI_LOR). */
  LOR(6, "MPI_LOR"),
  /** Logical exclusive or, result 0 or 1 (MPI_LXOR). */
  LXOR(7, "MPI_LXOR"),
  /** Bitwise and (MPI_BAND). */
  BAND(8, "MPI_BAND"),
  /** Bitwise or (MPI_BOR). */
  BOR(9, "MPI_BOR"),
  /** Bitwise exclusive or (MPI_BXOR). */
  BXOR(10, "MPI_BXOR"),
  /** Maximum value and the lowest index that holds it, on pair types (MPI_MAXLOC). */
  MAXLOC(11, "MPI_MAXLOC"),
  /** Minimum value and the lowest index that holds it, on pair types (MPI_MINLOC). */
  MINLOC(12, "MPI_MINLOC"),
  /** The target takes the origin's value: an atomic put (MPI_REPLACE). */
  REPLACE(13, "MPI_REPLACE"),
  /** The target is left unchanged: an atomic get with get-accumulate (MPI_NO_OP). */
  NO_OP(14, "MPI_NO_OP");

  private static final Op[] BY_CODE = new Op[16];

  static {
    for (Op op : values()) {
      BY_CODE[op.code] = op;
    }
  }

  private final int code;
  private final String mpiName;

  Op(int code, String mpiName) {
    this.code = code;
    this.mpiName = mpiName;
  }

  /**
   * The stable wire code of this operation.
   *
   * @return the code, 1..14
   */
  public int code() {
    return code;
  }

  /**
   * The MPI name of this operation.
   *
   * @return the name, e.g. {@code MPI_SUM}
   */
  public String mpiName() {
    return mpiName;
  }

  /**
   * The operation with the given wire code.
   *
   * @param code a code from {@link #code()}
   * @return the operation with that code
   * @throws RmaException {@link ErrorClass#OP} for a code that names no operation
   */
  public static Op ofCode(int code) {
    if (code < 0 || code >= BY_CODE.length || BY_CODE[code] == null) {
      throw RmaException.of(ErrorClass.OP, "unknown reduction operation code %d", code);
    }
    return BY_CODE[code];
  }
}
