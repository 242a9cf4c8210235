package dev.vertxrma.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.Rmarun;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The resilient-heat sample as its comment runs it: {@code bin/rmarun -np 4 --jvms 4
 * --on-failure continue resilient-heat --die 2 --at 5}. Rank 2 kills its own JVM before iteration
 * 5; the survivors notice (PROC_FAILED from the halo exchange with it, REVOKED from the others'
 * revoke), shrink, restore the checkpoint of iteration 3 (rank 2's block from its buddy, rank 3)
 * and finish with the result of the sequential run. rmarun reports the lost JVM once, lets the
 * others end, and exits 0. The same command with {@code --on-failure abort} fails the job (exit
 * 1, no {@code verified}): the survivors' calls fail, which is what abort means.
 */
@Tag("multijvm")
class ResilientHeatTest {

  /** docs/failure-and-security.md: a killed JVM is noticed by the survivors within 2 s. */
  static final long NOTICED_MS = 2_000;

  /**
   * Rank 2 before iteration 5 (its buddy, rank 3, holds the checkpoint of iteration 3), and the
   * last rank before the last iteration (its buddy is rank 2, the rank before it; ranks 0 and 1,
   * which do not touch rank 3 in that iteration, finish it and notice in the gathering of the
   * result, then join the recovery through the agreement).
   */
  @ParameterizedTest(name = "--die {0} --at {1}")
  @CsvSource({"2, 5, 3, 32..47, 3", "3, 40, 2, 48..63, 39"})
  void aRankThatDiesIsRestoredFromItsBuddysCheckpointAndTheResultIsVerified(int die, int at, int buddy, String points,
      int restored) throws Exception {
    try (Rmarun run = Rmarun.start("-np", "4", "--jvms", "4", "--on-failure", "continue", "--tag-output", "-q",
        "resilient-heat", "--die", String.valueOf(die), "--at", String.valueOf(at))) {
      Rmarun.Line died = run.await(run.line("resilient-heat: rank " + die + " dies now, before iteration " + at), 180,
          "rank " + die + "'s death");
      Rmarun.Line noticed = run.await(run.line("noticed a failure"), 30, "a survivor noticing the death");
      int status = run.await(run.exit(), 120, "rmarun's exit");
      String out = run.output();
      assertEquals(0, status, out);
      long noticedMs = TimeUnit.NANOSECONDS.toMillis(noticed.nanos() - died.nanos());
      assertTrue(noticedMs <= NOTICED_MS, "the first survivor noticed " + noticedMs + " ms after the death\n" + out);
      // rmarun: the lost JVM once, named with its rank and signal; then the end of the survivors
      assertEquals(1, out.split("rmarun: PROC_FAILED: JVM " + die + " \\(rank " + die + ", pid", -1).length - 1, out);
      assertTrue(out.contains("was killed by signal 9 (SIGKILL); the job goes on without it (--on-failure continue)"),
          out);
      assertTrue(out.contains("rmarun: job ") && out.contains("lost 1 of 4 JVMs and went on; every survivor (3) "
          + "ended with status 0"), out);
      assertFalse(out.contains("did not end within"), "no JVM is killed by rmarun under continue\n" + out);
      // the survivors: rank 3 adopts rank 2's block; the result is the sequential one
      assertTrue(out.contains("[" + buddy + "] resilient-heat: rank " + buddy + " adopts rank " + die + "'s points "
          + points + " from the checkpoint of iteration " + restored + " in its window"), out);
      assertTrue(out.contains("[0] resilient-heat: rank(s) [" + die + "] died; 3 survivors restored iteration "
          + restored), out);
      assertTrue(out.contains("[0] resilient-heat: verified 64 points after 40 iterations over 3 of 4 ranks (rank(s) ["
          + die + "] died;"), out);
      String recovered = out.replaceFirst("(?s).*recovered in (\\d+) ms.*", "$1");
      System.out.printf("ResilientHeatTest: kill -9 of rank %d before iteration %d: the first survivor noticed after %d "
          + "ms, the survivors recovered in %s ms%n", die, at, noticedMs, recovered);
    }
  }

  @Test
  void underAbortTheSameDeathFailsTheJob() throws Exception {
    try (Rmarun run = Rmarun.start("-np", "4", "--jvms", "4", "--tag-output", "-q", "resilient-heat", "--die", "2",
        "--at", "5")) {
      int status = run.await(run.exit(), 180, "rmarun's exit");
      String out = run.output();
      assertEquals(1, status, out);
      assertTrue(out.contains("rmarun: PROC_FAILED: JVM 2 (rank 2, pid"), out);
      assertFalse(out.contains("goes on without it"), out);
      assertFalse(out.contains("verified"), out);
    }
  }
}
