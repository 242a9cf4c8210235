package dev.vertxrma.impl.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.observe.RankObserver;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A synchronization the tracker completes itself ({@link CompletionTracker#awaitReporting}): it
 * completes once every operation it covers has, in any order, failed with the first error among
 * them, which is then reported by no later synchronization; one that ended first (its deadline
 * failed it) takes no error, so the next synchronization reports it.
 */
@ExtendWith(VertxExtension.class)
class CompletionTrackerTest {

  private static final RmaException RANGE = new RmaException(ErrorClass.RMA_RANGE, "outside the window at rank 1");

  @Test
  void aReportingWaitCompletesWithTheFirstErrorOfWhatItCoversOnce(Vertx vertx, VertxTestContext test) {
    ContextInternal ctx = (ContextInternal) vertx.getOrCreateContext();
    ctx.runOnContext(v -> test.verify(() -> {
      CompletionTracker t = new CompletionTracker(ctx, 2, RankObserver.NOOP, 0);
      long a = t.issue(1);
      long b = t.issue(1);
      Promise<Void> flush = Promise.promise();
      t.awaitReporting(t.snapshot(1), flush);
      long later = t.issue(1); // issued after the flush: not covered
      t.complete(1, b, RANGE); // out of order
      assertFalse(flush.future().isComplete(), "completed before operation " + a);
      t.complete(1, a, null);
      assertTrue(flush.future().failed());
      assertSame(RANGE, flush.future().cause());
      assertTrue(t.reportErrors(t.snapshot(1)).succeeded(), "the error was reported twice");
      t.complete(1, later, null);
      Promise<Void> done = Promise.promise();
      t.awaitReporting(t.snapshot(1), done);
      assertTrue(done.future().succeeded(), "a wait for what is complete completes at once");
      test.completeNow();
    }));
  }

  @Test
  void aWaitThatEndedFirstLeavesItsErrorsToTheNextSynchronization(Vertx vertx, VertxTestContext test) {
    ContextInternal ctx = (ContextInternal) vertx.getOrCreateContext();
    ctx.runOnContext(v -> test.verify(() -> {
      CompletionTracker t = new CompletionTracker(ctx, 2, RankObserver.NOOP, 0);
      long a = t.issue(1);
      Promise<Void> flush = Promise.promise();
      long[] covered = t.snapshot(1);
      t.awaitReporting(covered, flush);
      RmaException timeout = new RmaException(ErrorClass.TIMEOUT, "flush of rank 1 did not complete");
      flush.fail(timeout); // its deadline
      t.complete(1, a, RANGE);
      assertSame(timeout, flush.future().cause());
      Future<Void> next = t.reportErrors(covered);
      assertTrue(next.failed(), "the failure of the operation was lost with the flush that timed out");
      assertEquals(ErrorClass.RMA_RANGE, ((RmaException) next.cause()).errorClass());
      test.completeNow();
    }));
  }
}
