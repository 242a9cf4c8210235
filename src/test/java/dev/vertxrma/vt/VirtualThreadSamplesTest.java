package dev.vertxrma.vt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.LauncherCommand;
import dev.vertxrma.testing.Rmarun;
import dev.vertxrma.testing.VirtualThreadsAvailable;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The blocking-style samples through {@code bin/rmarun --virtual-threads}, embedded and over two
 * JVMs: each verifies its result like its Future and Rx twins. Java 21+ (the virtual-threads
 * execution); a usage error fails without a verified line.
 */
@Tag("vt")
@Tag("multijvm")
class VirtualThreadSamplesTest {

  @BeforeAll
  static void needsJava21() {
    VirtualThreadsAvailable.assume(VirtualThreadSamplesTest.class);
  }

  @ParameterizedTest(name = "{0} -np {1} --jvms {2}")
  @CsvSource({"double-buffer-vt, 4, 1", "double-buffer-vt, 1, 1", "double-buffer-vt, 4, 2", "linked-list-vt, 4, 1",
      "linked-list-vt, 3, 1", "linked-list-vt, 4, 2"})
  void sampleVerifies(String sample, int np, int jvms) throws Exception {
    try (Rmarun run = Rmarun.start("-np", String.valueOf(np), "--jvms", String.valueOf(jvms), "--virtual-threads",
        sample)) {
      int status = run.await(run.exit(), 180, sample + "'s exit");
      String out = run.output();
      assertEquals(0, status, out);
      assertTrue(out.contains("out| " + sample + ": verified"), out);
    }
  }

  /** The Vert.x application launcher with {@code "virtualThreads": true}: three instances, three ranks. */
  @Test
  void theVertxLauncherRunsVirtualThreadRanks() throws Exception {
    File home = Rmarun.home();
    List<String> cmd = LauncherCommand.java();
    cmd.addAll(List.of("io.vertx.launcher.application.VertxApplication",
        "dev.vertxrma.samples.styles.LinkedListVt", "-instances", "3", "-conf",
        "{\"np\":3,\"virtualThreads\":true,\"job\":\"vt-" + UUID.randomUUID().toString().substring(0, 8) + "\"}"));
    Path out = Files.createTempFile("launcher", ".out");
    Process p = new ProcessBuilder(cmd).directory(home).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    boolean finished = p.waitFor(120, TimeUnit.SECONDS);
    String output = Files.readString(out, StandardCharsets.UTF_8);
    if (!finished) {
      p.destroyForcibly();
    }
    Files.deleteIfExists(out);
    assertTrue(finished, "the launcher did not exit after the job\n" + output);
    assertEquals(0, p.exitValue(), output);
    assertTrue(output.contains("linked-list-vt: verified 3 ranks"), output);
  }

  @ParameterizedTest
  @CsvSource({"double-buffer-vt, 1", "linked-list-vt, x"})
  void aUsageErrorFailsTheJob(String sample, String badArg) throws Exception {
    try (Rmarun run = Rmarun.start("-np", "2", "--virtual-threads", sample, badArg)) {
      int status = run.await(run.exit(), 120, sample + "'s exit");
      String out = run.output();
      assertEquals(1, status, out);
      assertTrue(out.contains("ARG: " + sample), out);
      assertTrue(!out.contains("verified"), out);
    }
  }
}
