package dev.vertxrma.sync;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.Set;

/**
 * A count-down latch over the ranks of a communicator: a count at a home rank that any rank
 * decrements ({@link #countDown()}: {@code MPI_Fetch_and_op(-1)} in a passive-target epoch kept
 * open for the latch's life); the rank whose decrement takes it to zero sends a message to every
 * rank, which completes their {@link #await()}. An {@code await()} reads the count first, so it
 * completes at once when it is zero already. Counting down past zero changes nothing.
 *
 * <p>Errors: {@link ErrorClass#PROC_FAILED} when the home rank is dead (and at an awaiting rank
 * when it died), {@link ErrorClass#COMM} once the job ended. The zero message of a rank that died
 * between its last decrement and its sends is lost: awaiting ranks then wait on.
 */
public final class CountDownLatch {

  private static final int ZERO = 1;

  private final SyncChannel channel;
  private final Promise<Void> zero = Promise.promise();

  private CountDownLatch(SyncChannel channel) {
    this.channel = channel;
  }

  /**
   * Creates a latch at rank 0; collective over {@code comm}.
   *
   * @param comm the ranks that share it
   * @param count how many {@link #countDown()}s open it ({@code >= 0})
   * @return as {@link #create(Comm, int, long)}
   */
  public static Future<CountDownLatch> create(Comm comm, long count) {
    return create(comm, 0, count);
  }

  /**
   * Creates a latch; collective over {@code comm} (every rank passes the same arguments).
   *
   * @param comm the ranks that share it
   * @param home the rank whose window holds the count
   * @param count how many {@link #countDown()}s open it ({@code >= 0}; 0 is open from the start)
   * @return completes at every rank once every rank has created it. Fails with
   *     {@link ErrorClass#ARG} for a negative count, {@link ErrorClass#RANK} for a home outside
   *     {@code comm}, and as {@code Comm.dup} and {@code Win.allocate} fail
   */
  public static Future<CountDownLatch> create(Comm comm, int home, long count) {
    if (count < 0) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "CountDownLatch.create: count %d is negative", count));
    }
    return SyncChannel.open(comm, home, 1, "CountDownLatch.create", win -> win.memory().writeLong(0, count)).map(ch -> {
      CountDownLatch l = new CountDownLatch(ch);
      if (count == 0) {
        l.zero.complete();
      }
      ch.listen(new SyncChannel.Listener() {
        @Override
        public void onMessage(int source, int tag, long[] message) {
          if (tag == ZERO) {
            l.zero.tryComplete();
          }
        }

        @Override
        public void onDeaths(Set<Integer> dead) {
          if (dead.contains(ch.home)) {
            l.zero.tryFail(RmaException.of(ErrorClass.PROC_FAILED, "CountDownLatch at rank %d: its home rank %d died",
                ch.me, ch.home));
          }
        }
      });
      return l;
    });
  }

  /**
   * Decrements the count; the decrement that reaches zero opens the latch at every rank.
   *
   * @return completes with the count after this decrement (never below 0 for the caller: a
   *     decrement at zero leaves it there), once it is done at the home rank
   */
  public Future<Long> countDown() {
    return channel.onContext(() -> {
      Win win = channel.win;
      Future<Long> before = win.fetchAndOp(-1, channel.home, 0, Op.SUM);
      return win.flush(channel.home).compose(v -> before).map(b -> {
        if (b == 1) {
          for (int r = 0; r < channel.comm.size(); r++) {
            channel.send(r, ZERO, 0, 0, 0);
          }
        }
        return Math.max(0, b - 1);
      });
    });
  }

  /**
   * Waits until the count is zero.
   *
   * @return completes once it reached zero (at once if it is). Fails as the class comment says
   */
  public Future<Void> await() {
    return channel.onContext(() -> {
      if (zero.future().isComplete()) {
        return zero.future();
      }
      Future<Long> now = channel.win.fetchAndOp(0, channel.home, 0, Op.NO_OP);
      return channel.win.flush(channel.home).compose(v -> now).compose(c -> {
        if (c <= 0) {
          zero.tryComplete();
        }
        return zero.future();
      });
    });
  }

  /**
   * The count now (0 once open; a count taken below zero reads as 0).
   *
   * @return completes with the count at the home rank
   */
  public Future<Long> getCount() {
    return channel.onContext(() -> {
      Future<Long> now = channel.win.fetchAndOp(0, channel.home, 0, Op.NO_OP);
      return channel.win.flush(channel.home).compose(v -> now).map(c -> Math.max(0, c));
    });
  }

  /**
   * Frees the latch; collective.
   *
   * @return completes once every rank freed it
   */
  public Future<Void> free() {
    return channel.free();
  }
}
