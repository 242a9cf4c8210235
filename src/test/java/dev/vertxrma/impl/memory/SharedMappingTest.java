package dev.vertxrma.impl.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Mapping a segment another rank made: a rank that does not share its directory (another host, a
 * container with a {@code /dev/shm} of its own) finds no file, fails with RMA_SHARED saying so, and
 * creates nothing in its own directory; a file that is there maps. Files are created with their
 * space reserved, named by their creator, and swept once it is gone.
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

  /** A file named as {@code creator} names its files, in the segment directory, of job {@code job}. */
  private static Path fileOf(String prefix, String creator, String job) throws Exception {
    return Files.write(SharedMapping.directory().resolve(prefix + creator + "-" + job + "-" + UUID.randomUUID()),
        new byte[8]);
  }

  /** A process that has ended, with what it would have named its files by. */
  private static String deadCreator() throws Exception {
    Process p = new ProcessBuilder("sleep", "60").start();
    String creator = SharedMapping.creatorOf(p.toHandle());
    p.destroyForcibly();
    p.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
    return creator;
  }

  /**
   * Files of a creator that is gone (issue 41): removed by the next sweep at once when the name
   * says the creator ran in this PID namespace and no process of that pid and start time lives;
   * those of a live process, of this process, of another namespace or without one (fresh) stay.
   */
  @Test
  void theSweepRemovesAtOnceTheFilesOfCreatorsThatAreGone() throws Exception {
    String job = "sweep-" + UUID.randomUUID().toString().substring(0, 8);
    String dead = deadCreator();
    String self = SharedMapping.creatorOf(ProcessHandle.current());
    String[] parts = self.split("\\.");
    // this process's pid with another start time: its pid was reused since the creator died
    String reused = parts[0] + "." + Long.toHexString(Long.parseLong(parts[1], 16) - 1000) + "." + parts[2];
    String deadPid = dead.substring(0, dead.indexOf('.'));
    List<Path> gone = List.of(fileOf("win-", dead, job), fileOf("barrier-", dead, job), fileOf("shared-", dead, job),
        fileOf("domain-", dead, job), fileOf("win-", reused, job));
    List<Path> kept = List.of(fileOf("win-", self, job),
        fileOf("shared-", deadPid + ".0.1", job),   // another PID namespace: a minute's grace
        fileOf("barrier-", deadPid, job),           // no namespace in the name: a minute's grace
        fileOf("other-", dead, job));               // not a name of ours
    try {
      SharedMapping.removeStale();
      for (Path p : gone) {
        assertTrue(Files.notExists(p), "a file of a creator that is gone: " + p);
      }
      for (Path p : kept) {
        assertTrue(Files.exists(p), "a file the sweep must leave: " + p);
      }
      assertTrue(SharedMapping.fileName("win-", job).startsWith(SharedMapping.ownPrefix("win-")));
      assertTrue(SharedMapping.ownPrefix("win-").startsWith("win-" + self + "-"));
      // the launcher's cleanup finds every file of the job, whoever made it, and only those
      Path otherJob = fileOf("win-", self, job + "x");
      assertEquals(3, SharedMapping.removeJob(job), "the job's files of every prefix");
      assertTrue(Files.exists(otherJob), "another job's file");
      Files.delete(otherJob);
    } finally {
      for (Path p : kept) {
        Files.deleteIfExists(p);
      }
    }
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
