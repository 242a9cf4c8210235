package dev.vertxrma.impl.runtime;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;

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
    List<RankHost> hosts = new ArrayList<>();
    List<Future<String>> deployments = new ArrayList<>();
    Promise<Void> result = Promise.promise();
    JvmWarmup.ensure(vertx).onComplete(warm -> {
      for (int r = first; r < first + count; r++) {
        RankHost host = new RankHost(job, r, program, options.getArgs());
        hosts.add(host);
        deployments.add(vertx.deployVerticle(host));
      }
      deployAndRun(vertx, job, hosts, deployments, result);
    });
    return result.future();
  }

  private static void deployAndRun(Vertx vertx, JobRuntime job, List<RankHost> hosts,
      List<Future<String>> deployments, Promise<Void> result) {
    Future.join(deployments).onComplete(deployed -> {
      if (deployed.failed()) {
        finish(vertx, job, deployments, List.of(firstFailure(deployments)), result);
        return;
      }
      List<Future<Void>> runs = new ArrayList<>();
      for (RankHost h : hosts) {
        runs.add(h.runProgram());
      }
      Future.join(runs).onComplete(done -> {
        List<Throwable> failures = new ArrayList<>();
        for (Future<Void> f : runs) {
          if (f.failed()) {
            failures.add(f.cause());
          }
        }
        finish(vertx, job, deployments, failures, result);
      });
    });
  }

  private static Throwable firstFailure(List<? extends Future<?>> futures) {
    for (Future<?> f : futures) {
      if (f.failed()) {
        return f.cause();
      }
    }
    return new RmaException(ErrorClass.INTERN, "unknown failure");
  }

  private static void finish(Vertx vertx, JobRuntime job, List<Future<String>> deployments, List<Throwable> failures,
      Promise<Void> result) {
    List<Future<Void>> undeploys = new ArrayList<>();
    for (Future<String> d : deployments) {
      if (d.succeeded()) {
        undeploys.add(vertx.undeploy(d.result()));
      }
    }
    Future.join(undeploys).onComplete(ar -> {
      job.release();
      if (failures.isEmpty()) {
        result.complete();
      } else {
        result.fail(rootCause(failures));
      }
    });
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
