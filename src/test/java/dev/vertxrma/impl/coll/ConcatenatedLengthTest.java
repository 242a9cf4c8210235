package dev.vertxrma.impl.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import org.junit.jupiter.api.Test;

/**
 * An allgather concatenates the ranks' blocks (each after its length) into one block for its
 * broadcast: blocks that are each fine but together more than one block carries fail with COUNT
 * (the sum overflowed an int: a negative array size or a wrapped length). Checked on the lengths
 * alone, so no gigabytes are allocated.
 */
class ConcatenatedLengthTest {

  @Test
  void theLengthsAndTheirHeadersAddUp() {
    assertEquals(4 + 3 + 4 + 0 + 4 + 10, Collectives.concatenatedLength(new int[] {3, 0, 10}));
  }

  @Test
  void blocksThatTogetherExceedOneBlockFailWithCount() {
    int gib = 1 << 30;
    RmaException e = assertThrows(RmaException.class,
        () -> Collectives.concatenatedLength(new int[] {gib, gib, gib}));
    assertEquals(ErrorClass.COUNT, e.errorClass());
    assertTrue(e.getMessage().contains("3 ranks") && e.getMessage().contains("3221225484 bytes"), e.getMessage());
    // wraps to a positive int when summed in 32 bits: still refused
    RmaException wrapped = assertThrows(RmaException.class, () -> Collectives.concatenatedLength(
        new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE, 8}));
    assertEquals(ErrorClass.COUNT, wrapped.errorClass());
  }
}
