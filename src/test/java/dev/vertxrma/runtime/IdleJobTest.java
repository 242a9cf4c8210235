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
 * {@link IdleJobProgram} reads it in both JVMs at once, once both have settled. Settled means a
 * 1 s sample of the JVM's CPU time under the same 5 %: the start-up's leftover work (the JIT
 * compiling the start-up code, for seconds) takes longer on loaded cores, and a fixed wait (5 s
 * before) let it into the window there; the samples go on only until one is under the limit (at
 * most 60 s), so a quiet machine gets to the window sooner than before. An event loop that never
 * went back to sleep ({@code -Drma.progress=busy}) takes a whole core: it never settles, and
 * after the 60 s its window fails the test.
 */
@Tag("multijvm")
class IdleJobTest {

  private static final long WINDOW_MS = 10_000;
  private static final double MAX_CORE_FRACTION = 0.05;
  private static final Pattern REPORT = Pattern.compile(Pattern.quote(IdleJobProgram.LINE)
      + "(\\d+) cpu (\\d+) ms in (\\d+) ms after \\d+ ms, (?:un)?settled");

  @Test
  void anIdleJobUsesAtMostFivePercentOfACorePerJvm() throws Exception {
    try (Rmarun run = Rmarun.start("-np", "2", "--jvms", "2", "-q", IdleJobProgram.class.getName(),
        String.valueOf(WINDOW_MS), String.valueOf(MAX_CORE_FRACTION))) {
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
        System.out.println("IdleJobTest: " + m.group());
        assertTrue(wallMs >= WINDOW_MS, "rank " + rank + "'s window: " + wallMs + " ms\n" + out);
        assertTrue(cpuMs <= MAX_CORE_FRACTION * wallMs, "the JVM of rank " + rank + " took " + cpuMs + " ms of CPU in "
            + wallMs + " ms of waiting on nothing (at most " + (int) (MAX_CORE_FRACTION * 100) + " % of a core)\n" + out);
      }
      assertTrue(seen[0] && seen[1], "both JVMs report\n" + out);
    }
  }
}
