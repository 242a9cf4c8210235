package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
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
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
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
    Future<Void> survivors = Rma.run(nodes[0], copy(options).setLocalRanks(0, 2), (world, args) -> {
      long[] buf = new long[1];
      return world.recv(Buf.of(buf), 0, 1, Datatype.LONG, 2, 0);
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
    // "long before the wait timeout" is what the failure is, not how long it took: the receive
    // fails with PROC_FAILED naming rank 2 only if the node's leaving was seen; had it waited for
    // its 60 s wait timeout it would fail with TIMEOUT (and after Jobs.await's 60 s). An elapsed
    // bound (30 s, counted from the job's start) measured the loaded machine, not the library
  }

  /**
   * A node that left while the job was still starting (rank 3 never came, so the handshake could
   * not finish): the survivors, who had heard of rank 2 on that node, fail at once with
   * PROC_FAILED naming it, long before the startup timeout.
   */
  @Test
  void aNodeLostDuringTheStartupHandshakeFailsItWithProcFailed() throws Exception {
    Vertx[] nodes = Jobs.clusterNodes();
    Vertx doomed = BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(clusterNameOf(nodes[0]),
        BlockedThreadGuard.options()), 120));
    JobOptions options = Jobs.options(4).setWaitTimeoutMs(60_000).setStartupTimeoutMs(60_000);
    String hello = "rma." + options.getJobName() + ".hello";
    CompletableFuture<Void> survivorsListen = new CompletableFuture<>();
    CompletableFuture<Void> rank2HelloTwice = new CompletableFuture<>();
    int[] rank2Hellos = new int[1];
    MessageConsumer<Object> spy = nodes[1].eventBus().consumer(hello, m -> {
      if (m.body() instanceof JsonObject) {
        String key = ((JsonObject) m.body()).getString("key", "");
        if (key.startsWith("0000000000/")) {
          survivorsListen.complete(null);
        } else if (key.startsWith("0000000002/") && ++rank2Hellos[0] == 2) {
          rank2HelloTwice.complete(null);
        }
      }
    });
    Jobs.await(spy.completion(), 60);
    Future<Void> survivors = Rma.run(nodes[0], copy(options).setLocalRanks(0, 2), (world, args) ->
        Future.failedFuture("the job must not start: rank 3 never joins"));
    survivorsListen.get(60, TimeUnit.SECONDS);
    Rma.run(doomed, copy(options).setLocalRanks(2, 1), (world, args) -> Future.succeededFuture());
    // the survivors' handshake got rank 2's first HELLO with the spy's; the second makes it sure
    rank2HelloTwice.get(60, TimeUnit.SECONDS);
    doomed.close();
    Throwable failure = null;
    try {
      Jobs.await(survivors, 60);
    } catch (RuntimeException e) {
      failure = e.getCause().getCause();
    } finally {
      spy.unregister();
    }
    assertInstanceOf(RmaException.class, failure, "the survivors' startup must fail, not wait for its timeout");
    RmaException rma = (RmaException) failure;
    assertEquals(ErrorClass.PROC_FAILED, rma.errorClass(), rma.getMessage());
    assertTrue(rma.getMessage().contains("[2]") && rma.getMessage().contains("during startup"), rma.getMessage());
    // not the startup timeout (60 s), which fails with TIMEOUT naming the missing ranks: the
    // failure's class and text tell the two apart, where a 10 s elapsed bound was a proxy
  }

  private static String clusterNameOf(Vertx v) {
    return ((io.vertx.spi.cluster.hazelcast.HazelcastClusterManager) ((io.vertx.core.internal.VertxInternal) v)
        .clusterManager()).getHazelcastInstance().getConfig().getClusterName();
  }

  private static JobOptions copy(JobOptions o) {
    return new JobOptions().setNp(o.getNp()).setJobName(o.getJobName()).setWaitTimeoutMs(o.getWaitTimeoutMs())
        .setStartupTimeoutMs(o.getStartupTimeoutMs()).setSecret(o.getSecret());
  }
}
