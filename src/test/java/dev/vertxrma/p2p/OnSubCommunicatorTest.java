package dev.vertxrma.p2p;

import dev.vertxrma.testing.Jobs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The point-to-point suites again, embedded and clustered, with every rank program given a split of
 * the world that reverses the ranks ({@link Jobs.Over#REVERSED_SPLIT}) instead of the world.
 */
class OnSubCommunicatorTest {

  @BeforeAll
  static void reversed() {
    Jobs.runOver(Jobs.Over.REVERSED_SPLIT);
  }

  @AfterAll
  static void world() {
    Jobs.runOver(Jobs.Over.WORLD);
  }

  @Nested
  class Matching extends MatchingTest {
  }

  @Nested
  class ProbeSendrecv extends ProbeSendrecvTest {
  }

  @Nested
  class BufferedMode extends BufferedModeTest {
  }

  @Nested
  class MatchedProbe extends MatchedProbeTest {
  }

  @Nested
  class PointToPoint extends PointToPointTest {
  }
}
