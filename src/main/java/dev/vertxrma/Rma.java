package dev.vertxrma;

import dev.vertxrma.impl.runtime.CallLoop;
import dev.vertxrma.impl.runtime.ClusterSupport;
import dev.vertxrma.impl.job.JobRunner;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Entry point: runs a job of ranks, MPI-style ({@code mpirun}), embedded in this JVM or across
 * JVMs joined by the clustered event bus. {@code run} is {@code MPI_Init}, a program on every
 * rank and {@code MPI_Finalize}; {@link #world(Vertx, JobOptions)} keeps the ranks open for a
 * service instead.
 *
 * <pre>{@code
 * Rma.run(new JobOptions().setNp(4), (world, args) ->
 *     world.allreduce((long) world.rank(), Op.SUM).map(sum -> ...));
 * }</pre>
 */
public final class Rma {

  private Rma() {
  }

  /**
   * MPI_Init, the program, MPI_Finalize: runs the ranks this JVM hosts
   * ({@link JobOptions#setLocalRanks}, all by default) on an existing Vert.x instance — embedded,
   * or clustered with the other JVMs of the job. Each rank runs {@code program} on its own event
   * loop; a failing rank aborts the job, so the other ranks' pending calls fail with
   * {@link ErrorClass#COMM}.
   *
   * @param vertx the Vert.x instance to deploy the ranks on (left open)
   * @param options the job: number of ranks, local ranks, name, timeouts
   * @param program the code every rank runs
   * @return completes when every local rank's program and the final barrier have completed; fails
   *     with the first rank's failure (an exception other than {@link RmaException} becomes
   *     {@link ErrorClass#OTHER}), {@link ErrorClass#TIMEOUT} when the job could not start within
   *     {@link JobOptions#getStartupTimeoutMs()}, {@link ErrorClass#PROC_FAILED} when a JVM of the
   *     job left, {@link ErrorClass#ARG} when a job of that name runs here with another np,
   *     {@link ErrorClass#RANK} for local ranks outside the job
   */
  public static Future<Void> run(Vertx vertx, JobOptions options, RankProgram program) {
    return JobRunner.run(vertx, options, program);
  }

  /**
   * Starts the ranks this JVM hosts ({@link JobOptions#setLocalRanks}, all by default) on an
   * existing Vert.x instance and keeps them open for a service: {@code MPI_Init} without a
   * program. Each JVM of a clustered job calls it with its own local ranks.
   *
   * <pre>{@code
   * Rma.world(vertx, new JobOptions().setNp(4)).onSuccess(world -> {
   *   Comm rank0 = world.rank(0);   // use from any thread, see World's concurrency contract
   *   ...
   *   world.close();                // MPI_Finalize
   * });
   * }</pre>
   *
   * @param vertx the Vert.x instance to deploy the ranks on (left open by {@link World#close()})
   * @param options the job: number of ranks, local ranks, name, timeouts
   * @return completes when every rank of the job has joined; fails with {@link ErrorClass#TIMEOUT}
   *     when the job could not start within {@link JobOptions#getStartupTimeoutMs()},
   *     {@link ErrorClass#PROC_FAILED} when a JVM of the job left during startup,
   *     {@link ErrorClass#ARG} when a job of that name runs here with another np,
   *     {@link ErrorClass#RANK} for local ranks outside the job
   */
  public static Future<World> world(Vertx vertx, JobOptions options) {
    return JobRunner.world(vertx, options);
  }

  /**
   * As {@link #run(Vertx, JobOptions, RankProgram)} on a Vert.x instance of its own, clustered
   * when {@link JobOptions#isClustered()} (cluster name = job name), closed at the end.
   *
   * @param options the job: number of ranks, local ranks, name, timeouts, clustered or not; the
   *     clustered node is made as its {@link JobOptions#getClusterOptions() cluster options} and
   *     {@link JobOptions#getProgress() progress} say
   * @param program the code every rank runs
   * @return completes when the job has completed and Vert.x is closed; fails as
   *     {@link #run(Vertx, JobOptions, RankProgram)} does, and with {@link ErrorClass#INTERN} when
   *     Vert.x cannot start (its cause says why, e.g. a missing cluster configuration)
   */
  public static Future<Void> run(JobOptions options, RankProgram program) {
    Promise<Void> result = Promise.promise();
    Future<Vertx> vertx;
    try {
      vertx = options.isClustered()
          ? clusteredVertx(options.getJobName(), new io.vertx.core.VertxOptions(), options.getClusterOptions(),
              options.getProgress())
          : Future.succeededFuture(Vertx.vertx());
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
    vertx.onComplete(started -> {
      if (started.failed()) {
        result.fail(new RmaException(ErrorClass.INTERN, "cannot start Vert.x: " + ClusterSupport.startFailure(started.cause()), started.cause()));
        return;
      }
      Vertx v = started.result();
      JobRunner.watchBlockedRanks(v, options, result::tryFail);
      JobRunner.run(v, options, program).onComplete(outcome -> JobRunner.close(v).onComplete(closed -> {
        if (outcome.failed()) {
          result.fail(outcome.cause());
        } else {
          result.complete();
        }
      }));
    });
    return result.future();
  }

  /**
   * A new clustered Vert.x node in cluster {@code clusterName}, made as this JVM's defaults say
   * (a new {@link ClusterOptions} and {@link Progress#jvmDefault()}): Hazelcast is configured from
   * the file {@code -Dvertx.hazelcast.config} names, else {@code cluster.xml} in the directory
   * {@code -Drma.conf} names, else the library's loopback default; the event bus binds to
   * {@code -Drma.host} (default 127.0.0.1).
   *
   * @param clusterName the Hazelcast cluster name; the JVMs of one job use the job's name
   * @return completes with the node once it has joined the cluster; fails with
   *     {@link ErrorClass#ARG} when the configured {@code cluster.xml} is missing or invalid or a
   *     system property of the cluster options holds no valid value, or with Vert.x's own failure
   *     to start
   */
  public static Future<Vertx> clusteredVertx(String clusterName) {
    return clusteredVertx(clusterName, new io.vertx.core.VertxOptions());
  }

  /**
   * As {@link #clusteredVertx(String)}, with {@code options} for everything but the event bus's
   * host and port (a copy is used): thread pools, the blocked-thread checker, metrics.
   *
   * @param clusterName the Hazelcast cluster name; the JVMs of one job use the job's name
   * @param options the Vert.x options to start from (not modified)
   * @return as {@link #clusteredVertx(String)}
   */
  public static Future<Vertx> clusteredVertx(String clusterName, io.vertx.core.VertxOptions options) {
    try {
      return clusteredVertx(clusterName, options, new ClusterOptions(), Progress.jvmDefault());
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
  }

  /**
   * As {@link #clusteredVertx(String, io.vertx.core.VertxOptions)}, with event loops that wait for
   * the network as {@code progress} says (the other overloads take this JVM's default,
   * {@link Progress#jvmDefault()}: {@link Progress#ADAPTIVE} unless {@code -Drma.progress} says
   * otherwise). {@link Progress#BUSY} also gives the node one event loop unless {@code options}
   * chose a pool size.
   *
   * @param clusterName the Hazelcast cluster name; the JVMs of one job use the job's name
   * @param options the Vert.x options to start from (not modified)
   * @param progress how the node's event loops wait
   * @return as {@link #clusteredVertx(String)}
   */
  public static Future<Vertx> clusteredVertx(String clusterName, io.vertx.core.VertxOptions options,
      Progress progress) {
    java.util.Objects.requireNonNull(progress, "progress");
    try {
      return clusteredVertx(clusterName, options, new ClusterOptions(), progress);
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
  }

  /**
   * As {@link #clusteredVertx(String, io.vertx.core.VertxOptions, Progress)}, the node made as
   * {@code cluster} says instead of this JVM's defaults: its address, the job's hosts, the ports,
   * the leader and the Hazelcast configuration.
   *
   * @param clusterName the Hazelcast cluster name; the JVMs of one job use the job's name
   * @param options the Vert.x options to start from (not modified)
   * @param cluster how the node joins the cluster (not modified)
   * @param progress how the node's event loops wait
   * @return completes with the node once it has joined the cluster; fails with
   *     {@link ErrorClass#ARG} when the configured {@code cluster.xml} is missing or invalid or the
   *     host does not resolve, or with Vert.x's own failure to start
   */
  public static Future<Vertx> clusteredVertx(String clusterName, io.vertx.core.VertxOptions options,
      ClusterOptions cluster, Progress progress) {
    return ClusterSupport.clusteredVertx(clusterName, options, java.util.Objects.requireNonNull(cluster, "cluster"),
        java.util.Objects.requireNonNull(progress, "progress"));
  }

  /**
   * Runs {@code body.apply(0)}, ..., {@code body.apply(n - 1)} one after the other, each once the
   * previous one's future has succeeded: a counted loop of calls, in constant stack whatever
   * {@code n} is. It is the shorter form of the recursive {@code compose} loop
   * ({@code step(i).compose(v -> loop(i + 1))}), which runs in constant stack and memory too as
   * long as its futures are the library's (every call's future, and what {@code compose},
   * {@code map} and the like derive from one: their listeners never nest more than 32 deep on a
   * thread, and a pending future a mapper returns merges with the outer one). Only a recursive
   * chain built from futures of one's own (plain Vert.x futures that complete at once) nests a
   * stack frame per iteration; {@code repeat} runs such a {@code body} in constant stack as well.
   * Calls that complete at once run back to back without an event-loop hop; every 64 of them (or
   * 2 ms) the loop yields to the caller's context so its other tasks run.
   *
   * @param n    the number of iterations (0 completes at once)
   * @param body the iteration: a call, or a chain of calls, returning a future
   * @return completes when the last iteration's future has succeeded; fails with the first
   *     iteration's failure (or exception thrown by {@code body}), after which no iteration runs,
   *     and with {@link ErrorClass#COUNT} for a negative {@code n}
   */
  public static Future<Void> repeat(int n, IntFunction<? extends Future<?>> body) {
    if (n < 0) {
      return Future.failedFuture(new RmaException(ErrorClass.COUNT, "repeat count " + n + " is negative"));
    }
    int[] i = {0};
    return CallLoop.until(() -> i[0] >= n ? Future.succeededFuture(true) : body.apply(i[0]++).map(false));
  }

  /**
   * Runs {@code step} until its future completes with {@code true}: MPI's spin
   * ({@code do { op; flush; } while (!condition)}) as a future, in constant stack, yielding to the
   * caller's context every 64 steps that complete at once so that this rank keeps serving its
   * window while it polls.
   *
   * @param step one poll; its future completes with {@code true} to stop
   * @return completes after the step that returned {@code true}; fails with the first step's
   *     failure (or exception thrown by {@code step}), after which no step runs
   */
  public static Future<Void> repeatUntil(Supplier<? extends Future<Boolean>> step) {
    return CallLoop.until(step::get);
  }
}
