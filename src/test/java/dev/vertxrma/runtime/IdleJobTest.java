package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.Rmarun;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A job over two JVMs started by {@code bin/rmarun} with the default settings (adaptive progress)
 * that waits on nothing for 10 s uses at most 5 % of a core per JVM in that time: each JVM's whole
 * CPU time (event loops, Hazelcast's heartbeats, the JIT, the collector) over the idle window, as
 * {@link IdleJobProgram} reads it in both JVMs at once, from 2 s after the job's first barrier (the
 * JIT's compiling of the start-up code, which goes on for seconds, counts too). An event loop that never went back to sleep ({@code -Drma.progress=busy}) takes a whole core and fails it.
 */
@Tag("multijvm")
class IdleJobTest {

  private static final long WINDOW_MS = 10_000;
  private static final double MAX_CORE_FRACTION = 0.05;
  private static final Pattern REPORT = Pattern.compile(Pattern.quote(IdleJobProgram.LINE)
      + "(\\d+) cpu (\\d+) ms in (\\d+) ms after \\d+ ms");

  @Test
  void anIdleJobUsesAtMostFivePercentOfACorePerJvm() throws Exception {
    try (Rmarun run = Rmarun.start("-np", "2", "--jvms", "2", "-q", IdleJobProgram.class.getName(),
        String.valueOf(WINDOW_MS))) {
      int status = run.await(run.exit(), 180, "the idle job's exit");
      String out = run.output();
      assertEquals(0, status, out);
      boolean[] seen = new boolean[2];
      Matcher m = REPORT.matcher(out);
      while (m.find()) {
        int rank = Integer.parseInt(m.group(1));
        long cpuMs = Long.parseLong(m.group(2));
        long wallMs = Long.parseLong(m.group(3));
        seen[rank] = true;
        assertTrue(wallMs >= WINDOW_MS, "rank " + rank + "'s window: " + wallMs + " ms\n" + out);
        assertTrue(cpuMs <= MAX_CORE_FRACTION * wallMs, "the JVM of rank " + rank + " took " + cpuMs + " ms of CPU in "
            + wallMs + " ms of waiting on nothing (at most " + (int) (MAX_CORE_FRACTION * 100) + " % of a core)\n" + out);
      }
      assertTrue(seen[0] && seen[1], "both JVMs report\n" + out);
    }
  }
}
