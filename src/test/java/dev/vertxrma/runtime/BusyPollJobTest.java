package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.Rmarun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A job over two JVMs whose event loops busy-poll ({@code -Drma.busyPoll=true}, handed to the
 * rank JVMs with the launcher's flags): each JVM says its data plane runs on a busy-polling
 * loop, and the samples that race locks and fetch-and-ops across JVMs verify.
 */
@Tag("multijvm")
class BusyPollJobTest {

  @Test
  void samplesVerifyOnBusyPollingEventLoops() throws Exception {
    for (String sample : new String[] {"linked-list", "mcs-mutex"}) {
      try (Rmarun run = Rmarun.startWith("-Drma.busyPoll=true", "-np", "4", "--jvms", "2", sample)) {
        int status = run.await(run.exit(), 180, "the busy-polling job's exit");
        String out = run.output();
        assertEquals(0, status, out);
        assertTrue(out.contains(sample + ": verified"), out);
        assertEquals(2, out.split("busy progress\\)", -1).length - 1, "both JVMs busy-poll\n" + out);
      }
    }
  }
}
