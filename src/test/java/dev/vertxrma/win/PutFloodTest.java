package dev.vertxrma.win;

import dev.vertxrma.junit.RmaJob;
import dev.vertxrma.junit.RmaTest;
import org.junit.jupiter.api.Tag;

/**
 * {@link PutFloodProgram} across two JVMs: 1,000,000 small puts, each issued when the previous
 * one's future completed, to a rank whose JVM reads nothing for 3 s; the origin's direct memory
 * stays within the program's bound and the last value lands.
 */
class PutFloodTest {

  @Tag("multijvm")
  @RmaTest(ranks = 2, jvms = 2, timeoutSeconds = 300)
  void aLoopOfSmallPutsFacingABusyTargetStaysBounded(RmaJob job) {
    job.run(PutFloodProgram.class, "1000000", "3000");
  }
}
