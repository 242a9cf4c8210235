package dev.vertxrma.impl.ops;

import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.Reduction;
import dev.vertxrma.RmaException;
import dev.vertxrma.UserOp;
import dev.vertxrma.impl.memory.Memory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The operation of one reducing collective call, checked, over the packed blocks it combines:
 * {@code lower op higher}, where {@code lower} is the combination of lower ranks than
 * {@code higher}'s (MPI's order, which only a non-commutative user-defined op can tell). A
 * predefined {@link Op} runs the {@link ReductionKernel} on the basic elements; a {@link UserOp}
 * calls its function on the elements of the call's datatype, packed, with {@code in} the lower
 * and {@code inout} the higher operand (MPI_User_function's {@code inoutvec = invec op inoutvec}).
 * One of the two blocks is written, the other is only read (it may be another rank's, in this
 * JVM); {@link #intoLower} and {@link #intoHigher} say which.
 */
public final class Combiner {

  private final Op op;
  private final BasicType basic;
  private final int elements;
  private final UserOp user;
  /** The datatype of the call, as the user's function gets it. */
  private final Datatype type;
  private final int count;
  private final String what;
  private final int rank;

  private Combiner(Op op, BasicType basic, int elements, UserOp user, Datatype type, int count, String what,
      int rank) {
    this.op = op;
    this.basic = basic;
    this.elements = elements;
    this.user = user;
    this.type = type;
    this.count = count;
    this.what = what;
    this.rank = rank;
  }

  /**
   * The checked operation of a call {@code what} at rank {@code rank} reducing {@code count}
   * elements of {@code type}, a committed datatype (a user-defined op's function gets this one).
   *
   * @throws RmaException {@link ErrorClass#OP} for a null op, a predefined op not defined on the
   *     datatype, REPLACE or NO_OP; {@link ErrorClass#TYPE} for a datatype that mixes basic types
   *     with a predefined op
   */
  public static Combiner of(Reduction op, Datatype type, int count, String what, int rank) {
    if (op == null) {
      throw RmaException.of(ErrorClass.OP, "%s: op is null", what);
    }
    if (op instanceof UserOp u) {
      return new Combiner(null, null, 0, u, type, count, what, rank);
    }
    Op predefined = (Op) op;
    TypeMap t = TypeMap.of(type);
    BasicType basic = t.homogeneousType();
    if (basic == null) {
      throw RmaException.of(ErrorClass.TYPE, "%s: datatype %s mixes element types; a predefined op needs one (a "
          + "user-defined op takes any)", what, t.name());
    }
    DatatypeEngine.checkOp(predefined, t);
    if (predefined == Op.REPLACE || predefined == Op.NO_OP) {
      throw RmaException.of(ErrorClass.OP, "%s: %s is only defined for RMA accumulate, not for reductions", what,
          predefined);
    }
    if (count < 0) {
      throw RmaException.of(ErrorClass.COUNT, "%s: count %d is negative", what, count);
    }
    if (count > 0 && t.elementCount() > Integer.MAX_VALUE / count) {
      throw RmaException.of(ErrorClass.COUNT, "%s: count %d of datatype %s (%d elements each) is not 0 to %d elements "
          + "in all, what a reduction takes", what, count, t.name(), t.elementCount(), Integer.MAX_VALUE);
    }
    return new Combiner(predefined, basic, (int) (t.elementCount() * count), null, type, count, what, rank);
  }

  /** Whether operands may be combined in any order. */
  public boolean isCommutative() {
    return user == null || user.isCommutative();
  }

  /** Whether this is a user-defined op (whose function may throw). */
  public boolean isUserDefined() {
    return user != null;
  }

  /**
   * {@code lower op higher}, written over {@code lower} (or, for a non-commutative user-defined
   * op, into a new array); {@code higher} is only read.
   *
   * @return the block that holds the result: {@code lower} or a new one
   */
  public byte[] intoLower(byte[] lower, byte[] higher) {
    if (user == null) {
      kernel(higher, lower);
      return lower;
    }
    if (user.isCommutative()) {
      call(higher, lower);
      return lower;
    }
    byte[] result = higher.clone();
    call(lower, result);
    return result;
  }

  /**
   * {@code lower op higher}, written over {@code higher}; {@code lower} is only read.
   *
   * @return {@code higher}, which holds the result
   */
  public byte[] intoHigher(byte[] lower, byte[] higher) {
    if (user == null) {
      kernel(lower, higher);
    } else {
      call(lower, higher);
    }
    return higher;
  }

  /** {@code dst = dst op src}: every predefined op is commutative. */
  private void kernel(byte[] src, byte[] dst) {
    ReductionKernel.apply(op, basic, src, Memory.ARRAY_BYTE_BASE_OFFSET, dst, Memory.ARRAY_BYTE_BASE_OFFSET,
        elements);
  }

  /** The user's function: {@code inout = in op inout}; what it throws becomes OP. */
  private void call(byte[] in, byte[] inout) {
    if (count == 0) {
      return;
    }
    ByteBuffer invec = ByteBuffer.wrap(in).asReadOnlyBuffer().order(ByteOrder.nativeOrder());
    ByteBuffer inoutvec = ByteBuffer.wrap(inout).order(ByteOrder.nativeOrder());
    try {
      user.function().apply(invec, inoutvec, count, type);
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable e) {
      throw new RmaException(ErrorClass.OP, String.format("%s: the function of %s threw %s at rank %d", what,
          user.mpiName(), e, rank), e);
    }
  }
}
