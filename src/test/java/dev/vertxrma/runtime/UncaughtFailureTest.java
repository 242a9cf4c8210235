package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Nothing a rank dies of is swallowed: an {@code Error} thrown in a callback on the rank's
 * context, or a stack overflow while a long chain of futures completes, fails the rank's program
 * by name and the job with it, instead of being logged while every rank waits forever.
 */
class UncaughtFailureTest {

  /** One asynchronous step: completes in a later task of the caller's context. */
  private static Future<Void> step() {
    Promise<Void> p = Promise.promise();
    Vertx.currentContext().runOnContext(v -> p.complete());
    return p.future();
  }

  /** The loop a new user writes: recursive compose, one nested future per iteration. */
  private static Future<Void> recursive(int i, int n) {
    return i == n ? Future.succeededFuture() : step().compose(v -> recursive(i + 1, n));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  @BlockedThreadGuard.HoldsEventLoopOnPurpose("the rank program's 300,000-deep chain of futures completes in one task "
      + "until the stack overflows, and Vert.x fails each level of it in turn: the program's own time on its loop")
  void aStackOverflowWhileAChainOfFuturesCompletesFailsTheJobByName(Jobs.Mode mode) {
    Throwable t = Jobs.runExpectingFailure(mode, Jobs.options(2), (world, args) ->
        world.rank() == 0 ? recursive(0, 300_000) : world.barrier());
    assertNotNull(t, "the job succeeded");
    assertTrue(String.valueOf(t.getMessage()).contains("rank 0 failed: java.lang.StackOverflowError"),
        "the failure names the rank and the error: " + t);
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void anErrorThrownInACallbackFailsTheJobByName(Jobs.Mode mode) {
    Throwable t = Jobs.runExpectingFailure(mode, Jobs.options(2), (world, args) -> {
      if (world.rank() == 1) {
        return world.barrier();
      }
      world.barrier().onSuccess(v -> {
        throw new AssertionError("checked inside a callback");
      });
      return Promise.promise().future(); // never completes: only the thrown error can end this rank
    });
    assertNotNull(t, "the job succeeded");
    assertTrue(String.valueOf(t.getMessage()).contains("rank 0 failed: java.lang.AssertionError: checked inside a callback"),
        "the failure names the rank and the error: " + t);
  }
}
