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
 * creates nothing in its own directory; a file that is there maps. Files are created with their
 * space reserved.
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

  /**
   * A file's space is reserved as it is created: the file system allocated every byte (no sparse
   * file whose first store past the free space would raise SIGBUS), and an existing name is never
   * reused (nor followed, if a link).
   */
  @Test
  void aCreatedFileHasItsSpaceAllocatedAndIsNew() throws Exception {
    Path made = SharedMapping.createFile("vertx-rma-test-reserved-" + UUID.randomUUID(), 3 << 20);
    try {
      // the blocks the file system allocated (stat %b, of %B bytes each): a sparse file has none
      Process stat = new ProcessBuilder("stat", "-c", "%b %B", made.toString()).start();
      String[] got = new String(stat.getInputStream().readAllBytes()).trim().split(" ");
      assertEquals(0, stat.waitFor(), "stat " + made);
      long allocated = Long.parseLong(got[0]) * Long.parseLong(got[1]);
      assertTrue(allocated >= 3 << 20, "allocated " + allocated + " of " + (3 << 20) + " bytes");
      RmaException e = assertThrows(RmaException.class, () -> SharedMapping.createFile(made.getFileName().toString(),
          4096));
      assertEquals(ErrorClass.RMA_SHARED, e.errorClass());
    } finally {
      SharedMapping.unlink(made);
    }
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
