package dev.vertxrma.win;

import dev.vertxrma.junit.RmaJob;
import dev.vertxrma.junit.RmaTest;
import org.junit.jupiter.api.Tag;

/**
 * {@link PutFloodProgram} across two JVMs, one rank each: up to 1,000,000 small puts, each issued
 * when the previous one's future completed, over the data plane ({@code Win.create}) to a rank
 * whose JVM reads nothing (its event loop, which is its data plane's, spins) until the origin was
 * held back (a put's future not complete when put returned). The origin must have been held back,
 * its direct memory must stay within the program's bound while the target reads nothing, and every
 * value must land once the target reads again.
 */
class PutFloodTest {

  @Tag("multijvm")
  @RmaTest(ranks = 2, jvms = 2, timeoutSeconds = 120)
  void aLoopOfSmallPutsFacingAStoppedReaderIsHeldBackAndStaysBounded(RmaJob job) {
    job.run(PutFloodProgram.class, "1000000");
  }
}
