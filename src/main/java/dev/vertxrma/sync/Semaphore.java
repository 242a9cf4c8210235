package dev.vertxrma.sync;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.Set;

/**
 * A counting semaphore over the ranks of a communicator: a permit count at a home rank, changed
 * with {@code MPI_Fetch_and_op} and {@code MPI_Compare_and_swap} inside a passive-target epoch
 * kept open for the semaphore's life, and a FIFO {@link Mutex} that orders the waiters.
 *
 * <p>{@link #acquire()} takes the mutex (so waiters line up in request order), then one permit:
 * if none is left it writes its rank as the head waiter and waits for a message from the
 * {@link #release()} that returns one; it then lets the next waiter in. A release that finds the
 * count below zero (only the head waiter makes it so) sends the permit to the head waiter. No
 * rank polls. {@link #tryAcquire()} takes a permit only if one is free, without queueing (it may
 * overtake waiters only when a permit is free, which they would have taken already).
 *
 * <p>Permits are not owned: a rank that dies holding permits does not give them back (as in
 * {@code java.util.concurrent.Semaphore}); a permit sent to a head waiter that died at that moment
 * is lost. Calls may be made from any thread; futures complete on the rank's context.
 * Errors: {@link ErrorClass#PROC_FAILED} when the home rank is dead, {@link ErrorClass#TIMEOUT}
 * when it does not answer within the job's wait timeout, {@link ErrorClass#COMM} once the job ended.
 */
public final class Semaphore {

  private static final long PERMITS = 0;
  private static final long HEAD = 1;
  private static final int PERMIT = 1;

  private final SyncChannel channel;
  private final Mutex order;
  private Promise<Void> permit;

  private Semaphore(SyncChannel channel, Mutex order) {
    this.channel = channel;
    this.order = order;
  }

  /**
   * Creates a semaphore at rank 0; collective over {@code comm}.
   *
   * @param comm the ranks that share it
   * @param permits the permits it starts with ({@code >= 0})
   * @return as {@link #create(Comm, int, long)}
   */
  public static Future<Semaphore> create(Comm comm, long permits) {
    return create(comm, 0, permits);
  }

  /**
   * Creates a semaphore; collective over {@code comm} (every rank passes the same arguments): a
   * window of 16 bytes at {@code home} over a duplicate of {@code comm}, and a {@link Mutex}.
   *
   * @param comm the ranks that share it
   * @param home the rank whose window holds the permit count
   * @param permits the permits it starts with ({@code >= 0})
   * @return completes at every rank once every rank has created it. Fails with
   *     {@link ErrorClass#ARG} for negative permits, {@link ErrorClass#RANK} for a home outside
   *     {@code comm}, and as {@code Comm.dup} and {@code Win.allocate} fail
   */
  public static Future<Semaphore> create(Comm comm, int home, long permits) {
    if (permits < 0) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "Semaphore.create: permits %d is negative", permits));
    }
    return SyncChannel.open(comm, home, 2, "Semaphore.create", win -> win.memory().writeLong(0, permits))
        .compose(ch -> Mutex.create(comm, home).map(m -> {
          Semaphore s = new Semaphore(ch, m);
          ch.listen(new SyncChannel.Listener() {
            @Override
            public void onMessage(int source, int tag, long[] message) {
              if (tag == PERMIT && s.permit != null) {
                Promise<Void> p = s.permit;
                s.permit = null;
                p.complete();
              }
            }

            @Override
            public void onDeaths(Set<Integer> dead) {
            }
          });
          return s;
        }));
  }

  /**
   * Takes a permit, waiting in FIFO order behind the ranks that asked before.
   *
   * @return completes once this rank holds a permit. Fails as the class comment says
   */
  public Future<Void> acquire() {
    return order.lock().compose(g -> channel.onContext(this::takePermit)
        .transform(took -> order.unlock().compose(u -> took.succeeded() ? Future.<Void>succeededFuture()
            : Future.<Void>failedFuture(took.cause()))));
  }

  /** Run by the holder of the mutex: takes a permit, or waits as the head waiter for one. */
  private Future<Void> takePermit() {
    Win win = channel.win;
    int home = channel.home;
    win.accumulate(Buf.of(new long[] {channel.me}), 0, 1, Datatype.LONG, home, HEAD,
        Op.REPLACE); // before the decrement: a release that sees the debt finds the head
    Promise<Void> mine = Promise.promise();
    permit = mine;
    Future<Long> before = win.fetchAndOp(-1, home, PERMITS, Op.SUM);
    return win.flush(home).compose(v -> before).compose(b -> {
      if (b > 0) {
        permit = null;
        return Future.succeededFuture();
      }
      return mine.future();
    });
  }

  /**
   * Takes a permit if one is free now, without waiting (compare-and-swap at the home rank).
   *
   * @return completes with whether it took one. Fails as the class comment says
   */
  public Future<Boolean> tryAcquire() {
    return channel.onContext(() -> tryFrom(read()));
  }

  private Future<Boolean> tryFrom(Future<Long> seen) {
    return seen.compose(p -> {
      if (p <= 0) {
        return Future.succeededFuture(false);
      }
      Future<Long> old = channel.win.compareAndSwap(p, p - 1, channel.home, PERMITS);
      return channel.win.flush(channel.home).compose(v -> old)
          .compose(o -> o == (long) p ? Future.succeededFuture(true) : tryFrom(Future.succeededFuture(o)));
    });
  }

  /**
   * Returns a permit; if a rank waits for one, it is sent to it.
   *
   * @return completes once the permit is back at the home rank (and, if one waited, sent to it).
   *     Fails as the class comment says
   */
  public Future<Void> release() {
    return channel.onContext(() -> {
      Win win = channel.win;
      int home = channel.home;
      Future<Long> before = win.fetchAndOp(1, home, PERMITS, Op.SUM);
      return win.flush(home).compose(v -> before).compose(b -> {
        if (b >= 0) {
          return Future.succeededFuture();
        }
        Future<Long> head = win.fetchAndOp(0, home, HEAD, Op.NO_OP);
        return win.flush(home).compose(v -> head).map(h -> {
          channel.send(h.intValue(), PERMIT, 0, 0, 0);
          return null;
        });
      });
    });
  }

  /**
   * The permits free now (negative while a rank waits for one).
   *
   * @return completes with the count at the home rank
   */
  public Future<Long> availablePermits() {
    return channel.onContext(this::read);
  }

  private Future<Long> read() {
    Future<Long> v = channel.win.fetchAndOp(0, channel.home, PERMITS, Op.NO_OP);
    return channel.win.flush(channel.home).compose(x -> v);
  }

  /**
   * Frees the semaphore (its window, communicator and mutex); collective.
   *
   * @return completes once every rank freed it
   */
  public Future<Void> free() {
    return channel.free().compose(v -> order.free());
  }
}
