package dev.vertxrma.impl.memory;

/**
 * The memory an RMA operation may touch at a target, and the range check that guards it: the
 * security boundary of decision 1 in the architecture. Implementations: a window's fixed memory
 * ({@link WindowMemory}), the regions attached to a dynamic window ({@link DynamicMemory}).
 */
public interface TargetMemory {

  /** Unsafe base object of the memory (null for native memory). */
  Object base();

  /** {@link #addressOf} result for an access not inside this memory. */
  long NOT_INSIDE = Long.MIN_VALUE;

  /**
   * The address of byte {@code start} if the bytes {@code [start + lo, start + hi)} lie inside
   * this memory (overflow-checked), else {@link #NOT_INSIDE}. Allocation-free: the hot path.
   *
   * @param start byte displacement of the access (already scaled by the displacement unit)
   * @param lo first byte touched, relative to {@code start} (the datatype's true lower bound)
   * @param hi one past the last byte touched, relative to {@code start}
   */
  long addressOf(long start, long lo, long hi);

  /**
   * Whether {@code [start + lo, start + hi)} is a well-formed byte range: neither sum overflows
   * 64 bits and {@code lo <= hi}.
   */
  static boolean wellFormed(long start, long lo, long hi) {
    long first = start + lo;
    long end = start + hi;
    return ((start ^ first) & (lo ^ first)) >= 0 && ((start ^ end) & (hi ^ end)) >= 0 && first <= end;
  }

  /** Why {@code [start + lo, start + hi)} is not inside this memory, for the RMA_RANGE message. */
  String whyOutside(long start, long lo, long hi);

  /** Size in bytes (0 for a dynamic window). */
  long size();
}
