package dev.vertxrma;

import dev.vertxrma.impl.runtime.ClusterSupport;
import dev.vertxrma.impl.runtime.JobRunner;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

/**
 * Entry point: runs a job of ranks, MPI-style ({@code mpirun}), embedded in this JVM or across
 * JVMs joined by the clustered event bus.
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
   * Runs the ranks this JVM hosts ({@link JobOptions#setLocalRanks}, all by default) on an
   * existing Vert.x instance — embedded, or clustered with the other JVMs of the job. The future
   * completes when every local rank's program and the final barrier have completed; it fails with
   * the first rank failure ({@link ErrorClass#TIMEOUT} if the job could not start in time).
   */
  public static Future<Void> run(Vertx vertx, JobOptions options, RankProgram program) {
    return JobRunner.run(vertx, options, program);
  }

  /**
   * As {@link #run(Vertx, JobOptions, RankProgram)} on a Vert.x instance of its own, clustered
   * when {@link JobOptions#isClustered()} (cluster name = job name), closed at the end.
   */
  public static Future<Void> run(JobOptions options, RankProgram program) {
    Promise<Void> result = Promise.promise();
    Future<Vertx> vertx = options.isClustered() ? clusteredVertx(options.getJobName())
        : Future.succeededFuture(Vertx.vertx());
    vertx.onComplete(started -> {
      if (started.failed()) {
        result.fail(new RmaException(ErrorClass.INTERN, "cannot start Vert.x: " + started.cause(), started.cause()));
        return;
      }
      Vertx v = started.result();
      JobRunner.run(v, options, program).onComplete(outcome -> v.close().onComplete(closed -> {
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
   * A new clustered Vert.x node (Hazelcast cluster manager configured from {@code cluster.xml},
   * loopback by default) in cluster {@code clusterName}.
   */
  public static Future<Vertx> clusteredVertx(String clusterName) {
    return ClusterSupport.clusteredVertx(clusterName);
  }
}
