package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.Rmarun;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Jobs started at the same moment on one host never collide (issue 42: "Port [5706] is already
 * in use and auto-increment is disabled" failed 3 of 27 runs beside other jobs): four jobs of
 * two JVMs each, started together, all verify and exit 0. Each job's leader reserves its port
 * (LeaderPort, 5751-5800) and the other JVMs search below.
 */
@Tag("multijvm")
class ConcurrentJobsTest {

  private static final int JOBS = 4;

  @Test
  void fourJobsStartedAtOnceAllRun() throws Exception {
    List<Rmarun> runs = new ArrayList<>();
    try {
      for (int i = 0; i < JOBS; i++) {
        runs.add(Rmarun.start("-np", "2", "--jvms", "2", "-q", "counter", "5"));
      }
      for (int i = 0; i < JOBS; i++) {
        Rmarun run = runs.get(i);
        int status = run.await(run.exit(), 180, "job " + i + "'s end");
        String out = run.output();
        assertEquals(0, status, "job " + i + " of " + JOBS + " started at once\n" + out);
        assertTrue(out.contains("counter: verified"), out);
      }
    } finally {
      for (Rmarun run : runs) {
        run.close();
      }
    }
  }
}
