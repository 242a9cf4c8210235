package dev.vertxrma.impl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import org.junit.jupiter.api.Test;

/**
 * One fault, one cause (issue 42): a JVM whose ranks stopped only because another JVM's rank
 * failed or its JVM left says so, instead of a second "job … failed: PROC_FAILED" line that read
 * like a second fault; a failure that began in this JVM is printed as it is.
 */
class RankRunFailureLineTest {

  private static JobDescription jvm0() {
    return new JobDescription("j", 4, "twisted").setRanks(0, 2).setJvmIndex(0);
  }

  @Test
  void anotherJvmsDeathIsSaidToBeTheCauseOfThisJvmsStop() {
    RmaException left = RmaException.of(ErrorClass.PROC_FAILED, "rank(s) [2, 3] of job j left: their cluster node x is "
        + "gone");
    assertEquals("rmarun: job j: ranks 0..1 stopped because of another JVM's failure (" + left.getMessage() + ")",
        RankRun.failureLine(jvm0(), left));
    RmaException aborted = RmaException.of(ErrorClass.COMM, "job j aborted because rank 3 failed: boom");
    assertEquals("rmarun: job j: rank 0 stopped because of another JVM's failure (" + aborted.getMessage() + ")",
        RankRun.failureLine(new JobDescription("j", 4, "twisted").setRanks(0, 1), aborted));
  }

  @Test
  void aFailureOfThisJvmIsPrintedAsItIs() {
    RmaException own = RmaException.of(ErrorClass.RMA_RANGE, "put out of range");
    assertEquals("rmarun: job j failed: " + own.getMessage(), RankRun.failureLine(jvm0(), own));
    IllegalStateException bug = new IllegalStateException("rank 1 gives up");
    assertEquals("rmarun: job j failed: rank 1 gives up", RankRun.failureLine(jvm0(), bug));
  }
}
