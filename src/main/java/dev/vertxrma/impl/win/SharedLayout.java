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

  /** Total bytes of the mapping. */
  static long total(long[] sizes) {
    return offset(sizes, sizes.length);
  }

  private static long align(long n) {
    return (n + ALIGN - 1) / ALIGN * ALIGN;
  }
}
