package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.vertxrma.testing.Rmarun;
import dev.vertxrma.win.BigWindowProgram;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 27 through the real launcher: {@code bin/rmarun -np 2 --jvms 2} with a 4 GiB window at
 * rank 1 (the second JVM). Zeroing it in one native call held that JVM's threads, Hazelcast's
 * heartbeats among them, until the other JVM declared it dead (PROC_FAILED) although it was alive;
 * now the job must verify — rank 0 reads the window's far end and writes and reads it back over
 * the data plane — and exit 0. Skipped on a host with less than 12 GiB of memory available.
 */
@Tag("multijvm")
class BigWindowMultiJvmTest {

  private static final long GIB = 1L << 30;
  private static final long NEEDED = 12 * GIB;

  /** {@code MemAvailable} of {@code /proc/meminfo} in bytes, or 0 if it cannot be read. */
  private static long memAvailable() {
    try {
      List<String> lines = Files.readAllLines(Path.of("/proc/meminfo"));
      for (String l : lines) {
        if (l.startsWith("MemAvailable:")) {
          return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: treated as not enough
    }
    return 0;
  }

  @Test
  void aFourGibibyteWindowOverTwoJvmsVerifies() throws Exception {
    long available = memAvailable();
    assumeTrue(available >= NEEDED, "a 4 GiB window over two JVMs needs " + NEEDED / GIB + " GiB of memory "
        + "available; this host has " + available / (1L << 20) + " MiB (MemAvailable)");
    try (Rmarun run = Rmarun.start("-np", "2", "--jvms", "2", BigWindowProgram.class.getName(),
        String.valueOf(4 * GIB))) {
      int exit = run.await(run.exit(), 240, "the launcher's exit");
      assertEquals(0, exit, run.output());
      assertTrue(run.output().contains(BigWindowProgram.VERIFIED), run.output());
      assertFalse(run.output().contains("PROC_FAILED"), "no JVM declared failed\n" + run.output());
      assertFalse(run.output().contains("rmarun: job"), "no job failure reported\n" + run.output());
    }
  }
}
