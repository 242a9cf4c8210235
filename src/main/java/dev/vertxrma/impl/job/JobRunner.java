package dev.vertxrma.impl.job;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.World;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import dev.vertxrma.impl.runtime.JobRuntime;

/**
 * Runs the ranks a JVM hosts: deploys one {@link RankHost} per local rank, runs the program on
 * each once the whole job is reachable, undeploys them and reports the job's outcome (the first
 * rank failure that is not just the echo of another rank's abort).
 */
public final class JobRunner {

  private JobRunner() {
  }

  /** Runs the local ranks of a job on {@code vertx}; completes when they have all finished. */
  public static Future<Void> run(Vertx vertx, JobOptions options, RankProgram program) {
    return start(vertx, options, program).compose(world -> {
      List<Future<Void>> runs = new ArrayList<>();
      for (RankHost h : world.hosts()) {
        runs.add(h.runProgram());
      }
      Promise<Void> result = Promise.promise();
      Future.join(runs).onComplete(done -> {
        List<Throwable> failures = new ArrayList<>();
        for (Future<Void> f : runs) {
          if (f.failed()) {
            failures.add(f.cause());
          }
        }
        world.release(failures, result);
      });
      return result.future();
    });
  }

  /**
   * Starts the local ranks of a job on {@code vertx} (handshake included) without running
   * anything on them: a world that lives until {@link LocalWorld#close()}.
   */
  public static Future<World> world(Vertx vertx, JobOptions options) {
    return start(vertx, options, null).map(w -> w);
  }

  private static Future<LocalWorld> start(Vertx vertx, JobOptions options, RankProgram program) {
    JobRuntime job;
    try {
      job = JobRuntime.obtain(vertx, options);
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
    int first = options.getFirstLocalRank();
    int count = options.getLocalRankCount();
    if (first + count > options.getNp()) {
      job.release();
      return Future.failedFuture(RmaException.of(ErrorClass.RANK, "local ranks [%d, %d) exceed np=%d",
          first, first + count, options.getNp()));
    }
    io.vertx.core.DeploymentOptions deployment;
    try {
      deployment = RankHost.deployment(options.isVirtualThreads());
    } catch (RmaException e) {
      job.release();
      return Future.failedFuture(e);
    }
    job.expectLocalRanks(count, options.getTransportOptions().getDataPlaneLoop());
    List<RankHost> hosts = new ArrayList<>();
    List<Future<String>> deployments = new ArrayList<>();
    // the files a job killed whole left in the host's segment directory (kill -9 of its every JVM
    // and launcher) go as the next job's JVMs start, not at their first window
    Future<Void> swept = vertx.isClustered() && options.getTransportOptions().isSharedMemory()
        ? vertx.executeBlocking(() -> {
          dev.vertxrma.impl.memory.SharedMapping.sweepStale();
          return null;
        }, false)
        : Future.succeededFuture();
    return Future.join(JvmWarmup.ensure(vertx), swept).transform(warm -> {
      for (int r = first; r < first + count; r++) {
        RankHost host = new RankHost(job, r, program, options.getArgs(), options.isRequireFreedWindows());
        hosts.add(host);
        deployments.add(vertx.deployVerticle(host, deployment));
      }
      LocalWorld world = new LocalWorld(vertx, job, hosts, deployments);
      return Future.join(deployments).transform(deployed -> {
        if (deployed.failed()) {
          Promise<Void> released = Promise.promise();
          world.release(List.of(firstFailure(deployments)), released);
          return released.future().map(world);
        }
        return Future.succeededFuture(world);
      });
    });
  }

  static Throwable firstFailure(List<? extends Future<?>> futures) {
    for (Future<?> f : futures) {
      if (f.failed()) {
        return f.cause();
      }
    }
    return new RmaException(ErrorClass.INTERN, "unknown failure");
  }

  /**
   * Closes {@code vertx} (at the end of a job) from an event-loop context of its own. Vert.x 5.0
   * closed from a virtual-thread context, where a job whose ranks run on virtual threads completes
   * its last future, runs the end of its shutdown on that context's executor, which then waits
   * for itself to terminate ({@code ThreadPerTaskExecutorService.awaitTermination}) until its 10 s
   * limit: every such job took 10 s more to end.
   *
   * @return completes once Vert.x is closed, as {@code vertx.close()}
   */
  public static Future<Void> close(Vertx vertx) {
    io.vertx.core.Promise<Void> closed = io.vertx.core.Promise.promise();
    ((io.vertx.core.internal.VertxInternal) vertx).createEventLoopContext()
        .runOnContext(x -> vertx.close().onComplete(closed));
    return closed.future();
  }

  /**
   * Diagnoses event loops of {@code vertx} (an instance made for the job, not a user's) that a
   * rank's program blocks, instead of Vert.x's stack trace every second: one WARNING naming the
   * rank, where it waits and the fix, one line per 10 s after, and {@code onStuck} told once with
   * TIMEOUT when a rank's loop has been blocked longer than the job's wait timeout.
   */
  public static void watchBlockedRanks(Vertx vertx, JobOptions options,
      java.util.function.Consumer<dev.vertxrma.RmaException> onStuck) {
    BlockedRankWatch.install(vertx, options.getWaitTimeoutMs(), onStuck);
  }

  /** The most telling failure: one that is not merely another rank's abort echoed. */
  public static Throwable rootCause(List<Throwable> failures) {
    for (Throwable t : failures) {
      if (!(t instanceof RmaException) || ((RmaException) t).errorClass() != ErrorClass.COMM) {
        return t;
      }
    }
    return failures.get(0);
  }
}
