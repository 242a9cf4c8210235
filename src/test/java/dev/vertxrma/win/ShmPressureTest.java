package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.vertxrma.testing.Rmarun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A small or full {@code /dev/shm} (issue 41): jobs of {@code bin/rmarun -np 4 --jvms 2} in a
 * private 64 MiB tmpfs mounted on {@code /dev/shm} ({@code unshare -m}, as Docker's default
 * {@code --shm-size} gives a container), running {@link ShmPressureProgram}. Space is reserved
 * before it is mapped, so running out is an error at creation: windows that do not fit take
 * private memory and the data plane with a WARNING naming the directory and the fix,
 * {@code allocateShared} fails with NO_MEM at every rank, and communicators whose barrier pages
 * cannot be made meet by messages. No JVM crashes (SIGBUS, hs_err), no {@code InternalError},
 * every call succeeds on the fallback or fails with NO_MEM. Needs root (a mount namespace); says
 * so and skips without.
 */
@Tag("multijvm")
class ShmPressureTest {

  /** The size Docker gives a container's {@code /dev/shm} by default. */
  private static final String SIZE = "64m";
  /** Pages of the tmpfs (64 MiB of 4 KiB). */
  private static final int PAGES = 64 * 256;

  @TempDir
  Path dir;

  @BeforeAll
  static void mountNamespaces() throws Exception {
    Process p = new ProcessBuilder("unshare", "-m", "--propagation", "private", "sh", "-c",
        "mount -t tmpfs -o size=1m tmpfs /dev/shm").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assumeTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0,
        "needs a private mount namespace with a tmpfs of its own (root, unshare -m): " + out.trim());
  }

  /**
   * {@code bin/rmarun ARGS} in a private 64 MiB {@code /dev/shm}, {@code freePages} of it left
   * free by a file that fills the rest (all of it free if negative), in the test's directory (where
   * a crashing JVM writes its hs_err file); its status, its output checked for a crash.
   */
  private Rmarun run(int freePages, String... args) throws IOException {
    return runAfter(freePages < 0 ? "true" : "dd if=/dev/zero of=/dev/shm/filler bs=4096 count=" + (PAGES - freePages)
        + " 2>/dev/null", args);
  }

  /** {@link #run}, after the shell command {@code setup} in the private {@code /dev/shm}. */
  private Rmarun runAfter(String setup, String... args) throws IOException {
    return Rmarun.startWrapped(List.of("unshare", "-m", "--propagation", "private", "sh", "-c",
        "mount -t tmpfs -o size=" + SIZE + " tmpfs /dev/shm && " + setup + " && exec \"$@\"", "sh"), dir.toFile(),
        "", args);
  }

  private String finish(Rmarun run) throws IOException {
    int status = run.await(run.exit(), 120, "the job's end");
    String out = run.output();
    assertEquals(0, status, out);
    for (String crash : List.of("InternalError", "SIGBUS", "SIGSEGV", "fatal error", "hs_err")) {
      assertFalse(out.contains(crash), "'" + crash + "' in the output:\n" + out);
    }
    try (Stream<Path> files = Files.list(dir)) {
      List<String> left = files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("hs_err")).toList();
      assertEquals(List.of(), left, "JVM crash reports in " + dir + "\n" + out);
    }
    return out;
  }

  private static long lines(String out, String text) {
    return out.lines().filter(l -> l.contains(text)).count();
  }

  /** A WARNING naming the segment directory and the fix. */
  private static void warnsWithTheFix(String out) {
    assertTrue(out.lines().anyMatch(l -> l.contains("WARNING") && l.contains("/dev/shm/vertx-rma-")
        && l.contains("--shm-size")), "a WARNING naming the directory and --shm-size:\n" + out);
  }

  /**
   * 4 ranks of 20 MiB windows created at once over 2 JVMs: 80 MiB do not fit in 64. Before the
   * reservation, the free-space check passed for every rank (sparse files) and the JVMs died of
   * SIGBUS zeroing them (4 times of 4 on the machine, and here).
   */
  @Test
  void windowsCreatedAtOnceBeyondTheRoomFallBackToTheDataPlane() throws Exception {
    try (Rmarun run = run(-1, "-np", "4", "--jvms", "2", ShmPressureProgram.class.getName(), "windows", "20")) {
      String out = finish(run);
      assertEquals(4, lines(out, ShmPressureProgram.PREFIX), out);
      assertEquals(4, lines(out, "windows verified"), out);
      warnsWithTheFix(out);
    }
  }

  /** A 256 MiB shared window in 64 MiB: NO_MEM at every rank, naming the directory and the fix. */
  @Test
  void aSharedWindowBeyondTheRoomFailsWithNoMemAtEveryRank() throws Exception {
    try (Rmarun run = run(-1, "-np", "4", "--jvms", "2", ShmPressureProgram.class.getName(), "shared", "256")) {
      String out = finish(run);
      assertEquals(4, out.lines().filter(l -> l.contains("shared failed: NO_MEM") && l.contains("/dev/shm/vertx-rma-")
          && l.contains("--shm-size")).count(), out);
    }
  }

  /**
   * A full {@code /dev/shm} (2 pages left) while 6 communicators make their barrier pages at once,
   * then a window: some pages fit, the others do not, so every communicator meets by messages and
   * the window crosses the data plane. Before, a page had no space check: its first store faulted
   * and an asynchronous InternalError surfaced in a worker, the barrier hung to its TIMEOUT.
   */
  @Test
  void communicatorsInAFullShmMeetByMessages() throws Exception {
    try (Rmarun run = run(2, "-np", "4", "--jvms", "2", ShmPressureProgram.class.getName(), "comms", "6")) {
      String out = finish(run);
      assertEquals(4, lines(out, "comms verified"), out);
      warnsWithTheFix(out);
    }
  }

  /**
   * Another local user made the segment directory first: the JVMs cannot share memory, and each
   * says so once, at WARNING, with the fix, however many windows and communicators it makes
   * (before: one INFO line per window and per communicator, and no fix).
   */
  @Test
  void aSegmentDirectoryAnotherUserMadeIsOneWarningPerJvmWithTheFix() throws Exception {
    try (Rmarun run = runAfter("d=/dev/shm/vertx-rma-$(id -un) && mkdir -m 700 $d && chown 65534 $d", "-np", "4",
        "--jvms", "2", ShmPressureProgram.class.getName(), "comms", "3")) {
      String out = finish(run);
      assertEquals(4, lines(out, "comms verified"), out);
      List<String> logged = out.lines().filter(l -> l.matches(".*\\d \\w+ dev\\.vertxrma\\..*")).toList();
      assertEquals(2, logged.size(), "one line per JVM:\n" + out);
      for (String l : logged) {
        assertTrue(l.contains("WARNING") && l.contains("/dev/shm/vertx-rma-") && l.contains("another user")
            && l.contains("rm -r"), l);
      }
    }
  }

  /** What fits takes the on-node path: 4 windows of 8 MiB in 64 MiB, every remote rank reached in memory. */
  @Test
  void windowsThatFitTakeTheOnNodePath() throws Exception {
    try (Rmarun run = run(-1, "-np", "4", "--jvms", "2", ShmPressureProgram.class.getName(), "windows", "8")) {
      String out = finish(run);
      assertEquals(4, lines(out, "windows verified (2 peers in memory)"), out);
      assertFalse(out.contains("WARNING"), out);
    }
  }
}
