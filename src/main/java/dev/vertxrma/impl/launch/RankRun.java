package dev.vertxrma.impl.launch;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.World;
import dev.vertxrma.WorldProgram;
import dev.vertxrma.impl.runtime.ClusterSupport;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.PrintStream;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the ranks a {@link JobDescription} gives this JVM, through the public API ({@link Rma#run}
 * for a {@link RankProgram}, {@link Rma#world} for a {@link WorldProgram}), with the output's lines
 * kept whole and tagged as asked ({@link TaggedOutput}), and waits for them: the ranks of the
 * embedded job {@code rmarun} runs itself, of a JVM it starts ({@link JobJvm}), and of a process
 * that {@code mpiexec} or {@code srun} started ({@link ProcessManagerRun}).
 */
final class RankRun {

  /** How long the master of a job's cluster waits for the other JVMs to leave it first. */
  static final long MASTER_WAIT_MS = 2_000;

  private RankRun() {
  }

  /**
   * Runs the ranks of {@code d} with {@code program} over {@code base}, this process's options as
   * its edge resolved them (its defaults, the network it was given, the job secret or its file;
   * without either an embedded job makes a fresh secret), and waits for them; a failure is said on
   * {@code err} and written to the description's report file.
   *
   * @return the exit status: 0 when every rank of this JVM completed, else 1
   */
  static int run(JobDescription d, ProgramLoader.Program program, JobOptions base, PrintStream err) {
    TaggedOutput.Installed tags = TaggedOutput.install(d.getJob(), "[jvm " + d.getJvmIndex() + "] ", d.isTagOutput());
    try {
      return runRanks(d, program, base, err);
    } finally {
      TaggedOutput.uninstall(tags);
    }
  }

  private static int runRanks(JobDescription d, ProgramLoader.Program program, JobOptions base, PrintStream err) {
    JobOptions options = new JobOptions(base).setNp(d.getNp()).setJobName(d.getJob()).setArgs(d.getArgs())
        .setWaitTimeoutMs(d.getWaitTimeoutMs()).setStartupTimeoutMs(d.getStartupTimeoutMs())
        .setClustered(d.isClustered()).setRequireFreedWindows(d.isRequireFreedWindows())
        .setVirtualThreads(d.isVirtualThreads());
    if (d.getTrace() != null) {
      options.setTraceFile(d.getTrace());
    }
    if (d.getFailurePolicy() != null) {
      options.setFailurePolicy(d.getFailurePolicy());
    }
    if (d.isClustered()) {
      options.setLocalRanks(d.getFirstRank(), d.getRankCount());
    }
    Thread me = Thread.currentThread();
    ClassLoader before = me.getContextClassLoader();
    me.setContextClassLoader(program.loader());
    // a job that hangs is stopped by its waits' timeouts; this limit only catches what they miss
    long limitMs = 2 * d.getWaitTimeoutMs() + 120_000;
    try {
      Future<Void> job = program.instance() instanceof WorldProgram ? runWorld(options, (WorldProgram) program.instance())
          : options.isClustered() ? runClustered(options, (RankProgram) program.instance())
          : Rma.run(options, (RankProgram) program.instance());
      job.toCompletionStage().toCompletableFuture().get(limitMs, TimeUnit.MILLISECONDS);
      return 0;
    } catch (ExecutionException e) {
      err.println(failureLine(d, e.getCause()));
      FailureReport.write(d, e.getCause(), err);
      return 1;
    } catch (Exception e) {
      err.println("rmarun: job " + d.getJob() + " failed: " + e);
      FailureReport.write(d, e instanceof TimeoutException
          ? new RmaException(ErrorClass.TIMEOUT, "job " + d.getJob() + " did not end in time", e) : e, err);
      return 1;
    } finally {
      me.setContextClassLoader(before);
    }
  }

  /**
   * {@link Rma#run(JobOptions, RankProgram)} for this JVM's part of a job over JVMs, on a clustered
   * Vert.x instance of its own that leaves the cluster as {@link #close} says.
   */
  static Future<Void> runClustered(JobOptions options, RankProgram program) {
    Future<Vertx> started;
    try {
      started = Rma.clusteredVertx(options.getJobName(), new VertxOptions(), options.getClusterOptions(),
          options.getProgress());
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
    Promise<Void> result = Promise.promise();
    started.onComplete(s -> {
      if (s.failed()) {
        result.fail(new RmaException(ErrorClass.INTERN, "cannot start Vert.x: " + ClusterSupport.startFailure(s.cause()), s.cause()));
        return;
      }
      Vertx vertx = s.result();
      dev.vertxrma.impl.job.JobRunner.watchBlockedRanks(vertx, options, result::tryFail);
      Rma.run(vertx, options, program).onComplete(outcome -> close(vertx).onComplete(closed -> result.handle(outcome)));
    });
    return result.future();
  }

  /**
   * Closes this JVM's Vert.x instance at the end of its job; clustered, the cluster's master
   * leaves after the job's other JVMs (at most {@value #MASTER_WAIT_MS} ms later), so that no
   * JVM waits a second in Hazelcast's shutdown ({@link ClusterSupport#masterLeavesLast}).
   */
  private static Future<Void> close(Vertx vertx) {
    return ClusterSupport.masterLeavesLast(vertx, MASTER_WAIT_MS).transform(ar -> dev.vertxrma.impl.job.JobRunner.close(vertx));
  }

  /**
   * Runs a {@link WorldProgram} on a Vert.x instance of its own: starts this JVM's ranks, runs the
   * program, closes the world (MPI_Finalize) and Vert.x; fails with the program's failure first.
   */
  static Future<Void> runWorld(JobOptions options, WorldProgram program) {
    Future<Vertx> started;
    try {
      started = options.isClustered()
          ? Rma.clusteredVertx(options.getJobName(), new VertxOptions(), options.getClusterOptions(),
              options.getProgress())
          : Future.succeededFuture(Vertx.vertx());
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
    // completed from Vert.x's close, when no context of that instance runs any more
    Promise<Void> result = Promise.promise();
    started.onComplete(s -> {
      if (s.failed()) {
        result.fail(s.cause());
        return;
      }
      Vertx vertx = s.result();
      dev.vertxrma.impl.job.JobRunner.watchBlockedRanks(vertx, options, result::tryFail);
      Rma.world(vertx, options).compose(world -> runAndClose(vertx, world, options, program))
          .onComplete(outcome -> close(vertx).onComplete(closed -> result.handle(outcome)));
    });
    return result.future();
  }

  private static Future<Void> runAndClose(Vertx vertx, World world, JobOptions options, WorldProgram program) {
    Future<?> body;
    try {
      body = program.run(vertx, world, options.getArgs());
    } catch (RuntimeException | Error e) {
      body = Future.failedFuture(e);
    }
    Promise<Void> done = Promise.promise();
    body.onComplete(outcome -> world.close().onComplete(closed -> {
      if (outcome.failed()) {
        done.fail(outcome.cause());
      } else {
        done.handle(closed);
      }
    }));
    return done.future();
  }

  /**
   * The line this JVM prints when its part of the job failed: the failure itself when it began
   * here; when it is only the news of another JVM's (its ranks left, or one of its ranks aborted
   * the job), a line that says this JVM's ranks stopped because of it, so that one fault does not
   * read as two (that JVM, or rmarun watching it, reports the fault itself).
   */
  static String failureLine(JobDescription d, Throwable cause) {
    String ranks = d.isClustered() ? (d.getRankCount() == 1 ? "rank " + d.getFirstRank()
        : "ranks " + d.getFirstRank() + ".." + (d.getFirstRank() + d.getRankCount() - 1)) : "its ranks";
    if (cause instanceof RmaException) {
      RmaException e = (RmaException) cause;
      String m = String.valueOf(e.getMessage());
      boolean elsewhere = e.errorClass() == ErrorClass.PROC_FAILED && (m.contains(" left") || m.contains("unreachable"))
          || e.errorClass() == ErrorClass.COMM && m.contains("aborted because rank");
      if (elsewhere && d.isClustered()) {
        return "rmarun: job " + d.getJob() + ": " + ranks + " stopped because of another JVM's failure ("
            + m + ")";
      }
    }
    return "rmarun: job " + d.getJob() + " failed: " + cause.getMessage();
  }
}
