package dev.vertxrma.samples;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The samples' loops over asynchronous bodies: counted loops and the MPI spin-wait
 * ({@code do ... while}) as futures.
 *
 * <p>Each iteration runs as a new task of the caller's event loop ({@code runOnContext}), started
 * when the previous one has completed, and the loop completes a single promise. A loop written as
 * recursive {@code compose} would nest one future per iteration; thousands of iterations (a spin
 * on a lock, a long iteration) then overflow the stack when the innermost one completes. A new
 * task per iteration also lets the rank's other tasks (the passive-target operations the other
 * ranks aim at it) run between two polls. The first failure, or exception thrown by the body,
 * ends the loop and fails its future.
 */
final class Spin {

  private Spin() {
  }

  /** Runs {@code body(0)}, ..., {@code body(n-1)} one after the other. */
  static Future<Void> times(int n, IntFunction<Future<Void>> body) {
    int[] i = {0};
    return until(() -> {
      if (i[0] >= n) {
        return Future.succeededFuture(true);
      }
      return body.apply(i[0]++).map(v -> false);
    });
  }

  /**
   * Runs {@code step} until it completes with {@code true}: the MPI spin
   * ({@code do { op; flush } while (!condition)}) as a future. Must be called on the rank's
   * event loop (a Vert.x context).
   */
  static Future<Void> until(Supplier<Future<Boolean>> step) {
    Context ctx = Vertx.currentContext();
    if (ctx == null) {
      throw new RmaException(ErrorClass.OTHER, "Spin must be called on the rank's event loop (a Vert.x context)");
    }
    Promise<Void> done = Promise.promise();
    next(ctx, step, done);
    return done.future();
  }

  private static void next(Context ctx, Supplier<Future<Boolean>> step, Promise<Void> done) {
    ctx.runOnContext(v -> {
      Future<Boolean> f;
      try {
        f = step.get();
      } catch (RuntimeException e) {
        done.fail(e);
        return;
      }
      f.onComplete(ar -> {
        if (ar.failed()) {
          done.fail(ar.cause());
        } else if (Boolean.TRUE.equals(ar.result())) {
          done.complete();
        } else {
          next(ctx, step, done);
        }
      });
    });
  }
}
