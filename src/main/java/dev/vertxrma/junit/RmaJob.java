package dev.vertxrma.junit;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.job.JobRunner;
import dev.vertxrma.impl.transport.JobSecret;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The jobs of one {@link RmaTest}: each {@code run} starts a new job of {@link #ranks()} ranks
 * (a unique job name, a fresh secret), blocks the test's thread until every rank has finished
 * and throws the failing rank's {@link RmaException} if one failed. Resolved by
 * {@link RmaTestExtension} as a parameter of the test method; call it from the test's thread,
 * never from an event loop.
 */
public final class RmaJob {

  private static final System.Logger LOG = System.getLogger(RmaJob.class.getName());

  private final String prefix;
  private final int ranks;
  private final int jvms;
  private final boolean clustered;
  private final long timeoutSeconds;
  private final boolean requireFreedWindows;
  private final boolean virtualThreads;
  private final AtomicInteger runs = new AtomicInteger();
  private List<Vertx> instances;
  private volatile String lastJobName;

  RmaJob(String prefix, RmaTest test) {
    if (test.ranks() < 1) {
      throw new IllegalArgumentException("@RmaTest(ranks = " + test.ranks() + ") must be at least 1");
    }
    if (test.jvms() < 1 || test.jvms() > test.ranks()) {
      throw new IllegalArgumentException("@RmaTest(jvms = " + test.jvms() + ") must be between 1 and ranks = "
          + test.ranks());
    }
    if (test.timeoutSeconds() < 1) {
      throw new IllegalArgumentException("@RmaTest(timeoutSeconds = " + test.timeoutSeconds() + ") must be positive");
    }
    this.prefix = prefix;
    this.ranks = test.ranks();
    this.jvms = test.jvms();
    this.clustered = test.clustered();
    this.timeoutSeconds = test.timeoutSeconds();
    this.requireFreedWindows = test.requireFreedWindows();
    this.virtualThreads = test.virtualThreads();
  }

  /**
   * The number of ranks of each job, from {@link RmaTest#ranks()}.
   *
   * @return the number of ranks
   */
  public int ranks() {
    return ranks;
  }

  /**
   * The number of JVMs a job's ranks are split over, from {@link RmaTest#jvms()}.
   *
   * @return the number of JVMs
   */
  public int jvms() {
    return jvms;
  }

  /**
   * The name of the job the last {@code run} started (or {@link #newOptions()} made), to find it
   * in logs.
   *
   * @return the job name, or {@code null} before the first job
   */
  public String lastJobName() {
    return lastJobName;
  }

  /**
   * Runs the jobs of this test that stay in this JVM on these Vert.x instances (e.g. ones with a
   * stricter blocked-thread checker, or clustered nodes shared by many tests) instead of new ones
   * per job; the test keeps ownership of them. The ranks are split evenly over them in order, so
   * more than one must be clustered nodes of one cluster.
   *
   * @param instances the Vert.x instances; none to go back to new ones per job
   * @return this job
   */
  public RmaJob withVertx(Vertx... instances) {
    this.instances = instances.length == 0 ? null : List.of(instances);
    return this;
  }

  /**
   * Fresh options for one job of this test: {@link #ranks()} ranks, a unique job name, a fresh
   * random secret, {@link RmaTest#timeoutSeconds()} as wait timeout and the window check of
   * {@link RmaTest#requireFreedWindows()}, virtual-thread ranks as {@link RmaTest#virtualThreads()}. For a test that starts a job itself, e.g. with
   * {@link Rma#world}.
   *
   * @return new options, which the caller may change
   */
  public JobOptions newOptions() {
    String name = prefix + "-" + runs.incrementAndGet() + "-" + UUID.randomUUID().toString().substring(0, 6);
    lastJobName = name;
    return new JobOptions().setNp(ranks).setJobName(name).setSecret(JobSecret.random().text())
        .setWaitTimeoutMs(TimeUnit.SECONDS.toMillis(timeoutSeconds))
        .setStartupTimeoutMs(TimeUnit.SECONDS.toMillis(timeoutSeconds))
        .setRequireFreedWindows(requireFreedWindows).setVirtualThreads(virtualThreads);
  }

  /**
   * Runs {@code program} on every rank of a new job in this JVM (on the instances given to
   * {@link #withVertx}, else on a new embedded Vert.x instance, or on two new clustered nodes
   * with {@link RmaTest#clustered()}) and waits until it ends.
   *
   * @param program the rank program; with {@link RmaTest#jvms()} above 1 use
   *     {@link #run(Class, String...)}, since a program object cannot go to other JVMs
   * @throws RmaException the failure of the failing rank (an assertion error thrown by a rank
   *     is its cause, in an exception of class {@link ErrorClass#OTHER}); of class
   *     {@link ErrorClass#TIMEOUT} if the job did not end within {@link RmaTest#timeoutSeconds()}
   * @throws IllegalStateException if called on a Vert.x thread, or with more than one JVM
   */
  public void run(RankProgram program) {
    if (jvms > 1) {
      throw new IllegalStateException("@RmaTest(jvms = " + jvms + ") runs ranks in other JVMs, where a program "
          + "object (" + program.getClass().getName() + ") cannot go: call job.run(YourProgram.class, args...) with a "
          + "public RankProgram class that has a public no-argument constructor");
    }
    run(newOptions(), program);
  }

  /**
   * Runs {@code program} on the ranks of a job in this JVM with the given options (start from
   * {@link #newOptions()}), and waits until it ends.
   *
   * @param options the job's options: all its ranks run in this JVM
   * @param program the rank program
   * @throws RmaException the failure of the failing rank, as for {@link #run(RankProgram)}
   * @throws IllegalStateException if called on a Vert.x thread
   */
  public void run(JobOptions options, RankProgram program) {
    checkThread();
    lastJobName = options.getJobName();
    List<Vertx> own = new ArrayList<>();
    try {
      List<Vertx> nodes;
      if (instances != null) {
        nodes = instances;
      } else if (clustered && options.getNp() > 1) {
        // the job's own cluster options and progress, as Rma.run gives its node
        Future<Vertx> a = Rma.clusteredVertx(options.getJobName(), new io.vertx.core.VertxOptions(),
            options.getClusterOptions(), options.getProgress());
        Future<Vertx> b = Rma.clusteredVertx(options.getJobName(), new io.vertx.core.VertxOptions(),
            options.getClusterOptions(), options.getProgress());
        try {
          await(Future.join(a, b), options.getJobName());
        } finally {
          Stream.of(a, b).filter(Future::succeeded).forEach(f -> own.add(f.result()));
        }
        nodes = own;
      } else {
        own.add(Vertx.vertx());
        nodes = own;
      }
      await(runOn(nodes, options, program), options.getJobName());
    } finally {
      own.forEach(RmaJob::close);
    }
  }

  /**
   * Runs a new job of {@code program}, one instance per rank, with the program arguments
   * {@code args}: in this JVM, or with {@link RmaTest#jvms()} above 1 split over that many new
   * JVMs (like {@code bin/rmarun --jvms K}, with this JVM's class path), and waits until it
   * ends.
   *
   * @param program a public {@link RankProgram} class with a public no-argument constructor
   * @param args    the program arguments every rank gets
   * @throws RmaException the failure of the failing rank (its error class and message, when it
   *     ran in another JVM); {@link ErrorClass#PROC_FAILED} when a JVM died without reporting
   *     one; {@link ErrorClass#TIMEOUT} if the job did not end within
   *     {@link RmaTest#timeoutSeconds()}
   * @throws IllegalArgumentException if {@code program} cannot be instantiated by its class name
   * @throws IllegalStateException if called on a Vert.x thread
   */
  public void run(Class<? extends RankProgram> program, String... args) {
    checkThread();
    try {
      program.getConstructor();
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(program.getName() + " needs a public no-argument constructor", e);
    }
    JobOptions options = newOptions().setArgs(Arrays.asList(args));
    if (jvms == 1) {
      run(options, (world, a) -> {
        try {
          return program.getConstructor().newInstance().run(world, a);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot instantiate " + program.getName() + ": " + e, e);
        }
      });
      return;
    }
    new JvmJob(options, jvms, program.getName(), timeoutSeconds).run();
  }

  /** Runs the job's ranks split evenly over {@code nodes}; fails with the root failure of them all. */
  private static Future<Void> runOn(List<Vertx> nodes, JobOptions options, RankProgram program) {
    int np = options.getNp();
    int n = Math.min(nodes.size(), np);
    if (n == 1) {
      return Rma.run(nodes.get(0), options, program);
    }
    List<Future<Void>> parts = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      int first = (int) ((long) k * np / n);
      int next = (int) ((long) (k + 1) * np / n);
      parts.add(Rma.run(nodes.get(k), copy(options).setLocalRanks(first, next - first), program));
    }
    return Future.join(parts).transform(ar -> {
      List<Throwable> failures = new ArrayList<>();
      for (Future<Void> f : parts) {
        if (f.failed()) {
          failures.add(f.cause());
        }
      }
      return failures.isEmpty() ? Future.succeededFuture() : Future.failedFuture(JobRunner.rootCause(failures));
    });
  }

  private static JobOptions copy(JobOptions o) {
    return new JobOptions(o);
  }

  private static void checkThread() {
    if (Context.isOnVertxThread()) {
      throw new IllegalStateException("RmaJob.run blocks until the job ends: call it from the test's thread, "
          + "not from " + Thread.currentThread().getName());
    }
  }

  /** Waits for {@code f} until the test's time limit; throws its failure as it is. */
  private <T> T await(Future<T> f, String jobName) {
    CompletableFuture<T> cf = f.toCompletionStage().toCompletableFuture();
    try {
      return cf.get(timeoutSeconds, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new RmaException(ErrorClass.OTHER, "job " + jobName + " failed: " + cause, cause);
    } catch (TimeoutException e) {
      throw new RmaException(ErrorClass.TIMEOUT, "job " + jobName + " did not end within " + timeoutSeconds
          + " s (@RmaTest(timeoutSeconds))");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RmaException(ErrorClass.OTHER, "interrupted while waiting for job " + jobName, e);
    }
  }

  private static void close(Vertx v) {
    try {
      v.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.log(System.Logger.Level.WARNING, "a Vert.x instance of an @RmaTest job did not close: " + e);
    }
  }
}
