package dev.vertxrma.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.World;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.runtime.MultiJvmProgram;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

class RmaTestExtensionTest {

  @RmaTest(ranks = 4)
  void valueCheckedRmaProgramPasses(RmaJob job) {
    assertEquals(4, job.ranks());
    assertEquals(1, job.jvms());
    job.withVertx(Jobs.embedded()).run((world, args) -> Win.allocate(world, 16, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      long[] got = new long[1];
      return win.fence(dev.vertxrma.Mode.NOPRECEDE)
          .compose(v -> win.put(Buf.of(new long[] {100 + r}), 0, 1, Datatype.LONG, (r + 1) % n, 0))
          .compose(v -> win.accumulate(Buf.of(new long[] {r + 1}), 0, 1, Datatype.LONG, 0, 1, Op.SUM))
          .compose(v -> win.fence())
          .compose(v -> win.get(Buf.of(got), 0, 1, Datatype.LONG, (r + n - 1) % n, 0))
          .compose(v -> win.fence(dev.vertxrma.Mode.NOSUCCEED))
          .map(v -> {
            assertEquals(100 + (r + n - 1) % n, win.memory().readLong(0), "value put at rank " + r);
            assertEquals(100 + (r + n - 2) % n, got[0], "value got by rank " + r + " from its left neighbour");
            if (r == 0) {
              assertEquals(1 + 2 + 3 + 4, win.memory().readLong(8), "sum accumulated at rank 0");
            }
            return null;
          })
          .compose(v -> win.free());
    }));
    assertTrue(job.lastJobName().startsWith("RmaTestExtensionTest.valueCheckedRmaProgramPasses-1-"),
        job.lastJobName());
    assertEquals(0, WindowMemory.live());
  }

  @RmaTest(ranks = 3)
  void programClassRunsEmbeddedWithItsArguments(RmaJob job) {
    job.run(RingProgram.class);
    RmaException e = assertThrows(RmaException.class, () -> job.run(RingProgram.class, "fail"));
    assertEquals(ErrorClass.RMA_RANGE, e.errorClass(), e.toString());
    assertEquals("RMA_RANGE: " + RingProgram.FAILURE, e.getMessage());
  }

  @RmaTest(ranks = 4)
  void eachRunIsANewJob(RmaJob job) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      job.run((world, args) -> world.barrier());
      names.add(job.lastJobName());
    }
    assertTrue(!names.get(0).equals(names.get(1)), names.toString());
    assertTrue(!job.newOptions().getSecret().equals(job.newOptions().getSecret()), "a fresh secret per job");
  }

  @Test
  void aFailingRankFailsTheTestWithItsError() {
    Throwable t = failureOf(RmaTestFixtures.FailingRank.class);
    RmaException e = assertInstanceOf(RmaException.class, t);
    assertEquals(ErrorClass.RMA_RANGE, e.errorClass(), e.toString());
    assertEquals("RMA_RANGE: " + RmaTestFixtures.FailingRank.MESSAGE, e.getMessage());
  }

  @Test
  void aRankFailingAnAssertionFailsTheTestWithIt() {
    RmaException e = assertInstanceOf(RmaException.class, failureOf(RmaTestFixtures.FailingAssertion.class));
    assertEquals(ErrorClass.OTHER, e.errorClass(), e.toString());
    assertInstanceOf(AssertionError.class, e.getCause());
    assertTrue(e.getMessage().contains("rank 1 is not welcome"), e.getMessage());
  }

  /** A rank that ends with a window it never freed fails the test, naming itself and the window. */
  @Test
  void aWindowNeverFreedFailsTheTest() {
    RmaException e = assertInstanceOf(RmaException.class, failureOf(RmaTestFixtures.LeakingWindow.class));
    assertEquals(ErrorClass.WIN, e.errorClass(), e.toString());
    assertTrue(Pattern.matches("WIN: rank [01] of job RmaTestFixtures_LeakingWindow.leaking-1-\\w+ finalized with "
        + "1 window not freed: 'leaked' \\(id \\d+, ALLOCATE flavor\\)", e.getMessage()), e.getMessage());
    assertEquals(0, WindowMemory.live(), "the leaked windows were still released");
  }

  @Test
  void everyWindowFreedPasses() {
    assertEquals(null, failureOf(RmaTestFixtures.FreeingWindows.class));
  }

  @RmaTest(ranks = 2, requireFreedWindows = false)
  void theWindowCheckCanBeTurnedOff(RmaJob job) {
    assertTrue(!job.newOptions().isRequireFreedWindows());
    job.run(RingProgram.class, "leak");
    assertEquals(0, WindowMemory.live());
  }

  /** MPI_Finalize through World.close() checks the windows too. */
  @RmaTest(ranks = 2)
  void aWorldClosedWithAWindowNotFreedFails(RmaJob job) {
    Vertx vertx = Jobs.embedded();
    World world = Jobs.await(Rma.world(vertx, job.newOptions()), 60);
    Jobs.await(io.vertx.core.Future.join(Win.allocate(world.rank(0), 8, 8, Info.NULL),
        Win.allocate(world.rank(1), 8, 8, Info.NULL)), 60);
    RuntimeException e = assertThrows(RuntimeException.class, () -> Jobs.await(world.close(), 60));
    assertTrue(e.getMessage().startsWith("WIN: rank "), e.getMessage());
    assertTrue(e.getMessage().contains("finalized with 1 window not freed"), e.getMessage());
  }

  @RmaTest(ranks = 2, jvms = 2)
  void aLambdaCannotGoToOtherJvms(RmaJob job) {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> job.run((world, args) -> world.barrier()));
    assertTrue(e.getMessage().contains("job.run(YourProgram.class, args...)"), e.getMessage());
  }

  @RmaTest(ranks = 3, clustered = true)
  void clusteredNodesInThisJvm(RmaJob job) {
    job.run(RingProgram.class);
  }

  @Tag("multijvm")
  @RmaTest(ranks = 4, jvms = 2, timeoutSeconds = 300)
  void acrossTwoJvms(RmaJob job) {
    job.run(MultiJvmProgram.class);
    job.run(RingProgram.class);
    RmaException failed = assertThrows(RmaException.class, () -> job.run(MultiJvmProgram.class, "fail"));
    assertEquals(ErrorClass.OTHER, failed.errorClass(), failed.toString());
    assertEquals("OTHER: " + MultiJvmProgram.FAILURE, failed.getMessage());
    RmaException leaked = assertThrows(RmaException.class, () -> job.run(RingProgram.class, "leak"));
    assertEquals(ErrorClass.WIN, leaked.errorClass(), leaked.toString());
    assertTrue(leaked.getMessage().contains("finalized with 1 window not freed: 'leaked'"), leaked.getMessage());
  }

  /** Runs the test class {@code fixture} with the JUnit launcher: its one test's failure, or {@code null}. */
  private static Throwable failureOf(Class<?> fixture) {
    List<TestExecutionResult> results = new ArrayList<>();
    LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(fixture)).build(),
        new TestExecutionListener() {
          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (id.isTest()) {
              results.add(result);
            }
          }
        });
    assertEquals(1, results.size(), "tests run in " + fixture.getName());
    return results.get(0).getThrowable().orElse(null);
  }
}
