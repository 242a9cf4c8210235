package dev.vertxrma.testing;

import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs rank programs the two ways every test covers: embedded (all ranks in one Vert.x, no
 * cluster manager) and clustered (ranks split over two clustered Vert.x nodes in this JVM,
 * Hazelcast on loopback, a cluster name unique to this test run). Frames between the two nodes
 * cross the clustered event bus and the binary codec.
 */
public final class Jobs {

  /** Where a job's ranks live. */
  public enum Mode { EMBEDDED, CLUSTERED }

  private static final String CLUSTER = "rma-test-" + UUID.randomUUID().toString().substring(0, 8);
  private static final AtomicInteger JOBS = new AtomicInteger();
  private static Vertx embedded;
  private static Vertx[] nodes;

  private Jobs() {
  }

  /** The shared embedded Vert.x instance. */
  public static synchronized Vertx embedded() {
    if (embedded == null) {
      embedded = BlockedThreadGuard.watch(Vertx.vertx(BlockedThreadGuard.options()));
    }
    return embedded;
  }

  /** The two shared clustered nodes, started on first use. */
  public static synchronized Vertx[] clusterNodes() {
    if (nodes == null) {
      Vertx a = BlockedThreadGuard.watch(await(Rma.clusteredVertx(CLUSTER, BlockedThreadGuard.options()), 120));
      Vertx b = BlockedThreadGuard.watch(await(Rma.clusteredVertx(CLUSTER, BlockedThreadGuard.options()), 120));
      nodes = new Vertx[] {a, b};
      Runtime.getRuntime().addShutdownHook(new Thread(Jobs::closeAll));
    }
    return nodes;
  }

  private static synchronized void closeAll() {
    if (nodes != null) {
      for (Vertx v : nodes) {
        v.close();
      }
    }
  }

  /**
   * Whether jobs of {@link #options} take the on-node path between the two clustered nodes
   * ({@code -Dvertxrma.test.onNode}, default true). The {@code data-plane} execution of surefire
   * runs the core RMA suites with it false, so that their clustered runs cross the data plane.
   */
  public static final boolean ON_NODE = !"false".equals(System.getProperty("vertxrma.test.onNode"));

  /**
   * Fresh job options with a unique job name, {@code np} ranks and a short wait timeout; the
   * on-node path as {@link #ON_NODE} says.
   */
  public static JobOptions options(int np) {
    JobOptions o = new JobOptions().setNp(np).setJobName("t" + JOBS.incrementAndGet() + "-" + UUID.randomUUID()
        .toString().substring(0, 6)).setWaitTimeoutMs(30_000).setStartupTimeoutMs(60_000)
        .setSecret(dev.vertxrma.impl.transport.JobSecret.random().text());
    if (!ON_NODE) {
      o.getTransportOptions().setSharedMemory(false);
    }
    return o;
  }

  /**
   * The communicator rank programs are given: the world, or a split of it with the ranks in
   * reverse order (so that every rank a program uses differs from the job rank behind it). Suites
   * re-run on a communicator other than the world switch it for their duration.
   */
  public enum Over { WORLD, REVERSED_SPLIT }

  private static volatile Over over = Over.WORLD;

  /** Makes the programs of later jobs run over {@code comm} (see {@link Over}). */
  public static void runOver(Over comm) {
    over = comm;
  }

  private static RankProgram over(RankProgram program) {
    if (over == Over.WORLD) {
      return program;
    }
    return (world, args) -> world.split(0, world.size() - 1 - world.rank())
        .compose(c -> program.run(c.orElseThrow(), args));
  }

  /** Runs a job of {@code np} ranks in the given mode; the future completes when every rank finished. */
  public static Future<Void> start(Mode mode, JobOptions options, RankProgram given) {
    RankProgram program = over(given);
    if (mode == Mode.EMBEDDED) {
      return Rma.run(embedded(), options, program);
    }
    Vertx[] n = clusterNodes();
    int np = options.getNp();
    int half = Math.max(1, np / 2);
    if (np == 1) {
      return Rma.run(n[1], options, program);
    }
    JobOptions first = copy(options).setLocalRanks(0, half);
    JobOptions second = copy(options).setLocalRanks(half, np - half);
    Future<Void> fa = Rma.run(n[0], first, program);
    Future<Void> fb = Rma.run(n[1], second, program);
    // report the rank's own failure, wherever it ran, rather than the other node's abort echo
    return Future.join(fa, fb).transform(ar -> {
      if (fa.succeeded() && fb.succeeded()) {
        return fa;
      }
      Future<Void> own = Future.failedFuture(dev.vertxrma.impl.job.JobRunner.rootCause(
          java.util.stream.Stream.of(fa, fb).filter(Future::failed).map(Future::cause).toList()));
      return own;
    });
  }

  /**
   * Starts a long-lived world of {@code options.getNp()} ranks: one world on the embedded
   * instance, or the ranks split over the two cluster nodes (one world per node, in rank order).
   */
  public static List<dev.vertxrma.World> worlds(Mode mode, JobOptions options) {
    if (mode == Mode.EMBEDDED) {
      return List.of(await(Rma.world(embedded(), options), 120));
    }
    Vertx[] n = clusterNodes();
    int np = options.getNp();
    int half = Math.max(1, np / 2);
    Future<dev.vertxrma.World> fa = Rma.world(n[0], copy(options).setLocalRanks(0, half));
    Future<dev.vertxrma.World> fb = Rma.world(n[1], copy(options).setLocalRanks(half, np - half));
    return List.of(await(fa, 120), await(fb, 120));
  }

  private static JobOptions copy(JobOptions o) {
    return new JobOptions(o);
  }

  /**
   * {@link #options}, with the on-node path off: clustered, the ranks of the two nodes reach each
   * other over the data plane, as JVMs of different hosts do.
   */
  public static JobOptions overDataPlane(int np) {
    JobOptions o = options(np);
    o.getTransportOptions().setSharedMemory(false);
    return o;
  }

  /** {@link #run}, with the on-node path off ({@link #overDataPlane}). */
  public static void runOverDataPlane(Mode mode, int np, RankProgram program) {
    await(start(mode, overDataPlane(np), program), 120);
  }

  /** Runs and waits (at most 120 s); rethrows the job's failure. */
  public static void run(Mode mode, int np, RankProgram program) {
    await(start(mode, options(np), program), 120);
  }

  /** Runs and returns the failure, or {@code null} if the job succeeded. */
  public static Throwable runExpectingFailure(Mode mode, JobOptions options, RankProgram program) {
    try {
      await(start(mode, options, program), 120);
      return null;
    } catch (RuntimeException e) {
      return e.getCause() instanceof ExecutionException ? e.getCause().getCause() : e.getCause();
    }
  }

  /** Waits for a future, at most {@code seconds}. */
  public static <T> T await(Future<T> f, int seconds) {
    CompletableFuture<T> cf = f.toCompletionStage().toCompletableFuture();
    try {
      return cf.get(seconds, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException) {
        throw new RuntimeException(e.getCause().getMessage(), e);
      }
      throw new RuntimeException(e);
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  private static final java.util.concurrent.ScheduledExecutorService POLLER =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "jobs-poller");
        t.setDaemon(true);
        return t;
      });

  /**
   * Waits until {@code condition} holds (checked every 2 ms by a timer, not by sleeping), at most
   * {@code seconds}; fails with {@code what} otherwise. For state only visible by polling (counters).
   */
  public static void eventually(java.util.function.BooleanSupplier condition, int seconds, String what) {
    CompletableFuture<Void> holds = new CompletableFuture<>();
    java.util.concurrent.ScheduledFuture<?> poll = POLLER.scheduleWithFixedDelay(() -> {
      if (condition.getAsBoolean()) {
        holds.complete(null);
      }
    }, 0, 2, TimeUnit.MILLISECONDS);
    try {
      holds.get(seconds, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(what + " did not happen within " + seconds + " s", e);
    } finally {
      poll.cancel(false);
    }
  }

  /** Program arguments as a list. */
  public static List<String> args(String... a) {
    return List.of(a);
  }
}
