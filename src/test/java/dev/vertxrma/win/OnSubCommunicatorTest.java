package dev.vertxrma.win;

import dev.vertxrma.testing.Jobs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The RMA suites again, embedded and clustered, with every rank program given a split of the world
 * that reverses the ranks instead of the world ({@link Jobs.Over#REVERSED_SPLIT}): every window,
 * target, group and expected value of theirs is then in a communicator's numbering that differs
 * from the job's, and they must pass unchanged.
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
  class RmaOps extends RmaOpsTest {
  }

  @Nested
  class PassiveTarget extends PassiveTargetTest {
  }

  @Nested
  class ActiveTargetSync extends ActiveTargetSyncTest {
  }

  @Nested
  class RequestOps extends RequestOpsTest {
  }

  @Nested
  class PipelinedCalls extends PipelinedCallsTest {
  }

  @Nested
  class DynamicWindow extends DynamicWindowTest {
  }

  @Nested
  class SharedWindow extends SharedWindowTest {
  }

  @Nested
  class RmaErrors extends RmaErrorsTest {
  }

  @Nested
  class PassiveErrors extends PassiveErrorsTest {
  }

  @Nested
  class Conformance extends ConformanceTest {
  }

  @Nested
  class AccumulateAtomicity extends AccumulateAtomicityTest {
  }

  @Nested
  class WindowInfo extends WindowInfoTest {
  }
}
