package dev.vertxrma.coll;

import dev.vertxrma.testing.Jobs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The collective suites again, embedded and clustered, with every rank program given a split of
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
  class Collectives extends CollectivesTest {
  }

  @Nested
  class PrefixScatterInPlace extends PrefixScatterInPlaceTest {
  }

  @Nested
  class UserOps extends UserOpsTest {
  }
}
