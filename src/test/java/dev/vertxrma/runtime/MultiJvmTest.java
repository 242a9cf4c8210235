package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.LaunchClassPath;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the real launcher script, {@code bin/rmarun -np 4 --jvms 2}, with {@link MultiJvmProgram}:
 * 4 ranks over 2 JVMs joined by the clustered event bus, once to completion and once with a rank
 * that fails. The runs are made one after the other: each adds two Hazelcast members on
 * loopback, and fewer members at once make the TCP-IP join on 127.0.0.1 less fragile.
 */
@Tag("multijvm")
class MultiJvmTest {

  private static final String PROGRAM = MultiJvmProgram.class.getName();
  private static final long WAIT_SECONDS = 180;

  @TempDir
  static Path tmp;

  private static Run current;

  /** One rmarun process and where its output goes. */
  private static final class Run {
    final Process process;
    final File out;
    final File err;

    Run(Process process, File out, File err) {
      this.process = process;
      this.out = out;
      this.err = err;
    }

    /** Waits for the process (at most {@value #WAIT_SECONDS} s) and returns its outcome. */
    Outcome await() throws IOException, InterruptedException {
      boolean finished = process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
      if (!finished) {
        kill();
      }
      Outcome o = new Outcome(finished ? process.exitValue() : -1,
          Files.readString(out.toPath(), StandardCharsets.UTF_8), Files.readString(err.toPath(), StandardCharsets.UTF_8));
      assertTrue(finished, "rmarun did not finish within " + WAIT_SECONDS + " s\n" + o);
      return o;
    }

    void kill() throws InterruptedException {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** Exit status, stdout and stderr of one rmarun run. */
  record Outcome(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
    }
  }

  private static File home() {
    return dev.vertxrma.testing.Rmarun.home();
  }

  private static Run start(String name, String... programArgs) throws IOException {
    return startProgram(name, PROGRAM, programArgs);
  }

  private static Run startProgram(String name, String program, String... programArgs) throws IOException {
    return startProgram(name, 4, 2, program, programArgs);
  }

  private static Run startProgram(String name, int np, int jvms, String program, String... programArgs)
      throws IOException {
    File home = home();
    List<String> cmd = new ArrayList<>(List.of(new File(home, "bin/rmarun").getAbsolutePath(),
        "-np", String.valueOf(np), "--jvms", String.valueOf(jvms), program));
    cmd.addAll(List.of(programArgs));
    File out = tmp.resolve(name + ".out").toFile();
    File err = tmp.resolve(name + ".err").toFile();
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(home).redirectOutput(out).redirectError(err);
    Map<String, String> env = pb.environment();
    LaunchClassPath.into(env);
    return new Run(pb.start(), out, err);
  }

  @AfterEach
  void killLeftovers() throws InterruptedException {
    if (current != null && current.process.isAlive()) {
      current.kill();
    }
    current = null;
  }

  @Test
  void fourRanksOverTwoJvmsComplete() throws Exception {
    current = start("good");
    Outcome o = current.await();
    assertEquals(0, o.exit(), o.toString());
    assertTrue(o.out().contains(MultiJvmProgram.VERIFIED), o.toString());
    assertEquals(1, o.out().split(MultiJvmProgram.VERIFIED, -1).length - 1, "printed once, by rank 0\n" + o);
    assertFalse(o.err().contains("rmarun: job"), "no job failure reported\n" + o);
  }

  /** The samples the issues require over separate JVMs: each must print its verified line. */
  @ParameterizedTest
  @ValueSource(strings = {"twisted", "double-buffer", "linked-list", "mcs-mutex", "counter-service", "double-buffer-rx",
      "linked-list-rx", "shared-sync"})
  void samplesOverTwoJvmsVerify(String sample) throws Exception {
    current = startProgram(sample, sample);
    Outcome o = current.await();
    assertEquals(0, o.exit(), o.toString());
    assertTrue(o.out().contains(sample + ": verified"), o.toString());
  }

  /**
   * A user's recursive-compose loop of put + flush, through the launcher with its default JVM
   * options: 1,000,000 iterations in one JVM, 100,000 across two.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aUsersRecursiveComposeLoopFinishes(int jvms) throws Exception {
    int iterations = jvms == 1 ? 1_000_000 : 100_000;
    current = startProgram("loop" + jvms, 2, jvms, ComposeLoopProgram.class.getName(), String.valueOf(iterations));
    Outcome o = current.await();
    assertEquals(0, o.exit(), o.toString());
    assertTrue(o.out().contains(ComposeLoopProgram.VERIFIED + " (" + iterations + " iterations)"), o.toString());
  }

  @Test
  void aFailingRankFailsTheRunWithItsError() throws Exception {
    current = start("failing", "fail");
    Outcome o = current.await();
    assertNotEquals(0, o.exit(), o.toString());
    assertTrue(o.err().contains("OTHER: " + MultiJvmProgram.FAILURE), o.toString());
    assertFalse(o.out().contains(MultiJvmProgram.VERIFIED), o.toString());
  }
}
