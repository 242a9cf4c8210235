package dev.vertxrma.comm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Comm;
import dev.vertxrma.FailurePolicy;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * MPI_Win_free after a failure, as the resilience samples use it (issue 41: "Win.free() completes
 * locally after a failure"): a window whose communicator lost a member and was then revoked (ULFM's
 * recovery: revoke, shrink, a new window) is freed by the survivors, and so is a window over a
 * communicator every rank revoked; a free begun at a rank the revoke has not reached yet still
 * leaves the job's finalize hanging (disabled, for the owner of impl/win).
 */
class UlfmWindowFreeTest {

  /**
   * Three ranks, a window over a dup, the dup revoked by every rank (as ULFM's recovery does at
   * each survivor): every rank's Win.free completes, and the job finalizes. (On d0d20d1 the free
   * failed with REVOKED; fab68fd frees it locally.)
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void aWindowOverACommunicatorEveryRankRevokedIsFreed(Mode mode) {
    Jobs.await(Jobs.start(mode, Jobs.options(3).setFailurePolicy(FailurePolicy.CONTINUE), (world, args) ->
        world.dup().compose(d -> Win.allocate(d, 64, 8, Info.NULL).compose(win -> world.barrier()
            .compose(v -> d.revoke())
            .compose(v -> win.free())
            .compose(v -> d.free())))), 120);
  }

  /**
   * The same, the dup revoked by rank 2 alone, so that a rank may begin a (collective) free of the
   * window before the revoke reaches it while the others free it locally. Before the revoke
   * reached the windows over the communicator, that rank's free waited in the in-memory barrier
   * for its timeout and the job's finalize agreement timed out ({@code TIMEOUT: agree (number 0)},
   * embedded, 3 runs of 4); now its barrier fails when the revoke arrives and it frees locally.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void aWindowOverACommunicatorRevokedByOneRankIsFreed(Mode mode) {
    Jobs.await(Jobs.start(mode, Jobs.options(3).setWaitTimeoutMs(30_000).setFailurePolicy(FailurePolicy.CONTINUE),
        (world, args) -> world.dup().compose(d -> Win.allocate(d, 64, 8, Info.NULL).compose(win -> world.barrier()
            .compose(v -> world.rank() == 2 ? d.revoke() : Future.succeededFuture())
            .compose(v -> world.barrier()) // the revoke is passed on before rank 2 gets here: it may still be on its way
            .compose(v -> win.free())
            .compose(v -> d.free())))), 120);
  }

  /**
   * Ranks 0 and 1 on one node, rank 2 on a node that leaves: once both survivors know of the
   * death, they revoke the world (as ULFM's recovery does), free their window over it, and finish.
   * On 72148b8 the free failed with PROC_FAILED (a member lost); d0d20d1 frees it locally. (Without
   * the wait for both to know, a survivor that got the other's revoke before the death's notice
   * failed its free with REVOKED on d0d20d1, 2 runs of 6: the disabled case above.)
   */
  @Test
  void aWindowThatLostAMemberIsFreedBySurvivorsAfterARevoke() throws Exception {
    Vertx[] nodes = Jobs.clusterNodes();
    String cluster = ((io.vertx.spi.cluster.hazelcast.HazelcastClusterManager) ((io.vertx.core.internal.VertxInternal)
        nodes[0]).clusterManager()).getHazelcastInstance().getConfig().getClusterName();
    Vertx doomed = BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(cluster, BlockedThreadGuard.options()), 120));
    JobOptions options = Jobs.options(3).setWaitTimeoutMs(30_000).setFailurePolicy(FailurePolicy.CONTINUE);
    CountDownLatch windowsMade = new CountDownLatch(2);
    CompletableFuture<Void> rank2HasItsWindow = new CompletableFuture<>();
    // both survivors run in this JVM: the second to see the death lets both go on
    java.util.concurrent.atomic.AtomicInteger sawDeath = new java.util.concurrent.atomic.AtomicInteger();
    CompletableFuture<Void> bothSawIt = new CompletableFuture<>();
    Future<Void> survivors = Rma.run(nodes[0], new JobOptions(options).setLocalRanks(0, 2), (w, args) ->
        Win.allocate(w, 64, 8, Info.NULL).compose(win -> {
          windowsMade.countDown();
          io.vertx.core.Context here = Vertx.currentContext();
          // a receive from rank 2 fails once it is dead (nobody revokes before both know)
          return w.recv(dev.vertxrma.Buf.of(new long[1]), 0, 1, dev.vertxrma.Datatype.LONG, 2, 1).transform(ar -> {
            assertTrue(ar.failed() && ar.cause() instanceof dev.vertxrma.RmaException
                && ((dev.vertxrma.RmaException) ar.cause()).errorClass() == dev.vertxrma.ErrorClass.PROC_FAILED,
                String.valueOf(ar.cause()));
            if (sawDeath.incrementAndGet() == 2) {
              bothSawIt.complete(null);
            }
            Promise<Void> go = Promise.promise();
            bothSawIt.thenRun(() -> here.runOnContext(v -> go.complete()));
            return go.future();
          }).compose(v -> w.revoke()).compose(v -> win.free());
        }));
    Rma.run(doomed, new JobOptions(options).setLocalRanks(2, 1), (Comm w, java.util.List<String> args) ->
        Win.allocate(w, 64, 8, Info.NULL).compose(win -> {
          rank2HasItsWindow.complete(null);
          return Promise.<Void>promise().future(); // its node leaves under it
        }));
    rank2HasItsWindow.get(120, TimeUnit.SECONDS);
    assertTrue(windowsMade.await(120, TimeUnit.SECONDS));
    doomed.close();
    Jobs.await(survivors, 120);
  }
}
