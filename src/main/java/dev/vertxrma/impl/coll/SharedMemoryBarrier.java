package dev.vertxrma.impl.coll;

import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * MPI_Barrier of a communicator whose ranks all live in this JVM, in shared memory: every rank
 * (party) publishes in its own slot how many barriers it has reached, and barrier {@code n} is
 * passed once every slot holds at least {@code n}. No message and no lock: an arrival is one
 * volatile write and a scan of the slots.
 *
 * <p>A rank that finds the others not there yet spins for a few microseconds when the machine has
 * a core for each party (as MPICH's shared-memory barrier does), so that a barrier between busy
 * ranks costs no thread wake-up; then it parks: it leaves a waiter in its slot, and whichever
 * rank's arrival passes the barrier completes it (a completion on another thread is dispatched to
 * the waiting rank's context). The waiter and the arrival follow Dekker's pattern: a rank writes
 * its slot before it reads the others', so of a late arriver and a parking rank at least one sees
 * the other, and the waiter slot's compare-and-set decides who completes it.
 *
 * <p>Barrier numbers make the state independent of timing: a rank whose previous barrier timed out
 * arrives at its next number and waits for every rank to reach that one.
 */
final class SharedMemoryBarrier {

  /** How long a rank spins before it parks, when there is a core per party. */
  static final long SPIN_NANOS = 20_000;

  private static final int CORES = Runtime.getRuntime().availableProcessors();

  private final AtomicLongArray reached;
  private final AtomicReferenceArray<Waiter> waiting;
  private final boolean spin;
  private final AtomicInteger closed = new AtomicInteger();
  /** Blocks deposited for an exchange, by barrier number parity (two rounds in flight at most); null for a plain barrier. */
  private final AtomicReferenceArray<byte[]>[] blocks;
  private final Runnable onAllClosed;

  private static final class Waiter {
    final long number;
    final ContextInternal ctx;
    final Promise<Void> done;

    Waiter(long number, ContextInternal ctx) {
      this.number = number;
      this.ctx = ctx;
      this.done = ctx.promise();
    }

    /**
     * Completes the waiter on its rank's own thread: a promise completed from another thread
     * would look complete at once while its listeners still wait in the rank's task queue, and a
     * barrier called next could then complete (and run its callbacks) before this one's.
     */
    void settle(RmaException failure) {
      if (ctx.isRunningOnContext()) {
        complete(failure);
      } else {
        ctx.runOnContext(v -> complete(failure));
      }
    }

    private void complete(RmaException failure) {
      if (failure == null) {
        done.tryComplete();
      } else {
        done.tryFail(failure);
      }
    }
  }

  @SuppressWarnings("unchecked")
  SharedMemoryBarrier(int parties, boolean exchange, Runnable onAllClosed) {
    this.blocks = exchange ? new AtomicReferenceArray[] {new AtomicReferenceArray<byte[]>(parties),
        new AtomicReferenceArray<byte[]>(parties)} : null;
    this.reached = new AtomicLongArray(parties);
    this.waiting = new AtomicReferenceArray<>(parties);
    this.spin = parties <= CORES;
    this.onAllClosed = onAllClosed;
  }

  /**
   * Party {@code party} reaches its barrier number {@code number} (1, 2, ... in its call order);
   * the result completes on {@code ctx} once every party has reached it.
   */
  Future<Void> arrive(int party, long number, ContextInternal ctx) {
    reached.set(party, number);
    if (passed(number)) {
      releaseWaiters();
      return ctx.succeededFuture();
    }
    if (spin && ctx.isEventLoopContext()) {
      long deadline = System.nanoTime() + SPIN_NANOS;
      do {
        Thread.onSpinWait();
        if (passed(number)) {
          return ctx.succeededFuture();
        }
      } while (System.nanoTime() - deadline < 0);
    }
    Waiter w = new Waiter(number, ctx);
    waiting.set(party, w);
    // a rank that arrived meanwhile may have scanned the slots before this waiter was there
    if (passed(number) && waiting.compareAndSet(party, w, null)) {
      return ctx.succeededFuture();
    }
    return w.done.future();
  }

  /**
   * Party {@code party} deposits {@code block} and reaches barrier {@code number}; once every
   * party has, the result gives every party's block of that round, in party order ({@code null}
   * for a party that deposited none: it failed the call, {@code Collectives#checked}). The caller
   * must be done reading them before it makes its next exchange (call order at each party):
   * round {@code number + 2} reuses the slots of round {@code number}, and no party deposits
   * there before every party has reached round {@code number + 1}.
   */
  Future<byte[][]> exchange(int party, long number, byte[] block, ContextInternal ctx) {
    AtomicReferenceArray<byte[]> round = blocks[(int) (number & 1)];
    round.set(party, block);
    return arrive(party, number, ctx).map(v -> {
      byte[][] all = new byte[round.length()][];
      for (int i = 0; i < all.length; i++) {
        all[i] = round.get(i);
      }
      return all;
    });
  }

  /** Whether every party has reached barrier {@code number}. */
  private boolean passed(long number) {
    for (int i = 0, n = reached.length(); i < n; i++) {
      if (reached.get(i) < number) {
        return false;
      }
    }
    return true;
  }

  /** Completes every waiter whose barrier every party has reached. */
  private void releaseWaiters() {
    long min = Long.MAX_VALUE;
    for (int i = 0, n = reached.length(); i < n; i++) {
      min = Math.min(min, reached.get(i));
    }
    for (int i = 0, n = waiting.length(); i < n; i++) {
      Waiter w = waiting.get(i);
      if (w != null && w.number <= min && waiting.compareAndSet(i, w, null)) {
        w.settle(null);
      }
    }
  }

  /** Fails party {@code party}'s waiting barrier, if any (its rank failed: the job ends). */
  void fail(int party, RmaException cause) {
    Waiter w = waiting.getAndSet(party, null);
    if (w != null) {
      w.settle(cause);
    }
  }

  /** A party is done with this barrier (its window or communicator was freed); the last one unregisters it. */
  void close() {
    if (closed.incrementAndGet() == reached.length()) {
      onAllClosed.run();
    }
  }
}
