package dev.vertxrma.win;

import dev.vertxrma.junit.RmaJob;
import dev.vertxrma.junit.RmaTest;
import dev.vertxrma.testing.Jobs;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link RandomEpochsProgram} — random epochs of every synchronization mode, calls not awaited,
 * completion order and every value checked by the ranks — embedded, on two clustered nodes, and
 * across two JVMs, each over several seeds (printed in a failure's message), and across four JVMs.
 */
class RandomEpochsTest {

  private static final int SEEDS = 3;

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void randomEpochsInOneJvm(Jobs.Mode mode) {
    long base = System.nanoTime();
    for (int i = 0; i < SEEDS; i++) {
      String seed = Long.toString(base + i);
      Jobs.run(mode, 6, (world, args) -> new RandomEpochsProgram().run(world, List.of(seed, "30")));
    }
  }

  @Tag("multijvm")
  @RmaTest(ranks = 4, jvms = 2, timeoutSeconds = 300)
  void randomEpochsAcrossTwoJvms(RmaJob job) {
    long base = System.nanoTime();
    for (int i = 0; i < SEEDS; i++) {
      job.run(RandomEpochsProgram.class, Long.toString(base + i), "30");
    }
  }

  /** Four JVMs of two ranks each: on one host they reach each other's windows in shared memory. */
  @Tag("multijvm")
  @RmaTest(ranks = 8, jvms = 4, timeoutSeconds = 300)
  void randomEpochsAcrossFourJvms(RmaJob job) {
    job.run(RandomEpochsProgram.class, Long.toString(System.nanoTime()), "20");
  }
}
