package dev.vertxrma.bench;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.IAtomicLong;
import com.hazelcast.cp.lock.FencedLock;
import dev.vertxrma.Comm;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.sync.Counter;
import dev.vertxrma.sync.Mutex;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.shareddata.SharedData;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The {@code counter-next} and {@code mutex-lock} benches of {@code rmabench}: the coordination
 * primitives of {@code dev.vertxrma.sync} beside what a Vert.x developer has on the same cluster,
 * in the same job. Rank 0 times, one call at a time, with the primitives' home (and the cluster
 * data's owner) at the last rank, so that with {@code --jvms 2} it is in the other JVM:
 *
 * <ul>
 *   <li>{@code counter-next}: {@link Counter#next()} (sync column {@code rma}); Vert.x's
 *       {@code sharedData().getCounter(name).incrementAndGet()} ({@code vertx}); Hazelcast's
 *       {@code IAtomicLong.incrementAndGetAsync} ({@code hz-cp});</li>
 *   <li>{@code mutex-lock}: an uncontended {@link Mutex#lock()} + {@link Mutex#unlock()}
 *       ({@code rma}); {@code sharedData().getLock(name)} + {@code release()} ({@code vertx});
 *       Hazelcast's {@code FencedLock.lockAndGetFence()} + {@code unlock()} ({@code hz-cp}), which
 *       has no asynchronous form, so it runs on a worker thread as a Vert.x caller must.</li>
 * </ul>
 *
 * Hazelcast's CP structures run in its community edition's "unsafe" mode (no CP members
 * configured, as in this project's cluster.xml): the same AP data Vert.x's cluster manager uses.
 * Embedded ({@code --jvms 1}) there is no cluster: Vert.x's shared data is local and the
 * Hazelcast rows are left out.
 */
public final class CoordinationProgram implements RankProgram {

  private static final long FIRST_WARMUP_NANOS = 2_000_000_000L;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    return BenchPlan.fromArgs(args).compose(plan -> run(world, plan));
  }

  private static Future<Void> run(Comm world, BenchPlan plan) {
    int home = world.size() - 1;
    Vertx vertx = world.vertx();
    HazelcastInstance hz = ((VertxInternal) vertx).clusterManager() instanceof HazelcastClusterManager m
        ? m.getHazelcastInstance() : null;
    Context ctx = Vertx.currentContext();
    List<BenchPlan.Point> points = plan.points().stream().filter(p -> p.bench().kind == Bench.Kind.COORDINATION)
        .toList();
    return Counter.create(world, home, 0).compose(counter -> Mutex.create(world, home).compose(mutex ->
        exchangeKey(world, hz, home).compose(key -> world.rank() != 0 ? Future.<Void>succeededFuture()
            : Rma.repeat(points.size(), k -> {
              Bench bench = points.get(k).bench();
              List<String> impls = new ArrayList<>(List.of("rma", "vertx"));
              if (hz != null) {
                impls.add("hz-cp");
              }
              return Rma.repeat(impls.size(), j -> call(bench, impls.get(j), counter, mutex, vertx, hz, key, ctx)
                  .compose(op -> time(world, plan, bench, impls.get(j), op)));
            }))
            .compose(v -> world.barrier())
            .compose(v -> mutex.free())
            .compose(v -> counter.free())));
  }

  /** The timed call of {@code bench} by {@code impl}; handles that take a call to get are got first. */
  private static Future<Supplier<Future<?>>> call(Bench bench, String impl, Counter counter, Mutex mutex, Vertx vertx,
      HazelcastInstance hz, String key, Context ctx) {
    SharedData sd = vertx.sharedData();
    boolean isCounter = bench == Bench.COUNTER_NEXT;
    switch (impl) {
      case "rma":
        return Future.succeededFuture(isCounter ? counter::next : () -> mutex.lock().compose(g -> mutex.unlock()));
      case "vertx":
        if (isCounter) {
          return sd.getCounter("rmabench-counter").map(c -> c::incrementAndGet);
        }
        return Future.succeededFuture(() -> sd.getLock("rmabench-lock").map(l -> {
          l.release();
          return null;
        }));
      default:
        if (isCounter) {
          IAtomicLong atomic = hz.getCPSubsystem().getAtomicLong("rmabench-counter@" + key);
          return Future.succeededFuture(() -> Future.fromCompletionStage(atomic.incrementAndGetAsync(), ctx));
        }
        FencedLock lock = hz.getCPSubsystem().getLock("rmabench-lock@" + key);
        return Future.succeededFuture(() -> vertx.executeBlocking(() -> {
          long fence = lock.lockAndGetFence();
          lock.unlock();
          return fence;
        }, false));
    }
  }

  private static Future<Void> time(Comm world, BenchPlan plan, Bench bench, String impl, Supplier<Future<?>> op) {
    int iters = plan.iterations(bench, 8);
    Latencies lat = Latencies.measured();
    long until = System.nanoTime() + Math.max(plan.warmupNanos(), FIRST_WARMUP_NANOS);
    int phase = Math.max(1, plan.warmup(iters));
    Future<Void> warm = plan.warmupNanos() == 0 ? lat.rounds(phase, op)
        : Rma.repeatUntil(() -> lat.rounds(phase, op).map(v -> System.nanoTime() > until));
    return warm.compose(v -> lat.measure(iters, op)).map(v -> {
      Row row = new Row(Row.OURS, bench.id, impl, world.size(), plan.jvms(), 8, iters, lat.medianUs(), lat.p99Us(),
          Double.NaN);
      System.out.println(row.toWire());
      System.out.flush();
      return null;
    });
  }

  /** The home rank picks a key whose partition its own Hazelcast member owns and tells rank 0. */
  private static Future<String> exchangeKey(Comm world, HazelcastInstance hz, int home) {
    if (hz == null || home == 0) {
      return Future.succeededFuture("k");
    }
    return HazelcastProgram.exchangeKey(world, hz, home);
  }
}
