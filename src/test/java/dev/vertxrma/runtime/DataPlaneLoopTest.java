package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.DataPlaneLoop;
import dev.vertxrma.TransportOptions;
import dev.vertxrma.testing.Rmarun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Decision 15: the data plane on a loop of its own keeps remote operations going while a rank's
 * program holds its thread; {@link DataPlaneLoop#AUTO} gives it one wherever the host has
 * processors to spare.
 */
class DataPlaneLoopTest {

  @Test
  void autoSharesTheOnlyRanksLoopOnlyOnASmallHost() {
    assertTrue(DataPlaneLoop.AUTO.sharesRankLoop(1, 2));
    assertTrue(DataPlaneLoop.AUTO.sharesRankLoop(1, DataPlaneLoop.OWN_LOOP_MIN_PROCESSORS - 1));
    assertFalse(DataPlaneLoop.AUTO.sharesRankLoop(1, DataPlaneLoop.OWN_LOOP_MIN_PROCESSORS));
    assertFalse(DataPlaneLoop.AUTO.sharesRankLoop(2, 2), "several ranks: a loop of its own");
    assertFalse(DataPlaneLoop.AUTO.sharesRankLoop(-1, 2), "a count not known: a loop of its own");
    assertTrue(DataPlaneLoop.RANK.sharesRankLoop(1, 64));
    assertFalse(DataPlaneLoop.RANK.sharesRankLoop(3, 1));
    assertFalse(DataPlaneLoop.OWN.sharesRankLoop(1, 1));
    assertEquals(DataPlaneLoop.AUTO, TransportOptions.DEFAULT_DATA_PLANE_LOOP);
  }

  /**
   * One rank per JVM over the data plane, the plane forced onto a loop of its own (this machine
   * has 2 processors, where AUTO shares the rank's loop): while rank 1's callback holds its loop,
   * rank 0's reads and fetch-and-ops on rank 1's window are applied ({@link HeldRankProgram}).
   * With {@code -Drma.planeLoop=rank} the same job fails: nothing is applied until the callback
   * gives up.
   */
  @Tag("multijvm")
  @Test
  void aRankHoldingItsLoopDelaysNoRemoteOperationOnItsWindow() throws Exception {
    for (String loop : new String[] {"own", "rank"}) {
      // on its own loop the additions take milliseconds: the hold may last 10 s before it fails;
      // on the rank's loop nothing can be applied during the hold, so 1 s shows it
      try (Rmarun run = Rmarun.startWith("-Drma.planeLoop=" + loop, "-np", "2", "--jvms", "2",
          HeldRankProgram.class.getName(), loop.equals("own") ? "10000" : "1000")) {
        int status = run.await(run.exit(), 120, "the job's end");
        String out = run.output();
        if (loop.equals("own")) {
          assertEquals(0, status, out);
          assertTrue(out.contains("held-rank: verified"), out);
        } else {
          assertEquals(1, status, out);
          assertTrue(out.contains("no operation from the other JVM was applied meanwhile"), out);
        }
      }
    }
  }
}
