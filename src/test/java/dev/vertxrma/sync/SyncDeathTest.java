package dev.vertxrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.FailurePolicy;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * Deaths and the mutex (FailurePolicy.CONTINUE). Five ranks: 0 and 1 on one clustered node, 2 on
 * the other, 3 and 4 on a third node that leaves the cluster while:
 * <ul>
 *   <li>on mutex A rank 3 holds, rank 4 waits behind it, ranks 1 and 2 after them: A must go to
 *       rank 1 saying its holder died (rank 1 walks past the dead waiter 4 and the dead holder 3),
 *       then to rank 2 saying nothing died, with increasing tokens;</li>
 *   <li>on mutex B rank 0 holds, rank 4 waits, rank 2 after it: once rank 0 knows rank 4 dead it
 *       unlocks, and B must go to rank 2 (which took the dead waiter's place next to rank 0)
 *       saying nothing died.</li>
 * </ul>
 * A counter whose home was rank 3 fails with PROC_FAILED; one at rank 0 keeps counting.
 */
class SyncDeathTest {

  private static final int[] ORDER = {3, 4, 1, 2};
  private static final int[] ORDER_B = {0, 4, 2};

  @Test
  void aDeadHoldersMutexGoesToTheNextLiveWaiterSayingSo() throws Exception {
    Vertx[] nodes = Jobs.clusterNodes();
    Vertx doomed = BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(clusterNameOf(nodes[0]),
        BlockedThreadGuard.options()), 120));
    JobOptions options = Jobs.options(5).setWaitTimeoutMs(30_000).setFailurePolicy(FailurePolicy.CONTINUE);
    CountDownLatch queued = new CountDownLatch(2); // both queues complete
    AtomicLongArray tokens = new AtomicLongArray(5);
    CompletableFuture<Void> doomedCreated = new CompletableFuture<>();
    Future<Void> a = Rma.run(nodes[0], new JobOptions(options).setLocalRanks(0, 2), (w, args) ->
        survivor(w, queued, tokens));
    Future<Void> b = Rma.run(nodes[1], new JobOptions(options).setLocalRanks(2, 1), (w, args) ->
        survivor(w, queued, tokens));
    Rma.run(doomed, new JobOptions(options).setLocalRanks(3, 2), (w, args) -> setUp(w).compose(s -> {
      doomedCreated.complete(null);
      queue(w, s.mutex, queued, ORDER, 1);
      if (w.rank() == 4) {
        queue(w, s.other, queued, ORDER_B, 11);
      }
      return Promise.promise().future(); // holds (rank 3) or waits (rank 4) until its node leaves
    }));
    doomedCreated.get(120, TimeUnit.SECONDS);
    assertTrue(queued.await(120, TimeUnit.SECONDS), "ranks 3, 4, 1, 2 never all queued");
    doomed.close();
    Jobs.await(Future.all(a, b), 120);
    assertTrue(tokens.get(2) > tokens.get(1) && tokens.get(1) > 0, "tokens of ranks 1 and 2: " + tokens);
  }

  private record Prims(Mutex mutex, Mutex other, Counter atDead, Counter atLive) {
  }

  private static Future<Prims> setUp(Comm world) {
    return Mutex.create(world).compose(m -> Mutex.create(world, 1).compose(b -> Counter.create(world, 3, 0)
        .compose(c3 -> Counter.create(world, 0, 0).map(c0 -> new Prims(m, b, c3, c0)))));
  }

  /** Requests in {@code order}: each rank once the one before is in the queue; the last counts the latch down. */
  private static Future<Grant> queue(Comm world, Mutex mutex, CountDownLatch queued, int[] order, int tag) {
    int me = world.rank();
    int p = java.util.stream.IntStream.range(0, order.length).filter(i -> order[i] == me).findFirst().orElseThrow();
    Future<?> turn = p == 0 ? Future.succeededFuture()
        : world.recv(Buf.of(new long[1]), 0, 1, Datatype.LONG, order[p - 1], tag);
    return turn.compose(v -> {
      Promise<Void> inQueue = Promise.promise();
      Future<Grant> grant = mutex.lock(0, inQueue);
      inQueue.future().onSuccess(x -> {
        if (p < order.length - 1) {
          world.send(Buf.of(new long[1]), 0, 1, Datatype.LONG, order[p + 1], tag);
        } else {
          queued.countDown();
        }
      });
      return grant;
    });
  }

  private static Future<Void> survivor(Comm world, CountDownLatch queued, AtomicLongArray tokens) {
    int me = world.rank();
    return setUp(world).compose(s -> {
      Future<Void> a = me == 0
          // rank 0 only waits for rank 2's grant on A (so the deaths are known) before the counters
          ? world.recv(Buf.of(new long[1]), 0, 1, Datatype.LONG, 2, 3).<Void>mapEmpty()
          : queue(world, s.mutex, queued, ORDER, 1).compose(g -> {
            assertEquals(me == 1, g.previousHolderDied(), "rank " + me + "'s grant of A: " + g);
            tokens.set(me, g.token());
            return s.mutex.unlock();
          }).compose(v -> me == 2 ? world.send(Buf.of(new long[1]), 0, 1, Datatype.LONG, 0, 3) : Future.succeededFuture());
      Future<Void> b = switch (me) {
        case 0 -> queue(world, s.other, queued, ORDER_B, 11)
            .compose(g -> s.other.whenKnownDead(4)) // unlock once the dead waiter behind is known dead
            .compose(v -> s.other.unlock());
        case 2 -> queue(world, s.other, queued, ORDER_B, 11).compose(g -> {
          assertFalse(g.previousHolderDied(), "B's holder (rank 0) lives; its dead waiter 4 was skipped: " + g);
          return s.other.unlock();
        });
        default -> Future.succeededFuture();
      };
      return Future.all(a, b)
          .compose(v -> s.atDead.next().transform(ar -> {
            assertTrue(ar.failed(), "a counter whose home rank died");
            assertEquals(ErrorClass.PROC_FAILED, ((RmaException) ar.cause()).errorClass(), ar.cause().getMessage());
            return s.atLive.next();
          }))
          .compose(v -> world.getFailed()).map(failed -> {
            assertEquals(2, failed.size(), "ranks 3 and 4 are known dead");
            return null;
          });
    });
  }

  private static String clusterNameOf(Vertx v) {
    return ((io.vertx.spi.cluster.hazelcast.HazelcastClusterManager) ((io.vertx.core.internal.VertxInternal) v)
        .clusterManager()).getHazelcastInstance().getConfig().getClusterName();
  }
}
