package dev.vertxrma.impl.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import java.util.EnumSet;
import java.util.Random;
import java.util.Set;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

class ReductionKernelTest {

  private static final Set<BasicType> FIXED_WIDTH = EnumSet.of(BasicType.INT8, BasicType.INT16, BasicType.INT32,
      BasicType.INT64, BasicType.UINT8, BasicType.UINT16, BasicType.UINT32, BasicType.UINT64);
  private static final Set<BasicType> INTEGERS = EnumSet.of(BasicType.CHAR, BasicType.SHORT, BasicType.INT,
      BasicType.LONG, BasicType.AINT, BasicType.INT8, BasicType.INT16, BasicType.INT32, BasicType.INT64,
      BasicType.UINT8, BasicType.UINT16, BasicType.UINT32, BasicType.UINT64);
  private static final Set<BasicType> FLOATS = EnumSet.of(BasicType.FLOAT, BasicType.DOUBLE);
  private static final Set<BasicType> PAIRS =
      EnumSet.of(BasicType.INT_INT, BasicType.LONG_INT, BasicType.FLOAT_INT, BasicType.DOUBLE_INT);
  private static final int N = 96;

  private final Random rnd = new Random(20240607);

  /** MPI's op/type table, written out independently of the kernel's. */
  static boolean expectedDefined(Op op, BasicType t) {
    switch (op) {
      case SUM:
      case PROD:
      case MAX:
      case MIN:
        return INTEGERS.contains(t) || FLOATS.contains(t);
      case LAND:
      case LOR:
      case LXOR:
        return INTEGERS.contains(t) || t == BasicType.BOOLEAN;
      case BAND:
      case BOR:
      case BXOR:
        return INTEGERS.contains(t) || t == BasicType.BYTE;
      case MAXLOC:
      case MINLOC:
        return PAIRS.contains(t);
      default:
        return true;
    }
  }

  static void assertError(ErrorClass expected, Runnable r) {
    RmaException e = assertThrows(RmaException.class, r::run);
    assertEquals(expected, e.errorClass(), e.getMessage());
  }

  // ---------------------------------------------------------------------------------------------
  // Plain Java reference arithmetic

  static long refLong(Op op, long a, long b) {
    switch (op) {
      case SUM: return a + b;
      case PROD: return a * b;
      case MAX: return Math.max(a, b);
      case MIN: return Math.min(a, b);
      case LAND: return a != 0 && b != 0 ? 1 : 0;
      case LOR: return a != 0 || b != 0 ? 1 : 0;
      case LXOR: return (a != 0) ^ (b != 0) ? 1 : 0;
      case BAND: return a & b;
      case BOR: return a | b;
      case BXOR: return a ^ b;
      case REPLACE: return b;
      case NO_OP: return a;
      default: throw new AssertionError(op);
    }
  }

  static int refInt(Op op, int a, int b) {
    switch (op) {
      case SUM: return a + b;
      case PROD: return a * b;
      case MAX: return Math.max(a, b);
      case MIN: return Math.min(a, b);
      case LAND: return a != 0 && b != 0 ? 1 : 0;
      case LOR: return a != 0 || b != 0 ? 1 : 0;
      case LXOR: return (a != 0) ^ (b != 0) ? 1 : 0;
      case BAND: return a & b;
      case BOR: return a | b;
      case BXOR: return a ^ b;
      case REPLACE: return b;
      case NO_OP: return a;
      default: throw new AssertionError(op);
    }
  }

  static float refFloat(Op op, float a, float b) {
    switch (op) {
      case SUM: return a + b;
      case PROD: return a * b;
      case MAX: return Math.max(a, b);
      case MIN: return Math.min(a, b);
      case REPLACE: return b;
      case NO_OP: return a;
      default: throw new AssertionError(op);
    }
  }

  static double refDouble(Op op, double a, double b) {
    switch (op) {
      case SUM: return a + b;
      case PROD: return a * b;
      case MAX: return Math.max(a, b);
      case MIN: return Math.min(a, b);
      case REPLACE: return b;
      case NO_OP: return a;
      default: throw new AssertionError(op);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Random operands in Java arrays of the element's type

  long nextIntegral() {
    switch (rnd.nextInt(8)) {
      case 0: return 0;
      case 1: return -1;
      case 2: return 1;
      case 3: return Long.MIN_VALUE;
      case 4: return Long.MAX_VALUE;
      case 5: return rnd.nextInt(7) - 3;
      default: return rnd.nextLong();
    }
  }

  double nextFloating() {
    switch (rnd.nextInt(10)) {
      case 0: return 0.0;
      case 1: return -0.0;
      case 2: return Double.NaN;
      case 3: return Double.POSITIVE_INFINITY;
      case 4: return -1.5;
      case 5: return 1e300;
      default: return (rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(20) - 10);
    }
  }

  Object randomArray(BasicType t) {
    switch (t) {
      case BYTE: case BOOLEAN: case INT8: case UINT8: {
        byte[] a = new byte[N];
        for (int i = 0; i < N; i++) {
          a[i] = t == BasicType.BOOLEAN ? (byte) (rnd.nextInt(4) - 1) : (byte) nextIntegral();
        }
        return a;
      }
      case CHAR: {
        char[] a = new char[N];
        for (int i = 0; i < N; i++) {
          a[i] = (char) nextIntegral();
        }
        return a;
      }
      case SHORT: case INT16: case UINT16: {
        short[] a = new short[N];
        for (int i = 0; i < N; i++) {
          a[i] = (short) nextIntegral();
        }
        return a;
      }
      case INT: case INT32: case UINT32: {
        int[] a = new int[N];
        for (int i = 0; i < N; i++) {
          a[i] = (int) nextIntegral();
        }
        return a;
      }
      case LONG: case AINT: case INT64: case UINT64: {
        long[] a = new long[N];
        for (int i = 0; i < N; i++) {
          a[i] = nextIntegral();
        }
        return a;
      }
      case FLOAT: {
        float[] a = new float[N];
        for (int i = 0; i < N; i++) {
          a[i] = (float) nextFloating();
        }
        return a;
      }
      case DOUBLE: {
        double[] a = new double[N];
        for (int i = 0; i < N; i++) {
          a[i] = nextFloating();
        }
        return a;
      }
      default:
        throw new AssertionError(t);
    }
  }

  /** dst op src, element by element, in the element's own Java arithmetic. */
  static Object reference(BasicType t, Op op, Object dst, Object src) {
    if (FIXED_WIDTH.contains(t)) {
      return FixedWidthTypesTest.reference(t, op, dst, src);
    }
    switch (t) {
      case BYTE: case BOOLEAN: {
        byte[] d = (byte[]) dst, s = (byte[]) src, r = new byte[N];
        for (int i = 0; i < N; i++) {
          r[i] = (byte) refInt(op, d[i], s[i]);
        }
        return r;
      }
      case CHAR: {
        char[] d = (char[]) dst, s = (char[]) src, r = new char[N];
        for (int i = 0; i < N; i++) {
          r[i] = (char) refInt(op, d[i], s[i]);
        }
        return r;
      }
      case SHORT: {
        short[] d = (short[]) dst, s = (short[]) src, r = new short[N];
        for (int i = 0; i < N; i++) {
          r[i] = (short) refInt(op, d[i], s[i]);
        }
        return r;
      }
      case INT: {
        int[] d = (int[]) dst, s = (int[]) src, r = new int[N];
        for (int i = 0; i < N; i++) {
          r[i] = refInt(op, d[i], s[i]);
        }
        return r;
      }
      case LONG: case AINT: {
        long[] d = (long[]) dst, s = (long[]) src, r = new long[N];
        for (int i = 0; i < N; i++) {
          r[i] = refLong(op, d[i], s[i]);
        }
        return r;
      }
      case FLOAT: {
        float[] d = (float[]) dst, s = (float[]) src, r = new float[N];
        for (int i = 0; i < N; i++) {
          r[i] = refFloat(op, d[i], s[i]);
        }
        return r;
      }
      case DOUBLE: {
        double[] d = (double[]) dst, s = (double[]) src, r = new double[N];
        for (int i = 0; i < N; i++) {
          r[i] = refDouble(op, d[i], s[i]);
        }
        return r;
      }
      default:
        throw new AssertionError(t);
    }
  }

  static void assertSameArray(Object expected, Object actual, String what) {
    if (expected instanceof byte[]) {
      assertArrayEquals((byte[]) expected, (byte[]) actual, what);
    } else if (expected instanceof char[]) {
      assertArrayEquals((char[]) expected, (char[]) actual, what);
    } else if (expected instanceof short[]) {
      assertArrayEquals((short[]) expected, (short[]) actual, what);
    } else if (expected instanceof int[]) {
      assertArrayEquals((int[]) expected, (int[]) actual, what);
    } else if (expected instanceof long[]) {
      assertArrayEquals((long[]) expected, (long[]) actual, what);
    } else if (expected instanceof float[]) {
      assertArrayEquals((float[]) expected, (float[]) actual, what); // compares bit patterns
    } else {
      assertArrayEquals((double[]) expected, (double[]) actual, what);
    }
  }

  static long base(Object array) {
    return Memory.arrayBaseOffset(array.getClass());
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void everyOpOnEveryScalarTypeMatchesJava() {
    int checked = 0;
    for (BasicType t : BasicType.values()) {
      if (PAIRS.contains(t)) {
        continue;
      }
      for (Op op : Op.values()) {
        if (!expectedDefined(op, t)) {
          continue;
        }
        for (int round = 0; round < 4; round++) {
          Object src = randomArray(t);
          Object dst = randomArray(t);
          Object expected = reference(t, op, dst, src);
          ReductionKernel.apply(op, t, src, base(src), dst, base(dst), N);
          assertSameArray(expected, dst, op + " on " + t);
        }
        checked++;
      }
    }
    assertEquals(13 * 12 + 2 * 6 + 1 * 5 + 1 * 5, checked); // integers, floats, BOOLEAN, BYTE
  }

  @Test
  void opTableMatchesMpi() {
    for (BasicType t : BasicType.values()) {
      for (Op op : Op.values()) {
        assertEquals(expectedDefined(op, t), ReductionKernel.isDefined(op, t), op + " on " + t);
        TypeMap type = TypeMap.predefined(t);
        if (expectedDefined(op, t)) {
          DatatypeEngine.checkOp(op, type);
        } else {
          RmaException e = assertThrows(RmaException.class, () -> DatatypeEngine.checkOp(op, type));
          assertEquals(ErrorClass.OP, e.errorClass());
          assertEquals("OP: " + op.mpiName() + " is not defined on datatype " + t, e.getMessage());
          byte[] a = new byte[16];
          byte[] b = new byte[16];
          assertError(ErrorClass.OP, () -> ReductionKernel.apply(op, t, a, base(a), b, base(b), 1));
        }
      }
    }
  }

  @Test
  void booleanLogicalOpsYieldZeroOrOne() {
    byte[] src = {0, 0, 5, -1};
    byte[] dst = {0, 7, 0, 2};
    ReductionKernel.apply(Op.LAND, BasicType.BOOLEAN, src, base(src), dst, base(dst), 4);
    assertArrayEquals(new byte[] {0, 0, 0, 1}, dst);
    dst = new byte[] {0, 7, 0, 2};
    ReductionKernel.apply(Op.LOR, BasicType.BOOLEAN, src, base(src), dst, base(dst), 4);
    assertArrayEquals(new byte[] {0, 1, 1, 1}, dst);
    dst = new byte[] {0, 7, 0, 2};
    ReductionKernel.apply(Op.LXOR, BasicType.BOOLEAN, src, base(src), dst, base(dst), 4);
    assertArrayEquals(new byte[] {0, 1, 1, 0}, dst);
  }

  @Test
  void narrowTypesWrapAndCharIsUnsigned() {
    short[] s = {Short.MAX_VALUE, -2};
    short[] d = {1, Short.MIN_VALUE};
    ReductionKernel.apply(Op.SUM, BasicType.SHORT, s, base(s), d, base(d), 2);
    assertArrayEquals(new short[] {Short.MIN_VALUE, Short.MAX_VALUE - 1}, d);
    char[] cs = {0xFFFF, 1};
    char[] cd = {1, 0xFFFF};
    ReductionKernel.apply(Op.MAX, BasicType.CHAR, cs, base(cs), cd, base(cd), 2);
    assertArrayEquals(new char[] {0xFFFF, 0xFFFF}, cd);
    byte[] bs = {(byte) 0xF0};
    byte[] bd = {(byte) 0x3C};
    ReductionKernel.apply(Op.BXOR, BasicType.BYTE, bs, base(bs), bd, base(bd), 1);
    assertEquals((byte) 0xCC, bd[0]);
  }

  @Test
  void kernelOnNativeMemory() {
    BytesStore<?, Void> bs = BytesStore.nativeStoreWithFixedCapacity(16 * 8);
    try {
      long a = bs.addressForRead(0);
      long b = a + 64;
      for (int i = 0; i < 8; i++) {
        Memory.putDouble(null, a + 8L * i, i * 0.25);
        Memory.putDouble(null, b + 8L * i, 100 - i);
      }
      ReductionKernel.apply(Op.PROD, BasicType.DOUBLE, null, a, null, b, 8);
      for (int i = 0; i < 8; i++) {
        assertEquals((100 - i) * (i * 0.25), Memory.getDouble(null, b + 8L * i));
      }
      double[] heap = {1, 2, 3, 4, 5, 6, 7, 8};
      ReductionKernel.apply(Op.MIN, BasicType.DOUBLE, heap, base(heap), null, b, 8);
      for (int i = 0; i < 8; i++) {
        assertEquals(Math.min(heap[i], (100 - i) * (i * 0.25)), Memory.getDouble(null, b + 8L * i));
      }
    } finally {
      bs.releaseLast();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // MAXLOC / MINLOC

  static void putValue(BasicType valueType, byte[] mem, long off, double v) {
    long at = Memory.ARRAY_BYTE_BASE_OFFSET + off;
    switch (valueType) {
      case INT: Memory.putInt(mem, at, (int) v); break;
      case LONG: Memory.putLong(mem, at, (long) v); break;
      case FLOAT: Memory.putFloat(mem, at, (float) v); break;
      default: Memory.putDouble(mem, at, v); break;
    }
  }

  static double getValue(BasicType valueType, byte[] mem, long off) {
    long at = Memory.ARRAY_BYTE_BASE_OFFSET + off;
    switch (valueType) {
      case INT: return Memory.getInt(mem, at);
      case LONG: return Memory.getLong(mem, at);
      case FLOAT: return Memory.getFloat(mem, at);
      default: return Memory.getDouble(mem, at);
    }
  }

  @Test
  void maxlocAndMinlocOnEveryPairType() {
    for (BasicType t : PAIRS) {
      for (Op op : new Op[] {Op.MAXLOC, Op.MINLOC}) {
        int size = t.size();
        byte[] src = new byte[N * size];
        byte[] dst = new byte[N * size];
        double[] sv = new double[N];
        double[] dv = new double[N];
        int[] si = new int[N];
        int[] di = new int[N];
        for (int i = 0; i < N; i++) {
          sv[i] = rnd.nextInt(4) - 2; // small range: many ties
          dv[i] = rnd.nextInt(4) - 2;
          si[i] = rnd.nextInt(10);
          di[i] = rnd.nextInt(10);
          putValue(t.valueType(), src, (long) i * size, sv[i]);
          putValue(t.valueType(), dst, (long) i * size, dv[i]);
          Memory.putInt(src, Memory.ARRAY_BYTE_BASE_OFFSET + (long) i * size + t.indexOffset(), si[i]);
          Memory.putInt(dst, Memory.ARRAY_BYTE_BASE_OFFSET + (long) i * size + t.indexOffset(), di[i]);
        }
        ReductionKernel.apply(op, t, src, Memory.ARRAY_BYTE_BASE_OFFSET, dst, Memory.ARRAY_BYTE_BASE_OFFSET, N);
        for (int i = 0; i < N; i++) {
          double w;
          int k;
          boolean srcWins = op == Op.MAXLOC ? sv[i] > dv[i] : sv[i] < dv[i];
          if (sv[i] == dv[i]) {
            w = dv[i];
            k = Math.min(si[i], di[i]);
          } else if (srcWins) {
            w = sv[i];
            k = si[i];
          } else {
            w = dv[i];
            k = di[i];
          }
          assertEquals(w, getValue(t.valueType(), dst, (long) i * size), op + " on " + t + " value " + i);
          assertEquals(k, Memory.getInt(dst, Memory.ARRAY_BYTE_BASE_OFFSET + (long) i * size + t.indexOffset()),
              op + " on " + t + " index " + i);
        }
      }
    }
  }

  @Test
  void pairValuesBeyondDoublePrecisionCompareExactly() {
    BasicType t = BasicType.LONG_INT;
    byte[] src = new byte[12];
    byte[] dst = new byte[12];
    long at = Memory.ARRAY_BYTE_BASE_OFFSET;
    Memory.putLong(src, at, Long.MAX_VALUE);
    Memory.putInt(src, at + 8, 1);
    Memory.putLong(dst, at, Long.MAX_VALUE - 1);
    Memory.putInt(dst, at + 8, 2);
    ReductionKernel.apply(Op.MAXLOC, t, src, at, dst, at, 1);
    assertEquals(Long.MAX_VALUE, Memory.getLong(dst, at));
    assertEquals(1, Memory.getInt(dst, at + 8));
  }

  @Test
  void nanNeverWinsNorLosesInPairs() {
    BasicType t = BasicType.DOUBLE_INT;
    long at = Memory.ARRAY_BYTE_BASE_OFFSET;
    byte[] src = new byte[12];
    byte[] dst = new byte[12];
    Memory.putDouble(src, at, Double.NaN);
    Memory.putInt(src, at + 8, 0);
    Memory.putDouble(dst, at, 1.0);
    Memory.putInt(dst, at + 8, 5);
    ReductionKernel.apply(Op.MAXLOC, t, src, at, dst, at, 1);
    ReductionKernel.apply(Op.MINLOC, t, src, at, dst, at, 1);
    assertEquals(1.0, Memory.getDouble(dst, at));
    assertEquals(5, Memory.getInt(dst, at + 8));
  }

  // ---------------------------------------------------------------------------------------------
  // Compare-and-swap and fetch-and-op

  @Test
  void compareAndSwapSwapsOnlyOnEqualBits() {
    long at = Memory.arrayBaseOffset(long[].class);
    long[] cmp = {7};
    long[] src = {42};
    long[] dst = {7};
    long[] result = {0};
    ReductionKernel.compareAndSwap(BasicType.LONG, cmp, at, src, at, dst, at, result, at);
    assertEquals(42, dst[0]);
    assertEquals(7, result[0]);
    ReductionKernel.compareAndSwap(BasicType.LONG, cmp, at, src, at, dst, at, result, at);
    assertEquals(42, dst[0]);
    assertEquals(42, result[0]);

    for (BasicType t : new BasicType[] {BasicType.BYTE, BasicType.BOOLEAN, BasicType.CHAR, BasicType.SHORT,
        BasicType.INT, BasicType.AINT, BasicType.INT8, BasicType.INT16, BasicType.INT32, BasicType.INT64,
        BasicType.UINT8, BasicType.UINT16, BasicType.UINT32, BasicType.UINT64}) {
      int size = t.size();
      byte[] c = new byte[9];
      byte[] s = new byte[9];
      byte[] d = new byte[9];
      byte[] r = new byte[9];
      for (int i = 0; i < size; i++) {
        c[i] = (byte) (0x80 + i);
        d[i] = (byte) (0x80 + i);
        s[i] = (byte) (0x10 + i);
      }
      d[size] = 99; // beyond the element: must not be compared nor written
      long b = Memory.ARRAY_BYTE_BASE_OFFSET;
      ReductionKernel.compareAndSwap(t, c, b, s, b, d, b, r, b);
      for (int i = 0; i < size; i++) {
        assertEquals((byte) (0x10 + i), d[i], t + " swapped byte " + i);
        assertEquals((byte) (0x80 + i), r[i], t + " result byte " + i);
      }
      assertEquals(99, d[size]);
      assertEquals(0, r[size]);
      c[size - 1] ^= 1; // differ in the last byte only
      ReductionKernel.compareAndSwap(t, c, b, c, b, d, b, r, b);
      for (int i = 0; i < size; i++) {
        assertEquals((byte) (0x10 + i), d[i], t + " unchanged byte " + i);
      }
    }
  }

  @Test
  void compareAndSwapTypeRules() {
    for (BasicType t : BasicType.values()) {
      TypeMap type = TypeMap.predefined(t);
      boolean ok = INTEGERS.contains(t) || t == BasicType.BOOLEAN || t == BasicType.BYTE;
      if (ok) {
        DatatypeEngine.checkCompareAndSwapType(type);
      } else {
        assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkCompareAndSwapType(type));
      }
    }
    assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkCompareAndSwapType(
        TypeMap.of(Datatype.contiguous(1, Datatype.INT).commit())));
    assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkCompareAndSwapType(null));
  }

  @Test
  void fetchAndApply() {
    long at = Memory.arrayBaseOffset(long[].class);
    long[] src = {5};
    long[] dst = {10};
    long[] result = {0};
    ReductionKernel.fetchAndApply(Op.SUM, BasicType.LONG, src, at, dst, at, result, at);
    assertEquals(10, result[0]);
    assertEquals(15, dst[0]);
    ReductionKernel.fetchAndApply(Op.NO_OP, BasicType.LONG, src, at, dst, at, result, at);
    assertEquals(15, result[0]);
    assertEquals(15, dst[0]);
    ReductionKernel.fetchAndApply(Op.REPLACE, BasicType.LONG, src, at, dst, at, result, at);
    assertEquals(15, result[0]);
    assertEquals(5, dst[0]);

    long dat = Memory.arrayBaseOffset(double[].class);
    double[] ds = {2.5};
    double[] dd = {-1};
    double[] dr = {0};
    ReductionKernel.fetchAndApply(Op.MAX, BasicType.DOUBLE, ds, dat, dd, dat, dr, dat);
    assertEquals(-1, dr[0]);
    assertEquals(2.5, dd[0]);

    long[] untouched = {77};
    RmaException e = assertThrows(RmaException.class,
        () -> ReductionKernel.fetchAndApply(Op.BAND, BasicType.DOUBLE, ds, dat, dd, dat, untouched, at));
    assertEquals(ErrorClass.OP, e.errorClass());
    assertTrue(e.getMessage().contains("MPI_BAND") && e.getMessage().contains("DOUBLE"), e.getMessage());
    assertEquals(77, untouched[0]);

    // MAXLOC as fetch-and-op on a pair
    byte[] ps = new byte[8];
    byte[] pd = new byte[8];
    byte[] pr = new byte[8];
    long b = Memory.ARRAY_BYTE_BASE_OFFSET;
    Memory.putInt(ps, b, 9);
    Memory.putInt(ps, b + 4, 3);
    Memory.putInt(pd, b, 4);
    Memory.putInt(pd, b + 4, 1);
    ReductionKernel.fetchAndApply(Op.MAXLOC, BasicType.INT_INT, ps, b, pd, b, pr, b);
    assertEquals(4, Memory.getInt(pr, b));
    assertEquals(1, Memory.getInt(pr, b + 4));
    assertEquals(9, Memory.getInt(pd, b));
    assertEquals(3, Memory.getInt(pd, b + 4));
  }

  @Test
  void opCodesRoundTrip() {
    for (Op op : Op.values()) {
      assertEquals(op, Op.ofCode(op.code()));
      assertTrue(op.mpiName().startsWith("MPI_"));
    }
    assertError(ErrorClass.OP, () -> Op.ofCode(0));
    assertError(ErrorClass.OP, () -> Op.ofCode(15));
    assertError(ErrorClass.OP, () -> Op.ofCode(-7));
    assertError(ErrorClass.OP, () -> Op.ofCode(Integer.MAX_VALUE));
  }
}
