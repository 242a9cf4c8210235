package dev.vertxrma.testing;

import dev.vertxrma.Op;
import java.math.BigInteger;

/**
 * An exact model of MPI's reduction operations on fixed-width integers, independent of the
 * library: an element's bits are read as the integer they mean (signed or unsigned, 1, 2, 4 or 8
 * bytes), the operation is done in {@link BigInteger}, and the result is reduced modulo 2^n.
 * Values are passed the way the Java array of the width holds them (an unsigned byte 0xFF is the
 * {@code byte} -1, widened to the {@code long} -1).
 */
public final class FixedWidthModel {

  private FixedWidthModel() {
  }

  /** The integer an element of {@code width} bytes with these low bits stands for. */
  public static BigInteger meaning(int width, boolean unsigned, long bits) {
    int n = 8 * width;
    BigInteger v = new BigInteger(Long.toUnsignedString(bits)).mod(BigInteger.ONE.shiftLeft(n));
    if (!unsigned && v.testBit(n - 1)) {
      v = v.subtract(BigInteger.ONE.shiftLeft(n));
    }
    return v;
  }

  /** The low {@code 8 * width} bits of {@code v}, sign-extended as the Java array of that width holds them. */
  public static long narrow(int width, BigInteger v) {
    long bits = v.longValue();
    switch (width) {
      case 1: return (byte) bits;
      case 2: return (short) bits;
      case 4: return (int) bits;
      default: return bits;
    }
  }

  /** {@link #narrow(int, BigInteger)} of a long. */
  public static long narrow(int width, long v) {
    return narrow(width, BigInteger.valueOf(v));
  }

  /**
   * {@code dst op src} on elements of {@code width} bytes, exactly, then reduced modulo 2^n: SUM,
   * PROD, MAX, MIN, the logical ops (1 or 0), the bit ops, REPLACE ({@code src}) and NO_OP
   * ({@code dst}).
   */
  public static long apply(int width, boolean unsigned, Op op, long dst, long src) {
    BigInteger a = meaning(width, unsigned, dst);
    BigInteger b = meaning(width, unsigned, src);
    BigInteger r;
    switch (op) {
      case SUM: r = a.add(b); break;
      case PROD: r = a.multiply(b); break;
      case MAX: r = a.max(b); break;
      case MIN: r = a.min(b); break;
      case LAND: r = BigInteger.valueOf(a.signum() != 0 && b.signum() != 0 ? 1 : 0); break;
      case LOR: r = BigInteger.valueOf(a.signum() != 0 || b.signum() != 0 ? 1 : 0); break;
      case LXOR: r = BigInteger.valueOf((a.signum() != 0) != (b.signum() != 0) ? 1 : 0); break;
      case BAND: r = a.and(b); break;
      case BOR: r = a.or(b); break;
      case BXOR: r = a.xor(b); break;
      case REPLACE: r = b; break;
      case NO_OP: r = a; break;
      default: throw new IllegalArgumentException(op + " is not modelled");
    }
    return narrow(width, r);
  }
}
