package dev.vertxrma.impl.coll;

import dev.vertxrma.Comm;
import dev.vertxrma.impl.p2p.Channel;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;

/**
 * A barrier of ranks that all live on one host, across its JVMs, in shared memory (ARCHITECTURE
 * decision 16): every rank publishes in its own {@link BarrierSlot} the last barrier it reached,
 * and barrier {@code n} is passed once every rank's slot says {@code n} or more. No message on the
 * fast path: an arrival is one volatile store and a scan of the slots. The fence of a window whose
 * ranks all share memory meets in one over the windows' control pages.
 *
 * <p>A rank that finds the others not there yet polls for {@link #POLL_NANOS} (when the barrier has
 * no more ranks than the machine has cores): {@link #SPIN_NANOS} in place, then each check a task
 * of its own (its event loop never blocks), then parks: it writes the barrier's number in its
 * parked word and waits for a wake message. Whoever sees the barrier passed wakes every rank
 * parked in it, with a compare-and-set of the parked word (so exactly one message per parked
 * rank) and a message over the point-to-point engine. A rank that parks and then sees the
 * barrier passed takes its parked word back the same way, or, if a waker took it first, waits
 * for the message that is already under way. So no wake message is ever left unreceived.
 *
 * <p>No wait here is bounded by the job's timeout (its callers bound theirs): a rank whose caller
 * gave up on barrier n is still in it when a late rank arrives, and its barrier n + 1 follows it.
 */
public final class HostBarrier {

  /** How long a rank polls the others' blocks before it parks. */
  static final long POLL_NANOS = 50_000;
  /** How long an arriving rank first spins in place (its event loop held that long at most). */
  static final long SPIN_NANOS = 5_000;
  /**
   * Cores of this machine: with more ranks than cores a rank parks at once, as it would only take
   * the core a rank it waits for needs (MPICH's barrier spins there, and slows to a crawl).
   */
  private static final int CORES = Runtime.getRuntime().availableProcessors();

  private final BarrierSlot[] slots;
  private final int rank;
  private final Channel wake;
  private final ContextInternal ctx;
  private final java.util.function.LongToIntFunction tag;
  /** The job's failure, once it has failed (then no rank waits in a barrier any more). */
  private final java.util.function.Supplier<dev.vertxrma.RmaException> failure;
  private long number;
  private Future<Void> last;
  /** Set by {@link #close}: no slot but this rank's own is read any more. */
  private boolean closed;

  /**
   * @param slots every rank's control block, by window rank (this rank's own among them)
   * @param rank this rank
   * @param wake the point-to-point channel wake messages travel on
   * @param tag the tag of barrier n's wake message on {@code wake} (one no other message there has)
   * @param ctx this rank's context
   * @param failure the job's failure, or {@code null} while it runs
   */
  public HostBarrier(BarrierSlot[] slots, int rank, Channel wake, java.util.function.LongToIntFunction tag,
      ContextInternal ctx, java.util.function.Supplier<dev.vertxrma.RmaException> failure) {
    this.tag = tag;
    this.failure = failure;
    this.slots = slots;
    this.rank = rank;
    this.wake = wake;
    this.ctx = ctx;
  }

  /** This rank's next barrier, after its previous one (barriers called back to back keep their order). */
  public Future<Void> arrive() {
    return arrive(null);
  }

  /** Completes once this rank's barriers so far are done (at once if it has had none). */
  Future<Void> idle() {
    return last == null ? ctx.succeededFuture() : last.transform(ar -> ctx.succeededFuture());
  }

  /**
   * Ends this barrier at this rank (its window is released): from now on it reads no other rank's
   * slot, so their pages may be unmapped once this returns. A barrier polling the others fails
   * with {@code WIN}, and so does any later {@link #arrive}; one parked for a wake message only
   * touches this rank's own slot when the message comes. Called on this rank's context.
   */
  public void close() {
    closed = true;
  }

  private dev.vertxrma.RmaException closedError(long n) {
    return dev.vertxrma.RmaException.of(dev.vertxrma.ErrorClass.WIN, "host barrier %d at rank %d ended: its window "
        + "was released meanwhile", n, rank);
  }

  /** The number of this rank's last barrier (0 before its first). */
  long number() {
    return number;
  }

  /**
   * This rank's next barrier, {@code deposit} run just before it arrives (after its previous
   * barrier completed, and its listeners ran): what it writes is visible to every rank that sees
   * the barrier passed.
   */
  Future<Void> arrive(Runnable deposit) {
    long n = ++number;
    Future<Void> previous = last;
    Future<Void> f = previous == null || previous.isComplete() ? run(n, deposit)
        : previous.transform(ar -> run(n, deposit));
    last = f;
    return f;
  }

  private boolean passed(long n) {
    for (BarrierSlot c : slots) {
      if (c.arrived() < n) {
        return false;
      }
    }
    return true;
  }

  /** Barrier {@code n} is passed: wakes every rank parked in it or an earlier one. */
  private void wakeParked(long n) {
    for (int r = 0; r < slots.length; r++) {
      if (r == rank) {
        continue;
      }
      long p = slots[r].parked();
      if (p > 0 && p <= n && slots[r].casParked(p, -p)) {
        wake.sendBytes(r, tag.applyAsInt(p), new byte[0]);
      }
    }
  }

  private Future<Void> run(long n, Runnable deposit) {
    if (closed) {
      return ctx.failedFuture(closedError(n));
    }
    if (deposit != null) {
      deposit.run();
    }
    slots[rank].arrive(n);
    if (passed(n)) {
      wakeParked(n);
      return ctx.succeededFuture();
    }
    if (slots.length <= CORES) {
      // the others are usually a few hundred nanoseconds away: wait for them in place first
      long spinUntil = System.nanoTime() + SPIN_NANOS;
      do {
        Thread.onSpinWait();
        if (passed(n)) {
          wakeParked(n);
          return ctx.succeededFuture();
        }
      } while (System.nanoTime() - spinUntil < 0);
    }
    Promise<Void> done = ctx.promise();
    poll(n, System.nanoTime() + (slots.length <= CORES ? POLL_NANOS : 0), done);
    return done.future();
  }

  private void poll(long n, long deadline, Promise<Void> done) {
    if (closed) {
      done.fail(closedError(n)); // the others' pages may be unmapped by now: never read again
      return;
    }
    if (passed(n)) {
      wakeParked(n);
      done.complete();
      return;
    }
    if (failure.get() != null) {
      done.fail(failure.get()); // a rank is lost: it will never arrive
      return;
    }
    if (System.nanoTime() - deadline < 0) {
      ctx.runOnContext(v -> poll(n, deadline, done));
      return;
    }
    BarrierSlot own = slots[rank];
    own.casParked(0, n);
    // parked first, then looked again (Dekker): a late arriver sees the parked word, or this rank
    // sees its arrival
    if (passed(n)) {
      if (own.casParked(n, 0)) {
        wakeParked(n);
        done.complete();
        return;
      }
      // a waker took the word first: its message is under way
    }
    wake.recvBytesUntilMatched(Comm.ANY_SOURCE, tag.applyAsInt(n)).onComplete(ar -> {
      own.casParked(-n, 0);
      if (ar.succeeded()) {
        done.complete();
      } else {
        done.fail(ar.cause());
      }
    });
  }
}
