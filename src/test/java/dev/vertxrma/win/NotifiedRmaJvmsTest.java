package dev.vertxrma.win;

import dev.vertxrma.junit.RmaJob;
import dev.vertxrma.junit.RmaTest;
import org.junit.jupiter.api.Tag;

/**
 * {@link NotifiedRmaProgram} across two JVMs, two ranks each: first with the on-node path (the
 * JVMs share window memory: notified operations between them are applied in the target's
 * segment, their counter in its control page, a parked waiter woken by one PAGE_WAKE frame),
 * then over TCP ({@code -Drma.shm=false} for the job's JVMs: the data and the increment travel in
 * one frame, applied in order by the target).
 */
class NotifiedRmaJvmsTest {

  private static final String JAVA_OPTIONS = "rma.junit.javaOptions";

  @Tag("multijvm")
  @RmaTest(ranks = 4, jvms = 2, timeoutSeconds = 120)
  void notifiedOperationsBetweenJvmsOnNodeAndOverTcp(RmaJob job) {
    job.run(NotifiedRmaProgram.class);
    String before = System.getProperty(JAVA_OPTIONS);
    System.setProperty(JAVA_OPTIONS, (before == null ? "" : before + " ") + "-Drma.shm=false");
    try {
      job.run(NotifiedRmaProgram.class);
    } finally {
      if (before == null) {
        System.clearProperty(JAVA_OPTIONS);
      } else {
        System.setProperty(JAVA_OPTIONS, before);
      }
    }
  }
}
