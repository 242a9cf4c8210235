package dev.vertxrma.impl.win;

/**
 * Where each rank's segment lies in the mapped file of a shared-memory window, as
 * MPI_Win_allocate_shared lays it out. By default the segments are contiguous: rank r's starts
 * at the byte after rank r-1's last, with no padding, so a program may compute a peer's address
 * from its own (only the start of the whole, rank 0's segment, is aligned: the mapping starts on
 * a page). With {@code alloc_shared_noncontig=true} every segment starts on a boundary of
 * {@code align} bytes (the padding lies between segments), so each rank's base is aligned too.
 */
final class SharedLayout {

  /** Alignment of each segment of a non-contiguous layout when no larger one is asked for: a cache line. */
  static final long NONCONTIG_ALIGN = 64;

  private final long[] offsets;
  private final long total;

  private SharedLayout(long[] sizes, long align) {
    offsets = new long[sizes.length];
    long at = 0;
    boolean overflow = false;
    for (int r = 0; r < sizes.length && !overflow; r++) {
      offsets[r] = at;
      long size = sizes[r];
      if (size > Long.MAX_VALUE - align - at) {
        overflow = true;
      } else {
        at = alignUp(at + size, align);
      }
    }
    total = overflow ? Long.MAX_VALUE : at;
  }

  /**
   * The layout of segments of {@code sizes}: contiguous unless {@code noncontig}, then each on a
   * boundary of {@code align} bytes (a power of two).
   */
  static SharedLayout of(long[] sizes, boolean noncontig, long align) {
    return new SharedLayout(sizes, noncontig ? Math.max(align, 1) : 1);
  }

  /** Byte offset of rank {@code r}'s segment (meaningless when {@link #total} is {@code Long.MAX_VALUE}). */
  long offset(int r) {
    return offsets[r];
  }

  /** Total bytes of the mapping; {@code Long.MAX_VALUE} when the segments add up to more than that. */
  long total() {
    return total;
  }

  private static long alignUp(long n, long align) {
    return (n + align - 1) & -align;
  }
}
