package dev.vertxrma.impl.memory;

import java.lang.reflect.Field;
import sun.misc.Unsafe;

/**
 * Raw memory access through {@code sun.misc.Unsafe}, in Unsafe's addressing convention: a base
 * object ({@code null} for native memory, or a Java primitive array) and an address (the absolute
 * address for native memory, the byte offset from the array object's start otherwise; see
 * {@link #ARRAY_BYTE_BASE_OFFSET} and friends). Values are in the platform's native byte order.
 *
 * <p><b>Nothing is checked here.</b> Callers must have range-checked every access (see
 * {@link MemoryRef} and {@code DatatypeEngine.checkAccess}); a wrong address corrupts the heap
 * or crashes the JVM.
 */
public final class Memory {

  private static final Unsafe UNSAFE = loadUnsafe();

  /** Byte offset of element 0 of a {@code byte[]}. */
  public static final long ARRAY_BYTE_BASE_OFFSET = UNSAFE.arrayBaseOffset(byte[].class);

  private Memory() {
  }

  private static Unsafe loadUnsafe() {
    try {
      Field f = Unsafe.class.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return (Unsafe) f.get(null);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The native address of a direct NIO buffer's index 0. */
  public static long directAddress(java.nio.Buffer buffer) {
    return UNSAFE.getLong(buffer, BUFFER_ADDRESS_OFFSET);
  }

  /** The offset of {@code java.nio.Buffer.address}, the native address of a direct buffer. */
  private static final long BUFFER_ADDRESS_OFFSET = bufferAddressOffset();

  private static long bufferAddressOffset() {
    try {
      return UNSAFE.objectFieldOffset(java.nio.Buffer.class.getDeclaredField("address"));
    } catch (NoSuchFieldException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Byte offset of element 0 in arrays of the given class (e.g. {@code double[].class}). */
  public static long arrayBaseOffset(Class<?> arrayClass) {
    int k = primitiveArrayIndex(arrayClass);
    return k >= 0 ? BASE_OFFSETS[k] : UNSAFE.arrayBaseOffset(arrayClass);
  }

  /** Bytes per element in arrays of the given class (e.g. 8 for {@code double[].class}). */
  public static int arrayIndexScale(Class<?> arrayClass) {
    int k = primitiveArrayIndex(arrayClass);
    return k >= 0 ? INDEX_SCALES[k] : UNSAFE.arrayIndexScale(arrayClass);
  }

  /**
   * The primitive array classes, whose base offsets and index scales are looked up once: Unsafe
   * answers a class that is not a compile-time constant through a native call, on every operation.
   */
  private static final Class<?>[] PRIMITIVE_ARRAYS = {byte[].class, long[].class, int[].class, double[].class,
      float[].class, short[].class, char[].class, boolean[].class};
  private static final long[] BASE_OFFSETS = new long[PRIMITIVE_ARRAYS.length];
  private static final int[] INDEX_SCALES = new int[PRIMITIVE_ARRAYS.length];

  static {
    for (int k = 0; k < PRIMITIVE_ARRAYS.length; k++) {
      BASE_OFFSETS[k] = UNSAFE.arrayBaseOffset(PRIMITIVE_ARRAYS[k]);
      INDEX_SCALES[k] = UNSAFE.arrayIndexScale(PRIMITIVE_ARRAYS[k]);
    }
  }

  private static int primitiveArrayIndex(Class<?> c) {
    for (int k = 0; k < PRIMITIVE_ARRAYS.length; k++) {
      if (PRIMITIVE_ARRAYS[k] == c) {
        return k;
      }
    }
    return -1;
  }

  /** Reads a byte. */
  public static byte getByte(Object base, long addr) {
    return UNSAFE.getByte(base, addr);
  }

  /** Writes a byte. */
  public static void putByte(Object base, long addr, byte v) {
    UNSAFE.putByte(base, addr, v);
  }

  /** Reads a 16-bit unsigned {@code char}. */
  public static char getChar(Object base, long addr) {
    return UNSAFE.getChar(base, addr);
  }

  /** Writes a 16-bit {@code char}. */
  public static void putChar(Object base, long addr, char v) {
    UNSAFE.putChar(base, addr, v);
  }

  /** Reads a 16-bit signed {@code short}. */
  public static short getShort(Object base, long addr) {
    return UNSAFE.getShort(base, addr);
  }

  /** Writes a {@code short}. */
  public static void putShort(Object base, long addr, short v) {
    UNSAFE.putShort(base, addr, v);
  }

  /** Reads an {@code int}. */
  public static int getInt(Object base, long addr) {
    return UNSAFE.getInt(base, addr);
  }

  /** Writes an {@code int}. */
  public static void putInt(Object base, long addr, int v) {
    UNSAFE.putInt(base, addr, v);
  }

  /** Reads a {@code long}. */
  public static long getLong(Object base, long addr) {
    return UNSAFE.getLong(base, addr);
  }

  /** Writes a {@code long}. */
  public static void putLong(Object base, long addr, long v) {
    UNSAFE.putLong(base, addr, v);
  }

  /** Reads a {@code float}. */
  public static float getFloat(Object base, long addr) {
    return UNSAFE.getFloat(base, addr);
  }

  /** Writes a {@code float}. */
  public static void putFloat(Object base, long addr, float v) {
    UNSAFE.putFloat(base, addr, v);
  }

  /** Reads a {@code double}. */
  public static double getDouble(Object base, long addr) {
    return UNSAFE.getDouble(base, addr);
  }

  /** Writes a {@code double}. */
  public static void putDouble(Object base, long addr, double v) {
    UNSAFE.putDouble(base, addr, v);
  }

  /** Reads an {@code int} with volatile semantics; the address must be 4-byte aligned. */
  public static int getIntVolatile(Object base, long addr) {
    return UNSAFE.getIntVolatile(base, addr);
  }

  /** Writes an {@code int} with volatile semantics; the address must be 4-byte aligned. */
  public static void putIntVolatile(Object base, long addr, int v) {
    UNSAFE.putIntVolatile(base, addr, v);
  }

  /** Reads a {@code long} with volatile semantics; the address must be 8-byte aligned. */
  public static long getLongVolatile(Object base, long addr) {
    return UNSAFE.getLongVolatile(base, addr);
  }

  /** Writes a {@code long} with volatile semantics; the address must be 8-byte aligned. */
  public static void putLongVolatile(Object base, long addr, long v) {
    UNSAFE.putLongVolatile(base, addr, v);
  }

  /** Atomically sets the {@code int} to {@code update} if it equals {@code expect}; 4-byte aligned only. */
  public static boolean compareAndSwapInt(Object base, long addr, int expect, int update) {
    return UNSAFE.compareAndSwapInt(base, addr, expect, update);
  }

  /** Atomically sets the {@code long} to {@code update} if it equals {@code expect}; 8-byte aligned only. */
  public static boolean compareAndSwapLong(Object base, long addr, long expect, long update) {
    return UNSAFE.compareAndSwapLong(base, addr, expect, update);
  }

  /**
   * Copies {@code bytes} bytes (Unsafe.copyMemory): native to native, array to array, and
   * between arrays and native memory. A copy of a megabyte or more between ranges apart, made by
   * a thread that may wait (a Vert.x worker thread), is shared with its Vert.x instance's copy
   * threads ({@link ParallelCopy}); on an event loop, a virtual-thread context or a thread of no
   * Vert.x instance the caller copies it alone and never waits for another thread. It is complete
   * when this returns.
   * HotSpot copies overlapping ranges like {@code memmove}, but callers should not depend on it.
   */
  public static void copy(Object srcBase, long srcAddr, Object dstBase, long dstAddr, long bytes) {
    ParallelCopy pool = bytes >= ParallelCopy.SPLIT_FROM ? ParallelCopy.forCaller() : null;
    if (pool != null && pool.splits(srcBase, srcAddr, dstBase, dstAddr, bytes)) {
      pool.copy(srcBase, srcAddr, dstBase, dstAddr, bytes);
    } else {
      UNSAFE.copyMemory(srcBase, srcAddr, dstBase, dstAddr, bytes);
    }
  }

  /** {@link #copy} by the calling thread alone. */
  static void copyOnThisThread(Object srcBase, long srcAddr, Object dstBase, long dstAddr, long bytes) {
    UNSAFE.copyMemory(srcBase, srcAddr, dstBase, dstAddr, bytes);
  }

  /**
   * The most bytes one {@code Unsafe.setMemory} call of {@link #zero} clears. HotSpot runs that
   * call inside the VM, where no safepoint can start until it returns: one call over 4 GiB held
   * every Java thread of the JVM (event loops, Hazelcast's heartbeats) for 9.4 s on this project's
   * machine, while 1 MiB takes about a millisecond. Between two steps a safepoint can come.
   */
  static final long ZERO_STEP = 1L << 20;

  /**
   * Sets {@code bytes} bytes to zero, in steps of at most {@value #ZERO_STEP} bytes so that the
   * JVM can reach a safepoint between steps. Clearing a large range still takes its time (about a
   * second per GiB of memory touched for the first time): large ranges belong on a worker thread.
   */
  public static void zero(Object base, long addr, long bytes) {
    for (long done = 0; done < bytes; done += ZERO_STEP) {
      UNSAFE.setMemory(base, addr + done, Math.min(ZERO_STEP, bytes - done), (byte) 0);
    }
  }

  /** Releases a direct or mapped {@link java.nio.ByteBuffer} now (unmaps a mapping). */
  public static void invokeCleaner(java.nio.ByteBuffer directBuffer) {
    UNSAFE.invokeCleaner(directBuffer);
  }
}
