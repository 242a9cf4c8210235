package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link Rma#repeat} and {@link Rma#repeatUntil}: constant stack, yielding, failures. */
@ExtendWith(VertxExtension.class)
class RepeatTest {

  @Test
  void aMillionCallsThatCompleteAtOnceRunInConstantStack(Vertx vertx, VertxTestContext ctx) {
    AtomicInteger sum = new AtomicInteger();
    vertx.runOnContext(v -> Rma.repeat(1_000_000, i -> {
      sum.addAndGet(1);
      return Future.succeededFuture();
    }).onComplete(ctx.succeeding(x -> ctx.verify(() -> {
      assertEquals(1_000_000, sum.get());
      ctx.completeNow();
    }))));
  }

  @Test
  void callsThatCompleteLaterAndAtOnceMix(Vertx vertx, VertxTestContext ctx) {
    long[] seen = new long[1];
    vertx.runOnContext(v -> Rma.repeat(2_000, i -> {
      seen[0] += i;
      return i % 3 == 0 ? vertx.timer(1).mapEmpty() : Future.succeededFuture();
    }).onComplete(ctx.succeeding(x -> ctx.verify(() -> {
      assertEquals(1_999L * 2_000 / 2, seen[0]);
      ctx.completeNow();
    }))));
  }

  @Test
  void theLoopYieldsSoOtherTasksOfTheEventLoopRun(Vertx vertx, VertxTestContext ctx) {
    AtomicBoolean otherTaskRan = new AtomicBoolean();
    vertx.runOnContext(v -> {
      vertx.getOrCreateContext().runOnContext(x -> otherTaskRan.set(true));
      // spins on an already-complete poll until the other task of this event loop has run
      Rma.repeatUntil(() -> Future.succeededFuture(otherTaskRan.get())).onComplete(ctx.succeedingThenComplete());
    });
  }

  @Test
  void theFirstFailureEndsTheLoop(Vertx vertx, VertxTestContext ctx) {
    AtomicInteger runs = new AtomicInteger();
    vertx.runOnContext(v -> Rma.repeat(100, i -> {
      runs.incrementAndGet();
      return i == 41 ? Future.failedFuture(new RmaException(ErrorClass.RMA_SYNC, "iteration 41")) : Future.succeededFuture();
    }).onComplete(ctx.failing(e -> ctx.verify(() -> {
      assertTrue(e.getMessage().endsWith("iteration 41"), e.getMessage());
      assertEquals(42, runs.get());
      ctx.completeNow();
    }))));
  }

  @Test
  void anExceptionThrownByTheBodyFailsTheLoop(Vertx vertx, VertxTestContext ctx) {
    Promise<Void> later = Promise.promise();
    vertx.runOnContext(v -> Rma.repeat(10, i -> {
      if (i == 3) {
        throw new IllegalStateException("thrown at 3");
      }
      return i == 1 ? later.future() : Future.succeededFuture();
    }).onComplete(ctx.failing(e -> ctx.verify(() -> {
      assertTrue(e instanceof IllegalStateException);
      assertEquals("thrown at 3", e.getMessage());
      ctx.completeNow();
    }))));
    vertx.setTimer(5, t -> later.complete());
  }

  @Test
  void aNegativeCountIsACountError() {
    Future<Void> f = Rma.repeat(-1, i -> Future.succeededFuture());
    assertTrue(f.failed());
    assertEquals(ErrorClass.COUNT, ((RmaException) f.cause()).errorClass());
  }

  @Test
  void offAnEventLoopTheLoopRunsToo() {
    AtomicInteger n = new AtomicInteger();
    Future<Void> f = Rma.repeat(100_000, i -> Future.succeededFuture(n.incrementAndGet()));
    assertTrue(f.succeeded());
    assertEquals(100_000, n.get());
  }

  /** The loop of docs/concepts.md ("Loops of calls"): put + flush, many times over, under lockAll; every value checked at the end. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aLongLoopOfPutAndFlush(Jobs.Mode mode) {
    int n = mode == Jobs.Mode.EMBEDDED ? 200_000 : 20_000;
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 16, 8, Info.NULL).compose(win -> {
          if (world.rank() == 1) {
            return world.barrier().map(v -> {
              assertEquals(n - 1L, win.memory().readLong(0), "the last value put");
              assertEquals((long) n, win.memory().readLong(8), "one accumulate per iteration");
              return null;
            }).compose(v -> win.free());
          }
          long[] value = new long[1];
          long[] one = {1};
          return win.lockAll().compose(v -> Rma.repeat(n, i -> {
            value[0] = i;
            return win.put(Buf.of(value), 0, 1, Datatype.LONG, 1, 0)
                .compose(x -> win.accumulate(Buf.of(one), 0, 1, Datatype.LONG, 1, 1, Op.SUM))
                .compose(x -> win.flush(1));
          })).compose(v -> win.unlockAll()).compose(v -> world.barrier()).compose(v -> win.free());
        }));
  }
}
