package dev.vertxrma.junit;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import org.junit.jupiter.api.Assertions;

/**
 * Test classes that {@link RmaTestExtensionTest} runs through the JUnit launcher to see how
 * {@code @RmaTest} ends a test (nested, so that the build does not run them on their own).
 */
final class RmaTestFixtures {

  private RmaTestFixtures() {
  }

  /** Rank 2 of 4 fails with an RmaException of class RMA_RANGE. */
  static class FailingRank {
    static final String MESSAGE = "rank 2 went out of range on purpose";

    @RmaTest(ranks = 4)
    void failing(RmaJob job) {
      job.run((world, args) -> world.barrier().compose(v -> world.rank() == 2
          ? Future.failedFuture(new RmaException(ErrorClass.RMA_RANGE, MESSAGE)) : world.barrier()));
    }
  }

  /** Rank 1 of 3 fails an assertion. */
  static class FailingAssertion {
    @RmaTest(ranks = 3)
    void failing(RmaJob job) {
      job.run((world, args) -> world.barrier().map(v -> {
        Assertions.assertNotEquals(1, world.rank(), "rank 1 is not welcome");
        return null;
      }));
    }
  }

  /** Every rank creates two windows and frees only the first. */
  static class LeakingWindow {
    @RmaTest(ranks = 2)
    void leaking(RmaJob job) {
      job.run(RingProgram.class, "leak");
    }
  }

  /** The same program freeing every window. */
  static class FreeingWindows {
    @RmaTest(ranks = 2)
    void freeing(RmaJob job) {
      job.run(RingProgram.class);
    }
  }
}
