package dev.vertxrma.impl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A rank's wait deadlines: a wait that does not end fails with TIMEOUT after its time (not
 * before), a wait that ends in time keeps its result, waits that ended are not kept behind a long
 * one, and waits begun after an expiry are timed again.
 */
@ExtendWith(VertxExtension.class)
class WaitDeadlinesTest {

  private static final long MS = 80;

  /*
   * ENDS_IN_TIME: a wait that ends in time ends in a task put on the rank's event loop right after
   * the wait began, not in a timer of MS / 4 ms: that timer was armed after the deadline's and
   * raced it (a test thread preempted for more than 60 ms between the two, as happens on 2 loaded
   * cores, made the deadline's timer due first: the wait failed with TIMEOUT, seen with a 70 ms
   * spin put there). The task is in the loop's queue before the deadline's timer can be due, and a
   * due timer runs after the tasks already queued, so the wait ends first whatever the load. The
   * other bounds here are lower ones (a wait does not fail before its MS ms), which load cannot break.
   */

  @Test
  void aWaitThatDoesNotEndFailsWithTimeoutAfterItsTimeAndOneThatEndsKeepsItsResult(Vertx vertx,
      VertxTestContext test) {
    ContextInternal ctx = (ContextInternal) vertx.getOrCreateContext();
    ctx.runOnContext(v -> {
      WaitDeadlines deadlines = new WaitDeadlines(ctx, 3, MS);
      long start = System.nanoTime();
      Promise<String> ends = Promise.promise();
      Future<String> kept = deadlines.bound(ends.future(), "lock on rank 1");
      Future<Void> never = deadlines.bound(Promise.<Void>promise().future(), "fence");
      ctx.runOnContext(x -> ends.complete("granted")); // ENDS_IN_TIME
      Future.join(kept, never).onComplete(ar -> test.verify(() -> {
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals("granted", kept.result());
        assertTrue(never.failed());
        RmaException e = (RmaException) never.cause();
        assertEquals(ErrorClass.TIMEOUT, e.errorClass());
        assertEquals("TIMEOUT: fence at rank 3 did not complete within " + MS + " ms (JobOptions.waitTimeoutMs)",
            e.getMessage());
        assertTrue(elapsedMs >= MS - 1, "failed after " + elapsedMs + " ms");
        assertEquals(0, deadlines.queued(), "nothing left queued");
        test.completeNow();
      }));
    });
  }

  @Test
  void aWaitNamedLazilyIsNamedOnlyWhenItExpires(Vertx vertx, VertxTestContext test) {
    ContextInternal ctx = (ContextInternal) vertx.getOrCreateContext();
    ctx.runOnContext(v -> {
      WaitDeadlines deadlines = new WaitDeadlines(ctx, 2, MS);
      int[] named = new int[2];
      Promise<Void> ends = Promise.promise();
      Future<Void> kept = deadlines.bound(ends.future(), () -> {
        named[0]++;
        return "flush of rank 0";
      });
      ends.complete();
      Future<Void> never = deadlines.bound(Promise.<Void>promise().future(), () -> {
        named[1]++;
        return "flush of rank 1";
      });
      never.onComplete(ar -> test.verify(() -> {
        assertTrue(kept.succeeded());
        assertEquals(0, named[0], "a wait that ended is never named");
        assertEquals(1, named[1], "a wait that expired is named once");
        assertEquals("TIMEOUT: flush of rank 1 at rank 2 did not complete within " + MS
            + " ms (JobOptions.waitTimeoutMs)", ar.cause().getMessage());
        test.completeNow();
      }));
    });
  }

  /** A deadline on a promise its caller completes itself: failed with TIMEOUT if open then, untouched if it ended. */
  @Test
  void aPromiseWithADeadlineFailsAtItUnlessItEndedFirst(Vertx vertx, VertxTestContext test) {
    ContextInternal ctx = (ContextInternal) vertx.getOrCreateContext();
    ctx.runOnContext(v -> {
      WaitDeadlines deadlines = new WaitDeadlines(ctx, 4, MS);
      long start = System.nanoTime();
      Promise<Void> ends = Promise.promise();
      Promise<Void> never = Promise.promise();
      deadlines.failAtDeadline(ends, () -> "flush of rank 0");
      deadlines.failAtDeadline(never, () -> "flush of rank 5");
      ctx.runOnContext(x -> ends.complete()); // ENDS_IN_TIME
      never.future().onComplete(ar -> test.verify(() -> {
        assertTrue(ends.future().succeeded(), "the promise that ended in time: " + ends.future().cause());
        assertEquals("TIMEOUT: flush of rank 5 at rank 4 did not complete within " + MS
            + " ms (JobOptions.waitTimeoutMs)", ar.cause().getMessage());
        assertTrue((System.nanoTime() - start) / 1_000_000 >= MS - 1, "failed before its time");
        test.completeNow();
      }));
    });
  }

  @Test
  void waitsThatEndedAreNotKeptBehindALongOneAndLaterWaitsAreTimedAgain(Vertx vertx, VertxTestContext test) {
    ContextInternal ctx = (ContextInternal) vertx.getOrCreateContext();
    ctx.runOnContext(v -> {
      WaitDeadlines deadlines = new WaitDeadlines(ctx, 0, MS);
      Future<Void> head = deadlines.bound(Promise.<Void>promise().future(), "start (waiting for posts)");
      List<Future<Integer>> quick = new ArrayList<>();
      int most = 0;
      for (int i = 0; i < 10_000; i++) {
        Promise<Integer> p = Promise.promise();
        quick.add(deadlines.bound(p.future(), "flush"));
        p.complete(i);
        most = Math.max(most, deadlines.queued());
      }
      int mostQueued = most;
      head.onComplete(ar -> test.verify(() -> {
        assertTrue(ar.failed(), "the long wait timed out");
        for (int i = 0; i < quick.size(); i++) {
          assertEquals(i, quick.get(i).result());
        }
        assertTrue(mostQueued <= 130, "at most " + mostQueued + " waits queued at once");
        // after the expiry, a new wait is timed again
        long start = System.nanoTime();
        deadlines.bound(Promise.<Void>promise().future(), "barrier").onComplete(late -> test.verify(() -> {
          assertFalse(late.succeeded());
          assertEquals(ErrorClass.TIMEOUT, ((RmaException) late.cause()).errorClass());
          assertTrue((System.nanoTime() - start) / 1_000_000 >= MS - 1);
          test.completeNow();
        }));
      }));
    });
  }

  @Test
  void aCallbackWaitRunsItsExpiryOnceUnlessItEndedFirst(Vertx vertx, VertxTestContext test) {
    ContextInternal ctx = (ContextInternal) vertx.getOrCreateContext();
    ctx.runOnContext(v -> {
      WaitDeadlines deadlines = new WaitDeadlines(ctx, 1, MS);
      boolean[] matched = {false};
      int[] expiries = {0, 0};
      long start = System.nanoTime();
      deadlines.atDeadline(() -> matched[0], () -> expiries[0]++); // a receive matched in time
      deadlines.atDeadline(() -> false, () -> {                    // one that never is
        expiries[1]++;
        test.verify(() -> {
          assertTrue((System.nanoTime() - start) / 1_000_000 >= MS - 1);
          assertEquals(0, expiries[0], "the matched receive's expiry did not run");
          assertEquals(1, expiries[1]);
        });
        vertx.setTimer(MS, id -> test.verify(() -> {
          assertEquals(1, expiries[1], "run once");
          assertEquals(0, deadlines.queued());
          test.completeNow();
        }));
      });
      ctx.runOnContext(x -> matched[0] = true); // ENDS_IN_TIME
    });
  }
}
