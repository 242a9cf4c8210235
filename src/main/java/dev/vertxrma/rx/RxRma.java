package dev.vertxrma.rx;

import dev.vertxrma.ClusterOptions;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Progress;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * RxJava 3 entry point: the calls of {@link Rma} as cold {@link Completable}s and
 * {@link Single}s (a job starts when subscribed to, once per subscription), and the adapter from
 * an {@link RxRankProgram} to a {@link RankProgram}.
 *
 * <pre>{@code
 * RxRma.run(vertx, new JobOptions().setNp(4), RxRma.program((world, args) ->
 *     world.allreduce((long) world.rank(), Op.SUM).ignoreElement()))
 *   .subscribe(() -> ..., error -> ...);
 * }</pre>
 */
public final class RxRma {

  private RxRma() {
  }

  /**
   * An Rx program as a {@link RankProgram}, for {@link #run(JobOptions, RankProgram)},
   * {@link Rma#run(JobOptions, RankProgram)} or a {@link dev.vertxrma.RankVerticle}'s
   * {@code run}: it wraps the world in an {@link RxComm}, subscribes to the program's Completable
   * and completes with it. An exception thrown by the program fails the rank with it; a program
   * that returns {@code null} fails with ARG.
   *
   * @param program the Rx rank program
   * @return the same program, returning a future
   */
  public static RankProgram program(RxRankProgram program) {
    RxJava.require();
    return (world, args) -> {
      Completable rank;
      try {
        rank = program.run(RxComm.of(world), args);
      } catch (RuntimeException e) {
        return Future.failedFuture(e);
      }
      if (rank == null) {
        return Future.failedFuture(new RmaException(ErrorClass.ARG, "the rank program returned null, not a Completable"));
      }
      return Deferred.future(rank);
    };
  }

  /**
   * Runs the ranks this JVM hosts on an existing Vert.x instance
   * ({@link Rma#run(Vertx, JobOptions, RankProgram)}). Fails with the first rank failure, TIMEOUT
   * if the job could not start in time, ARG for invalid options.
   *
   * @param vertx the Vert.x instance the ranks run on (embedded or clustered)
   * @param options the job: ranks, local ranks, name, timeouts, arguments
   * @param program what each rank runs (see {@link #program} for an Rx program)
   * @return completes when every local rank's program and the final barrier have completed
   */
  public static Completable run(Vertx vertx, JobOptions options, RankProgram program) {
    RxJava.require();
    return Deferred.completable(() -> Rma.run(vertx, options, program));
  }

  /**
   * Runs a job on a Vert.x instance of its own, clustered when {@link JobOptions#isClustered()},
   * closed at the end ({@link Rma#run(JobOptions, RankProgram)}). Fails as
   * {@link #run(Vertx, JobOptions, RankProgram)}, and with INTERN when Vert.x cannot start.
   *
   * @param options the job: ranks, local ranks, name, timeouts, arguments
   * @param program what each rank runs (see {@link #program} for an Rx program)
   * @return completes when every local rank has finished and Vert.x is closed
   */
  public static Completable run(JobOptions options, RankProgram program) {
    RxJava.require();
    return Deferred.completable(() -> Rma.run(options, program));
  }

  /**
   * MPI_Init without a program ({@link Rma#world}): starts the ranks this JVM hosts and keeps
   * them open until {@link RxWorld#close()}. Fails with TIMEOUT when the job could not start in
   * time, ARG for invalid options, RANK for local ranks outside the job.
   *
   * @param vertx the Vert.x instance the ranks run on (embedded or clustered)
   * @param options the job: ranks, local ranks, name, timeouts
   * @return the world, once every rank of the job has joined
   */
  public static Single<RxWorld> world(Vertx vertx, JobOptions options) {
    RxJava.require();
    return Deferred.single(() -> Rma.world(vertx, options).map(RxWorld::of));
  }

  /**
   * A new clustered Vert.x node ({@link Rma#clusteredVertx(String)}). Fails when the cluster
   * manager cannot start.
   *
   * @param clusterName the cluster to join
   * @return the started node
   */
  public static Single<Vertx> clusteredVertx(String clusterName) {
    RxJava.require();
    return Deferred.single(() -> Rma.clusteredVertx(clusterName));
  }

  /**
   * A new clustered Vert.x node with options ({@link Rma#clusteredVertx(String, VertxOptions)}).
   * Fails when the cluster manager cannot start.
   *
   * @param clusterName the cluster to join
   * @param options everything but the event bus's host and port (a copy is used)
   * @return the started node
   */
  public static Single<Vertx> clusteredVertx(String clusterName, VertxOptions options) {
    RxJava.require();
    return Deferred.single(() -> Rma.clusteredVertx(clusterName, options));
  }

  /**
   * A new clustered Vert.x node whose event loops wait as {@code progress} says
   * ({@link Rma#clusteredVertx(String, VertxOptions, Progress)}).
   *
   * @param clusterName the Hazelcast cluster name
   * @param options the Vert.x options to start from (not modified)
   * @param progress how the node's event loops wait for the network
   * @return the started node
   */
  public static Single<Vertx> clusteredVertx(String clusterName, VertxOptions options, Progress progress) {
    RxJava.require();
    return Deferred.single(() -> Rma.clusteredVertx(clusterName, options, progress));
  }

  /**
   * A new clustered Vert.x node made as {@code cluster} says, its event loops waiting as
   * {@code progress} says ({@link Rma#clusteredVertx(String, VertxOptions, ClusterOptions, Progress)}).
   *
   * @param clusterName the Hazelcast cluster name
   * @param options the Vert.x options to start from (not modified)
   * @param cluster how the node joins the cluster (not modified)
   * @param progress how the node's event loops wait for the network
   * @return the started node
   */
  public static Single<Vertx> clusteredVertx(String clusterName, VertxOptions options, ClusterOptions cluster,
      Progress progress) {
    RxJava.require();
    return Deferred.single(() -> Rma.clusteredVertx(clusterName, options, cluster, progress));
  }

  /**
   * A counted loop ({@link Rma#repeat}): subscribes to {@code body.apply(0)}, ...,
   * {@code body.apply(n - 1)} one after the other, in constant stack, yielding to the caller's
   * event loop every 64 iterations that complete at once. Fails with COUNT for a negative
   * {@code n}, or with the first iteration's error, after which no iteration runs.
   * ({@code Flowable.range(0, n).concatMapCompletable(body::apply)} is the same loop without the
   * yield.)
   *
   * @param n the number of iterations (0 completes at once)
   * @param body the iteration
   * @return completes when the last iteration has completed
   */
  public static Completable repeat(int n, IntFunction<Completable> body) {
    RxJava.require();
    return Deferred.completable(() -> Rma.repeat(n, i -> Deferred.future(body.apply(i))));
  }

  /**
   * MPI's spin ({@link Rma#repeatUntil}): subscribes to {@code step.get()} until it emits
   * {@code true}, in constant stack, yielding to the caller's event loop every 64 steps that
   * complete at once, so that a rank keeps serving its window while it polls. Fails with the
   * first step's error.
   *
   * @param step one poll; emits {@code true} to stop
   * @return completes after the step that emitted {@code true}
   */
  public static Completable repeatUntil(Supplier<Single<Boolean>> step) {
    RxJava.require();
    return Deferred.completable(() -> Rma.repeatUntil(() -> Deferred.future(step.get())));
  }
}
