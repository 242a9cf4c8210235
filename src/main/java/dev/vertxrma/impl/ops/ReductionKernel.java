package dev.vertxrma.impl.ops;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import java.util.function.DoubleBinaryOperator;
import java.util.function.LongBinaryOperator;

/**
 * The reduction kernel: {@code dst[i] = dst[i] op src[i]} over {@code n} packed elements of one
 * {@link BasicType}, driven by tables rather than per-type code. Integer, byte and logical kinds
 * are loaded widened to {@code long} by their width (1, 2, 4 or 8 bytes), sign-extended, or
 * zero-extended for the {@link BasicType#isUnsigned() unsigned} kinds (CHAR, UINT8..UINT64);
 * combined by the op's {@link LongBinaryOperator} and stored narrowed, so sums and products wrap
 * modulo 2^n like C's fixed-width arithmetic, signed or unsigned alike (the low n bits of a sum or
 * product do not depend on the signedness). Only MAX and MIN tell signed from unsigned: the
 * unsigned kinds take them from a second table that compares as unsigned 64-bit numbers (which,
 * on zero-extended values, also orders UINT8..UINT32). Floating kinds go through the op's {@link DoubleBinaryOperator} (exact
 * for {@code float}: one double operation rounded to float equals the float operation); pairs go
 * through one MAXLOC/MINLOC routine parameterized by the value kind.
 *
 * <p>Addresses are in {@link Memory}'s convention and are not checked: callers range-check
 * first. Nothing here is atomic; callers serialize conflicting accesses.
 */
public final class ReductionKernel {

  private static final Op[] OPS = Op.values();
  private static final LongBinaryOperator[] LONG_OPS = new LongBinaryOperator[OPS.length];
  /** {@link #LONG_OPS} for the unsigned kinds: MAX and MIN compare as unsigned. */
  private static final LongBinaryOperator[] UNSIGNED_LONG_OPS = new LongBinaryOperator[OPS.length];
  private static final DoubleBinaryOperator[] DOUBLE_OPS = new DoubleBinaryOperator[OPS.length];
  /** Per op, a bit per {@link BasicType.TypeClass} ordinal the op is defined on (MPI's table). */
  private static final int[] DEFINED_ON = new int[OPS.length];

  static {
    LONG_OPS[Op.SUM.ordinal()] = (a, b) -> a + b;
    LONG_OPS[Op.PROD.ordinal()] = (a, b) -> a * b;
    LONG_OPS[Op.MAX.ordinal()] = Math::max;
    LONG_OPS[Op.MIN.ordinal()] = Math::min;
    LONG_OPS[Op.LAND.ordinal()] = (a, b) -> a != 0 && b != 0 ? 1 : 0;
    LONG_OPS[Op.LOR.ordinal()] = (a, b) -> a != 0 || b != 0 ? 1 : 0;
    LONG_OPS[Op.LXOR.ordinal()] = (a, b) -> (a != 0) != (b != 0) ? 1 : 0;
    LONG_OPS[Op.BAND.ordinal()] = (a, b) -> a & b;
    LONG_OPS[Op.BOR.ordinal()] = (a, b) -> a | b;
    LONG_OPS[Op.BXOR.ordinal()] = (a, b) -> a ^ b;
    System.arraycopy(LONG_OPS, 0, UNSIGNED_LONG_OPS, 0, OPS.length);
    UNSIGNED_LONG_OPS[Op.MAX.ordinal()] = (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b;
    UNSIGNED_LONG_OPS[Op.MIN.ordinal()] = (a, b) -> Long.compareUnsigned(a, b) <= 0 ? a : b;

    DOUBLE_OPS[Op.SUM.ordinal()] = Double::sum;
    DOUBLE_OPS[Op.PROD.ordinal()] = (a, b) -> a * b;
    DOUBLE_OPS[Op.MAX.ordinal()] = Math::max;
    DOUBLE_OPS[Op.MIN.ordinal()] = Math::min;

    int integer = bit(BasicType.TypeClass.INTEGER);
    int floating = bit(BasicType.TypeClass.FLOATING);
    int logical = bit(BasicType.TypeClass.LOGICAL);
    int bytes = bit(BasicType.TypeClass.BYTE);
    int pair = bit(BasicType.TypeClass.PAIR);
    int any = integer | floating | logical | bytes | pair;
    define(integer | floating, Op.SUM, Op.PROD, Op.MAX, Op.MIN);
    define(integer | logical, Op.LAND, Op.LOR, Op.LXOR);
    define(integer | bytes, Op.BAND, Op.BOR, Op.BXOR);
    define(pair, Op.MAXLOC, Op.MINLOC);
    define(any, Op.REPLACE, Op.NO_OP);
  }

  private ReductionKernel() {
  }

  private static int bit(BasicType.TypeClass c) {
    return 1 << c.ordinal();
  }

  private static void define(int classes, Op... ops) {
    for (Op op : ops) {
      DEFINED_ON[op.ordinal()] = classes;
    }
  }

  /** Whether MPI defines {@code op} on elements of {@code type}. */
  public static boolean isDefined(Op op, BasicType type) {
    return (DEFINED_ON[op.ordinal()] & bit(type.typeClass())) != 0;
  }

  /**
   * {@code dst[i] = dst[i] op src[i]} for {@code n} packed elements of {@code type};
   * {@link Op#REPLACE} copies, {@link Op#NO_OP} does nothing. For MAXLOC/MINLOC the element
   * with the greater/lesser value wins and equal values keep the lower index; a NaN value never
   * wins nor loses.
   *
   * @throws RmaException {@link ErrorClass#OP} if MPI does not define {@code op} on {@code type}
   */
  public static void apply(Op op, BasicType type, Object srcBase, long srcAddr, Object dstBase, long dstAddr, int n) {
    if (!isDefined(op, type)) {
      throw RmaException.of(ErrorClass.OP, "%s is not defined on datatype %s", op.mpiName(), type);
    }
    int size = type.size();
    switch (op) {
      case NO_OP:
        return;
      case REPLACE:
        Memory.copy(srcBase, srcAddr, dstBase, dstAddr, (long) n * size);
        return;
      case MAXLOC:
      case MINLOC:
        applyPair(op == Op.MAXLOC, type, srcBase, srcAddr, dstBase, dstAddr, n);
        return;
      default:
        break;
    }
    if (type.typeClass() == BasicType.TypeClass.FLOATING) {
      DoubleBinaryOperator f = DOUBLE_OPS[op.ordinal()];
      for (long i = 0, end = (long) n * size; i < end; i += size) {
        storeDouble(type, dstBase, dstAddr + i,
            f.applyAsDouble(loadDouble(type, dstBase, dstAddr + i), loadDouble(type, srcBase, srcAddr + i)));
      }
    } else {
      LongBinaryOperator f = (type.isUnsigned() ? UNSIGNED_LONG_OPS : LONG_OPS)[op.ordinal()];
      for (long i = 0, end = (long) n * size; i < end; i += size) {
        storeLong(type, dstBase, dstAddr + i,
            f.applyAsLong(loadLong(type, dstBase, dstAddr + i), loadLong(type, srcBase, srcAddr + i)));
      }
    }
  }

  /**
   * Compare-and-swap of one element (MPI_Compare_and_swap): {@code result := dst}; if
   * {@code dst}'s bit pattern equals {@code cmp}'s, {@code dst := src}. The ranges must not
   * overlap. The type rules are checked by {@code DatatypeEngine.checkCompareAndSwapType}.
   */
  public static void compareAndSwap(BasicType type, Object cmpBase, long cmpAddr, Object srcBase, long srcAddr,
      Object dstBase, long dstAddr, Object resultBase, long resultAddr) {
    int size = type.size();
    boolean equal = true;
    for (int i = 0; i < size && equal; i++) {
      equal = Memory.getByte(dstBase, dstAddr + i) == Memory.getByte(cmpBase, cmpAddr + i);
    }
    Memory.copy(dstBase, dstAddr, resultBase, resultAddr, size);
    if (equal) {
      Memory.copy(srcBase, srcAddr, dstBase, dstAddr, size);
    }
  }

  /**
   * Fetch-and-op of one element (MPI_Fetch_and_op): {@code result := dst}, then
   * {@code dst := dst op src} ({@link Op#REPLACE}: {@code dst := src}; {@link Op#NO_OP}: unchanged).
   * The ranges must not overlap.
   *
   * @throws RmaException {@link ErrorClass#OP} if MPI does not define {@code op} on {@code type}
   */
  public static void fetchAndApply(Op op, BasicType type, Object srcBase, long srcAddr, Object dstBase, long dstAddr,
      Object resultBase, long resultAddr) {
    if (!isDefined(op, type)) {
      throw RmaException.of(ErrorClass.OP, "%s is not defined on datatype %s", op.mpiName(), type);
    }
    Memory.copy(dstBase, dstAddr, resultBase, resultAddr, type.size());
    apply(op, type, srcBase, srcAddr, dstBase, dstAddr, 1);
  }

  private static void applyPair(boolean max, BasicType type, Object srcBase, long srcAddr, Object dstBase, long dstAddr,
      int n) {
    BasicType valueType = type.valueType();
    int size = type.size();
    int indexOffset = type.indexOffset();
    boolean floating = valueType.typeClass() == BasicType.TypeClass.FLOATING;
    for (long i = 0, end = (long) n * size; i < end; i += size) {
      long s = srcAddr + i;
      long d = dstAddr + i;
      int cmp; // sign of (src value - dst value); 2 if unordered (NaN)
      if (floating) {
        double sv = loadDouble(valueType, srcBase, s);
        double dv = loadDouble(valueType, dstBase, d);
        cmp = sv > dv ? 1 : sv < dv ? -1 : sv == dv ? 0 : 2;
      } else {
        cmp = Long.compare(loadLong(valueType, srcBase, s), loadLong(valueType, dstBase, d));
      }
      if (cmp == 0) {
        int si = Memory.getInt(srcBase, s + indexOffset);
        if (si < Memory.getInt(dstBase, d + indexOffset)) {
          Memory.putInt(dstBase, d + indexOffset, si);
        }
      } else if (max ? cmp == 1 : cmp == -1) {
        Memory.copy(srcBase, s, dstBase, d, size);
      }
    }
  }

  /**
   * Loads an integer, byte or logical element widened to long: sign-extended, or zero-extended for
   * an unsigned kind (UINT64 keeps its 64 bits as they are).
   */
  static long loadLong(BasicType type, Object base, long addr) {
    long v;
    switch (type.size()) {
      case 1:
        v = Memory.getByte(base, addr);
        break;
      case 2:
        v = Memory.getShort(base, addr);
        break;
      case 4:
        v = Memory.getInt(base, addr);
        break;
      case 8:
        v = Memory.getLong(base, addr);
        break;
      default:
        throw new IllegalStateException("not an integer kind: " + type);
    }
    return v & type.valueMask();
  }

  /** Stores the low {@code 8 * size} bits of {@code v} as an integer, byte or logical element. */
  static void storeLong(BasicType type, Object base, long addr, long v) {
    switch (type.size()) {
      case 1:
        Memory.putByte(base, addr, (byte) v);
        return;
      case 2:
        Memory.putShort(base, addr, (short) v);
        return;
      case 4:
        Memory.putInt(base, addr, (int) v);
        return;
      case 8:
        Memory.putLong(base, addr, v);
        return;
      default:
        throw new IllegalStateException("not an integer kind: " + type);
    }
  }

  /** Loads a floating element widened to double. */
  static double loadDouble(BasicType type, Object base, long addr) {
    return type == BasicType.FLOAT ? Memory.getFloat(base, addr) : Memory.getDouble(base, addr);
  }

  /** Stores a floating element, rounding to float for {@link BasicType#FLOAT}. */
  static void storeDouble(BasicType type, Object base, long addr, double v) {
    if (type == BasicType.FLOAT) {
      Memory.putFloat(base, addr, (float) v);
    } else {
      Memory.putDouble(base, addr, v);
    }
  }
}
