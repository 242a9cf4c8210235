package dev.vertxrma.testing;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A program-level latch between the ranks of one test job (embedded, or both cluster nodes: all
 * in this JVM). It orders a scenario by events instead of timers, and is no wait of the job: the
 * job's wait timeout does not bound it. Tests whose stimulus is a short wait timeout use it so
 * that a wait meant to succeed starts only once its peers are there (it then costs message
 * latency, not another rank's start-up or timeout), and only the call under test waits the
 * timeout out.
 */
public final class Latch {

  private final AtomicInteger left;
  private final Promise<Void> open = Promise.promise();

  /** A latch that opens once {@code parties} calls of {@link #arrive()} (or one {@link #open()}). */
  public Latch(int parties) {
    left = new AtomicInteger(parties);
  }

  /** A latch that one {@link #open()} opens. */
  public Latch() {
    this(1);
  }

  /** Opens the latch. Any thread. */
  public void open() {
    open.tryComplete();
  }

  /** Counts this party in, and returns {@link #opened()}. */
  public Future<Void> arrive() {
    if (left.decrementAndGet() == 0) {
      open();
    }
    return opened();
  }

  /** Completes, on the caller's Vert.x context, once the latch is open. */
  public Future<Void> opened() {
    Context ctx = Vertx.currentContext();
    if (ctx == null) {
      return open.future();
    }
    Promise<Void> here = Promise.promise();
    open.future().onComplete(ar -> ctx.runOnContext(v -> here.complete()));
    return here.future();
  }
}
