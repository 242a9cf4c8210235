package dev.vertxrma.impl.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.testing.FixedWidthModel;
import io.vertx.core.buffer.Buffer;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The fixed-width integer datatypes (INT8..INT64, UINT8..UINT64) and C_BOOL: the kernel value by
 * value on edge values against an exact BigInteger model and against hand-written results, MPI's
 * op/type table on the public constants, compare-and-swap and fetch-and-op, which Java array holds
 * which type, names, wire codes, type matching and derived types built from them.
 */
class FixedWidthTypesTest {

  static final BasicType[] FIXED = {BasicType.INT8, BasicType.INT16, BasicType.INT32, BasicType.INT64,
      BasicType.UINT8, BasicType.UINT16, BasicType.UINT32, BasicType.UINT64};
  static final Datatype[] PUBLIC = {Datatype.INT8, Datatype.INT16, Datatype.INT32, Datatype.INT64, Datatype.UINT8,
      Datatype.UINT16, Datatype.UINT32, Datatype.UINT64};
  static final boolean[] UNSIGNED = {false, false, false, false, true, true, true, true};

  static void assertError(ErrorClass expected, Runnable r, String... parts) {
    RmaException e = assertThrows(RmaException.class, r::run);
    assertEquals(expected, e.errorClass(), e.getMessage());
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), "'" + e.getMessage() + "' should name '" + p + "'");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The exact model (FixedWidthModel): the element's bits as the integer they mean, BigInteger arithmetic

  static boolean unsigned(BasicType t) {
    for (int i = 0; i < FIXED.length; i++) {
      if (FIXED[i] == t) {
        return UNSIGNED[i];
      }
    }
    throw new AssertionError(t);
  }

  /** The integer an element of {@code t} with these low bits stands for. */
  static BigInteger meaning(BasicType t, long bits) {
    return FixedWidthModel.meaning(t.size(), unsigned(t), bits);
  }

  /** The low {@code 8 * size} bits of {@code v}, sign-extended the way the Java array of the width holds them. */
  static long narrow(BasicType t, BigInteger v) {
    return FixedWidthModel.narrow(t.size(), v);
  }

  /** {@code dst op src} on elements of {@code t}, exactly (BigInteger), then reduced modulo 2^n. */
  static long model(BasicType t, Op op, long dst, long src) {
    return FixedWidthModel.apply(t.size(), unsigned(t), op, dst, src);
  }

  /** A Java array of the width of {@code t} (byte[], short[], int[], long[]) holding {@code values}. */
  static Object array(BasicType t, long... values) {
    int n = values.length;
    switch (t.size()) {
      case 1: { byte[] a = new byte[n]; for (int i = 0; i < n; i++) { a[i] = (byte) values[i]; } return a; }
      case 2: { short[] a = new short[n]; for (int i = 0; i < n; i++) { a[i] = (short) values[i]; } return a; }
      case 4: { int[] a = new int[n]; for (int i = 0; i < n; i++) { a[i] = (int) values[i]; } return a; }
      default: return values.clone();
    }
  }

  static long get(Object array, int i) {
    if (array instanceof byte[]) {
      return ((byte[]) array)[i];
    }
    if (array instanceof short[]) {
      return ((short[]) array)[i];
    }
    if (array instanceof int[]) {
      return ((int[]) array)[i];
    }
    return ((long[]) array)[i];
  }

  static int length(Object array) {
    return java.lang.reflect.Array.getLength(array);
  }

  static long base(Object array) {
    return Memory.arrayBaseOffset(array.getClass());
  }

  /** ReductionKernelTest's random-array reference for the fixed-width kinds. */
  static Object reference(BasicType t, Op op, Object dst, Object src) {
    int n = length(dst);
    long[] r = new long[n];
    for (int i = 0; i < n; i++) {
      r[i] = model(t, op, get(dst, i), get(src, i));
    }
    return array(t, r);
  }

  /** Values at every edge of every width: 0, ±1, 2, the signed min/max of each width, alternating bits. */
  static long[] edges(BasicType t) {
    long[] raw = {0, 1, 2, 3, -1, -2, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFF_FFFFL, 0x8000_0000L,
        0xFFFF_FFFFL, Long.MAX_VALUE, Long.MIN_VALUE, 0x5555_5555_5555_5555L, 0xAAAA_AAAA_AAAA_AAAAL, 100, 200};
    Set<Long> seen = new HashSet<>();
    List<Long> out = new ArrayList<>();
    for (long v : raw) {
      long n = narrow(t, BigInteger.valueOf(v));
      if (seen.add(n)) {
        out.add(n);
      }
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  // ---------------------------------------------------------------------------------------------
  // The kernel, value by value

  @Test
  void everyOpOnEveryPairOfEdgeValuesMatchesTheExactModel() {
    int checked = 0;
    for (BasicType t : FIXED) {
      long[] e = edges(t);
      int n = e.length * e.length;
      long[] dst = new long[n];
      long[] src = new long[n];
      for (int i = 0; i < e.length; i++) {
        for (int j = 0; j < e.length; j++) {
          dst[i * e.length + j] = e[i];
          src[i * e.length + j] = e[j];
        }
      }
      for (Op op : Op.values()) {
        if (op == Op.MAXLOC || op == Op.MINLOC) {
          assertFalse(ReductionKernel.isDefined(op, t), op + " on " + t);
          continue;
        }
        assertTrue(ReductionKernel.isDefined(op, t), op + " on " + t);
        Object d = array(t, dst);
        Object s = array(t, src);
        ReductionKernel.apply(op, t, s, base(s), d, base(d), n);
        for (int k = 0; k < n; k++) {
          long expected = model(t, op, dst[k], src[k]);
          if (get(d, k) != expected) {
            throw new AssertionError(op + " on " + t + ": " + meaning(t, dst[k]) + " op " + meaning(t, src[k])
                + " gave " + meaning(t, get(d, k)) + ", expected " + meaning(t, expected));
          }
          checked++;
        }
        for (int k = 0; k < n; k++) {
          assertEquals(src[k], get(s, k), "the source is left alone");
        }
      }
    }
    assertTrue(checked > 8 * 12 * 100, "checked " + checked);
  }

  /** Type, op, target value, origin value, expected result: written out, not computed. */
  static final Object[][] BY_HAND = {
      // UINT64: unsigned order, wraparound modulo 2^64, unsigned product
      {BasicType.UINT64, Op.MAX, 0xFFFF_FFFF_FFFF_FFFFL, 1L, 0xFFFF_FFFF_FFFF_FFFFL},
      {BasicType.UINT64, Op.MAX, 1L, 0xFFFF_FFFF_FFFF_FFFFL, 0xFFFF_FFFF_FFFF_FFFFL},
      {BasicType.UINT64, Op.MIN, 0xFFFF_FFFF_FFFF_FFFFL, 1L, 1L},
      {BasicType.UINT64, Op.MAX, 0x8000_0000_0000_0000L, 0x7FFF_FFFF_FFFF_FFFFL, 0x8000_0000_0000_0000L},
      {BasicType.UINT64, Op.MIN, 0x8000_0000_0000_0000L, 0x7FFF_FFFF_FFFF_FFFFL, 0x7FFF_FFFF_FFFF_FFFFL},
      {BasicType.UINT64, Op.MIN, 0L, 0xFFFF_FFFF_FFFF_FFFFL, 0L},
      {BasicType.UINT64, Op.SUM, 0xFFFF_FFFF_FFFF_FFFFL, 2L, 1L},
      {BasicType.UINT64, Op.SUM, 0x8000_0000_0000_0000L, 0x8000_0000_0000_0000L, 0L},
      {BasicType.UINT64, Op.PROD, 0x8000_0000_0000_0000L, 2L, 0L},
      {BasicType.UINT64, Op.PROD, 0xFFFF_FFFF_FFFF_FFFFL, 0xFFFF_FFFF_FFFF_FFFFL, 1L},
      {BasicType.UINT64, Op.PROD, 0x1_0000_0000L, 0xFFFF_FFFFL, 0xFFFF_FFFF_0000_0000L},
      {BasicType.UINT64, Op.BAND, 0xFFFF_FFFF_FFFF_FFFFL, 0x8000_0000_0000_0001L, 0x8000_0000_0000_0001L},
      {BasicType.UINT64, Op.BOR, 0x8000_0000_0000_0000L, 1L, 0x8000_0000_0000_0001L},
      {BasicType.UINT64, Op.BXOR, 0xF0F0_0000_0000_0000L, 0xFFFF_0000_0000_0000L, 0x0F0F_0000_0000_0000L},
      {BasicType.UINT64, Op.LAND, 0x8000_0000_0000_0000L, 2L, 1L},
      {BasicType.UINT64, Op.LXOR, 0x8000_0000_0000_0000L, 0x8000_0000_0000_0000L, 0L},
      {BasicType.UINT64, Op.LOR, 0L, 0L, 0L},
      // INT64: signed order, overflow wraps
      {BasicType.INT64, Op.MAX, -1L, 1L, 1L},
      {BasicType.INT64, Op.MIN, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE},
      {BasicType.INT64, Op.SUM, Long.MAX_VALUE, 1L, Long.MIN_VALUE},
      {BasicType.INT64, Op.PROD, Long.MIN_VALUE, -1L, Long.MIN_VALUE},
      // UINT32 in an int[]: 0xFFFF_FFFF is the int -1
      {BasicType.UINT32, Op.MAX, -1L, 1L, -1L},
      {BasicType.UINT32, Op.MIN, -1L, 1L, 1L},
      {BasicType.UINT32, Op.MAX, (long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE, (long) Integer.MIN_VALUE},
      {BasicType.UINT32, Op.MIN, (long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE, (long) Integer.MAX_VALUE},
      {BasicType.UINT32, Op.SUM, -1L, 1L, 0L},
      {BasicType.UINT32, Op.SUM, (long) Integer.MAX_VALUE, 1L, (long) Integer.MIN_VALUE},
      {BasicType.UINT32, Op.PROD, 0x1_0000L, 0x1_0000L, 0L},
      {BasicType.UINT32, Op.PROD, -1L, -1L, 1L},
      {BasicType.UINT32, Op.PROD, 0xFFFFL, 0x1_0001L, -1L},
      {BasicType.UINT32, Op.BXOR, (long) Integer.MIN_VALUE, -1L, (long) Integer.MAX_VALUE},
      // INT32
      {BasicType.INT32, Op.MAX, -1L, 1L, 1L},
      {BasicType.INT32, Op.SUM, (long) Integer.MAX_VALUE, 1L, (long) Integer.MIN_VALUE},
      {BasicType.INT32, Op.MIN, (long) Integer.MIN_VALUE, 0L, (long) Integer.MIN_VALUE},
      // UINT16 in a short[]
      {BasicType.UINT16, Op.MAX, (long) (short) 0xFFFF, 1L, (long) (short) 0xFFFF},
      {BasicType.UINT16, Op.MIN, (long) (short) 0x8000, 0x7FFFL, 0x7FFFL},
      {BasicType.UINT16, Op.SUM, (long) (short) 0xFFFF, 1L, 0L},
      {BasicType.UINT16, Op.PROD, 0x100L, 0x100L, 0L},
      {BasicType.UINT16, Op.PROD, (long) (short) 0xFFFF, (long) (short) 0xFFFF, 1L},
      // INT16
      {BasicType.INT16, Op.SUM, 32767L, 1L, -32768L},
      {BasicType.INT16, Op.MAX, -32768L, -1L, -1L},
      {BasicType.INT16, Op.PROD, 256L, 256L, 0L},
      // UINT8 in a byte[]
      {BasicType.UINT8, Op.MAX, (long) (byte) 0xFF, 1L, (long) (byte) 0xFF},
      {BasicType.UINT8, Op.MIN, (long) (byte) 0x80, 0x7FL, 0x7FL},
      {BasicType.UINT8, Op.SUM, (long) (byte) 200, 100L, 44L},
      {BasicType.UINT8, Op.PROD, 16L, 16L, 0L},
      {BasicType.UINT8, Op.PROD, (long) (byte) 0xFF, (long) (byte) 0xFF, 1L},
      {BasicType.UINT8, Op.BXOR, (long) (byte) 0xF0, (long) (byte) 0xFF, 0x0FL},
      {BasicType.UINT8, Op.LAND, (long) (byte) 0x80, 1L, 1L},
      {BasicType.UINT8, Op.LOR, (long) (byte) 0x80, 0L, 1L},
      // INT8: arithmetic, unlike BYTE
      {BasicType.INT8, Op.SUM, 127L, 1L, -128L},
      {BasicType.INT8, Op.MAX, -128L, 127L, 127L},
      {BasicType.INT8, Op.MIN, -1L, 1L, -1L},
      {BasicType.INT8, Op.PROD, -128L, -1L, -128L},
      {BasicType.INT8, Op.PROD, -2L, 3L, -6L},
  };

  @Test
  void handWrittenResults() {
    for (Object[] row : BY_HAND) {
      BasicType t = (BasicType) row[0];
      Op op = (Op) row[1];
      long dst = (Long) row[2];
      long src = (Long) row[3];
      long expected = (Long) row[4];
      Object d = array(t, dst);
      Object s = array(t, src);
      ReductionKernel.apply(op, t, s, base(s), d, base(d), 1);
      assertEquals(expected, get(d, 0), op + " on " + t + " of " + Long.toHexString(dst) + ", " + Long.toHexString(src));
      assertEquals(expected, model(t, op, dst, src), "the model agrees on " + op + " on " + t);
    }
  }

  @Test
  void unsignedMaxOnNativeMemoryAndAcrossAnArray() {
    // several elements at once, the top bit set in half of them
    long[] dst = {-1L, 1L, Long.MIN_VALUE, 0L, 42L};
    long[] src = {1L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 41L};
    long[] max = dst.clone();
    ReductionKernel.apply(Op.MAX, BasicType.UINT64, src, base(src), max, base(max), 5);
    assertArrayEquals(new long[] {-1L, -1L, Long.MIN_VALUE, Long.MIN_VALUE, 42L}, max);
    long[] min = dst.clone();
    ReductionKernel.apply(Op.MIN, BasicType.UINT64, src, base(src), min, base(min), 5);
    assertArrayEquals(new long[] {1L, 1L, Long.MAX_VALUE, 0L, 41L}, min);
    long[] signed = dst.clone();
    ReductionKernel.apply(Op.MAX, BasicType.INT64, src, base(src), signed, base(signed), 5);
    assertArrayEquals(new long[] {1L, 1L, Long.MAX_VALUE, 0L, 42L}, signed);
    long[] sum = dst.clone();
    ReductionKernel.apply(Op.SUM, BasicType.UINT64, src, base(src), sum, base(sum), 5);
    assertArrayEquals(new long[] {0L, 0L, -1L, Long.MIN_VALUE, 83L}, sum);

    net.openhft.chronicle.bytes.BytesStore<?, Void> bs = net.openhft.chronicle.bytes.BytesStore
        .nativeStoreWithFixedCapacity(16);
    try {
      long a = bs.addressForRead(0);
      Memory.putInt(null, a, 0xFFFF_FFFE);
      Memory.putInt(null, a + 4, 7);
      int[] in = {5, 0x8000_0000};
      ReductionKernel.apply(Op.MAX, BasicType.UINT32, in, base(in), null, a, 2);
      assertEquals(0xFFFF_FFFE, Memory.getInt(null, a));
      assertEquals(0x8000_0000, Memory.getInt(null, a + 4));
    } finally {
      bs.releaseLast();
    }
  }

  @Test
  void cBoolLogicalOpsOnEveryPairOfBytes() {
    // any nonzero byte is true, the top bit alone too; results are 0 or 1
    byte[] dst = new byte[256 * 256];
    byte[] src = new byte[256 * 256];
    for (int i = 0; i < 256; i++) {
      for (int j = 0; j < 256; j++) {
        dst[i * 256 + j] = (byte) i;
        src[i * 256 + j] = (byte) j;
      }
    }
    TypeMap cBool = TypeMap.of(Datatype.C_BOOL);
    assertSame(BasicType.BOOLEAN, cBool.homogeneousType());
    for (Op op : new Op[] {Op.LAND, Op.LOR, Op.LXOR}) {
      byte[] d = dst.clone();
      DatatypeEngine.checkOp(op, cBool);
      DatatypeEngine.transfer(src, base(src), cBool, src.length, d, base(d), cBool, d.length, op);
      for (int k = 0; k < d.length; k++) {
        boolean a = dst[k] != 0;
        boolean b = src[k] != 0;
        boolean r = op == Op.LAND ? a && b : op == Op.LOR ? a || b : a != b;
        assertEquals(r ? 1 : 0, d[k], op + " on C_BOOL " + (dst[k] & 0xFF) + ", " + (src[k] & 0xFF));
      }
    }
    // a boolean[] holds C_BOOL
    boolean[] zd = {true, true, false, false};
    boolean[] zs = {true, false, true, false};
    DatatypeEngine.checkArrayElements(boolean.class, cBool, "test");
    DatatypeEngine.transfer(zs, base(zs), cBool, 4, zd, base(zd), cBool, 4, Op.LXOR);
    assertArrayEquals(new boolean[] {false, true, true, false}, zd);
  }

  // ---------------------------------------------------------------------------------------------
  // MPI's op/type table on the public constants

  @Test
  void opTableOnTheNewConstants() {
    for (int i = 0; i < PUBLIC.length; i++) {
      TypeMap t = TypeMap.of(PUBLIC[i]);
      for (Op op : Op.values()) {
        if (op == Op.MAXLOC || op == Op.MINLOC) {
          assertError(ErrorClass.OP, () -> DatatypeEngine.checkOp(op, t), op.mpiName(), PUBLIC[i].name());
        } else {
          DatatypeEngine.checkOp(op, t);
        }
      }
    }
    Set<Op> logical = Set.of(Op.LAND, Op.LOR, Op.LXOR, Op.REPLACE, Op.NO_OP);
    TypeMap cBool = TypeMap.of(Datatype.C_BOOL);
    TypeMap cBools = TypeMap.of(Datatype.contiguous(3, Datatype.C_BOOL).commit());
    for (Op op : Op.values()) {
      if (logical.contains(op)) {
        DatatypeEngine.checkOp(op, cBool);
        DatatypeEngine.checkOp(op, cBools);
      } else {
        assertError(ErrorClass.OP, () -> DatatypeEngine.checkOp(op, cBool), op.mpiName() + " is not defined on datatype C_BOOL");
        assertError(ErrorClass.OP, () -> DatatypeEngine.checkOp(op, cBools), op.mpiName(), "contiguous(3, C_BOOL)");
      }
    }
    // BYTE stays MPI_BYTE: bits only; INT8 and UINT8 take arithmetic
    for (Op op : new Op[] {Op.SUM, Op.PROD, Op.MAX, Op.MIN, Op.LAND, Op.LOR, Op.LXOR}) {
      assertError(ErrorClass.OP, () -> DatatypeEngine.checkOp(op, TypeMap.of(Datatype.BYTE)), op.mpiName(), "BYTE");
      DatatypeEngine.checkOp(op, TypeMap.of(Datatype.INT8));
      DatatypeEngine.checkOp(op, TypeMap.of(Datatype.UINT8));
    }
    // the kernel refuses as well, before touching the destination
    byte[] d = {9};
    byte[] s = {1};
    assertError(ErrorClass.OP, () -> ReductionKernel.apply(Op.SUM, BasicType.BOOLEAN, s, base(s), d, base(d), 1));
    assertError(ErrorClass.OP, () -> ReductionKernel.apply(Op.MAXLOC, BasicType.UINT8, s, base(s), d, base(d), 1));
    byte[] r = {5};
    assertError(ErrorClass.OP, () -> ReductionKernel.fetchAndApply(Op.BAND, BasicType.BOOLEAN, s, base(s), d, base(d),
        r, base(r)));
    assertEquals(9, d[0]);
    assertEquals(5, r[0]);
  }

  // ---------------------------------------------------------------------------------------------
  // Compare-and-swap and fetch-and-op

  @Test
  void compareAndSwapOnTheNewTypesComparesBits() {
    for (Datatype d : PUBLIC) {
      DatatypeEngine.checkCompareAndSwapType(TypeMap.of(d));
    }
    DatatypeEngine.checkCompareAndSwapType(TypeMap.of(Datatype.C_BOOL));
    assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkCompareAndSwapType(
        TypeMap.of(Datatype.contiguous(1, Datatype.UINT64).commit())));

    long at = base(new long[0]);
    long[] cmp = {0x8000_0000_0000_0000L};
    long[] val = {0xFFFF_FFFF_FFFF_FFFFL};
    long[] dst = {0x8000_0000_0000_0000L};
    long[] res = {0};
    ReductionKernel.compareAndSwap(BasicType.UINT64, cmp, at, val, at, dst, at, res, at);
    assertEquals(0xFFFF_FFFF_FFFF_FFFFL, dst[0]);
    assertEquals(0x8000_0000_0000_0000L, res[0]);
    ReductionKernel.compareAndSwap(BasicType.UINT64, cmp, at, cmp, at, dst, at, res, at);
    assertEquals(0xFFFF_FFFF_FFFF_FFFFL, dst[0], "no swap: the bits differ");
    assertEquals(0xFFFF_FFFF_FFFF_FFFFL, res[0]);

    byte[] b = {(byte) 0xFF, 0x7F};
    byte[] bc = {(byte) 0xFF};
    byte[] bv = {(byte) 0x80};
    byte[] br = {0};
    long bb = base(b);
    ReductionKernel.compareAndSwap(BasicType.UINT8, bc, bb, bv, bb, b, bb, br, bb);
    assertArrayEquals(new byte[] {(byte) 0x80, 0x7F}, b, "UINT8 swapped, the next byte untouched");
    assertEquals((byte) 0xFF, br[0]);

    boolean[] z = {true};
    boolean[] zc = {true};
    boolean[] zv = {false};
    boolean[] zr = {false};
    long zb = base(z);
    ReductionKernel.compareAndSwap(BasicType.BOOLEAN, zc, zb, zv, zb, z, zb, zr, zb);
    assertFalse(z[0]);
    assertTrue(zr[0]);
  }

  @Test
  void fetchAndOpOnTheNewTypes() {
    for (int i = 0; i < FIXED.length; i++) {
      BasicType t = FIXED[i];
      for (Op op : new Op[] {Op.SUM, Op.PROD, Op.MAX, Op.MIN, Op.BXOR, Op.LOR, Op.REPLACE, Op.NO_OP}) {
        long[] e = edges(t);
        for (long a : e) {
          for (long b : new long[] {-1, 1, e[e.length / 2]}) {
            Object d = array(t, a);
            Object s = array(t, narrow(t, BigInteger.valueOf(b)));
            Object r = array(t, 0x3C);
            ReductionKernel.fetchAndApply(op, t, s, base(s), d, base(d), r, base(r));
            assertEquals(a, get(r, 0), "fetchAndOp " + op + " on " + t + " fetches the old value");
            assertEquals(model(t, op, a, get(s, 0)), get(d, 0), "fetchAndOp " + op + " on " + t + " of " + a);
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Java arrays, names, codes, matching

  @Test
  void whichJavaArrayHoldsWhichType() {
    Class<?>[] all = {byte.class, short.class, char.class, int.class, long.class, float.class, double.class,
        boolean.class};
    Object[][] holds = {
        {Datatype.INT8, byte.class}, {Datatype.UINT8, byte.class},
        {Datatype.INT16, short.class}, {Datatype.UINT16, short.class},
        {Datatype.INT32, int.class}, {Datatype.UINT32, int.class},
        {Datatype.INT64, long.class}, {Datatype.UINT64, long.class},
        {Datatype.C_BOOL, boolean.class}, {Datatype.BOOLEAN, boolean.class},
        {Datatype.contiguous(3, Datatype.UINT32).commit(), int.class},
        {Datatype.vector(2, 1, 3, Datatype.INT16).commit(), short.class},
        {Datatype.indexed(new int[] {2}, new int[] {1}, Datatype.C_BOOL).commit(), boolean.class},
    };
    for (Object[] h : holds) {
      TypeMap t = TypeMap.of((Datatype) h[0]);
      for (Class<?> c : all) {
        if (c == h[1] || c == byte.class) {
          DatatypeEngine.checkArrayElements(c, t, "origin");
        } else {
          assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkArrayElements(c, t, "origin"), c + "[]", t.name(),
              h[1] + "[]");
        }
      }
    }
    for (BasicType t : FIXED) {
      assertEquals(t.size() == 1 ? byte.class : t.size() == 2 ? short.class : t.size() == 4 ? int.class : long.class,
          t.arrayElement());
    }
  }

  @Test
  void namesSizesCodesAndTheWire() {
    String[] names = {"INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"};
    Set<Integer> codes = new HashSet<>();
    for (BasicType t : BasicType.values()) {
      assertTrue(codes.add(t.code()), "code " + t.code() + " of " + t + " is unique");
    }
    for (int i = 0; i < PUBLIC.length; i++) {
      Datatype d = PUBLIC[i];
      assertEquals(names[i], d.name());
      assertEquals(names[i], d.toString());
      assertTrue(d.isPredefined() && d.isCommitted());
      assertEquals(FIXED[i].size(), d.size());
      assertEquals(FIXED[i].size(), d.extent());
      assertSame(FIXED[i], TypeMap.of(d).predefinedType());
      assertEquals(UNSIGNED[i], FIXED[i].isUnsigned());
      assertSame(FIXED[i], BasicType.ofCode(FIXED[i].code()));
      Buffer buf = Buffer.buffer();
      TypeMap.of(d).encode(buf);
      assertEquals(1, buf.length());
      assertSame(TypeMap.of(d), TypeMapWire.decode(buf, 0, null));
    }
    assertTrue(BasicType.CHAR.isUnsigned());
    assertFalse(BasicType.SHORT.isUnsigned() || BasicType.INT.isUnsigned() || BasicType.LONG.isUnsigned());

    // C_BOOL: MPI's name of the one-byte logical that BOOLEAN already is
    Datatype c = Datatype.C_BOOL;
    assertEquals("C_BOOL", c.name());
    assertNotSame(Datatype.BOOLEAN, c);
    assertEquals("BOOLEAN", Datatype.BOOLEAN.name());
    assertTrue(c.isPredefined() && c.isCommitted());
    assertEquals(1, c.size());
    assertEquals(1, c.extent());
    assertSame(BasicType.BOOLEAN, TypeMap.of(c).predefinedType());
    assertSame(c, c.commit());
    Buffer buf = Buffer.buffer();
    TypeMap.of(c).encode(buf);
    assertArrayEquals(new byte[] {(byte) BasicType.BOOLEAN.code()}, buf.getBytes());
    assertSame(TypeMap.of(Datatype.BOOLEAN), TypeMapWire.decode(buf, 0, null), "decodes to the kind's first name");
    assertEquals("contiguous(4, C_BOOL)", Datatype.contiguous(4, c).name());

    // derived types of the new kinds survive the wire with their kinds
    Datatype s = Datatype.struct(new int[] {2, 1, 3}, new long[] {0, 8, 16},
        new Datatype[] {Datatype.UINT16, Datatype.INT64, Datatype.C_BOOL}).commit();
    Buffer sb = Buffer.buffer();
    TypeMap.of(s).encode(sb);
    TypeMap back = TypeMapWire.decode(sb, 0, null);
    assertEquals(3, back.segmentCount());
    assertSame(BasicType.UINT16, back.segmentType(0));
    assertSame(BasicType.INT64, back.segmentType(1));
    assertSame(BasicType.BOOLEAN, back.segmentType(2));
    assertEquals(2 * 2 + 8 + 3, back.size());
  }

  @Test
  void typeMatching() {
    TypeMap int32 = TypeMap.of(Datatype.INT32);
    // different MPI datatypes of the same width do not match
    Datatype[][] differ = {
        {Datatype.INT, Datatype.INT32}, {Datatype.LONG, Datatype.INT64}, {Datatype.AINT, Datatype.INT64},
        {Datatype.INT64, Datatype.UINT64}, {Datatype.SHORT, Datatype.INT16}, {Datatype.CHAR, Datatype.UINT16},
        {Datatype.BYTE, Datatype.INT8}, {Datatype.INT8, Datatype.UINT8}, {Datatype.UINT8, Datatype.C_BOOL},
        {Datatype.INT32, Datatype.UINT32},
    };
    for (Datatype[] p : differ) {
      for (boolean acc : new boolean[] {false, true}) {
        assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkSignatures(TypeMap.of(p[0]), 2, TypeMap.of(p[1]), 2, acc),
            p[0].name(), p[1].name());
      }
    }
    // C_BOOL and BOOLEAN are one type
    DatatypeEngine.checkSignatures(TypeMap.of(Datatype.C_BOOL), 4, TypeMap.of(Datatype.BOOLEAN), 4, false);
    DatatypeEngine.checkSignatures(TypeMap.of(Datatype.BOOLEAN), 4, TypeMap.of(Datatype.contiguous(4,
        Datatype.C_BOOL).commit()), 1, true);
    // a derived type matches its kind, element by element
    DatatypeEngine.checkSignatures(int32, 6, TypeMap.of(Datatype.vector(3, 2, 5, Datatype.INT32).commit()), 1, true);
    assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkSignatures(int32, 6,
        TypeMap.of(Datatype.vector(3, 2, 5, Datatype.UINT32).commit()), 1, true), "INT32", "UINT32");
    assertError(ErrorClass.TRUNCATE, () -> DatatypeEngine.checkSignatures(TypeMap.of(Datatype.UINT16), 3,
        TypeMap.of(Datatype.UINT16), 2, false));
  }

  @Test
  void derivedTypesAccumulateWithTheKindsSemantics() {
    // vector(3, 1, 2, UINT32) at the target: elements 0, 2, 4 of an int[6]; MAX unsigned
    TypeMap vec = TypeMap.of(Datatype.vector(3, 1, 2, Datatype.UINT32).commit());
    TypeMap u32 = TypeMap.of(Datatype.UINT32);
    int[] target = {5, 11, -1, 22, 0x7FFF_FFFF, 33};
    int[] origin = {-2, 7, 0x8000_0000};
    DatatypeEngine.checkOp(Op.MAX, vec);
    DatatypeEngine.checkSignatures(u32, 3, vec, 1, true);
    DatatypeEngine.transfer(origin, base(origin), u32, 3, target, base(target), vec, 1, Op.MAX);
    assertArrayEquals(new int[] {-2, 11, -1, 22, 0x8000_0000, 33}, target);

    // indexed INT8 blocks, SUM wrapping at 127
    TypeMap idx = TypeMap.of(Datatype.indexed(new int[] {2, 1}, new int[] {0, 4}, Datatype.INT8).commit());
    byte[] bytes = {127, -128, 9, 9, 100, 9};
    byte[] add = {1, -1, 100};
    DatatypeEngine.transfer(add, base(add), TypeMap.of(Datatype.INT8), 3, bytes, base(bytes), idx, 1, Op.SUM);
    assertArrayEquals(new byte[] {-128, 127, 9, 9, -56, 9}, bytes);

    // struct of UINT16 blocks with a gap, PROD modulo 2^16, packed and unpacked
    TypeMap st = TypeMap.of(Datatype.struct(new int[] {1, 2}, new long[] {0, 4},
        new Datatype[] {Datatype.UINT16, Datatype.UINT16}).commit());
    short[] w = {(short) 0xFFFF, 77, 0x100, (short) 0x8000};
    short[] f = {(short) 0xFFFF, 0x100, 2};
    DatatypeEngine.checkSignatures(TypeMap.of(Datatype.UINT16), 3, st, 1, true);
    DatatypeEngine.transfer(f, base(f), TypeMap.of(Datatype.UINT16), 3, w, base(w), st, 1, Op.PROD);
    assertArrayEquals(new short[] {1, 77, 0, 0}, w);
    byte[] packed = DatatypeEngine.pack(w, base(w), st, 1);
    short[] back = {-9, -9, -9, -9};
    DatatypeEngine.unpack(packed, back, base(back), st, 1);
    assertArrayEquals(new short[] {1, -9, 0, 0}, back);

    // contiguous UINT64 MIN across elements with the top bit
    TypeMap c = TypeMap.of(Datatype.contiguous(2, Datatype.UINT64).commit());
    long[] l = {Long.MIN_VALUE, 0, -1, 5};
    long[] o = {0, 0, 1, Long.MIN_VALUE};
    DatatypeEngine.transfer(o, base(o), c, 2, l, base(l), c, 2, Op.MIN);
    assertArrayEquals(new long[] {0, 0, 1, 5}, l);
  }
}
