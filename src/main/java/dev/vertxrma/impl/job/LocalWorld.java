package dev.vertxrma.impl.job;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.World;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import dev.vertxrma.impl.runtime.JobRuntime;

/**
 * The ranks of one job that this JVM hosts, deployed and past the handshake: what
 * {@link JobRunner} runs programs on, and what a service holds as a {@link World}.
 */
final class LocalWorld implements World {

  private final Vertx vertx;
  private final JobRuntime job;
  private final List<RankHost> hosts;
  private final List<Future<String>> deployments;
  private final AtomicReference<Future<Void>> closing = new AtomicReference<>();

  LocalWorld(Vertx vertx, JobRuntime job, List<RankHost> hosts, List<Future<String>> deployments) {
    this.vertx = vertx;
    this.job = job;
    this.hosts = List.copyOf(hosts);
    this.deployments = deployments;
  }

  List<RankHost> hosts() {
    return hosts;
  }

  @Override
  public String jobName() {
    return job.jobName();
  }

  @Override
  public int size() {
    return job.np();
  }

  @Override
  public List<Integer> localRanks() {
    List<Integer> ranks = new ArrayList<>(hosts.size());
    for (RankHost h : hosts) {
      ranks.add(h.rank());
    }
    return ranks;
  }

  @Override
  public Comm rank(int rank) {
    if (closing.get() != null) {
      throw RmaException.of(ErrorClass.ARG, "world of job %s is closed: rank(%d) is no longer available",
          job.jobName(), rank);
    }
    for (RankHost h : hosts) {
      if (h.rank() == rank) {
        return h.world();
      }
    }
    throw RmaException.of(ErrorClass.RANK, "rank %d of job %s is not hosted in this JVM (local ranks: %s, np=%d)",
        rank, job.jobName(), localRanks(), job.np());
  }

  @Override
  public Future<Void> close() {
    Promise<Void> result = Promise.promise();
    if (!closing.compareAndSet(null, result.future())) {
      return closing.get();
    }
    List<Future<Void>> finalized = new ArrayList<>();
    for (RankHost h : hosts) {
      finalized.add(h.finish());
    }
    Future.join(finalized).onComplete(done -> {
      List<Throwable> failures = new ArrayList<>();
      for (Future<Void> f : finalized) {
        if (f.failed()) {
          failures.add(f.cause());
        }
      }
      release(failures, result);
    });
    return result.future();
  }

  /** Undeploys the ranks, releases the job and completes {@code result} with the root failure, if any. */
  void release(List<Throwable> failures, Promise<Void> result) {
    List<Future<Void>> undeploys = new ArrayList<>();
    for (Future<String> d : deployments) {
      if (d.succeeded()) {
        undeploys.add(vertx.undeploy(d.result()));
      }
    }
    // the trace (if any) is written before the job's future completes
    Future.join(undeploys).onComplete(ar -> job.releaseAndTrace(failures.isEmpty()).onComplete(traced -> {
      if (failures.isEmpty()) {
        result.complete();
      } else {
        result.fail(JobRunner.rootCause(failures));
      }
    }));
  }
}
