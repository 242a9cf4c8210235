package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.Rmarun;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The failure model over real JVMs: {@code bin/rmarun -np 4 --jvms 2} running the soak or
 * {@link FaultPoints} (the soak's kinds of traffic, then rank 3 stopped at a known point), with the
 * JVM of ranks 2 and 3 killed ({@code kill -9}) or stopped ({@code kill -STOP}). The survivors
 * must name the lost ranks with PROC_FAILED within the documented bounds (2 s for a killed JVM,
 * 6 s for a hung one), the launcher must say which JVM died and how, and the job must end with
 * status 1 within 10 s. Nothing may hang: every wait here is bounded.
 */
@Tag("multijvm")
class FaultsTest {

  /** Failure detection bounds documented in docs/failure-and-security.md ("Failure model"). */
  static final long KILLED_MS = 2_000;
  static final long HUNG_MS = 6_000;
  /** From the fault to rmarun's exit. */
  static final long EXIT_MS = 10_000;

  @Test
  void soakVerifiesOverTwoJvms() throws Exception {
    try (Rmarun run = Rmarun.start("-np", "4", "--jvms", "2", "soak", "--seconds", "5")) {
      int status = run.await(run.exit(), 120, "the soak's end");
      assertEquals(0, status, run.output());
      assertTrue(run.output().contains("soak: verified"), run.output());
    }
  }

  /** The fault points ({@link FaultPoints}): rank 3 stops there and prints a line, then its JVM is killed. */
  @ParameterizedTest(name = "kill -9 with {0}")
  @CsvSource({
      "fence, holds before the first fence",
      "lock, holds an exclusive lock on rank 0",
      "flush, holds while the others put and flush",
      "pscw, holds while the others wait for its post and complete"})
  void killedJvmIsNamedByEverySurvivorWithinTwoSeconds(String point, String marker) throws Exception {
    String job = "faults-" + point + "-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    try (Rmarun run = Rmarun.start("-np", "4", "--jvms", "2", "--job", job, FaultPoints.class.getName(), "--hold-at",
        point)) {
      run.await(run.line(marker), 120, "the job reaching its " + point + " point");
      ProcessHandle victim = run.await(run.rankJvm(2, 2), 10, "finding the JVM of ranks 2..3");
      // what the victim leaves when it is killed while it makes a window: a segment file of the job
      java.nio.file.Path leftover = dev.vertxrma.impl.memory.SharedMapping.createFile("win-" + victim.pid() + "-" + job
          + "-" + java.util.UUID.randomUUID(), 4096);
      long killed = System.nanoTime();
      Rmarun.signal(victim, "KILL");
      Rmarun.Line survivor = run.await(run.line("PROC_FAILED: rank(s) [2, 3]"), 30, "a survivor's PROC_FAILED");
      int status = run.await(run.exit(), 30, "rmarun's exit");
      long exited = System.nanoTime();
      String out = run.output();
      assertEquals(1, status, out);
      assertTrue(out.contains("rmarun: PROC_FAILED: JVM 1 (ranks 2..3"), out);
      assertTrue(out.contains("was killed by signal 9 (SIGKILL)"), out);
      long detectedMs = TimeUnit.NANOSECONDS.toMillis(survivor.nanos() - killed);
      assertTrue(detectedMs <= KILLED_MS, "survivors saw PROC_FAILED " + detectedMs + " ms after the kill\n" + out);
      long exitMs = TimeUnit.NANOSECONDS.toMillis(exited - killed);
      System.out.printf("FaultsTest: kill -9 at %s: survivors saw PROC_FAILED after %d ms, rmarun exited after %d ms%n",
          point, detectedMs, exitMs);
      assertTrue(exitMs <= EXIT_MS, "rmarun exited " + exitMs + " ms after the kill\n" + out);
      assertTrue(java.nio.file.Files.notExists(leftover), "rmarun removes the files of its killed job: " + leftover);
      try (var files = java.nio.file.Files.list(dev.vertxrma.impl.memory.SharedMapping.directory())) {
        assertEquals(java.util.List.of(), files.map(f -> f.getFileName().toString()).filter(n -> n.contains("-" + job
            + "-")).toList(), "files of the job left in the segment directory");
      }
    }
  }

  @Test
  void stoppedJvmIsNamedWithinSixSecondsAndKilled() throws Exception {
    try (Rmarun run = Rmarun.start("-np", "4", "--jvms", "2", FaultPoints.class.getName(), "--hold-at", "fence")) {
      run.await(run.line("holds before the first fence"), 120, "the job reaching its fence point");
      ProcessHandle victim = run.await(run.rankJvm(2, 2), 10, "finding the JVM of ranks 2..3");
      long stopped = System.nanoTime();
      Rmarun.signal(victim, "STOP");
      Rmarun.Line survivor = run.await(run.line("PROC_FAILED: rank(s) [2, 3]"), 30, "a survivor's PROC_FAILED");
      int status = run.await(run.exit(), 30, "rmarun's exit");
      long exited = System.nanoTime();
      String out = run.output();
      assertEquals(1, status, out);
      assertTrue(out.contains("JVM 1 (ranks 2..3"), out);
      assertTrue(out.contains("did not end within"), "rmarun kills the stopped JVM\n" + out);
      long detectedMs = TimeUnit.NANOSECONDS.toMillis(survivor.nanos() - stopped);
      assertTrue(detectedMs <= HUNG_MS, "survivors saw PROC_FAILED " + detectedMs + " ms after SIGSTOP\n" + out);
      long exitMs = TimeUnit.NANOSECONDS.toMillis(exited - stopped);
      System.out.printf("FaultsTest: SIGSTOP: survivors saw PROC_FAILED after %d ms, rmarun exited after %d ms%n",
          detectedMs, exitMs);
      assertTrue(exitMs <= EXIT_MS, "rmarun exited " + exitMs + " ms after SIGSTOP\n" + out);
    }
  }

  @Test
  void jvmKilledDuringStartupFailsTheJobNamingItsRanks() throws Exception {
    try (Rmarun run = Rmarun.start("-np", "4", "--jvms", "2", "soak", "--seconds", "5")) {
      ProcessHandle victim = run.await(run.rankJvm(2, 2), 60, "the JVM of ranks 2..3 starting");
      long killed = System.nanoTime();
      Rmarun.signal(victim, "KILL");
      int status = run.await(run.exit(), 30, "rmarun's exit");
      long exitMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
      String out = run.output();
      assertEquals(1, status, out);
      assertTrue(out.contains("rmarun: PROC_FAILED: JVM 1 (ranks 2..3"), out);
      assertTrue(!out.contains("soak: verified"), out);
      System.out.printf("FaultsTest: kill -9 during startup: rmarun exited after %d ms%n", exitMs);
      assertTrue(exitMs <= EXIT_MS, "rmarun exited " + exitMs + " ms after the kill\n" + out);
    }
  }
}
