package dev.vertxrma.impl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link RankFuture}: loops of calls in constant stack and memory, and the Vert.x behaviour it
 * relies on (Vert.x's operators accept it as their mapper's future).
 */
@ExtendWith(VertxExtension.class)
class RankFutureTest {

  private static <T> RankFuture<T> done(Context ctx, T value) {
    RankFuture<T> f = RankFuture.promise(ctx);
    f.complete(value);
    return f;
  }

  /** {@code step(i).compose(v -> loop(i + 1))}: the loop a user writes. */
  private static Future<Void> loop(int i, int n, IntFunction<Future<?>> step) {
    return i == n ? Future.succeededFuture() : step.apply(i).compose(v -> loop(i + 1, n, step));
  }

  @Test
  void aRecursiveLoopOfCompletedFuturesRunsInConstantStack(Vertx vertx, VertxTestContext test) {
    Context ctx = vertx.getOrCreateContext();
    AtomicInteger steps = new AtomicInteger();
    ctx.runOnContext(v -> loop(0, 2_000_000, i -> {
      steps.incrementAndGet();
      return done(ctx, i);
    }).onComplete(test.succeeding(x -> test.verify(() -> {
      assertEquals(2_000_000, steps.get());
      test.completeNow();
    }))));
  }

  @Test
  void aRecursiveLoopOfLaterCompletingFuturesEndsWithoutAChainOfCompletions(Vertx vertx, VertxTestContext test) {
    Context ctx = vertx.getOrCreateContext();
    AtomicInteger steps = new AtomicInteger();
    // every step completes in a later task: a plain Vert.x chain would complete 300,000 futures
    // one inside the other at the end and overflow the stack
    ctx.runOnContext(v -> loop(0, 300_000, i -> {
      steps.incrementAndGet();
      RankFuture<Integer> f = RankFuture.promise(ctx);
      ctx.runOnContext(x -> f.complete(i));
      return f;
    }).onComplete(test.succeeding(x -> test.verify(() -> {
      assertEquals(300_000, steps.get());
      test.completeNow();
    }))));
  }

  /** The deepest stack a loop of {@code n} completed steps reaches, in frames. */
  private static Future<Integer> deepestStack(Context ctx, int n) {
    int[] deepest = {0};
    return loop(0, n, i -> {
      deepest[0] = Math.max(deepest[0], Thread.currentThread().getStackTrace().length);
      return done(ctx, i);
    }).map(v -> deepest[0]);
  }

  @Test
  void theStackALoopReachesDoesNotGrowWithItsLength(Vertx vertx, VertxTestContext test) {
    Context ctx = vertx.getOrCreateContext();
    ctx.runOnContext(v -> {
      Future<Void> f = loop(0, 10 * ListenerDepth.MAX_DEPTH, i -> done(ctx, i));
      assertFalse(f.isComplete(), "the loop went past the depth bound without yielding");
      f.compose(x -> deepestStack(ctx, 4 * ListenerDepth.MAX_DEPTH))
          .compose(shortLoop -> deepestStack(ctx, 100 * ListenerDepth.MAX_DEPTH).map(longLoop -> {
            assertEquals(shortLoop, longLoop, "frames at the deepest point of a short and a 25 times longer loop");
            return null;
          })).onComplete(test.succeedingThenComplete());
    });
  }

  @Test
  void vertxOperatorsAcceptARankFutureFromTheirMapper(Vertx vertx, VertxTestContext test) {
    Context ctx = vertx.getOrCreateContext();
    ctx.runOnContext(v -> {
      Promise<String> plain = Promise.promise();
      RankFuture<Integer> later = RankFuture.promise(ctx);
      Future<Integer> composed = plain.future().compose(s -> later);
      Future<Integer> transformed = plain.future().transform(ar -> later.map(n -> n + 1));
      Future<Void> all = Future.all(later, composed, transformed).mapEmpty();
      plain.complete("go");
      ctx.runOnContext(x -> later.complete(41));
      all.onComplete(test.succeeding(x -> test.verify(() -> {
        assertEquals(41, composed.result());
        assertEquals(42, transformed.result());
        test.completeNow();
      })));
    });
  }

  /**
   * A pending future a mapper returns, with listeners of its own (a call's trace, its error
   * handler), runs those before the listeners of the future the chain returned, as a Vert.x chain
   * does: the chain's future completes from a listener added after them. Merged into the chain's
   * future, they once ran after the chain's own, so a trace saw a fence end after the next call.
   */
  @Test
  void aReturnedFuturesOwnListenersRunBeforeTheChainsListeners(Vertx vertx, VertxTestContext test) {
    Context ctx = vertx.getOrCreateContext();
    ctx.runOnContext(v -> {
      List<String> order = new ArrayList<>();
      RankFuture<String> start = RankFuture.promise(ctx);
      List<RankFuture<String>> made = new ArrayList<>();
      Future<String> chain = start.compose(x -> {
        RankFuture<String> call = RankFuture.promise(ctx);
        call.onComplete(ar -> order.add("the call's own"));
        call.addTailListener((s, e) -> order.add("the call's tail"));
        made.add(call);
        return call;
      });
      chain.onComplete(ar -> order.add("the chain's"));
      start.complete("go");
      made.get(0).onComplete(ar -> order.add("added to the call later"));
      made.get(0).complete("done");
      test.verify(() -> {
        assertEquals("done", chain.result());
        assertEquals(List.of("the call's own", "the chain's", "added to the call later", "the call's tail"), order);
      });
      test.completeNow();
    });
  }

  @Test
  void aPendingFutureReturnedByTwoMappersCompletesBoth(Vertx vertx, VertxTestContext test) {
    Context ctx = vertx.getOrCreateContext();
    ctx.runOnContext(v -> {
      RankFuture<String> shared = RankFuture.promise(ctx);
      Future<String> a = done(ctx, 1).compose(x -> shared);
      Future<String> b = done(ctx, 2).compose(x -> shared).map(s -> s + "!");
      List<String> seen = new ArrayList<>();
      shared.onSuccess(seen::add);
      a.onSuccess(seen::add);
      assertFalse(a.isComplete());
      assertFalse(shared.isComplete());
      shared.complete("x");
      Future.all(a, b).onComplete(test.succeeding(x -> test.verify(() -> {
        assertEquals("x", shared.result());
        assertEquals("x", a.result());
        assertEquals("x!", b.result());
        assertEquals(List.of("x", "x"), seen);
        test.completeNow();
      })));
    });
  }

  @Test
  void failuresFlowThroughEveryOperator(Vertx vertx, VertxTestContext test) {
    Context ctx = vertx.getOrCreateContext();
    ctx.runOnContext(v -> {
      RuntimeException boom = new IllegalStateException("boom");
      RankFuture<Integer> failed = RankFuture.promise(ctx);
      failed.fail(boom);
      Future<Integer> recovered = failed.compose(x -> done(ctx, 1), e -> done(ctx, 2));
      Future<Integer> otherwise = failed.otherwise(e -> 3);
      Future<Integer> fixed = failed.otherwise(4);
      AtomicInteger cleanups = new AtomicInteger();
      Future<Integer> eventually = failed.eventually(() -> {
        cleanups.incrementAndGet();
        return Future.succeededFuture();
      });
      Future<Integer> mapped = failed.map(x -> x + 1);
      Future<Integer> thrown = done(ctx, 1).map(x -> {
        throw boom;
      });
      Future.join(recovered, otherwise, fixed, eventually, mapped, thrown).onComplete(x -> test.verify(() -> {
        assertEquals(2, recovered.result());
        assertEquals(3, otherwise.result());
        assertEquals(4, fixed.result());
        assertSame(boom, eventually.cause());
        assertEquals(1, cleanups.get());
        assertSame(boom, mapped.cause());
        assertSame(boom, thrown.cause());
        test.completeNow();
      }));
    });
  }

  @Test
  void listenersRunOnTheFutureContextWhenCompletedFromAnotherThread(Vertx vertx, VertxTestContext test) {
    Context ctx = vertx.getOrCreateContext();
    RankFuture<Integer> f = RankFuture.promise(ctx);
    f.onComplete(test.succeeding(n -> test.verify(() -> {
      assertSame(ctx, Vertx.currentContext());
      assertEquals(7, n);
      test.completeNow();
    })));
    new Thread(() -> f.complete(7)).start();
  }

  @Test
  void aListenerThatThrowsIsReportedToTheContext(Vertx vertx, VertxTestContext test) {
    Context ctx = vertx.getOrCreateContext();
    ctx.exceptionHandler(t -> test.verify(() -> {
      assertEquals("thrown in a listener", t.getMessage());
      test.completeNow();
    }));
    ctx.runOnContext(v -> done(ctx, 1).onSuccess(x -> {
      throw new AssertionError("thrown in a listener");
    }));
  }

  @Test
  void timeoutFailsAFutureThatDoesNotComplete(Vertx vertx, VertxTestContext test) {
    Context ctx = vertx.getOrCreateContext();
    ctx.runOnContext(v -> RankFuture.<Integer>promise(ctx).timeout(20, TimeUnit.MILLISECONDS)
        .onComplete(test.failing(e -> test.verify(() -> {
          assertTrue(e instanceof TimeoutException, e.toString());
          test.completeNow();
        }))));
  }

  @Test
  void ofAdoptsAPlainFuture(Vertx vertx, VertxTestContext test) {
    Context ctx = vertx.getOrCreateContext();
    Promise<String> plain = Promise.promise();
    Future<String> f = RankFuture.of(ctx, plain.future());
    assertTrue(f instanceof RankFuture);
    assertSame(f, RankFuture.of(ctx, f));
    f.onComplete(test.succeeding(s -> test.verify(() -> {
      assertEquals("v", s);
      test.completeNow();
    })));
    plain.complete("v");
  }
}
