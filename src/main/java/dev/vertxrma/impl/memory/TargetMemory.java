package dev.vertxrma.impl.memory;

/**
 * The memory an RMA operation may touch at a target, and the range check that guards it: the
 * security boundary of decision 1 in the architecture. Implementations: a window's fixed memory
 * ({@link WindowMemory}), the regions attached to a dynamic window ({@link DynamicMemory}).
 */
public interface TargetMemory {

  /** Unsafe base object of the memory (null for native memory). */
  Object base();

  /**
   * Checks that the bytes {@code [start + lo, start + hi)} lie inside this memory, with
   * overflow-checked arithmetic, and returns the address of byte {@code start}.
   *
   * @param start byte displacement of the access (already scaled by the displacement unit)
   * @param lo first byte touched, relative to {@code start} (the datatype's true lower bound)
   * @param hi one past the last byte touched, relative to {@code start}
   * @param what the operation and target, for the message
   * @throws dev.vertxrma.RmaException {@link dev.vertxrma.ErrorClass#RMA_RANGE} when out of range
   */
  long addressOf(long start, long lo, long hi, String what);

  /** Size in bytes (0 for a dynamic window). */
  long size();

  /**
   * {@code start + delta} with overflow check: {@link dev.vertxrma.ErrorClass#RMA_RANGE} naming
   * {@code what} if it overflows 64 bits.
   */
  static long offset(long start, long delta, String what) {
    try {
      return Math.addExact(start, delta);
    } catch (ArithmeticException e) {
      throw dev.vertxrma.RmaException.of(dev.vertxrma.ErrorClass.RMA_RANGE, "%s: displacement %d + %d overflows",
          what, start, delta);
    }
  }
}
