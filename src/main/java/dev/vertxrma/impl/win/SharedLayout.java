package dev.vertxrma.impl.win;

/**
 * Where each rank's segment lies in the mapped file of a shared-memory window: one after the
 * other in rank order, each starting on a 64-byte (cache line) boundary.
 */
final class SharedLayout {

  static final long ALIGN = 64;

  private SharedLayout() {
  }

  /** Byte offset of rank {@code r}'s segment. */
  static long offset(long[] sizes, int r) {
    long at = 0;
    for (int i = 0; i < r; i++) {
      at += align(sizes[i]);
    }
    return at;
  }

  /** Total bytes of the mapping; {@code Long.MAX_VALUE} when the aligned sizes add up to more than that. */
  static long total(long[] sizes) {
    long at = 0;
    for (long size : sizes) {
      if (size > Long.MAX_VALUE - ALIGN - at) {
        return Long.MAX_VALUE;
      }
      at += align(size);
    }
    return at;
  }

  private static long align(long n) {
    return (n + ALIGN - 1) / ALIGN * ALIGN;
  }
}
