package dev.vertxrma;

/**
 * The predefined reduction operations of MPI, used by accumulate, get-accumulate and
 * fetch-and-op, and by the reducing collectives of {@link Comm}, which also take the user-defined
 * operations that {@link #create} makes (both are a {@link Reduction}). Every predefined operation
 * is commutative ({@link #isCommutative()}). Which operation is defined on which datatype follows MPI's table: arithmetic on
 * integer and floating types, logical on integer and logical types, bitwise on integer types
 * and MPI_BYTE, MAXLOC/MINLOC on the value/index pair types, REPLACE and NO_OP on anything
 * (the table with the datatypes named is in {@link Datatype}). Integer arithmetic wraps modulo
 * 2^n; MAX and MIN compare the unsigned types (CHAR, UINT8..UINT64) as unsigned numbers.
 * {@link #code()} is the stable number used on the wire.
 */
public enum Op implements Reduction {
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
   * Every predefined operation is commutative (and associative), as MPI defines them.
   *
   * @return {@code true}
   */
  @Override
  public boolean isCommutative() {
    return true;
  }

  /**
   * MPI_Op_create: a user-defined reduction operation for the reducing collectives of
   * {@link Comm} ({@code reduce}, {@code allreduce}, {@code reduceScatter},
   * {@code reduceScatterBlock}, {@code scan}, {@code exscan}), on any committed datatype, derived
   * and mixed ones included. The collectives call {@code function} on packed operands (see
   * {@link UserFunction}) and, for a non-commutative operation ({@code commute = false}), combine
   * the ranks' contributions as if in ascending rank order: the result is
   * {@code x0 op x1 op ... op x(P-1)}, however the algorithm groups them (the operation must be
   * associative, as MPI requires; floating-point rounding may depend on the grouping). An exception
   * thrown by the function fails the collective call at every rank with {@link ErrorClass#OP}
   * naming the rank where it was thrown; no rank waits for a result that will not come.
   *
   * <p>MPI forbids user-defined operations in the RMA accumulate functions (MPI_Accumulate,
   * MPI_Get_accumulate, MPI_Fetch_and_op and their request forms): there, the types refuse them,
   * since {@link Win#accumulate(Buf, int, int, Datatype, int, long, int, Datatype, Op) accumulate},
   * {@link Win#getAccumulate getAccumulate} and {@link Win#fetchAndOp(Buf, int, Buf, int, Datatype,
   * int, long, Op) fetchAndOp} take an {@link Op}, which a {@link UserOp} is not.
   *
   * @param function combines {@code in} into {@code inout} ({@code inout[i] = in[i] op inout[i]})
   * @param commute whether the operation is commutative (MPI's {@code commute} flag): {@code true}
   *     lets the collectives combine in any order
   * @return the new operation (nothing to free: MPI_Op_free has no twin)
   * @throws RmaException {@link ErrorClass#ARG} for a null function
   */
  public static UserOp create(UserFunction function, boolean commute) {
    if (function == null) {
      throw new RmaException(ErrorClass.ARG, "Op.create: the function is null");
    }
    return new UserOp(function, commute);
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
