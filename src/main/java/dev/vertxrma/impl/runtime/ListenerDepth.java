package dev.vertxrma.impl.runtime;

import io.netty.util.concurrent.FastThreadLocal;
import io.vertx.core.Completable;
import io.vertx.core.internal.ContextInternal;

/**
 * The bounded listener depth of {@link RankFuture}s: listeners of rank futures count, per thread,
 * how deep they run inside one another, as Netty's promises do; past {@value #MAX_DEPTH} the next
 * one runs as a new task of its future's context, on a fresh stack. Below that it runs at once.
 * A listener that throws is reported to the context, whose exception handler fails the rank's
 * program by name.
 */
final class ListenerDepth {

  /** Listeners that may run inside one another on one thread before the next one hops. */
  static final int MAX_DEPTH = 32;

  private static final FastThreadLocal<int[]> DEPTH = new FastThreadLocal<>() {
    @Override
    protected int[] initialValue() {
      return new int[1];
    }
  };

  private ListenerDepth() {
  }

  /**
   * The calling thread's depth, one counter: for a caller that runs a listener's work itself
   * ({@code compose} on a complete future) and so counts as a listener, checking it against
   * {@link #MAX_DEPTH} and incrementing it around the work as {@link #dispatch} does.
   */
  static int[] counter() {
    return DEPTH.get();
  }

  /** Runs a listener on {@code ctx}: at once while the thread's depth allows, else on a fresh stack. */
  static <T> void dispatch(ContextInternal ctx, Completable<? super T> listener, T result, Throwable failure) {
    if (!ctx.inThread()) {
      ctx.runOnContext(v -> run(ctx, listener, result, failure));
      return;
    }
    int[] depth = DEPTH.get();
    if (depth[0] >= MAX_DEPTH) {
      ctx.runOnContext(v -> run(ctx, listener, result, failure));
      return;
    }
    depth[0]++;
    try {
      if (ctx.isRunningOnContext()) {
        run(ctx, listener, result, failure);
      } else {
        ContextInternal prev = ctx.beginDispatch();
        try {
          run(ctx, listener, result, failure);
        } finally {
          ctx.endDispatch(prev);
        }
      }
    } finally {
      depth[0]--;
    }
  }

  private static <T> void run(ContextInternal ctx, Completable<? super T> listener, T result, Throwable failure) {
    try {
      listener.complete(result, failure);
    } catch (Throwable t) {
      ctx.reportException(t);
    }
  }
}
