package dev.vertxrma.sync;

import dev.vertxrma.junit.RmaJob;
import dev.vertxrma.junit.RmaTest;
import org.junit.jupiter.api.Tag;

/** {@link SyncProgram} over 4 ranks in 2 JVMs: the counter and the mutex across the JVMs' planes. */
class SyncAcrossJvmsTest {

  @Tag("multijvm")
  @RmaTest(ranks = 4, jvms = 2, timeoutSeconds = 120)
  void counterAndMutexAreExactAcrossJvms(RmaJob job) {
    job.run(SyncProgram.class, "200", "20");
  }
}
