package dev.vertxrma.impl.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Mapping a segment another rank made: a rank that does not share its directory (another host, a
 * container with a {@code /dev/shm} of its own) finds no file, fails with RMA_SHARED saying so, and
 * creates nothing in its own directory; a file that is there maps.
 */
class SharedMappingTest {

  @Test
  void aMissingSegmentFailsWithRmaSharedAndIsNotCreated() {
    Path missing = SharedMapping.directory().resolve("vertx-rma-test-missing-" + UUID.randomUUID());
    RmaException e = assertThrows(RmaException.class, () -> SharedMapping.map(missing, 4096));
    assertEquals(ErrorClass.RMA_SHARED, e.errorClass());
    assertTrue(e.getMessage().contains("does not exist here"), e.getMessage());
    assertTrue(Files.notExists(missing), "mapping a missing segment created " + missing);
  }

  @Test
  void aSegmentThatIsThereMaps() throws Exception {
    Path made = SharedMapping.createFile("vertx-rma-test-made-" + UUID.randomUUID(), 4096);
    try {
      SharedMapping m = SharedMapping.map(made, 4096);
      SharedMapping other = SharedMapping.map(made, 4096);
      m.segment(0, 8).writeLong(0, 42L);
      assertEquals(42L, other.segment(0, 8).readLong(0), "a second mapping sees the write");
      m.unmap();
      other.unmap();
    } finally {
      SharedMapping.unlink(made);
    }
  }
}
