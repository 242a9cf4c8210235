package dev.vertxrma.impl.runtime;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.function.Supplier;

/**
 * A loop of asynchronous calls that runs in constant stack and never monopolizes an event loop:
 * the engine behind {@code Rma.repeat} and {@code Rma.repeatUntil}.
 *
 * <p>A step whose future is already complete is followed by the next step in the same loop
 * frame (no nesting, no event-loop hop: the same-JVM fast path stays fast); a step that completes
 * later resumes the loop from its completion callback. After {@value #MAX_SYNC_STEPS} steps in a
 * row without leaving the thread, or {@value #MAX_SYNC_MICROS} µs (steps that each take long, such
 * as copies of megabytes, or loops nested in one another), the loop continues as a new task of the
 * caller's context, so
 * other tasks of that event loop (the passive-target operations other ranks aim at this rank,
 * timers, the blocked-thread checker's idea of progress) run in between.
 */
public final class CallLoop {

  /** Steps run back to back on one thread before the loop yields to its context. */
  static final int MAX_SYNC_STEPS = 64;
  /** Time the steps run back to back on one thread may take before the loop yields to its context. */
  static final long MAX_SYNC_MICROS = 2_000;

  private final Supplier<Future<Boolean>> step;
  private final Context context;
  private final Promise<Void> done = Promise.promise();

  private CallLoop(Supplier<Future<Boolean>> step, Context context) {
    this.step = step;
    this.context = context;
  }

  /** Runs {@code step} until its future completes with {@code true}, or fails. */
  public static Future<Void> until(Supplier<Future<Boolean>> step) {
    CallLoop loop = new CallLoop(step, Vertx.currentContext());
    loop.drive();
    return loop.done.future();
  }

  private void drive() {
    long until = System.nanoTime() + MAX_SYNC_MICROS * 1_000;
    while (true) {
      for (int n = 0; n < MAX_SYNC_STEPS && (n == 0 || System.nanoTime() - until < 0); n++) {
        Future<Boolean> f;
        try {
          f = step.get();
        } catch (RuntimeException e) {
          done.fail(e);
          return;
        }
        if (f == null) {
          done.fail(new NullPointerException("a loop step returned null instead of a future"));
          return;
        }
        if (!f.isComplete()) {
          f.onComplete(ar -> {
            if (!resolved(ar.failed(), ar.cause(), ar.result())) {
              drive();
            }
          });
          return;
        }
        if (resolved(f.failed(), f.cause(), f.result())) {
          return;
        }
      }
      if (context != null) {
        context.runOnContext(v -> drive());
        return;
      }
      // not on a Vert.x thread: no context to yield to and no event loop to hold up; keep looping
    }
  }

  /** Completes the loop when the step failed or said stop; true when the loop is over. */
  private boolean resolved(boolean failed, Throwable cause, Boolean stop) {
    if (failed) {
      done.fail(cause);
      return true;
    }
    if (Boolean.TRUE.equals(stop)) {
      done.complete();
      return true;
    }
    return false;
  }
}
