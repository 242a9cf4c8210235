package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Architecture decision 6: when a node hosting ranks leaves the cluster, every pending call
 * that depends on the job fails with PROC_FAILED within seconds, long before the wait timeout.
 */
class NodeLeftTest {

  @Test
  void pendingReceiveFailsWithProcFailedWhenThePeerNodeLeaves() throws Exception {
    Vertx[] nodes = Jobs.clusterNodes();
    Vertx doomed = BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(clusterNameOf(nodes[0]), BlockedThreadGuard.options()), 120));
    JobOptions options = Jobs.options(3).setWaitTimeoutMs(60_000);
    CompletableFuture<Void> rank2Running = new CompletableFuture<>();
    long[] started = new long[1];
    Future<Void> survivors = Rma.run(nodes[0], copy(options).setLocalRanks(0, 2), (world, args) -> {
      long[] buf = new long[1];
      started[0] = System.nanoTime();
      return world.recv(buf, 0, 1, Datatype.LONG, 2, 0);
    });
    Rma.run(doomed, copy(options).setLocalRanks(2, 1), (world, args) -> {
      rank2Running.complete(null);
      return Promise.promise().future(); // never completes: the node dies under it
    });
    rank2Running.get(120, TimeUnit.SECONDS);
    doomed.close();
    Throwable failure = null;
    try {
      Jobs.await(survivors, 60);
    } catch (RuntimeException e) {
      failure = e.getCause().getCause();
    }
    assertInstanceOf(RmaException.class, failure, "the survivors' job must fail, not hang");
    RmaException rma = (RmaException) failure;
    assertEquals(ErrorClass.PROC_FAILED, rma.errorClass(), rma.getMessage());
    assertTrue(rma.getMessage().contains("[2]"), rma.getMessage());
    long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started[0]);
    assertTrue(waitedMs < 30_000, "detected after " + waitedMs + " ms, should be about a second");
  }

  private static String clusterNameOf(Vertx v) {
    return ((io.vertx.spi.cluster.hazelcast.HazelcastClusterManager) ((io.vertx.core.internal.VertxInternal) v)
        .clusterManager()).getHazelcastInstance().getConfig().getClusterName();
  }

  private static JobOptions copy(JobOptions o) {
    return new JobOptions().setNp(o.getNp()).setJobName(o.getJobName()).setWaitTimeoutMs(o.getWaitTimeoutMs())
        .setStartupTimeoutMs(o.getStartupTimeoutMs());
  }
}
