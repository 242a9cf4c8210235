package dev.vertxrma.impl.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Large copies shared with a pool's copy threads arrive byte for byte, between arrays and native
 * memory in every direction, at sizes around the split threshold and the part size, from several
 * threads at once; the bytes around the destination stay as they were; overlapping ranges are
 * never split; a closed pool splits nothing.
 */
class ParallelCopyTest {

  private static final int GUARD = 64;
  private static final long SPLIT = ParallelCopy.SPLIT_FROM;
  private static final int PART = ParallelCopy.PART;
  private static final ParallelCopy POOL = new ParallelCopy(3);

  @AfterAll
  static void close() {
    POOL.close(io.vertx.core.Promise.promise());
  }

  /** A copy as {@link Memory#copy} makes it on a thread that {@link #POOL} serves. */
  private static void copy(ParallelCopy pool, Object srcBase, long srcAddr, Object dstBase, long dstAddr, long n) {
    if (pool.splits(srcBase, srcAddr, dstBase, dstAddr, n)) {
      pool.copy(srcBase, srcAddr, dstBase, dstAddr, n);
    } else {
      Memory.copyOnThisThread(srcBase, srcAddr, dstBase, dstAddr, n);
    }
  }

  private static byte[] pattern(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + seed + (i >>> 17));
    }
    return b;
  }

  /** Copies {@code n} bytes at odd offsets in the four directions and checks every byte and the guards. */
  private static void copiesExactly(int n, int seed) {
    copiesExactly(POOL, n, seed);
  }

  private static void copiesExactly(ParallelCopy pool, int n, int seed) {
    byte[] expected = pattern(n, seed);
    int srcAt = 3;
    int dstAt = GUARD + 5;
    int dstLength = dstAt + n + GUARD;
    for (boolean nativeSrc : new boolean[] {false, true}) {
      for (boolean nativeDst : new boolean[] {false, true}) {
        byte[] srcArray = new byte[srcAt + n];
        System.arraycopy(expected, 0, srcArray, srcAt, n);
        ByteBuffer srcDirect = ByteBuffer.allocateDirect(srcAt + n);
        srcDirect.put(srcAt, expected);
        byte[] dstArray = new byte[dstLength];
        Arrays.fill(dstArray, (byte) 0x5A);
        ByteBuffer dstDirect = ByteBuffer.allocateDirect(dstLength);
        dstDirect.put(0, dstArray);

        Object srcBase = nativeSrc ? null : srcArray;
        long srcAddr = (nativeSrc ? Memory.directAddress(srcDirect) : Memory.ARRAY_BYTE_BASE_OFFSET) + srcAt;
        Object dstBase = nativeDst ? null : dstArray;
        long dstAddr = (nativeDst ? Memory.directAddress(dstDirect) : Memory.ARRAY_BYTE_BASE_OFFSET) + dstAt;
        copy(pool, srcBase, srcAddr, dstBase, dstAddr, n);

        byte[] got = new byte[dstLength];
        if (nativeDst) {
          dstDirect.get(0, got);
        } else {
          System.arraycopy(dstArray, 0, got, 0, dstLength);
        }
        String what = n + " bytes, " + (nativeSrc ? "native" : "array") + " to " + (nativeDst ? "native" : "array");
        assertEquals(-1, Arrays.mismatch(expected, 0, n, got, dstAt, dstAt + n), what + ": first wrong byte");
        for (int i = 0; i < dstAt; i++) {
          assertEquals((byte) 0x5A, got[i], what + ": byte " + i + " before the destination");
        }
        for (int i = dstAt + n; i < dstLength; i++) {
          assertEquals((byte) 0x5A, got[i], what + ": byte " + i + " after the destination");
        }
      }
    }
  }

  @Test
  void sizesAroundTheThresholdAndThePartSizeArriveByteForByte() {
    int[] sizes = {(int) SPLIT - 1, (int) SPLIT, (int) SPLIT + 1, (int) SPLIT + PART - 1, 3 * (int) SPLIT + 17,
        (4 << 20) + 5};
    int seed = 1;
    for (int n : sizes) {
      copiesExactly(n, seed++);
    }
  }

  @Test
  void copiesFromSeveralThreadsAtOnceEachGetTheirOwnBytes() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> copies = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int seed = 100 + t;
        copies.add(pool.submit((Callable<Void>) () -> {
          for (int round = 0; round < 12; round++) {
            copiesExactly((2 << 20) + 4099 * round, seed + round);
          }
          return null;
        }));
      }
      for (Future<?> f : copies) {
        f.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void overlappingRangesAreCopiedByOneThreadAsBefore() {
    long n = SPLIT + 8;
    long base = Memory.ARRAY_BYTE_BASE_OFFSET;
    byte[] a = new byte[(int) n + 1];
    assertFalse(POOL.splits(a, base, a, base + 1, n), "overlapping, one array");
    assertFalse(POOL.splits(a, base + 1, a, base, n), "overlapping the other way");
    assertFalse(POOL.splits(null, 4096, null, 4096 + n - 1, n), "overlapping native ranges");
    assertFalse(POOL.splits(null, 0, null, 0, SPLIT - 1), "below the threshold");
    assertTrue(POOL.splits(new byte[0], base, a, base, n), "two arrays");
    assertTrue(POOL.splits(null, 4096, null, 4096 + n, n), "adjacent native ranges");
    assertFalse(new ParallelCopy(0).splits(null, 4096, null, 4096 + n, n), "no copy threads");
    // a shift by one byte inside one array: HotSpot copies it like memmove, and still does
    byte[] shifted = pattern((int) n + 1, 7);
    byte[] expected = shifted.clone();
    System.arraycopy(expected, 0, expected, 1, (int) n);
    Memory.copy(shifted, base, shifted, base + 1, n);
    assertEquals(-1, Arrays.mismatch(expected, shifted));
  }

  @Test
  void aPartThatFailsFailsTheCopyOnceEveryPartIsAccountedFor() {
    // not a primitive array: Unsafe refuses every part before touching memory
    Object notAnArray = new Object();
    byte[] dst = new byte[(int) SPLIT + 9];
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> copy(POOL, notAnArray, 16, dst, Memory.ARRAY_BYTE_BASE_OFFSET, SPLIT + 9));
    // and the copy threads still serve the next copy
    copiesExactly((int) SPLIT + 3, 42);
  }

  @Test
  void aClosedPoolSplitsNothingAndItsCallersStillCopyEveryByte() {
    ParallelCopy pool = new ParallelCopy(2);
    copiesExactly(pool, 3 * (int) SPLIT + 17, 5); // its threads started
    pool.close(io.vertx.core.Promise.promise());
    assertFalse(pool.splits(null, 4096, null, 4096 + 2 * SPLIT, 2 * SPLIT), "a closed pool splits");
    copiesExactly(pool, 3 * (int) SPLIT + 17, 6);
  }
}
