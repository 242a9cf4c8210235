package dev.vertxrma.samples;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The samples' loops over asynchronous bodies: counted loops ({@link Rma#repeat}) and the MPI
 * spin-wait ({@code do ... while}) as futures.
 *
 * <p>Both run in constant stack and let the rank's other tasks (the passive-target operations
 * the other ranks aim at it) run between iterations; after {@value #POLLS_BEFORE_BACKOFF} polls
 * in a row a spin backs off to one poll per millisecond. The first failure, or exception thrown
 * by the body, ends the loop and fails its future.
 */
public final class Spin {

  private Spin() {
  }

  /** Runs {@code body(0)}, ..., {@code body(n-1)} one after the other, in constant stack. */
  public static Future<Void> times(int n, IntFunction<Future<Void>> body) {
    return Rma.repeat(n, body);
  }

  /**
   * Polls that run back to back before the spin backs off to one poll per millisecond. A
   * waiting rank that polls flat out takes a core from the rank it waits for whenever ranks
   * outnumber cores (4 ranks in 2 JVMs on 2 cores: an MCS hand-over then took minutes instead of
   * milliseconds); MPICH yields in its progress loop for the same reason
   * ({@code MPIR_CVAR_POLLS_BEFORE_YIELD}).
   */
  public static final int POLLS_BEFORE_BACKOFF = 256;

  /**
   * Runs {@code step} until it completes with {@code true}: the MPI spin
   * ({@code do { op; flush } while (!condition)}) as a future ({@link Rma#repeatUntil}), backing
   * off after {@value #POLLS_BEFORE_BACKOFF} polls. Must be called on the rank's event loop.
   */
  public static Future<Void> until(Supplier<Future<Boolean>> step) {
    Context ctx = Vertx.currentContext();
    if (ctx == null) {
      throw new RmaException(ErrorClass.OTHER, "Spin must be called on the rank's event loop (a Vert.x context)");
    }
    int[] polls = {0};
    return Rma.repeatUntil(() -> polls[0]++ < POLLS_BEFORE_BACKOFF ? step.get()
        : ctx.owner().timer(1).compose(t -> step.get()));
  }
}
