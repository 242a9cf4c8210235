package dev.vertxrma.samples;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The samples' loops over asynchronous bodies: counted loops ({@link Rma#repeat}) and the MPI
 * spin-wait ({@code do ... while}) as futures.
 *
 * <p>Each poll of a spin runs as a new task of the caller's event loop ({@code runOnContext}),
 * started when the previous one has completed, so the rank's other tasks (the passive-target
 * operations the other ranks aim at it) run between two polls; after
 * {@value #POLLS_BEFORE_BACKOFF} polls in a row it backs off to one poll per millisecond. The
 * first failure, or exception thrown by the body, ends the loop and fails its future.
 */
final class Spin {

  private Spin() {
  }

  /** Runs {@code body(0)}, ..., {@code body(n-1)} one after the other, in constant stack. */
  static Future<Void> times(int n, IntFunction<Future<Void>> body) {
    return Rma.repeat(n, body);
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
    next(ctx, step, done, 0);
    return done.future();
  }

  /**
   * Polls that run back to back before the spin backs off to one poll per millisecond. A
   * waiting rank that polls flat out takes a core from the rank it waits for whenever ranks
   * outnumber cores (4 ranks in 2 JVMs on 2 cores: an MCS hand-over then took minutes instead of
   * milliseconds); MPICH yields in its progress loop for the same reason
   * ({@code MPIR_CVAR_POLLS_BEFORE_YIELD}).
   */
  static final int POLLS_BEFORE_BACKOFF = 256;

  private static void next(Context ctx, Supplier<Future<Boolean>> step, Promise<Void> done, int polls) {
    if (polls < POLLS_BEFORE_BACKOFF) {
      ctx.runOnContext(v -> poll(ctx, step, done, polls));
    } else {
      ctx.owner().setTimer(1, t -> poll(ctx, step, done, polls));
    }
  }

  private static void poll(Context ctx, Supplier<Future<Boolean>> step, Promise<Void> done, int polls) {
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
        next(ctx, step, done, polls + 1);
      }
    });
  }
}
