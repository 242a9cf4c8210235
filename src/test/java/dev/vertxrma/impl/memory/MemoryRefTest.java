package dev.vertxrma.impl.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.nio.ByteBuffer;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

class MemoryRefTest {

  private static void assertError(ErrorClass expected, Runnable r) {
    RmaException e = assertThrows(RmaException.class, r::run);
    assertEquals(expected, e.errorClass(), e.getMessage());
  }

  @Test
  void primitiveArraysUseElementOffsets() {
    Object[] arrays = {new byte[10], new char[10], new short[10], new int[10], new long[10],
        new float[10], new double[10], new boolean[10]};
    int[] scales = {1, 2, 2, 4, 8, 4, 8, 1};
    for (int i = 0; i < arrays.length; i++) {
      MemoryRef ref = MemoryRef.of(arrays[i], 3);
      assertSame(arrays[i], ref.base());
      assertSame(arrays[i], ref.buffer());
      assertEquals(Memory.arrayBaseOffset(arrays[i].getClass()) + 3L * scales[i], ref.address());
      assertEquals(3L * scales[i], ref.bytesBefore());
      assertEquals(7L * scales[i], ref.bytesAvailable());
      assertEquals(0, MemoryRef.of(arrays[i], 10).bytesAvailable());
    }
  }

  @Test
  void writesThroughAnArrayViewLandInTheArray() {
    double[] d = new double[4];
    MemoryRef ref = MemoryRef.of(d, 2);
    Memory.putDouble(ref.base(), ref.address(), 2.5);
    Memory.putDouble(ref.base(), ref.address() + 8, -7.25);
    assertArrayEquals(new double[] {0, 0, 2.5, -7.25}, d);

    int[] a = {1, 2, 3, 4};
    MemoryRef ia = MemoryRef.of(a, 1);
    assertEquals(2, Memory.getInt(ia.base(), ia.address()));
    assertTrue(Memory.compareAndSwapInt(ia.base(), ia.address(), 2, 20));
    assertEquals(20, a[1]);
  }

  @Test
  void nativeStoreUsesByteOffsetsAndItsAddress() {
    BytesStore<?, Void> bs = BytesStore.nativeStoreWithFixedCapacity(64);
    try {
      MemoryRef ref = MemoryRef.of(bs, 16);
      assertNull(ref.base());
      assertEquals(bs.addressForRead(0) + 16, ref.address());
      assertEquals(16, ref.bytesBefore());
      assertEquals(48, ref.bytesAvailable());
      Memory.putLong(null, ref.address(), 0x1122334455667788L);
      assertEquals(0x1122334455667788L, bs.readLong(16));
      Memory.zero(null, ref.address(), 8);
      assertEquals(0, bs.readLong(16));
    } finally {
      bs.releaseLast();
    }
  }

  @Test
  void heapStoreWrappingAByteArray() {
    byte[] bytes = new byte[32];
    BytesStore<?, byte[]> bs = BytesStore.wrap(bytes);
    MemoryRef ref = MemoryRef.of(bs, 4);
    assertSame(bytes, ref.base());
    assertEquals(Memory.ARRAY_BYTE_BASE_OFFSET + 4, ref.address());
    assertEquals(28, ref.bytesAvailable());
    Memory.putByte(ref.base(), ref.address(), (byte) 99);
    assertEquals(99, bytes[4]);
  }

  @Test
  void copyBetweenArrayAndNativeMemory() {
    BytesStore<?, Void> bs = BytesStore.nativeStoreWithFixedCapacity(32);
    try {
      long[] src = {1, -2, Long.MAX_VALUE, Long.MIN_VALUE};
      MemoryRef s = MemoryRef.of(src, 0);
      MemoryRef n = MemoryRef.of(bs, 0);
      Memory.copy(s.base(), s.address(), n.base(), n.address(), 32);
      long[] back = new long[4];
      MemoryRef b = MemoryRef.of(back, 0);
      Memory.copy(n.base(), n.address(), b.base(), b.address(), 32);
      assertArrayEquals(src, back);
    } finally {
      bs.releaseLast();
    }
  }

  @Test
  void badOffsetsAreBufferErrors() {
    assertError(ErrorClass.BUFFER, () -> MemoryRef.of(new int[4], -1));
    assertError(ErrorClass.BUFFER, () -> MemoryRef.of(new int[4], 5));
    BytesStore<?, Void> bs = BytesStore.nativeStoreWithFixedCapacity(8);
    try {
      assertError(ErrorClass.BUFFER, () -> MemoryRef.of(bs, 9));
      assertError(ErrorClass.BUFFER, () -> MemoryRef.of(bs, -1));
      assertEquals(0, MemoryRef.of(bs, 8).bytesAvailable());
    } finally {
      bs.releaseLast();
    }
    RmaException e = assertThrows(RmaException.class, () -> MemoryRef.of(new double[4], 7));
    assertTrue(e.getMessage().contains("7") && e.getMessage().contains("4"), e.getMessage());
  }

  @Test
  void unsupportedBuffersAreRejected() {
    assertError(ErrorClass.BUFFER, () -> MemoryRef.of(null, 0));
    RmaException e = assertThrows(RmaException.class, () -> MemoryRef.of("text", 0));
    assertEquals(ErrorClass.BUFFER, e.errorClass());
    assertTrue(e.getMessage().contains("java.lang.String") && e.getMessage().contains("BytesStore"), e.getMessage());
    assertError(ErrorClass.BUFFER, () -> MemoryRef.of(new int[2][2], 0));
    assertError(ErrorClass.BUFFER, () -> MemoryRef.of(new Integer[2], 0));
    assertError(ErrorClass.ARG, () -> MemoryRef.of(BytesStore.wrap(ByteBuffer.allocate(16)), 0));
    Bytes<Void> elastic = Bytes.allocateElasticDirect(16);
    try {
      assertError(ErrorClass.ARG, () -> MemoryRef.of(elastic, 0));
    } finally {
      elastic.releaseLast();
    }
  }

  @Test
  void releasedStoreIsRejected() {
    BytesStore<?, Void> bs = BytesStore.nativeStoreWithFixedCapacity(8);
    bs.releaseLast();
    assertError(ErrorClass.BUFFER, () -> MemoryRef.of(bs, 0));
  }

  @Test
  void rawViewIsUnchecked() {
    byte[] b = new byte[8];
    MemoryRef ref = MemoryRef.ofRaw(b, Memory.ARRAY_BYTE_BASE_OFFSET + 2, 6);
    assertSame(b, ref.base());
    assertEquals(Memory.ARRAY_BYTE_BASE_OFFSET + 2, ref.address());
    assertEquals(0, ref.bytesBefore());
    assertEquals(6, ref.bytesAvailable());
  }

  @Test
  void volatileAndCasOnNativeLongs() {
    BytesStore<?, Void> bs = BytesStore.nativeStoreWithFixedCapacity(16);
    try {
      long a = MemoryRef.of(bs, 8).address();
      Memory.putLongVolatile(null, a, 5);
      assertEquals(5, Memory.getLongVolatile(null, a));
      assertTrue(Memory.compareAndSwapLong(null, a, 5, 6));
      assertEquals(6, Memory.getLong(null, a));
      assertEquals(false, Memory.compareAndSwapLong(null, a, 5, 7));
      assertEquals(6, Memory.getLong(null, a));
      Memory.putIntVolatile(null, a, 9);
      assertEquals(9, Memory.getIntVolatile(null, a));
    } finally {
      bs.releaseLast();
    }
  }
}
