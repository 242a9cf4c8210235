package dev.vertxrma.impl.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.memory.MemoryRef;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class DatatypeTest {

  static void assertError(ErrorClass expected, Runnable r) {
    RmaException e = assertThrows(RmaException.class, r::run);
    assertEquals(expected, e.errorClass(), e.getMessage());
  }

  static TypeMap tm(Datatype d) {
    return TypeMap.of(d);
  }

  static void assertBounds(Datatype d, long size, long lb, long extent, long trueLb, long trueExtent) {
    assertEquals(size, d.size(), "size of " + d.name());
    assertEquals(lb, d.lb(), "lb of " + d.name());
    assertEquals(extent, d.extent(), "extent of " + d.name());
    assertEquals(lb + extent, d.ub(), "ub of " + d.name());
    assertEquals(trueLb, d.trueLb(), "trueLb of " + d.name());
    assertEquals(trueExtent, d.trueExtent(), "trueExtent of " + d.name());
  }

  /** (disp, size) of every basic element of one instance, in type-map order. */
  static List<long[]> elements(TypeMap t) {
    List<long[]> out = new ArrayList<>();
    for (int i = 0; i < t.segmentCount(); i++) {
      int size = t.segmentType(i).size();
      for (int j = 0; j < t.segmentLength(i); j++) {
        out.add(new long[] {t.segmentDisp(i) + (long) j * size, size});
      }
    }
    return out;
  }

  static long[] dispsOf(TypeMap t) {
    return elements(t).stream().mapToLong(e -> e[0]).toArray();
  }

  static long[] scaled(long factor, long... disps) {
    long[] r = disps.clone();
    for (int i = 0; i < r.length; i++) {
      r[i] *= factor;
    }
    return r;
  }

  static void assertSegments(TypeMap t, long[][] expected) {
    assertEquals(expected.length, t.segmentCount(), "segments of " + t.name());
    for (int i = 0; i < expected.length; i++) {
      assertEquals(expected[i][0], t.segmentDisp(i), "disp of segment " + i);
      assertEquals(expected[i][1], t.segmentLength(i), "length of segment " + i);
    }
  }

  // ---------------------------------------------------------------------------------------------

  @Nested
  class Constructors {

    @Test
    void predefinedTypes() {
      Datatype[] all = {Datatype.BYTE, Datatype.CHAR, Datatype.SHORT, Datatype.INT, Datatype.LONG, Datatype.FLOAT,
          Datatype.DOUBLE, Datatype.BOOLEAN, Datatype.AINT, Datatype.INT_INT, Datatype.LONG_INT, Datatype.FLOAT_INT,
          Datatype.DOUBLE_INT, Datatype.INT8, Datatype.INT16, Datatype.INT32, Datatype.INT64, Datatype.UINT8,
          Datatype.UINT16, Datatype.UINT32, Datatype.UINT64};
      long[] sizes = {1, 2, 2, 4, 8, 4, 8, 1, 8, 8, 12, 8, 12, 1, 2, 4, 8, 1, 2, 4, 8};
      long[] extents = {1, 2, 2, 4, 8, 4, 8, 1, 8, 8, 16, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8};
      assertEquals(BasicType.values().length, all.length);
      for (int i = 0; i < all.length; i++) {
        Datatype d = all[i];
        assertBounds(d, sizes[i], 0, extents[i], 0, sizes[i]);
        assertTrue(d.isPredefined() && d.isCommitted());
        assertSame(d, d.commit());
        TypeMap t = tm(d);
        assertEquals(BasicType.values()[i].name(), d.name());
        assertSame(BasicType.values()[i], t.homogeneousType());
        assertSame(BasicType.values()[i], t.predefinedType());
        assertEquals(1, t.elementCount());
        assertEquals(sizes[i] == extents[i], t.isContiguous());
        assertSame(BasicType.values()[i], BasicType.ofCode(BasicType.values()[i].code()));
      }
      assertError(ErrorClass.TYPE, () -> BasicType.ofCode(0));
      assertError(ErrorClass.TYPE, () -> BasicType.ofCode(22));
      assertError(ErrorClass.TYPE, () -> BasicType.ofCode(31));
      assertError(ErrorClass.TYPE, () -> BasicType.ofCode(32));
      assertError(ErrorClass.TYPE, () -> BasicType.ofCode(-1));
    }

    @Test
    void contiguous() {
      Datatype c = Datatype.contiguous(3, Datatype.INT);
      assertBounds(c, 12, 0, 12, 0, 12);
      assertFalse(c.isPredefined());
      assertFalse(c.isCommitted());
      assertSame(c, c.commit());
      assertTrue(c.isCommitted());
      assertSegments(tm(c), new long[][] {{0, 3}});
      assertTrue(tm(c).isContiguous());
      assertEquals(3, tm(c).elementCount());

      Datatype empty = Datatype.contiguous(0, Datatype.DOUBLE);
      assertBounds(empty, 0, 0, 0, 0, 0);
      assertEquals(0, tm(empty).segmentCount());
      assertNull(tm(empty).homogeneousType());

      // LONG_INT elements are 12 bytes with 4 bytes of padding: not mergeable.
      Datatype pairs = Datatype.contiguous(3, Datatype.LONG_INT);
      assertBounds(pairs, 36, 0, 48, 0, 44);
      assertSegments(tm(pairs), new long[][] {{0, 1}, {16, 1}, {32, 1}});
      assertFalse(tm(pairs).isContiguous());
    }

    @Test
    void hugeContiguousIsChunkedNotExpanded() {
      Datatype big = Datatype.contiguous(Integer.MAX_VALUE, Datatype.contiguous(4, Datatype.BYTE));
      long bytes = 4L * Integer.MAX_VALUE;
      assertBounds(big, bytes, 0, bytes, 0, bytes);
      TypeMap t = tm(big);
      long sum = 0;
      for (int i = 0; i < t.segmentCount(); i++) {
        assertEquals(sum, t.segmentDisp(i));
        sum += t.segmentLength(i);
      }
      assertEquals(bytes, sum);
      assertEquals(4, t.segmentCount()); // 4 * (2^31 - 1) bytes in int-sized chunks
      assertEquals(bytes, t.elementCount());
    }

    @Test
    void vector() {
      Datatype v = Datatype.vector(3, 2, 4, Datatype.INT);
      assertBounds(v, 24, 0, 40, 0, 40);
      assertSegments(tm(v), new long[][] {{0, 2}, {16, 2}, {32, 2}});
      assertArrayEquals(scaled(4, 0, 1, 4, 5, 8, 9), dispsOf(tm(v)));
      assertSame(BasicType.INT, tm(v).homogeneousType());
      assertEquals(6, tm(v).elementCount());
      assertFalse(tm(v).isContiguous());

      // stride == blocklength: one contiguous run
      Datatype dense = Datatype.vector(5, 3, 3, Datatype.DOUBLE);
      assertBounds(dense, 120, 0, 120, 0, 120);
      assertSegments(tm(dense), new long[][] {{0, 15}});
      assertTrue(tm(dense).isContiguous());
    }

    @Test
    void vectorWithNegativeStrideKeepsTypeMapOrder() {
      Datatype v = Datatype.vector(3, 1, -2, Datatype.INT);
      assertBounds(v, 12, -16, 20, -16, 20);
      assertArrayEquals(new long[] {0, -8, -16}, dispsOf(tm(v)));
    }

    @Test
    void hvector() {
      Datatype h = Datatype.hvector(3, 1, 12, Datatype.DOUBLE);
      assertBounds(h, 24, 0, 32, 0, 32);
      assertArrayEquals(new long[] {0, 12, 24}, dispsOf(tm(h)));
      // stride 8 makes them adjacent: merged
      assertSegments(tm(Datatype.hvector(3, 1, 8, Datatype.DOUBLE)), new long[][] {{0, 3}});
      // overlapping copies are kept in order
      assertArrayEquals(new long[] {0, 4, 4, 8}, dispsOf(tm(Datatype.hvector(2, 2, 4, Datatype.INT))));
    }

    @Test
    void indexed() {
      Datatype ix = Datatype.indexed(new int[] {2, 1, 0}, new int[] {4, 0, 100}, Datatype.INT);
      assertBounds(ix, 12, 0, 24, 0, 24);
      assertSegments(tm(ix), new long[][] {{16, 2}, {0, 1}});
      assertArrayEquals(new long[] {16, 20, 0}, dispsOf(tm(ix)));

      Datatype hx = Datatype.hindexed(new int[] {1, 2}, new long[] {-6, 10}, Datatype.SHORT);
      assertBounds(hx, 6, -6, 20, -6, 20);
      assertArrayEquals(new long[] {-6, 10, 12}, dispsOf(tm(hx)));

      Datatype bx = Datatype.indexedBlock(2, new int[] {0, 3, 6}, Datatype.SHORT);
      assertBounds(bx, 12, 0, 16, 0, 16);
      assertSegments(tm(bx), new long[][] {{0, 2}, {6, 2}, {12, 2}});

      Datatype merged = Datatype.indexedBlock(2, new int[] {0, 2}, Datatype.INT);
      assertSegments(tm(merged), new long[][] {{0, 4}});
      assertTrue(tm(merged).isContiguous());
    }

    @Test
    void structWithPairLikeLayouts() {
      Datatype di = Datatype.struct(new int[] {1, 1}, new long[] {0, 8},
          new Datatype[] {Datatype.DOUBLE, Datatype.INT});
      assertBounds(di, 12, 0, 12, 0, 12); // no padding for derived types
      assertNull(tm(di).homogeneousType());
      assertEquals(2, tm(di).segmentCount());
      assertSame(BasicType.DOUBLE, tm(di).segmentType(0));
      assertSame(BasicType.INT, tm(di).segmentType(1));
      assertTrue(tm(di).isContiguous() == false);
      assertEquals(2, tm(di).elementCount());

      Datatype padded = Datatype.resized(di, 0, 16);
      assertBounds(padded, 12, 0, 16, 0, 12);
      Datatype arr = Datatype.contiguous(2, padded);
      assertBounds(arr, 24, 0, 32, 0, 28);
      assertArrayEquals(new long[] {0, 8, 16, 24}, dispsOf(tm(arr)));

      // same kinds adjacent in a struct merge
      Datatype ints = Datatype.struct(new int[] {2, 3}, new long[] {0, 8},
          new Datatype[] {Datatype.INT, Datatype.INT});
      assertSegments(tm(ints), new long[][] {{0, 5}});
      assertSame(BasicType.INT, tm(ints).homogeneousType());

      Datatype withPair = Datatype.struct(new int[] {2, 1}, new long[] {0, 40},
          new Datatype[] {Datatype.DOUBLE_INT, Datatype.BYTE});
      assertBounds(withPair, 25, 0, 41, 0, 41);
      assertArrayEquals(new long[] {0, 16, 40}, dispsOf(tm(withPair)));
    }

    @Test
    void resizedBoundsStickThroughLaterConstructors() {
      Datatype r = Datatype.resized(Datatype.INT, -4, 16);
      assertBounds(r, 4, -4, 16, 0, 4);
      Datatype c = Datatype.contiguous(2, r);
      assertBounds(c, 8, -4, 32, 0, 20);
      assertArrayEquals(new long[] {0, 16}, dispsOf(tm(c)));

      // The explicit markers win over data of a component without markers.
      Datatype s = Datatype.struct(new int[] {1, 1}, new long[] {0, 100}, new Datatype[] {r, Datatype.INT});
      assertBounds(s, 8, -4, 16, 0, 104);
      assertTrue(tm(s).hasExplicitBounds());

      Datatype shrunk = Datatype.resized(Datatype.contiguous(4, Datatype.INT), 0, 4);
      assertBounds(shrunk, 16, 0, 4, 0, 16);
      assertBounds(Datatype.vector(2, 1, 1, shrunk), 32, 0, 8, 0, 20);
      assertBounds(Datatype.resized(Datatype.contiguous(0, Datatype.INT), 2, 6), 0, 2, 6, 0, 0);
    }

    @Test
    void subarrayCOrder() {
      Datatype s = Datatype.subarray(new int[] {4, 5}, new int[] {2, 3}, new int[] {1, 2}, Datatype.Order.C, Datatype.INT);
      assertBounds(s, 24, 0, 80, 28, 32);
      assertSegments(tm(s), new long[][] {{28, 3}, {48, 3}});
    }

    @Test
    void subarrayFortranOrder() {
      Datatype s = Datatype.subarray(new int[] {4, 5}, new int[] {2, 3}, new int[] {1, 2}, Datatype.Order.FORTRAN,
          Datatype.INT);
      assertBounds(s, 24, 0, 80, 36, 40);
      assertSegments(tm(s), new long[][] {{36, 2}, {52, 2}, {68, 2}});
    }

    @Test
    void subarrayMatchesBruteForceIn3d() {
      Random rnd = new Random(42);
      for (int trial = 0; trial < 200; trial++) {
        int[] sizes = new int[3];
        int[] sub = new int[3];
        int[] starts = new int[3];
        for (int d = 0; d < 3; d++) {
          sizes[d] = 1 + rnd.nextInt(5);
          sub[d] = 1 + rnd.nextInt(sizes[d]);
          starts[d] = rnd.nextInt(sizes[d] - sub[d] + 1);
        }
        for (Datatype.Order order : Datatype.Order.values()) {
          Datatype old = rnd.nextBoolean() ? Datatype.SHORT : Datatype.vector(2, 1, 2, Datatype.SHORT);
          Datatype s = Datatype.subarray(sizes, sub, starts, order, old);
          List<Long> expected = new ArrayList<>();
          long[] oldDisps = dispsOf(tm(old));
          int total = sizes[0] * sizes[1] * sizes[2];
          for (int linear = 0; linear < total; linear++) {
            int[] idx = new int[3];
            int rest = linear;
            for (int k = 0; k < 3; k++) { // k-th fastest dimension
              int d = order == Datatype.Order.C ? 2 - k : k;
              idx[d] = rest % sizes[d];
              rest /= sizes[d];
            }
            boolean inside = true;
            for (int d = 0; d < 3; d++) {
              inside &= idx[d] >= starts[d] && idx[d] < starts[d] + sub[d];
            }
            if (inside) {
              for (long od : oldDisps) {
                expected.add(linear * old.extent() + od);
              }
            }
          }
          assertArrayEquals(expected.stream().mapToLong(Long::longValue).toArray(), dispsOf(tm(s)),
              "subarray " + java.util.Arrays.toString(sizes) + java.util.Arrays.toString(sub)
                  + java.util.Arrays.toString(starts) + order);
          assertEquals(0, s.lb());
          assertEquals(total * old.extent(), s.extent());
        }
      }
    }

    @Test
    void nestedDerivedTypes() {
      Datatype pair = Datatype.contiguous(2, Datatype.DOUBLE); // 16 bytes
      Datatype v = Datatype.vector(3, 1, 2, pair); // blocks at 0, 32, 64
      assertBounds(v, 48, 0, 80, 0, 80);
      assertArrayEquals(new long[] {0, 8, 32, 40, 64, 72}, dispsOf(tm(v)));
      Datatype vv = Datatype.hvector(2, 1, 100, v);
      assertBounds(vv, 96, 0, 180, 0, 180);
      assertEquals(6, tm(vv).segmentCount());
      Datatype ix = Datatype.indexed(new int[] {1, 1}, new int[] {1, 0}, v);
      assertArrayEquals(new long[] {80, 88, 112, 120, 144, 152, 0, 8, 32, 40, 64, 72}, dispsOf(tm(ix)));
      assertBounds(ix, 96, 0, 160, 0, 160);
    }

    @Test
    void badArguments() {
      assertError(ErrorClass.COUNT, () -> Datatype.contiguous(-1, Datatype.INT));
      assertError(ErrorClass.COUNT, () -> Datatype.vector(-1, 1, 1, Datatype.INT));
      assertError(ErrorClass.COUNT, () -> Datatype.vector(1, -2, 1, Datatype.INT));
      assertError(ErrorClass.COUNT, () -> Datatype.hvector(1, -2, 1, Datatype.INT));
      assertError(ErrorClass.COUNT, () -> Datatype.indexed(new int[] {1, -1}, new int[] {0, 1}, Datatype.INT));
      assertError(ErrorClass.COUNT, () -> Datatype.indexedBlock(-1, new int[] {0}, Datatype.INT));
      assertError(ErrorClass.COUNT, () -> Datatype.struct(new int[] {-1}, new long[] {0}, new Datatype[] {Datatype.INT}));
      assertError(ErrorClass.ARG, () -> Datatype.indexed(null, new int[] {0}, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.indexed(new int[] {1}, null, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.indexed(new int[] {1}, new int[] {0, 1}, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.hindexed(new int[] {1, 1}, new long[] {0}, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.indexedBlock(1, null, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.struct(new int[] {1}, new long[] {0}, new Datatype[0]));
      assertError(ErrorClass.ARG, () -> Datatype.struct(new int[] {1}, new long[] {0}, null));
      assertError(ErrorClass.TYPE, () -> Datatype.struct(new int[] {1}, new long[] {0}, new Datatype[] {null}));
      assertError(ErrorClass.TYPE, () -> Datatype.contiguous(1, null));
      assertError(ErrorClass.ARG, () -> Datatype.resized(Datatype.INT, 0, -1));
      int[] two = {4, 4};
      assertError(ErrorClass.ARG, () -> Datatype.subarray(two, new int[] {5, 1}, new int[] {0, 0}, Datatype.Order.C, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.subarray(two, new int[] {0, 1}, new int[] {0, 0}, Datatype.Order.C, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.subarray(two, new int[] {2, 2}, new int[] {3, 0}, Datatype.Order.C, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.subarray(two, new int[] {2, 2}, new int[] {-1, 0}, Datatype.Order.C, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.subarray(new int[] {0, 4}, new int[] {1, 1}, new int[] {0, 0}, Datatype.Order.C, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.subarray(two, new int[] {2}, new int[] {0, 0}, Datatype.Order.C, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.subarray(new int[0], new int[0], new int[0], Datatype.Order.C, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.subarray(two, two, new int[] {0, 0}, null, Datatype.INT));
      RmaException e = assertThrows(RmaException.class, () -> Datatype.vector(2, -3, 1, Datatype.INT));
      assertTrue(e.getMessage().contains("-3"), e.getMessage());
    }

    @Test
    void overflowAndOversizedTypes() {
      assertError(ErrorClass.ARG, () -> Datatype.hvector(3, 1, Long.MAX_VALUE / 2 + 1, Datatype.INT));
      assertError(ErrorClass.ARG, () -> Datatype.resized(Datatype.INT, Long.MAX_VALUE - 2, 8));
      assertError(ErrorClass.ARG, () -> Datatype.vector(Integer.MAX_VALUE, 1, Integer.MAX_VALUE,
          Datatype.resized(Datatype.INT, 0, 1L << 40)));
      assertError(ErrorClass.INTERN, () -> Datatype.vector(TypeMap.MAX_SEGMENTS + 1, 1, 2, Datatype.BYTE));
      assertError(ErrorClass.INTERN, () -> Datatype.contiguous(Integer.MAX_VALUE, Datatype.vector(2, 1, 2, Datatype.BYTE)));
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** Native memory for a test, zeroed, released at the end. */
  static final class Native implements AutoCloseable {
    final BytesStore<?, Void> store;
    final long address;
    final long size;

    Native(long size) {
      this.store = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, size));
      this.size = size;
      this.address = MemoryRef.of(store, 0).address();
      Memory.zero(null, address, size);
    }

    @Override
    public void close() {
      store.releaseLast();
    }
  }

  @Nested
  class PackAndTransfer {

    /** Pack/unpack through native memory and a byte[], checking every data byte against the type map. */
    void roundTrip(Datatype d, int count) {
      TypeMap t = tm(d.commit());
      long origin = Math.max(0, -t.trueLb()) + 3;
      long span = DatatypeEngine.span(t, count);
      long capacity = origin + Math.max(t.trueUb(), 0) + (count == 0 ? 0 : (count - 1L) * t.extent()) + 5;
      assertTrue(span <= capacity);
      DatatypeEngine.checkAccess(t, count, origin, capacity, "test buffer", ErrorClass.BUFFER);
      long packed = DatatypeEngine.packedSize(t, count);
      assertEquals(count * t.size(), packed);
      List<long[]> elems = elements(t);

      byte[] heapSrc = new byte[(int) capacity];
      for (int i = 0; i < heapSrc.length; i++) {
        heapSrc[i] = (byte) (i * 31 + 7);
      }
      try (Native src = new Native(capacity); Native pk = new Native(packed); Native dst = new Native(capacity)) {
        Memory.copy(heapSrc, Memory.ARRAY_BYTE_BASE_OFFSET, null, src.address, capacity);
        assertEquals(packed, DatatypeEngine.pack(null, src.address + origin, t, count, null, pk.address));
        byte[] heapPacked = new byte[(int) packed];
        assertEquals(packed, DatatypeEngine.pack(heapSrc, Memory.ARRAY_BYTE_BASE_OFFSET + origin, t, count,
            heapPacked, Memory.ARRAY_BYTE_BASE_OFFSET));
        // expected packed stream: each element's bytes in type-map order
        int p = 0;
        boolean[] touched = new boolean[(int) capacity];
        for (int k = 0; k < count; k++) {
          for (long[] e : elems) {
            long at = origin + k * t.extent() + e[0];
            for (int b = 0; b < e[1]; b++, p++) {
              assertEquals(heapSrc[(int) at + b], Memory.getByte(null, pk.address + p), "packed byte " + p);
              assertEquals(heapSrc[(int) at + b], heapPacked[p], "heap packed byte " + p);
              touched[(int) at + b] = true;
            }
          }
        }
        assertEquals(packed, p);

        byte[] heapDst = new byte[(int) capacity];
        assertEquals(packed, DatatypeEngine.unpack(null, pk.address, null, dst.address + origin, t, count, Op.REPLACE));
        assertEquals(packed, DatatypeEngine.unpack(heapPacked, Memory.ARRAY_BYTE_BASE_OFFSET, heapDst,
            Memory.ARRAY_BYTE_BASE_OFFSET + origin, t, count, Op.REPLACE));
        for (int i = 0; i < capacity; i++) {
          byte want = touched[i] ? heapSrc[i] : 0;
          assertEquals(want, Memory.getByte(null, dst.address + i), "native unpacked byte " + i);
          assertEquals(want, heapDst[i], "heap unpacked byte " + i);
        }

        // and a direct layout-to-layout copy gives the same
        Memory.zero(null, dst.address, capacity);
        DatatypeEngine.transfer(null, src.address + origin, t, count, null, dst.address + origin, t, count, Op.REPLACE);
        for (int i = 0; i < capacity; i++) {
          assertEquals(touched[i] ? heapSrc[i] : 0, Memory.getByte(null, dst.address + i), "transferred byte " + i);
        }
      }
    }

    @Test
    void roundTripsOfEveryConstructor() {
      roundTrip(Datatype.INT, 5);
      roundTrip(Datatype.LONG_INT, 3);
      roundTrip(Datatype.contiguous(3, Datatype.DOUBLE), 2);
      roundTrip(Datatype.vector(3, 2, 4, Datatype.INT), 3);
      roundTrip(Datatype.vector(3, 1, -2, Datatype.SHORT), 2);
      roundTrip(Datatype.hvector(4, 1, 13, Datatype.DOUBLE), 2);
      roundTrip(Datatype.indexed(new int[] {2, 1, 3}, new int[] {5, 0, 9}, Datatype.FLOAT), 2);
      roundTrip(Datatype.hindexed(new int[] {1, 2}, new long[] {-6, 10}, Datatype.SHORT), 4);
      roundTrip(Datatype.indexedBlock(2, new int[] {0, 3, 6}, Datatype.CHAR), 3);
      roundTrip(Datatype.struct(new int[] {1, 2, 1}, new long[] {0, 8, 17},
          new Datatype[] {Datatype.DOUBLE, Datatype.INT, Datatype.BOOLEAN}), 3);
      roundTrip(Datatype.resized(Datatype.struct(new int[] {1, 1}, new long[] {0, 8},
          new Datatype[] {Datatype.LONG, Datatype.INT}), 0, 16), 4);
      roundTrip(Datatype.subarray(new int[] {4, 5, 3}, new int[] {2, 3, 2}, new int[] {1, 2, 1}, Datatype.Order.C,
          Datatype.LONG), 2);
      roundTrip(Datatype.subarray(new int[] {4, 5}, new int[] {2, 3}, new int[] {2, 0}, Datatype.Order.FORTRAN,
          Datatype.INT_INT), 2);
      roundTrip(Datatype.resized(Datatype.INT, -4, 16), 3);
      roundTrip(Datatype.vector(2, 1, 3, Datatype.struct(new int[] {1, 1}, new long[] {4, 0},
          new Datatype[] {Datatype.INT, Datatype.SHORT})), 2);
      roundTrip(Datatype.contiguous(0, Datatype.INT), 4);
      roundTrip(Datatype.vector(3, 2, 4, Datatype.INT), 0);
    }

    @Test
    void vectorToContiguousBetweenJavaArrayAndNativeMemory() {
      double[] src = new double[20];
      for (int i = 0; i < src.length; i++) {
        src[i] = i * 1.5 - 3;
      }
      TypeMap v = tm(Datatype.vector(4, 2, 5, Datatype.DOUBLE).commit());
      TypeMap c = tm(Datatype.contiguous(8, Datatype.DOUBLE).commit());
      DatatypeEngine.checkSignatures(v, 1, c, 1, false);
      MemoryRef s = MemoryRef.of(src, 0);
      DatatypeEngine.checkAccess(v, 1, s, "origin buffer");
      try (Native dst = new Native(64)) {
        DatatypeEngine.transfer(s.base(), s.address(), v, 1, null, dst.address, c, 1, Op.REPLACE);
        for (int i = 0; i < 8; i++) {
          assertEquals(src[(i / 2) * 5 + i % 2], Memory.getDouble(null, dst.address + 8L * i), "element " + i);
        }
        // and back into a fresh array, with the Java array at an element offset
        double[] back = new double[22];
        MemoryRef b = MemoryRef.of(back, 2);
        DatatypeEngine.checkAccess(v, 1, b, "result buffer");
        DatatypeEngine.transfer(null, dst.address, tm(Datatype.DOUBLE), 8,
            b.base(), b.address(), v, 1, Op.REPLACE);
        for (int i = 0; i < 20; i++) {
          boolean hit = i % 5 < 2 && i < 17;
          assertEquals(hit ? src[i] : 0.0, back[i + 2], "back " + i);
        }
        assertEquals(0.0, back[0]);
        assertEquals(0.0, back[1]);
      }
    }

    @Test
    void subarrayToIndexed() {
      int[] grid = new int[20]; // 4 x 5, C order
      for (int i = 0; i < grid.length; i++) {
        grid[i] = 100 + i;
      }
      TypeMap sub = tm(Datatype.subarray(new int[] {4, 5}, new int[] {2, 3}, new int[] {1, 2}, Datatype.Order.C,
          Datatype.INT).commit());
      TypeMap ix = tm(Datatype.indexed(new int[] {3, 3}, new int[] {10, 0}, Datatype.INT).commit());
      DatatypeEngine.checkSignatures(sub, 1, ix, 1, false);
      int[] out = new int[13];
      MemoryRef s = MemoryRef.of(grid, 0);
      MemoryRef d = MemoryRef.of(out, 0);
      DatatypeEngine.checkAccess(ix, 1, d, "target");
      DatatypeEngine.transfer(s.base(), s.address(), sub, 1, d.base(), d.address(), ix, 1, Op.REPLACE);
      assertArrayEquals(new int[] {112, 113, 114, 0, 0, 0, 0, 0, 0, 0, 107, 108, 109}, out);
    }

    @Test
    void heterogeneousLayoutsWithTheSameSignature() {
      // {int, double} packed at 0/4 versus padded at 0/8
      TypeMap packed = tm(Datatype.struct(new int[] {1, 1}, new long[] {0, 4},
          new Datatype[] {Datatype.INT, Datatype.DOUBLE}).commit());
      TypeMap padded = tm(Datatype.resized(Datatype.struct(new int[] {1, 1}, new long[] {0, 8},
          new Datatype[] {Datatype.INT, Datatype.DOUBLE}), 0, 16).commit());
      DatatypeEngine.checkSignatures(packed, 3, padded, 3, false);
      try (Native a = new Native(36); Native b = new Native(48)) {
        for (int k = 0; k < 3; k++) {
          Memory.putInt(null, a.address + 12L * k, 10 + k);
          Memory.putDouble(null, a.address + 12L * k + 4, 0.5 * k);
        }
        DatatypeEngine.transfer(null, a.address, packed, 3, null, b.address, padded, 3, Op.REPLACE);
        for (int k = 0; k < 3; k++) {
          assertEquals(10 + k, Memory.getInt(null, b.address + 16L * k));
          assertEquals(0, Memory.getInt(null, b.address + 16L * k + 4));
          assertEquals(0.5 * k, Memory.getDouble(null, b.address + 16L * k + 8));
        }
      }
    }

    @Test
    void accumulateThroughTheWalker() {
      int[] src = {1, 2, 3, 4, 5, 6, 7, 8};
      int[] dst = {10, 20, 30, 40, 50, 60, 70, 80};
      TypeMap v = tm(Datatype.vector(2, 2, 4, Datatype.INT).commit()); // elements 0,1,4,5
      TypeMap c = tm(Datatype.contiguous(4, Datatype.INT).commit());
      DatatypeEngine.checkSignatures(v, 1, c, 1, true);
      DatatypeEngine.checkOp(Op.SUM, c);
      MemoryRef s = MemoryRef.of(src, 0);
      MemoryRef d = MemoryRef.of(dst, 2);
      DatatypeEngine.transfer(s.base(), s.address(), v, 1, d.base(), d.address(), c, 1, Op.SUM);
      assertArrayEquals(new int[] {10, 20, 31, 42, 55, 66, 70, 80}, dst);
      DatatypeEngine.transfer(s.base(), s.address(), v, 1, d.base(), d.address(), c, 1, Op.NO_OP);
      assertArrayEquals(new int[] {10, 20, 31, 42, 55, 66, 70, 80}, dst);
      DatatypeEngine.transfer(s.base(), s.address(), v, 1, d.base(), d.address(), c, 1, Op.MAX);
      assertArrayEquals(new int[] {10, 20, 31, 42, 55, 66, 70, 80}, dst);
      DatatypeEngine.transfer(s.base(), s.address(), v, 1, d.base(), d.address(), c, 1, Op.REPLACE);
      assertArrayEquals(new int[] {10, 20, 1, 2, 5, 6, 70, 80}, dst);

      // unpack with an op: packed {1,1,1,1} PROD-ed into the vector layout of dst2
      int[] ones = {3, 3, 3, 3};
      int[] dst2 = {1, 2, 3, 4, 5, 6, 7, 8};
      MemoryRef o = MemoryRef.of(ones, 0);
      MemoryRef d2 = MemoryRef.of(dst2, 0);
      assertEquals(16, DatatypeEngine.unpack(o.base(), o.address(), d2.base(), d2.address(), v, 1, Op.PROD));
      assertArrayEquals(new int[] {3, 6, 3, 4, 15, 18, 7, 8}, dst2);
    }

    @Test
    void mismatchedKindsStopTheWalker() {
      try (Native a = new Native(16); Native b = new Native(16)) {
        assertError(ErrorClass.TYPE, () -> DatatypeEngine.transfer(null, a.address, tm(Datatype.INT), 2,
            null, b.address, tm(Datatype.FLOAT), 2, Op.REPLACE));
        assertError(ErrorClass.OP, () -> DatatypeEngine.transfer(null, a.address, tm(Datatype.DOUBLE), 2,
            null, b.address, tm(Datatype.DOUBLE), 2, Op.BAND));
      }
    }

    @Test
    void largeContiguousTransfer() {
      int n = 1 << 20;
      long[] src = new long[n];
      for (int i = 0; i < n; i++) {
        src[i] = i * 0x9E3779B97F4A7C15L;
      }
      long[] dst = new long[n];
      MemoryRef s = MemoryRef.of(src, 0);
      MemoryRef d = MemoryRef.of(dst, 0);
      DatatypeEngine.transfer(s.base(), s.address(), tm(Datatype.LONG), n, d.base(), d.address(),
          tm(Datatype.contiguous(n / 4, Datatype.LONG).commit()), 4, Op.REPLACE);
      assertArrayEquals(src, dst);
      DatatypeEngine.transfer(s.base(), s.address(), tm(Datatype.LONG), n, d.base(), d.address(), tm(Datatype.LONG), n,
          Op.BXOR);
      assertArrayEquals(new long[n], dst);
    }
  }

  // ---------------------------------------------------------------------------------------------

  @Nested
  class Checks {

    @Test
    void checkAccessEdges() {
      TypeMap i = tm(Datatype.INT);
      DatatypeEngine.checkAccess(i, 4, 0, 16, "window", ErrorClass.RMA_RANGE); // exact fit
      assertError(ErrorClass.RMA_RANGE, () -> DatatypeEngine.checkAccess(i, 4, 0, 15, "window", ErrorClass.RMA_RANGE));
      DatatypeEngine.checkAccess(i, 3, 4, 16, "window", ErrorClass.RMA_RANGE);
      assertError(ErrorClass.RMA_RANGE, () -> DatatypeEngine.checkAccess(i, 3, 5, 16, "window", ErrorClass.RMA_RANGE));
      assertError(ErrorClass.BUFFER, () -> DatatypeEngine.checkAccess(i, 1, -1, 16, "buffer", ErrorClass.BUFFER));
      DatatypeEngine.checkAccess(i, 0, -100, 0, "window", ErrorClass.RMA_RANGE); // nothing accessed
      assertError(ErrorClass.COUNT, () -> DatatypeEngine.checkAccess(i, -1, 0, 16, "window", ErrorClass.RMA_RANGE));

      // the trailing gap of the last instance is not accessed
      TypeMap li = tm(Datatype.LONG_INT);
      DatatypeEngine.checkAccess(li, 2, 0, 28, "window", ErrorClass.RMA_RANGE);
      assertError(ErrorClass.RMA_RANGE, () -> DatatypeEngine.checkAccess(li, 2, 0, 27, "window", ErrorClass.RMA_RANGE));

      // negative lb via resized: lb does not matter, the data does
      TypeMap r = tm(Datatype.resized(Datatype.INT, -4, 8).commit());
      DatatypeEngine.checkAccess(r, 2, 0, 12, "window", ErrorClass.RMA_RANGE);
      // data at a negative displacement
      TypeMap neg = tm(Datatype.hindexed(new int[] {1, 1}, new long[] {-8, 0}, Datatype.INT).commit());
      DatatypeEngine.checkAccess(neg, 1, 8, 12, "window", ErrorClass.RMA_RANGE);
      assertError(ErrorClass.RMA_RANGE, () -> DatatypeEngine.checkAccess(neg, 1, 7, 12, "window", ErrorClass.RMA_RANGE));

      // overflow with a huge count
      TypeMap huge = tm(Datatype.resized(Datatype.INT, 0, 1L << 40).commit());
      RmaException e = assertThrows(RmaException.class,
          () -> DatatypeEngine.checkAccess(huge, Integer.MAX_VALUE, 0, Long.MAX_VALUE, "window", ErrorClass.RMA_RANGE));
      assertEquals(ErrorClass.RMA_RANGE, e.errorClass());
      assertTrue(e.getMessage().contains(String.valueOf(Integer.MAX_VALUE)), e.getMessage());
      assertError(ErrorClass.BUFFER,
          () -> DatatypeEngine.checkAccess(i, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE, "buffer", ErrorClass.BUFFER));

      // uncommitted
      TypeMap raw = tm(Datatype.contiguous(2, Datatype.INT));
      RmaException u = assertThrows(RmaException.class,
          () -> DatatypeEngine.checkAccess(raw, 1, 0, 100, "window", ErrorClass.RMA_RANGE));
      assertEquals(ErrorClass.TYPE, u.errorClass());
      assertTrue(u.getMessage().contains("not committed"), u.getMessage());

      RmaException m = assertThrows(RmaException.class,
          () -> DatatypeEngine.checkAccess(i, 5, 8, 24, "target window", ErrorClass.RMA_RANGE));
      assertTrue(m.getMessage().contains("target window") && m.getMessage().contains("24")
          && m.getMessage().contains("count 5"), m.getMessage());
    }

    @Test
    void checkAccessAgainstMemoryRef() {
      int[] a = new int[10];
      MemoryRef at2 = MemoryRef.of(a, 2);
      TypeMap back8 = tm(Datatype.hindexed(new int[] {1}, new long[] {-8}, Datatype.INT).commit());
      DatatypeEngine.checkAccess(back8, 1, at2, "origin");
      TypeMap back12 = tm(Datatype.hindexed(new int[] {1}, new long[] {-12}, Datatype.INT).commit());
      assertError(ErrorClass.BUFFER, () -> DatatypeEngine.checkAccess(back12, 1, at2, "origin"));
      DatatypeEngine.checkAccess(tm(Datatype.INT), 8, at2, "origin");
      assertError(ErrorClass.BUFFER, () -> DatatypeEngine.checkAccess(tm(Datatype.INT), 9, at2, "origin"));
    }

    @Test
    void spanAndPackedSize() {
      TypeMap v = tm(Datatype.vector(3, 2, 4, Datatype.INT));
      assertEquals(0, DatatypeEngine.span(v, 0));
      assertEquals(40, DatatypeEngine.span(v, 1));
      assertEquals(80, DatatypeEngine.span(v, 2));
      assertEquals(48, DatatypeEngine.packedSize(v, 2));
      assertEquals(28, DatatypeEngine.span(tm(Datatype.LONG_INT), 2));
      assertError(ErrorClass.COUNT, () -> DatatypeEngine.span(v, -1));
      assertError(ErrorClass.COUNT, () -> DatatypeEngine.packedSize(v, -1));
      TypeMap big = tm(Datatype.contiguous(Integer.MAX_VALUE / 2, Datatype.LONG));
      assertEquals(8L * (Integer.MAX_VALUE / 2) * 3, DatatypeEngine.packedSize(big, 3));
      assertError(ErrorClass.COUNT, () -> DatatypeEngine.packedSize(big, Integer.MAX_VALUE));
    }

    @Test
    void putGetSignatures() {
      TypeMap i = tm(Datatype.INT);
      TypeMap c4 = tm(Datatype.contiguous(4, Datatype.INT).commit());
      DatatypeEngine.checkSignatures(c4, 1, i, 4, false);
      DatatypeEngine.checkSignatures(i, 4, tm(Datatype.vector(2, 2, 3, Datatype.INT)), 1, false);
      assertError(ErrorClass.TRUNCATE, () -> DatatypeEngine.checkSignatures(i, 4, i, 3, false));
      assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkSignatures(i, 3, i, 4, false));
      assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkSignatures(i, 2, tm(Datatype.FLOAT), 2, false));
      assertError(ErrorClass.COUNT, () -> DatatypeEngine.checkSignatures(i, -2, i, 2, false));
      DatatypeEngine.checkSignatures(i, 0, tm(Datatype.DOUBLE), 0, false);

      TypeMap id = tm(Datatype.struct(new int[] {1, 1}, new long[] {0, 8}, new Datatype[] {Datatype.INT, Datatype.DOUBLE}));
      TypeMap idPacked = tm(Datatype.struct(new int[] {1, 1}, new long[] {0, 4},
          new Datatype[] {Datatype.INT, Datatype.DOUBLE}));
      TypeMap di = tm(Datatype.struct(new int[] {1, 1}, new long[] {0, 8}, new Datatype[] {Datatype.DOUBLE, Datatype.INT}));
      DatatypeEngine.checkSignatures(id, 3, idPacked, 3, false);
      RmaException e = assertThrows(RmaException.class, () -> DatatypeEngine.checkSignatures(id, 2, di, 2, false));
      assertEquals(ErrorClass.TYPE, e.errorClass());
      assertTrue(e.getMessage().contains("element 0"), e.getMessage());
      // same prefix, differing later: {int,double} x2 vs {int, double, int, float, float}
      TypeMap tail = tm(Datatype.struct(new int[] {1, 1, 1, 2}, new long[] {0, 4, 12, 16},
          new Datatype[] {Datatype.INT, Datatype.DOUBLE, Datatype.INT, Datatype.FLOAT}));
      RmaException t = assertThrows(RmaException.class, () -> DatatypeEngine.checkSignatures(id, 2, tail, 1, false));
      assertTrue(t.getMessage().contains("element 3"), t.getMessage());
      // byte-equal but different kinds of the same size
      assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkSignatures(tm(Datatype.INT_INT), 1, tm(Datatype.LONG), 1, false));
    }

    @Test
    void accumulateSignatures() {
      TypeMap i = tm(Datatype.INT);
      TypeMap v = tm(Datatype.vector(2, 2, 3, Datatype.INT));
      DatatypeEngine.checkSignatures(v, 2, i, 8, true);
      assertError(ErrorClass.TRUNCATE, () -> DatatypeEngine.checkSignatures(v, 2, i, 7, true));
      assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkSignatures(v, 2, i, 9, true));
      RmaException e = assertThrows(RmaException.class,
          () -> DatatypeEngine.checkSignatures(i, 2, tm(Datatype.LONG), 1, true));
      assertEquals(ErrorClass.TYPE, e.errorClass());
      assertTrue(e.getMessage().contains("INT") && e.getMessage().contains("LONG"), e.getMessage());
      TypeMap mixed = tm(Datatype.struct(new int[] {1, 1}, new long[] {0, 4}, new Datatype[] {Datatype.INT, Datatype.FLOAT}));
      assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkSignatures(mixed, 1, mixed, 1, true));
      DatatypeEngine.checkSignatures(mixed, 1, mixed, 1, false);
    }

    @Test
    void opsOnDerivedTypes() {
      DatatypeEngine.checkOp(Op.SUM, tm(Datatype.vector(2, 1, 2, Datatype.DOUBLE)));
      RmaException e = assertThrows(RmaException.class,
          () -> DatatypeEngine.checkOp(Op.BAND, tm(Datatype.vector(2, 1, 2, Datatype.DOUBLE))));
      assertEquals(ErrorClass.OP, e.errorClass());
      assertTrue(e.getMessage().contains("MPI_BAND") && e.getMessage().contains("DOUBLE"), e.getMessage());
      TypeMap mixed = tm(Datatype.struct(new int[] {1, 1}, new long[] {0, 4}, new Datatype[] {Datatype.INT, Datatype.FLOAT}));
      assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkOp(Op.SUM, mixed));
      DatatypeEngine.checkOp(Op.REPLACE, mixed);
      DatatypeEngine.checkOp(Op.NO_OP, mixed);
      assertError(ErrorClass.OP, () -> DatatypeEngine.checkOp(null, mixed));
      assertError(ErrorClass.TYPE, () -> DatatypeEngine.checkOp(Op.SUM, null));
      assertError(ErrorClass.OP, () -> DatatypeEngine.checkOp(Op.MAXLOC, tm(Datatype.contiguous(2, Datatype.INT))));
      DatatypeEngine.checkOp(Op.MAXLOC, tm(Datatype.contiguous(2, Datatype.DOUBLE_INT)));
    }

    @Test
    void typeOfForeignOrNullDatatypes() {
      assertError(ErrorClass.TYPE, () -> TypeMap.of(null));
      assertError(ErrorClass.TYPE, () -> DatatypeEngine.requireCommitted(null));
      assertSame(TypeMap.predefined(BasicType.INT), DatatypeEngine.requireCommitted(tm(Datatype.INT)));
    }
  }

  // ---------------------------------------------------------------------------------------------

  @Nested
  class Wire {

    List<Datatype> samples() {
      List<Datatype> out = new ArrayList<>();
      out.add(Datatype.INT);
      out.add(Datatype.DOUBLE_INT);
      out.add(Datatype.contiguous(0, Datatype.INT));
      out.add(Datatype.vector(3, 2, 4, Datatype.INT));
      out.add(Datatype.vector(3, 1, -2, Datatype.SHORT));
      out.add(Datatype.hindexed(new int[] {1, 2}, new long[] {-6, 10}, Datatype.SHORT));
      out.add(Datatype.struct(new int[] {1, 2, 1}, new long[] {0, 8, 17},
          new Datatype[] {Datatype.DOUBLE, Datatype.INT, Datatype.BOOLEAN}));
      out.add(Datatype.resized(Datatype.INT, -4, 16));
      out.add(Datatype.subarray(new int[] {4, 5}, new int[] {2, 3}, new int[] {1, 2}, Datatype.Order.C, Datatype.FLOAT));
      out.add(Datatype.contiguous(Integer.MAX_VALUE, Datatype.contiguous(4, Datatype.BYTE)));
      return out;
    }

    void assertSameMap(TypeMap a, TypeMap b) {
      assertEquals(a.size(), b.size());
      assertEquals(a.lb(), b.lb());
      assertEquals(a.extent(), b.extent());
      assertEquals(a.trueLb(), b.trueLb());
      assertEquals(a.trueUb(), b.trueUb());
      assertEquals(a.elementCount(), b.elementCount());
      assertEquals(a.homogeneousType(), b.homogeneousType());
      assertEquals(a.isContiguous(), b.isContiguous());
      assertEquals(a.segmentCount(), b.segmentCount());
      for (int i = 0; i < a.segmentCount(); i++) {
        assertEquals(a.segmentDisp(i), b.segmentDisp(i));
        assertEquals(a.segmentType(i), b.segmentType(i));
        assertEquals(a.segmentLength(i), b.segmentLength(i));
      }
    }

    @Test
    void encodeDecodeRoundTrips() {
      Buffer buf = Buffer.buffer();
      buf.appendString("junk");
      List<Datatype> samples = samples();
      for (Datatype d : samples) {
        int before = buf.length();
        tm(d).encode(buf);
        assertEquals(tm(d).encodedSize(), buf.length() - before, d.name());
      }
      int[] end = new int[1];
      int offset = 4;
      for (Datatype d : samples) {
        TypeMap back = TypeMapWire.decode(buf, offset, end);
        assertSameMap(tm(d), back);
        assertTrue(back.isCommitted());
        if (d.isPredefined()) {
          assertSame(tm(d), back);
        }
        offset = end[0];
      }
      assertEquals(buf.length(), offset);
    }

    @Test
    void decodedTypeDrivesTheSameTransfer() {
      TypeMap v = tm(Datatype.vector(3, 2, 4, Datatype.INT).commit());
      Buffer buf = Buffer.buffer();
      v.encode(buf);
      TypeMap w = TypeMapWire.decode(buf, 0, null);
      int[] src = new int[10];
      for (int i = 0; i < 10; i++) {
        src[i] = i + 1;
      }
      int[] a = new int[6];
      int[] b = new int[6];
      MemoryRef s = MemoryRef.of(src, 0);
      DatatypeEngine.pack(s.base(), s.address(), v, 1, a, Memory.arrayBaseOffset(int[].class));
      DatatypeEngine.pack(s.base(), s.address(), w, 1, b, Memory.arrayBaseOffset(int[].class));
      assertArrayEquals(new int[] {1, 2, 5, 6, 9, 10}, a);
      assertArrayEquals(a, b);
      DatatypeEngine.checkSignatures(v, 1, w, 1, false);
    }

    Buffer derivedHeader(long lb, long extent, long trueLb, long trueUb, long size, int n) {
      return Buffer.buffer().appendByte((byte) 0).appendLong(lb).appendLong(extent).appendLong(trueLb)
          .appendLong(trueUb).appendLong(size).appendInt(n);
    }

    void assertRejected(Buffer b) {
      RmaException e = assertThrows(RmaException.class, () -> TypeMapWire.decode(b, 0, null));
      assertEquals(ErrorClass.TYPE, e.errorClass(), e.getMessage());
    }

    @Test
    void decodeRejectsBadInput() {
      assertRejected(Buffer.buffer());
      assertRejected(Buffer.buffer().appendByte((byte) 22)); // the first code no kind has
      assertRejected(Buffer.buffer().appendByte((byte) -1));
      RmaException off = assertThrows(RmaException.class, () -> TypeMapWire.decode(Buffer.buffer().appendByte((byte) 4), 1, null));
      assertEquals(ErrorClass.TYPE, off.errorClass());
      assertEquals(ErrorClass.TYPE, assertThrows(RmaException.class,
          () -> TypeMapWire.decode(Buffer.buffer().appendByte((byte) 4), -1, null)).errorClass());
      // a valid one segment type: 3 INTs at 0
      assertEquals(12, TypeMapWire.decode(derivedHeader(0, 12, 0, 12, 12, 1).appendLong(0).appendByte((byte) 4).appendInt(3),
          0, null).size());
      // oversized segment counts, without allocating
      assertRejected(derivedHeader(0, 12, 0, 12, 12, Integer.MAX_VALUE));
      assertRejected(derivedHeader(0, 12, 0, 12, 12, TypeMap.MAX_SEGMENTS + 1));
      assertRejected(derivedHeader(0, 12, 0, 12, 12, 2).appendLong(0).appendByte((byte) 4).appendInt(3));
      assertRejected(derivedHeader(0, 12, 0, 12, 12, -1));
      // negative and inconsistent fields
      assertRejected(derivedHeader(0, -1, 0, 12, 12, 1).appendLong(0).appendByte((byte) 4).appendInt(3));
      assertRejected(derivedHeader(0, 12, 0, 12, -12, 1).appendLong(0).appendByte((byte) 4).appendInt(3));
      assertRejected(derivedHeader(0, 12, 0, 12, 12, 1).appendLong(0).appendByte((byte) 4).appendInt(-3));
      assertRejected(derivedHeader(0, 12, 0, 12, 12, 1).appendLong(0).appendByte((byte) 4).appendInt(0));
      assertRejected(derivedHeader(0, 12, 0, 12, 12, 1).appendLong(0).appendByte((byte) 99).appendInt(3));
      assertRejected(derivedHeader(0, 12, 0, 12, 16, 1).appendLong(0).appendByte((byte) 4).appendInt(3));
      assertRejected(derivedHeader(0, 12, 0, 16, 12, 1).appendLong(0).appendByte((byte) 4).appendInt(3));
      assertRejected(derivedHeader(0, 12, 4, 16, 12, 1).appendLong(0).appendByte((byte) 4).appendInt(3));
      assertRejected(derivedHeader(0, 12, 12, 0, 12, 1).appendLong(0).appendByte((byte) 4).appendInt(3));
      assertRejected(derivedHeader(Long.MAX_VALUE, 12, 0, 12, 12, 1).appendLong(0).appendByte((byte) 4).appendInt(3));
      assertRejected(derivedHeader(0, 0, 4, 4, 0, 0));
      // displacement overflow
      assertRejected(derivedHeader(0, 8, Long.MAX_VALUE - 3, Long.MAX_VALUE, 8, 1)
          .appendLong(Long.MAX_VALUE - 3).appendByte((byte) 5).appendInt(1));
      // every truncation of a valid encoding
      Buffer full = Buffer.buffer();
      tm(Datatype.vector(3, 2, 4, Datatype.INT)).encode(full);
      for (int len = 0; len < full.length(); len++) {
        assertRejected(full.getBuffer(0, len));
      }
    }

    @Test
    void emptyDerivedTypeDecodes() {
      // zero segments is fine as long as the sizes agree
      TypeMap t = TypeMapWire.decode(derivedHeader(0, 0, 0, 0, 0, 0), 0, null);
      assertEquals(0, t.segmentCount());
    }

    @Test
    void fuzzDecodeOnlyEverThrowsTypeErrors() {
      Random rnd = new Random(0x5eed);
      List<Buffer> valid = new ArrayList<>();
      for (Datatype d : samples()) {
        Buffer b = Buffer.buffer();
        tm(d).encode(b);
        valid.add(b);
      }
      int decoded = 0;
      int rejected = 0;
      for (int trial = 0; trial < 6000; trial++) {
        Buffer input;
        if (trial % 2 == 0) {
          byte[] bytes = new byte[rnd.nextInt(120)];
          rnd.nextBytes(bytes);
          if (bytes.length > 0 && rnd.nextBoolean()) {
            bytes[0] = 0; // aim at the derived-type path
          }
          input = Buffer.buffer(bytes);
        } else {
          byte[] bytes = valid.get(rnd.nextInt(valid.size())).getBytes();
          int flips = 1 + rnd.nextInt(4);
          for (int f = 0; f < flips && bytes.length > 0; f++) {
            int at = rnd.nextInt(bytes.length);
            switch (rnd.nextInt(3)) {
              case 0:
                bytes[at] = (byte) rnd.nextInt();
                break;
              case 1:
                bytes[at] ^= (byte) (1 << rnd.nextInt(8));
                break;
              default:
                bytes = java.util.Arrays.copyOf(bytes, rnd.nextInt(bytes.length + 8));
                break;
            }
          }
          input = Buffer.buffer(bytes);
        }
        try {
          int[] end = new int[1];
          TypeMap t = TypeMapWire.decode(input, 0, end);
          assertTrue(end[0] <= input.length());
          // whatever decodes must be self-consistent and re-encode to the same bytes
          assertNotNull(t);
          long sum = 0;
          for (int i = 0; i < t.segmentCount(); i++) {
            assertTrue(t.segmentLength(i) >= 1);
            sum += (long) t.segmentLength(i) * t.segmentType(i).size();
          }
          assertEquals(t.size(), sum);
          assertTrue(t.extent() >= 0);
          Buffer again = Buffer.buffer();
          t.encode(again);
          assertEquals(input.getBuffer(0, end[0]), again);
          decoded++;
        } catch (RmaException e) {
          assertEquals(ErrorClass.TYPE, e.errorClass(), e.getMessage());
          rejected++;
        } catch (Throwable e) {
          fail("decode threw " + e + " for input " + input, e);
        }
      }
      assertTrue(rejected > 1000, "rejected " + rejected);
      assertTrue(decoded > 100, "decoded " + decoded);
    }
  }
}
