package dev.vertxrma.bench;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.IAtomicLong;
import com.hazelcast.map.IMap;
import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The Hazelcast baseline of {@code rmabench --baseline hazelcast}: what a Java developer would
 * use instead of RMA, measured across the same JVMs. Each JVM of the job starts one Hazelcast
 * member (cluster {@code JOB-hazelcast}, configured like the job's own cluster); rank 0 then
 * times, through Hazelcast's asynchronous API completed on its Vert.x context:
 * {@code IAtomicLong.incrementAndGetAsync} (beside {@code fop-latency}), {@code IMap.setAsync}
 * (beside {@code put-latency}) and {@code IMap.getAsync} (beside {@code get-latency}), on data
 * whose partition is owned by the JVM of the last rank (the RMA benches' target).
 */
public final class HazelcastProgram implements RankProgram {

  /** The Hazelcast benches and the RMA bench each stands beside. */
  static final Map<String, String> PAIRS = Map.of(
      Bench.FOP_LATENCY.id, "iatomiclong-increment",
      Bench.PUT_LATENCY.id, "imap-set",
      Bench.GET_LATENCY.id, "imap-get");

  private static final Map<String, Future<HazelcastInstance>> MEMBERS = new ConcurrentHashMap<>();
  private static final int KEY_TAG = 77;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    return BenchPlan.fromArgs(args).compose(plan -> run(world, plan));
  }

  private static Future<Void> run(Comm world, BenchPlan plan) {
    if (world.size() < 2) {
      return Future.failedFuture(new RmaException(ErrorClass.ARG, "the Hazelcast baseline needs at least 2 ranks"));
    }
    Context ctx = Vertx.currentContext();
    String cluster = world.jobName() + "-hazelcast";
    boolean[] creator = {false};
    Future<HazelcastInstance> member = MEMBERS.computeIfAbsent(cluster, c -> {
      creator[0] = true;
      return world.vertx().executeBlocking(() -> {
        Config config = ConfigUtil.loadConfig();
        config.setClusterName(c);
        return Hazelcast.newHazelcastInstance(config);
      }, false);
    });
    int target = world.size() - 1;
    return member.compose(hz -> formed(world.vertx(), hz, plan.jvms()))
        .compose(hz -> world.barrier().compose(v -> exchangeKey(world, hz, target))
            .compose(key -> world.rank() == 0 ? measure(ctx, hz, key, plan, world) : Future.succeededFuture())
            .compose(v -> world.barrier())
            .compose(v -> creator[0] ? shutdown(world.vertx(), hz, cluster) : Future.succeededFuture()));
  }

  /** Completes once the Hazelcast cluster has one member per JVM of the job and owns its partitions. */
  private static Future<HazelcastInstance> formed(Vertx vertx, HazelcastInstance hz, int jvms) {
    long deadline = System.nanoTime() + 60_000_000_000L;
    return Rma.repeatUntil(() -> {
      // formed: every member joined, partitions assigned and no migration under way
      if (hz.getCluster().getMembers().size() >= jvms && hz.getPartitionService().getPartition("k").getOwner() != null
          && hz.getPartitionService().isClusterSafe()) {
        return Future.succeededFuture(true);
      }
      if (System.nanoTime() > deadline) {
        return Future.failedFuture(new RmaException(ErrorClass.TIMEOUT, "the Hazelcast baseline cluster did not form "
            + jvms + " members within 60 s (has " + hz.getCluster().getMembers().size() + ")"));
      }
      return vertx.timer(20).map(false);
    }).map(hz);
  }

  /** The target rank picks a key its own member owns and tells rank 0. */
  static Future<String> exchangeKey(Comm world, HazelcastInstance hz, int target) {
    if (world.rank() == target) {
      String key = null;
      for (int i = 0; key == null; i++) {
        String candidate = "k" + i;
        if (hz.getPartitionService().getPartition(candidate).getOwner().localMember()) {
          key = candidate;
        }
      }
      byte[] b = key.getBytes(StandardCharsets.US_ASCII);
      return world.send(Buf.of(b), 0, b.length, Datatype.BYTE, 0, KEY_TAG).map(key);
    }
    if (world.rank() == 0) {
      byte[] b = new byte[64];
      return world.recv(Buf.of(b), 0, b.length, Datatype.BYTE, target, KEY_TAG)
          .map(st -> new String(b, 0, st.count(), StandardCharsets.US_ASCII));
    }
    return Future.succeededFuture("");
  }

  private static Future<Void> measure(Context ctx, HazelcastInstance hz, String key, BenchPlan plan, Comm world) {
    IMap<String, byte[]> map = hz.getMap("rmabench");
    // an IAtomicLong lives in the partition of its group name: "name@group" puts it next to the key
    IAtomicLong counter = hz.getCPSubsystem().getAtomicLong("counter@" + key);
    List<BenchPlan.Spec> specs = plan.specs().stream().filter(s -> PAIRS.containsKey(s.bench().id)).distinct().toList();
    return Rma.repeat(specs.size(), k -> {
      Bench bench = specs.get(k).bench();
      List<Long> sizes = bench.sizes(plan.sizes());
      return Rma.repeat(sizes.size(), j -> {
        long bytes = sizes.get(j);
        byte[] value = new byte[(int) bytes];
        Supplier<CompletionStage<?>> op;
        switch (bench) {
          case FOP_LATENCY:
            op = counter::incrementAndGetAsync;
            break;
          case PUT_LATENCY:
            op = () -> map.setAsync(key, value);
            break;
          default:
            op = () -> map.getAsync(key);
        }
        Future<?> seed = bench == Bench.GET_LATENCY ? Future.fromCompletionStage(map.setAsync(key, value), ctx)
            : Future.succeededFuture();
        int iters = plan.iterations(bench, bytes);
        Latencies lat = Latencies.afterWarmup(plan.warmup(iters));
        return seed.compose(v -> Rma.repeat(plan.warmup(iters) + iters,
                i -> lat.time(i, () -> Future.fromCompletionStage(op.get(), ctx))))
            .map(v -> {
              Row row = new Row("hazelcast", PAIRS.get(bench.id), "-", world.size(), plan.jvms(), bytes, iters,
                  lat.medianUs(), lat.p99Us(), Double.NaN);
              System.out.println(row.toWire());
              System.out.flush();
              return null;
            });
      });
    });
  }

  private static Future<Void> shutdown(Vertx vertx, HazelcastInstance hz, String cluster) {
    MEMBERS.remove(cluster);
    return vertx.executeBlocking(() -> {
      hz.shutdown();
      return null;
    }, false);
  }
}
