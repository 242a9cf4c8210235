package dev.vertxrma.impl.job;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import dev.vertxrma.impl.runtime.JobRuntime;
import dev.vertxrma.impl.runtime.LauncherClusterManager;

/**
 * Ranks started by the Vert.x launchers ({@code -instances K}): each {@code RankVerticle}
 * instance deploys a {@link RankHost} that takes its rank in the handshake, runs the program in
 * the background and, when every rank of this JVM has finished, optionally exits the JVM.
 */
public final class LauncherJob {

  private static final System.Logger LOG = System.getLogger(LauncherJob.class.getName());

  /**
   * The launcher ranks of one Vert.x instance, kept in it (its local shared data): counted from
   * any event loop without a monitor; a rank that failed is counted before it counts as finished,
   * so the last one to finish sees every failure.
   */
  private static final class Ranks implements io.vertx.core.shareddata.Shareable {
    final java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicInteger finished = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicBoolean exiting = new java.util.concurrent.atomic.AtomicBoolean();

    static Ranks of(Vertx vertx) {
      return vertx.sharedData().<String, Ranks>getLocalMap("dev.vertxrma.launcher").computeIfAbsent("ranks",
          k -> new Ranks());
    }
  }

  private LauncherJob() {
  }

  /**
   * Joins the job described by {@code config} over {@code defaults} (this JVM's defaults, made by
   * the caller at the API's edge, and {@code defaultNp}, the number of ranks when {@code config}
   * gives none, -1 for none); completes once the whole job is reachable. When this fails (a
   * configuration without ranks, a clustered job without a secret, a startup that times out) and
   * {@code exit} is on, the failure is logged as an error and this JVM closes Vert.x and exits with
   * status 1 (within the 30 s close bound), whatever the launcher does with a failed deployment:
   * the legacy {@code Launcher run} only closes Vert.x, so its JVM would exit 0.
   */
  public static Future<?> join(Vertx vertx, JsonObject config, java.util.function.Supplier<JobOptions> defaults,
      int defaultNp, RankProgram program) {
    boolean exit = config.getBoolean("exit", true);
    Future<?> joined;
    try {
      joined = start(vertx, config, defaults.get(), defaultNp, program, exit);
    } catch (RuntimeException e) {
      joined = Future.failedFuture(e);
    }
    return joined.onFailure(e -> {
      LOG.log(System.Logger.Level.ERROR, "the rank deployment of " + program.getClass().getName() + " failed: "
          + e.getMessage());
      if (exit) {
        exit(vertx, 1);
      }
    });
  }

  /**
   * The job's name: the configuration's {@code job}. A job without one gets a name of its own
   * when it does not leave this JVM (the same for every rank of this Vert.x instance); a clustered
   * one is refused, since its JVMs must find each other by a name they share and no unrelated job
   * may share it. A clustered job is refused as well when this JVM's cluster, formed before the
   * configuration was read, has another name ({@link LauncherClusterManager}).
   */
  static String jobName(Vertx vertx, JsonObject config) {
    Object named = config.getValue("job");
    if (named != null && !(named instanceof String)) {
      throw RmaException.of(ErrorClass.ARG, "configuration key job must be a string, got %s", named);
    }
    String job = (String) named;
    if (!vertx.isClustered()) {
      return job != null && !job.isBlank() ? job : vertx.sharedData().<String, String>getLocalMap("dev.vertxrma.launcher")
          .computeIfAbsent("unnamedJob", k -> "rma-" + java.util.UUID.randomUUID().toString().substring(0, 13));
    }
    if (job == null || job.isBlank()) {
      throw RmaException.of(ErrorClass.ARG, "a clustered job needs a name, the same in every JVM of the job and no "
          + "other job's: -conf '{\"job\":\"NAME\",...}' on the launcher's command line (the cluster is named for "
          + "the job; without a name each JVM stays in a cluster of its own)");
    }
    io.vertx.core.spi.cluster.ClusterManager manager = ((io.vertx.core.internal.VertxInternal) vertx).clusterManager();
    if (manager instanceof LauncherClusterManager own && own.clusterName() != null && !own.clusterName().equals(job)) {
      throw RmaException.of(ErrorClass.ARG, "job %s runs in a cluster named %s: this JVM's cluster was formed before "
          + "the job's configuration was read; give the launcher the job's name on its command line (-conf "
          + "'{\"job\":\"%s\",...}'), so that the cluster is named for the job", job, own.clusterName(), job);
    }
    return job;
  }

  private static Future<?> start(Vertx vertx, JsonObject config, JobOptions options, int defaultNp, RankProgram program,
      boolean exit) {
    int np = config.getInteger("np", defaultNp);
    if (np < 1) {
      return Future.failedFuture(new RmaException(ErrorClass.ARG,
          "set the number of ranks: -conf '{\"np\":4}' or -Drma.np=4 (np was " + np + ")"));
    }
    String name;
    try {
      name = jobName(vertx, config);
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
    options.setNp(np).setJobName(name)
        .setStartupTimeoutMs(config.getLong("startupTimeoutMs", JobOptions.DEFAULT_STARTUP_TIMEOUT_MS))
        .setWaitTimeoutMs(config.getLong("waitTimeoutMs", JobOptions.DEFAULT_WAIT_TIMEOUT_MS));
    if (config.containsKey("trace")) {
      options.setTraceFile(config.getString("trace"));
    }
    if (config.containsKey("onFailure")) {
      Object policy = config.getValue("onFailure");
      if ("abort".equals(policy)) {
        options.setFailurePolicy(dev.vertxrma.FailurePolicy.ABORT);
      } else if ("continue".equals(policy)) {
        options.setFailurePolicy(dev.vertxrma.FailurePolicy.CONTINUE);
      } else {
        return Future.failedFuture(RmaException.of(ErrorClass.ARG,
            "configuration key onFailure must be \"abort\" or \"continue\", got %s", policy));
      }
    }
    List<String> args = new ArrayList<>();
    for (Object o : config.getJsonArray("args", new JsonArray())) {
      args.add(String.valueOf(o));
    }
    io.vertx.core.DeploymentOptions deployment = RankHost.deployment(config.getBoolean("virtualThreads", false));
    JobRuntime job = JobRuntime.obtain(vertx, options);
    RankHost host = new RankHost(job, -1, program, args);
    Ranks ranks = Ranks.of(vertx);
    ranks.started.incrementAndGet();
    return JvmWarmup.ensure(vertx).compose(w -> vertx.deployVerticle(host, deployment))
        .onFailure(e -> {
          job.release();
          ranks.failed.incrementAndGet();
          ranks.finished.incrementAndGet();
        })
        .onSuccess(id -> {
          host.runProgram().onComplete(ar -> {
            if (ar.failed()) {
              LOG.log(System.Logger.Level.ERROR, "rank " + host.rank() + " failed: " + ar.cause().getMessage());
            }
            vertx.undeploy(id).onComplete(u -> job.releaseAndTrace(ar.succeeded()).onComplete(traced -> {
              done(vertx, ar.succeeded(), exit);
            }));
          });
        });
  }

  private static void done(Vertx vertx, boolean ok, boolean exit) {
    Ranks ranks = Ranks.of(vertx);
    if (!ok) {
      ranks.failed.incrementAndGet();
    }
    boolean all = ranks.finished.incrementAndGet() == ranks.started.get();
    int status = ranks.failed.get() == 0 ? 0 : 1;
    if (all && exit) {
      exit(vertx, status);
    }
  }

  /** Closes Vert.x (at most 30 s) and exits the JVM with {@code status}, once per Vert.x instance. */
  private static void exit(Vertx vertx, int status) {
    if (!Ranks.of(vertx).exiting.compareAndSet(false, true)) {
      return;
    }
    // close from a thread of our own: a close chained on the instance's own futures can lose its callback
    Thread t = new Thread(() -> {
      try {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.log(System.Logger.Level.WARNING, "Vert.x did not close cleanly: " + e);
      }
      System.exit(status);
    }, "rma-exit");
    t.start();
  }
}
