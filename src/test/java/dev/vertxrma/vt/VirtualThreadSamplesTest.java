package dev.vertxrma.vt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.Rmarun;
import dev.vertxrma.testing.VirtualThreadsAvailable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
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
