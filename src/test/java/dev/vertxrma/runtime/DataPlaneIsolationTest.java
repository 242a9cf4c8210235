package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Remote progress that no rank program can stall: in a JVM that hosts ranks 0 and 1, one of them
 * holds its event loop (its program computes inside a callback, up to 20 s), while rank 2, in the
 * other JVM, runs 500 fetch-and-ops on the other's window under a lock; then the two swap. The
 * operations all complete, with the right values, while the holder is still computing: the data
 * plane of a JVM with several ranks runs on an event loop of its own, not on a rank's.
 *
 * <p>The two Vert.x nodes are this test's own, with Vert.x's blocked-thread warning at 30 s: rank
 * 0 holds its thread on purpose.
 */
class DataPlaneIsolationTest {

  private static final int ROUNDS = 500;
  private static final String CLUSTER = "rma-isolation-" + UUID.randomUUID().toString().substring(0, 8);
  static Vertx a;
  static Vertx b;

  @BeforeAll
  static void start() {
    VertxOptions options = new VertxOptions().setEventLoopPoolSize(4).setMaxEventLoopExecuteTime(30)
        .setMaxEventLoopExecuteTimeUnit(TimeUnit.SECONDS);
    a = Jobs.await(Rma.clusteredVertx(CLUSTER, options), 120);
    b = Jobs.await(Rma.clusteredVertx(CLUSTER, options), 120);
  }

  @AfterAll
  static void close() {
    Jobs.await(Future.join(a.close(), b.close()), 60);
  }

  @Test
  void aRankHoldingItsThreadDelaysNoOperationOnAnotherRanksWindow() {
    Phase[] phases = {new Phase(0, 1), new Phase(1, 0)};
    JobOptions options = new JobOptions().setNp(3).setJobName("isolation-" + UUID.randomUUID().toString().substring(0, 8))
        .setClustered(true).setSecret(dev.vertxrma.impl.transport.JobSecret.random().text());
    Future<Void> first = Rma.run(a, new JobOptions(options).setLocalRanks(0, 2), (world, args) -> job(world, phases));
    Future<Void> second = Rma.run(b, new JobOptions(options).setLocalRanks(2, 1), (world, args) -> job(world, phases));
    Jobs.await(Future.all(first, second), 120);
    for (Phase p : phases) {
      assertTrue(p.computedWhileOthersRan.get(), "rank 2's operations on rank " + p.target + "'s window completed while rank "
          + p.holder + " held its thread");
      assertEquals(ROUNDS - 1, p.last.get(), "the last fetch-and-op read the count of the ones before it");
    }
  }

  /**
   * One phase: rank {@code holder} holds its thread while rank 2 works on rank {@code target}'s
   * window. The two phases swap the local ranks, so that whichever rank's event loop the data
   * plane would share, one phase holds it.
   */
  private static final class Phase {
    final int holder;
    final int target;
    final AtomicBoolean othersDone = new AtomicBoolean();
    final AtomicBoolean computedWhileOthersRan = new AtomicBoolean();
    final AtomicLong last = new AtomicLong(-1);

    Phase(int holder, int target) {
      this.holder = holder;
      this.target = target;
    }
  }

  private static Future<?> job(dev.vertxrma.Comm world, Phase[] phases) {
    return Win.allocate(world, 8, 8, Info.NULL).compose(win -> Rma.repeat(phases.length, i -> phase(world, win,
        phases[i])).compose(v -> win.free()));
  }

  private static Future<?> phase(dev.vertxrma.Comm world, Win win, Phase p) {
    int rank = world.rank();
    return world.barrier().compose(v -> {
      if (rank == p.holder) {
        // computing inside a callback: the thread is held until rank 2 is done, or 20 s. What is
        // checked is order, not time (rank 2's ROUNDS fetch-and-ops all completed while this
        // thread was still held); the 20 s only ends the hold if they never complete (a data
        // plane that shared this loop). 500 fetch-and-ops between two nodes of one JVM take well
        // under a second even with this thread spinning on one of 2 loaded cores: 20x at least
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!p.othersDone.get() && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        p.computedWhileOthersRan.set(p.othersDone.get());
        return Future.succeededFuture();
      }
      if (rank == 2) {
        return win.lock(LockType.EXCLUSIVE, p.target).compose(l -> Rma.repeat(ROUNDS, i -> win.fetchAndOp(1L, p.target, 0,
            Op.SUM).onSuccess(old -> p.last.set(old)))).compose(r -> win.unlock(p.target)).onSuccess(u -> p.othersDone.set(true));
      }
      return Future.succeededFuture();
    }).compose(v -> world.barrier());
  }
}
