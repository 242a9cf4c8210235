package dev.vertxrma.impl.runtime;

import io.vertx.core.AsyncResult;
import io.vertx.core.Completable;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.impl.future.FutureBase;
import io.vertx.core.internal.ContextInternal;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The future every call of a rank returns: a Vert.x future with which a loop of calls runs in
 * constant stack and constant memory (ARCHITECTURE decision 12).
 *
 * <p>The loop a user writes, {@code step(i).compose(v -> loop(i + 1))}, costs a plain Vert.x
 * future twice: whenever a call's future is already complete (the same-JVM fast path makes that
 * the common case) each iteration nests on the stack; and each iteration's composed future waits
 * on the next one's, so a million iterations leave a million futures that complete one inside
 * the other at the end. Here:
 *
 * <ul>
 *   <li><b>Bounded depth.</b> Listeners of rank futures count how deep they run inside one another
 *       on a thread, as Netty's promises do; past {@value ListenerDepth#MAX_DEPTH} the next listener
 *       runs as a new task of the future's context, on a fresh stack. Below that it runs at once
 *       ({@link ListenerDepth}).
 *   <li><b>Merged chains.</b> When a {@code compose} (or {@code transform}) mapper returns a rank
 *       future that is still pending, the two futures are bound to complete with one outcome,
 *       so they become one: the inner one forwards to the outer one's state (union-find, with
 *       path compression). A recursive loop then holds one pending future, not one per
 *       iteration, and its end completes one future instead of a chain.
 * </ul>
 *
 * <p>A pending future keeps its listeners in one field ({@link RankListeners}: none, one or a
 * list, with {@link #addTailListener tail listeners} behind the others).
 *
 * <p>It extends Vert.x's {@link FutureBase} because Vert.x's own operators require their mapper's
 * future to be one and only call its {@link #addListener}; {@code RankFutureTest} pins that.
 * A listener that throws is reported to the future's context, whose exception handler fails the
 * rank's program by name.
 */
public final class RankFuture<T> extends FutureBase<T> implements Promise<T> {

  /** The outcome of a future that succeeded with {@code null}. */
  private static final Object NULL_VALUE = new Object();

  private final ContextInternal ctx;
  /** Non-null once this future was merged into another: that one (or its root) holds the state. */
  private volatile RankFuture<T> forward;
  // written under this future's lock, meaningful at a root only
  /**
   * {@code null} while pending, then the value, {@link #NULL_VALUE} or a {@link Failure}; set once,
   * never changed, so it is read without the lock.
   */
  private volatile Object outcome;
  /** {@code null}, one {@link Completable}, or a {@link RankListeners} list. */
  private Object listeners;

  private RankFuture(ContextInternal ctx) {
    this.ctx = ctx;
  }

  /** A pending rank future bound to {@code context} (where its listeners run). */
  public static <T> RankFuture<T> promise(Context context) {
    return new RankFuture<>((ContextInternal) Objects.requireNonNull(context, "context"));
  }

  /**
   * A rank future of {@code context} that has succeeded with {@code null}. It never changes, so a
   * rank may hand out one such instance for every call that completes at once.
   */
  public static <T> RankFuture<T> succeeded(Context context) {
    RankFuture<T> f = promise(context);
    f.settle(null, null);
    return f;
  }

  /**
   * {@code future} as a rank future of {@code context}: itself if it is one of that context, else
   * one completed with it (a future of another rank's context is never handed out as this one's:
   * its listeners would run on the other rank's thread).
   */
  public static <T> Future<T> of(Context context, Future<T> future) {
    if (future instanceof RankFuture && ((RankFuture<T>) future).ctx == context) {
      return future;
    }
    RankFuture<T> p = promise(context);
    if (future.isComplete()) {
      p.settle(future.result(), future.failed() ? future.cause() : null);
    } else {
      future.onComplete(p);
    }
    return p;
  }

  /**
   * Links the lambdas of this class's operators off the event loops (JvmWarmup): on a cold JVM the
   * first evaluation of each held a loop tens of milliseconds. What completes here runs its
   * (trivial) listeners on {@code context}.
   */
  public static void warmUp(Context context) {
    RankFuture<Object> a = promise(context);
    RankFuture<Object> b = promise(context);
    a.compose(x -> b).map(x -> x).map(1).transform(ar -> b).eventually(() -> b).otherwise(x -> null).otherwise(0)
        .onComplete(ar -> { });
    a.addTailListener((v, e) -> { });
    a.follow(Future.succeededFuture(1)); // completes a: its listeners run on the context
    b.complete(2);
  }

  // ------------------------------------------------------------------ state

  /** The future holding this one's state: itself, or the one it was merged into (path compressed). */
  private RankFuture<T> root() {
    RankFuture<T> r = this;
    RankFuture<T> f;
    while ((f = r.forward) != null) {
      r = f;
    }
    RankFuture<T> x = this;
    while (x != r) {
      RankFuture<T> next = x.forward;
      x.forward = r;
      x = next;
    }
    return r;
  }

  private boolean settle(T result, Throwable failure) {
    RankFuture<T> r = this;
    Object ls;
    while (true) {
      r = r.root();
      synchronized (r) {
        if (r.forward != null) {
          continue; // merged meanwhile: settle the new root
        }
        if (r.outcome != null) {
          return false;
        }
        r.outcome = failure != null ? new Failure(failure) : result == null ? NULL_VALUE : result;
        ls = r.listeners;
        r.listeners = null;
      }
      break;
    }
    if (ls instanceof RankListeners) {
      for (Completable<? super T> l : ((RankListeners<T>) ls)) {
        ListenerDepth.dispatch(r.ctx, l, result, failure);
      }
    } else if (ls != null) {
      ListenerDepth.dispatch(r.ctx, (Completable<? super T>) ls, result, failure);
    }
    return true;
  }

  /**
   * Adds a listener that runs after every other listener of this future, those added before it
   * and those added after it while the future is pending: when the future completes, the
   * operators chained on it ({@code map}, {@code compose}, …) and the caller's own listeners have
   * run (or, past the depth bound, were queued on the context before it). The engine counts an
   * operation complete this way, so that no synchronization completes before the operation's
   * future and what its listeners do (ARCHITECTURE decision 14).
   */
  public void addTailListener(Completable<? super T> listener) {
    addListener(RankListeners.tail(listener));
  }

  @Override
  public void addListener(Completable<? super T> listener) {
    RankFuture<T> r = root();
    Object o = r.outcome;
    if (o != null) { // complete already (final): no lock needed to run the listener
      r.dispatchOutcome(listener, o);
      return;
    }
    r.addOrRun(listener, false);
  }

  /**
   * Adds {@code added} (one listener, or the field's value taken from a future merged into this
   * one) to the root's listeners, after its own or, {@code inFront}, ahead of them (tails stay
   * last); runs them now, in order, if the root has completed.
   */
  @SuppressWarnings("unchecked")
  private void addOrRun(Object added, boolean inFront) {
    while (true) {
      RankFuture<T> r = root();
      Object o;
      synchronized (r) {
        if (r.forward != null) {
          continue;
        }
        o = r.outcome;
        if (o == null) {
          r.listeners = inFront ? RankListeners.addInFront(r.listeners, added)
              : RankListeners.add(r.listeners, (Completable<? super T>) added);
          return;
        }
      }
      if (added instanceof RankListeners) {
        for (Completable<? super T> l : ((RankListeners<T>) added)) {
          r.dispatchOutcome(l, o);
        }
      } else {
        r.dispatchOutcome((Completable<? super T>) added, o);
      }
      return;
    }
  }

  private void dispatchOutcome(Completable<? super T> listener, Object o) {
    if (o instanceof Failure) {
      ListenerDepth.dispatch(ctx, listener, null, ((Failure) o).cause);
    } else {
      ListenerDepth.dispatch(ctx, listener, o == NULL_VALUE ? null : (T) o, null);
    }
  }

  /**
   * The outcome of the root: {@code null} while pending. No lock: an outcome is set once and a
   * root that has one is never merged, so a non-null one is final; a null one was true when the
   * root was found.
   */
  private Object outcome() {
    return root().outcome;
  }

  /** A failed outcome. */
  private static final class Failure {
    final Throwable cause;

    Failure(Throwable cause) {
      this.cause = cause;
    }
  }

  @Override
  public void removeListener(Completable<? super T> listener) {
    RankFuture<T> r = root();
    synchronized (r) {
      r.listeners = RankListeners.remove(r.listeners, listener);
    }
  }

  /**
   * Makes {@code this} complete with {@code inner}'s outcome: merges the two when {@code inner}
   * is a pending rank future, else listens to it.
   */
  private void follow(Future<T> inner) {
    // only futures of one context merge: listeners always run on the context of the rank whose call made them
    if (inner instanceof RankFuture && ((RankFuture<T>) inner).ctx == ctx && ((RankFuture<T>) inner).mergeInto(this)) {
      return;
    }
    inner.onComplete((v, e) -> settle(v, e));
  }

  /** Forwards this future's state to {@code outer}'s; false if this one has completed already. */
  private boolean mergeInto(RankFuture<T> outer) {
    Object moved;
    RankFuture<T> or;
    while (true) {
      RankFuture<T> ir = root();
      or = outer.root();
      if (ir == or) {
        return true;
      }
      synchronized (ir) {
        if (ir.forward != null) {
          continue;
        }
        if (ir.outcome != null) {
          return false;
        }
        ir.forward = or;
        moved = ir.listeners;
        ir.listeners = null;
      }
      break;
    }
    if (moved != null) {
      // ahead of the outer future's own, as a Vert.x chain runs the listeners of the future a
      // mapper returned before those of the chain's future (which completes from one added after)
      or.addOrRun(moved, true);
    }
    return true;
  }

  // ------------------------------------------------------------------ Future and Promise

  @Override
  public boolean isComplete() {
    return outcome() != null;
  }

  @Override
  public T result() {
    Object o = outcome();
    return o == null || o == NULL_VALUE || o instanceof Failure ? null : (T) o;
  }

  @Override
  public Throwable cause() {
    Object o = outcome();
    return o instanceof Failure ? ((Failure) o).cause : null;
  }

  @Override
  public boolean succeeded() {
    Object o = outcome();
    return o != null && !(o instanceof Failure);
  }

  @Override
  public boolean failed() {
    return outcome() instanceof Failure;
  }

  @Override
  public Future<T> onComplete(Handler<AsyncResult<T>> handler) {
    Objects.requireNonNull(handler, "No null handler accepted");
    addListener((v, e) -> handler.handle(this));
    return this;
  }

  @Override
  public Future<T> onComplete(Completable<? super T> handler) {
    Objects.requireNonNull(handler, "No null handler accepted");
    addListener(handler);
    return this;
  }

  @Override
  public boolean tryComplete(T result) {
    return settle(result, null);
  }

  @Override
  public boolean tryFail(Throwable failure) {
    return settle(null, failure != null ? failure : new IllegalStateException("failed without a cause"));
  }

  @Override
  public Future<T> future() {
    return this;
  }

  @Override
  public String toString() {
    Object o = outcome();
    return "RankFuture{" + (o == null ? "pending" : o instanceof Failure ? "cause=" + ((Failure) o).cause
        : "value=" + result()) + "}";
  }

  // ------------------------------------------------------------------ operators returning rank futures

  /** Completes with {@code fn(arg)}, or fails with what it throws. */
  private <A> void settleApplying(Function<? super A, ? extends T> fn, A arg) {
    T result;
    try {
      result = fn.apply(arg);
    } catch (Throwable t) {
      settle(null, t);
      return;
    }
    settle(result, null);
  }

  /** Completes like the future {@code fn(arg)} returns, or fails with what it throws. */
  private <A> void followApplying(Function<? super A, Future<T>> fn, A arg) {
    Future<T> f;
    try {
      f = fn.apply(arg);
    } catch (Throwable t) {
      settle(null, t);
      return;
    }
    follow(f);
  }

  @Override
  public <U> Future<U> compose(Function<? super T, Future<U>> successMapper,
      Function<Throwable, Future<U>> failureMapper) {
    Objects.requireNonNull(successMapper, "No null success mapper accepted");
    Objects.requireNonNull(failureMapper, "No null failure mapper accepted");
    Future<U> now = composeNow(successMapper, failureMapper);
    if (now != null) {
      return now;
    }
    RankFuture<U> next = new RankFuture<>(ctx);
    addListener((value, err) -> {
      if (err == null) {
        next.followApplying(successMapper, value);
      } else {
        next.followApplying(failureMapper, err);
      }
    });
    return next;
  }

  /**
   * compose on a future that has completed, called on its context within the depth bound: the
   * mapper runs now, as the listener would, and its future is the result (no future, no listener
   * made). {@code null} otherwise: the caller takes the general path.
   */
  @SuppressWarnings("unchecked")
  private <U> Future<U> composeNow(Function<? super T, Future<U>> successMapper,
      Function<Throwable, Future<U>> failureMapper) {
    Object o = root().outcome;
    if (o == null || !ctx.isRunningOnContext()) {
      return null;
    }
    int[] depth = ListenerDepth.counter();
    if (depth[0] >= ListenerDepth.MAX_DEPTH) {
      return null;
    }
    depth[0]++;
    Future<U> f;
    try {
      f = o instanceof Failure ? failureMapper.apply(((Failure) o).cause)
          : successMapper.apply(o == NULL_VALUE ? null : (T) o);
    } catch (Throwable t) {
      RankFuture<U> failed = new RankFuture<>(ctx);
      failed.settle(null, t);
      return failed;
    } finally {
      depth[0]--;
    }
    if (f == null) {
      RankFuture<U> failed = new RankFuture<>(ctx);
      failed.settle(null, new NullPointerException("compose mapper returned null"));
      return failed;
    }
    return of(ctx, f);
  }

  @Override
  public <U> Future<U> transform(Function<AsyncResult<T>, Future<U>> mapper) {
    Objects.requireNonNull(mapper, "No null mapper accepted");
    RankFuture<U> next = new RankFuture<>(ctx);
    addListener((value, err) -> next.followApplying(mapper,
        err == null ? Future.succeededFuture(value) : Future.failedFuture(err)));
    return next;
  }

  @Override
  public <U> Future<T> eventually(Supplier<Future<U>> supplier) {
    Objects.requireNonNull(supplier, "No null supplier accepted");
    RankFuture<T> next = new RankFuture<>(ctx);
    addListener((value, err) -> {
      Future<U> f;
      try {
        f = supplier.get();
      } catch (Throwable t) {
        next.settle(value, err);
        return;
      }
      f.onComplete((ignored, err2) -> next.settle(value, err));
    });
    return next;
  }

  @Override
  public <U> Future<U> map(Function<? super T, U> mapper) {
    Objects.requireNonNull(mapper, "No null mapper accepted");
    RankFuture<U> next = new RankFuture<>(ctx);
    addListener((value, err) -> {
      if (err != null) {
        next.settle(null, err);
      } else {
        next.settleApplying(mapper, value);
      }
    });
    return next;
  }

  @Override
  public <V> Future<V> map(V value) {
    RankFuture<V> next = new RankFuture<>(ctx);
    addListener((ignored, err) -> next.settle(err == null ? value : null, err));
    return next;
  }

  @Override
  public Future<T> otherwise(Function<Throwable, T> mapper) {
    Objects.requireNonNull(mapper, "No null mapper accepted");
    RankFuture<T> next = new RankFuture<>(ctx);
    addListener((value, err) -> {
      if (err == null) {
        next.settle(value, null);
      } else {
        next.settleApplying(mapper, err);
      }
    });
    return next;
  }

  @Override
  public Future<T> otherwise(T value) {
    RankFuture<T> next = new RankFuture<>(ctx);
    addListener((result, err) -> next.settle(err == null ? result : value, null));
    return next;
  }

  @Override
  public Future<T> timeout(long delay, TimeUnit unit) {
    if (isComplete()) {
      return this;
    }
    RankFuture<T> next = new RankFuture<>(ctx);
    long timer = ctx.setTimer(Math.max(1, unit.toMillis(delay)), id -> next.settle(null,
        new TimeoutException("Timeout " + unit.toMillis(delay) + " (ms) fired")));
    addListener((result, err) -> {
      if (ctx.owner().cancelTimer(timer)) {
        next.settle(result, err);
      }
    });
    return next;
  }
}
