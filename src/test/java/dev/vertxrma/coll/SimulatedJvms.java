package dev.vertxrma.coll;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.coll.SharedMemoryBarriers;
import dev.vertxrma.impl.p2p.PointToPoint;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.PayloadSource;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Ranks of one Vert.x instance, each on an event loop of its own, that the collectives believe
 * spread over JVMs as {@code perJvm} says (JVM {@code j} holds the next {@code perJvm[j]} ranks):
 * their point-to-point frames go from context to context as between same-JVM ranks, and the ones
 * between ranks of different simulated JVMs are counted, which shows what a collective sends
 * across JVMs.
 */
final class SimulatedJvms {

  final int np;
  final int[] jvm;
  final Collectives[] coll;
  final ContextInternal[] ctx;
  private final PointToPoint[] p2p;
  private final Vertx vertx;
  private final long waitTimeoutMs;
  /** Frames sent between ranks of different simulated JVMs. */
  final AtomicInteger crossing = new AtomicInteger();
  /** Frames sent between ranks of one simulated JVM. */
  final AtomicInteger within = new AtomicInteger();

  SimulatedJvms(Vertx vertx, long waitTimeoutMs, int... perJvm) {
    this.vertx = vertx;
    this.waitTimeoutMs = waitTimeoutMs;
    int n = 0;
    for (int c : perJvm) {
      n += c;
    }
    this.np = n;
    this.jvm = new int[n];
    for (int j = 0, r = 0; j < perJvm.length; j++) {
      for (int k = 0; k < perJvm[j]; k++) {
        jvm[r++] = j;
      }
    }
    SharedMemoryBarriers barriers = new SharedMemoryBarriers(r -> "jvm" + jvm[r]);
    this.ctx = new ContextInternal[n];
    this.p2p = new PointToPoint[n];
    this.coll = new Collectives[n];
    for (int r = 0; r < n; r++) {
      ctx[r] = ((VertxInternal) vertx).createEventLoopContext();
      Endpoint ep = new Rank(r);
      p2p[r] = new PointToPoint(ep);
      coll[r] = new Collectives(ep, p2p[r], 7, barriers);
    }
  }

  /** Runs {@code call} for each rank on its context; completes once every rank's has. */
  <T> Future<java.util.List<T>> onEveryRank(java.util.function.IntFunction<Future<T>> call) {
    java.util.List<Future<T>> all = new java.util.ArrayList<>();
    for (int r = 0; r < np; r++) {
      int rank = r;
      Promise<T> p = Promise.promise();
      ctx[r].runOnContext(v -> call.apply(rank).onComplete(p));
      all.add(p.future());
    }
    return Future.join(all).transform(ar -> {
      for (Future<T> f : all) {
        if (f.failed()) {
          return Future.failedFuture(f.cause());
        }
      }
      return Future.succeededFuture(all.stream().map(Future::result).toList());
    });
  }

  /** One rank's endpoint: its frames go to the destination's context. */
  private final class Rank implements Endpoint {
    private final int rank;

    Rank(int rank) {
      this.rank = rank;
    }

    @Override
    public int rank() {
      return rank;
    }

    @Override
    public int size() {
      return np;
    }

    @Override
    public ContextInternal context() {
      return ctx[rank];
    }

    @Override
    public boolean isLocal(int r) {
      return jvm[r] == jvm[rank];
    }

    @Override
    public void send(int dst, Frame frame) {
      (jvm[dst] == jvm[rank] ? within : crossing).incrementAndGet();
      ctx[dst].runOnContext(v -> p2p[dst].onMessage(frame));
    }

    @Override
    public Future<Frame> request(int dst, Frame frame) {
      throw new UnsupportedOperationException("collectives make no requests");
    }

    @Override
    public void withdraw(long corr) {
    }

    @Override
    public void reply(Frame request, ErrorClass error, String message) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void replyWith(Frame request, byte[] payload) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void replyWith(Frame request, PayloadSource payload) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void replyError(Frame request, RmaException e) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void rejectInput(String what) {
      throw new AssertionError("rank " + rank + " rejected " + what);
    }

    @Override
    public void rejectInput(String what, Throwable bug) {
      throw new AssertionError("rank " + rank + " rejected " + what, bug);
    }

    @Override
    public long waitTimeoutMs() {
      return waitTimeoutMs;
    }

    @Override
    public RmaException failure() {
      return null;
    }

    @Override
    public <T> Future<T> withTimeout(Future<T> f, String what) {
      Promise<T> p = ctx[rank].promise();
      long timer = vertx.setTimer(waitTimeoutMs, id -> p.tryFail(RmaException.of(ErrorClass.TIMEOUT,
          "%s at rank %d did not complete within %d ms", what, rank, waitTimeoutMs)));
      f.onComplete(ar -> {
        vertx.cancelTimer(timer);
        if (ar.succeeded()) {
          p.tryComplete(ar.result());
        } else {
          p.tryFail(ar.cause());
        }
      });
      return p.future();
    }

    @Override
    public void atDeadline(BooleanSupplier ended, Runnable onExpiry) {
      vertx.setTimer(waitTimeoutMs, id -> ctx[rank].runOnContext(v -> {
        if (!ended.getAsBoolean()) {
          onExpiry.run();
        }
      }));
    }
  }
}
