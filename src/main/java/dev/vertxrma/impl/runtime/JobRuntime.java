package dev.vertxrma.impl.runtime;

import dev.vertxrma.JobOptions;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameCodec;
import dev.vertxrma.impl.transport.Transport;
import io.vertx.core.Vertx;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * One job as seen from one Vert.x instance: its name and size, the ranks this instance hosts
 * (for the same-JVM fast path) and the transport to all ranks.
 */
public final class JobRuntime {

  private static final Map<Vertx, Map<String, JobRuntime>> JOBS = new IdentityHashMap<>();

  private final Vertx vertx;
  private final String jobName;
  private final int np;
  private final long startupTimeoutMs;
  private final long waitTimeoutMs;
  private final AtomicReferenceArray<RankProcess> localRanks;
  private final Transport transport;
  private final ClusterMembership membership;
  private volatile String[] rankNodes;
  private final java.util.List<Consumer<String>> nodeLeftListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
  private int users;

  private JobRuntime(Vertx vertx, String jobName, int np, long startupTimeoutMs, long waitTimeoutMs) {
    this.vertx = vertx;
    this.jobName = jobName;
    this.np = np;
    this.startupTimeoutMs = startupTimeoutMs;
    this.waitTimeoutMs = waitTimeoutMs;
    this.localRanks = new AtomicReferenceArray<>(np);
    this.transport = new Transport(vertx.eventBus(), jobName, np, this::localSink, this::inlineSink);
    this.membership = ClusterMembership.watch(vertx, this::nodeLeft);
  }

  /** This Vert.x instance's cluster node id ("local" when not clustered). */
  String nodeId() {
    return membership == null ? "local" : membership.localNodeId();
  }

  /** Records which cluster node hosts each rank (from the handshake). */
  void learnNodes(String[] nodes) {
    this.rankNodes = nodes;
  }

  /** Tells {@code listener} the id of every cluster node that leaves (startup handshakes use it); any thread. */
  void onNodeLeft(Consumer<String> listener) {
    nodeLeftListeners.add(listener);
  }

  /** Stops telling {@code listener}. */
  void removeNodeLeft(Consumer<String> listener) {
    nodeLeftListeners.remove(listener);
  }

  /** A cluster node left: every local rank fails with PROC_FAILED if it hosted ranks of this job. */
  private void nodeLeft(String node) {
    for (Consumer<String> l : nodeLeftListeners) {
      l.accept(node);
    }
    String[] nodes = rankNodes;
    if (nodes == null) {
      return;
    }
    java.util.List<Integer> lost = new java.util.ArrayList<>();
    for (int r = 0; r < nodes.length; r++) {
      if (node.equals(nodes[r])) {
        lost.add(r);
      }
    }
    if (lost.isEmpty()) {
      return;
    }
    dev.vertxrma.RmaException cause = dev.vertxrma.RmaException.of(dev.vertxrma.ErrorClass.PROC_FAILED,
        "rank(s) %s of job %s left: their cluster node %s is gone", lost, jobName, node);
    for (int r = 0; r < np; r++) {
      RankProcess p = localRanks.get(r);
      if (p != null) {
        p.context().runOnContext(v -> p.fail(cause));
      }
    }
  }

  /**
   * The runtime of job {@code options.getJobName()} on {@code vertx}, created on first use;
   * every call must be balanced by {@link #release()}.
   */
  public static JobRuntime obtain(Vertx vertx, String jobName, int np, long startupTimeoutMs, long waitTimeoutMs) {
    synchronized (JOBS) {
      registerCodec(vertx);
      JobRuntime job = JOBS.computeIfAbsent(vertx, v -> new ConcurrentHashMap<>())
          .computeIfAbsent(jobName, n -> new JobRuntime(vertx, n, np, startupTimeoutMs, waitTimeoutMs));
      if (job.np != np) {
        throw dev.vertxrma.RmaException.of(dev.vertxrma.ErrorClass.ARG,
            "job %s already runs here with np=%d, cannot join it with np=%d", jobName, job.np, np);
      }
      job.users++;
      return job;
    }
  }

  /** As {@link #obtain(Vertx, String, int, long, long)} with the options' values. */
  public static JobRuntime obtain(Vertx vertx, JobOptions options) {
    return obtain(vertx, options.getJobName(), options.getNp(), options.getStartupTimeoutMs(),
        options.getWaitTimeoutMs());
  }

  private static void registerCodec(Vertx vertx) {
    if (!JOBS.containsKey(vertx)) {
      try {
        vertx.eventBus().registerCodec(new FrameCodec());
      } catch (IllegalStateException alreadyRegistered) {
        // registered by an earlier job on this Vert.x instance
      }
    }
  }

  /** Drops one user; the last one removes the job from this Vert.x instance. */
  public void release() {
    synchronized (JOBS) {
      if (--users == 0) {
        if (membership != null) {
          membership.close();
        }
        Map<String, JobRuntime> jobs = JOBS.get(vertx);
        if (jobs != null) {
          jobs.remove(jobName);
        }
      }
    }
  }

  /** The runtime of job {@code jobName} on {@code vertx} if it runs there, else {@code null} (tests, tools). */
  public static JobRuntime find(Vertx vertx, String jobName) {
    synchronized (JOBS) {
      Map<String, JobRuntime> jobs = JOBS.get(vertx);
      return jobs == null ? null : jobs.get(jobName);
    }
  }

  /** Number of jobs registered on a Vert.x instance (tests check it returns to zero). */
  public static int activeJobs(Vertx vertx) {
    synchronized (JOBS) {
      Map<String, JobRuntime> jobs = JOBS.get(vertx);
      return jobs == null ? 0 : jobs.size();
    }
  }

  private Consumer<Frame> localSink(int rank) {
    RankProcess p = localRanks.get(rank);
    return p == null ? null : p.sink();
  }

  private Consumer<Frame> inlineSink(int rank) {
    RankProcess p = localRanks.get(rank);
    return p == null ? null : p.inlineSink();
  }

  /** Rank {@code r} if this Vert.x instance hosts it, else {@code null}; any thread. */
  public RankProcess localRank(int r) {
    return r >= 0 && r < np ? localRanks.get(r) : null;
  }

  void register(RankProcess rank) {
    if (!localRanks.compareAndSet(rank.rank(), null, rank)) {
      throw dev.vertxrma.RmaException.of(dev.vertxrma.ErrorClass.RANK,
          "rank %d of job %s is already hosted in this Vert.x instance", rank.rank(), jobName);
    }
  }

  void unregister(RankProcess rank) {
    localRanks.compareAndSet(rank.rank(), rank, null);
  }

  /** The Vert.x instance. */
  public Vertx vertx() {
    return vertx;
  }

  /** The job name. */
  public String jobName() {
    return jobName;
  }

  /** Number of ranks. */
  public int np() {
    return np;
  }

  /** Startup timeout (ms). */
  public long startupTimeoutMs() {
    return startupTimeoutMs;
  }

  /** Wait timeout (ms). */
  public long waitTimeoutMs() {
    return waitTimeoutMs;
  }

  /** The transport to every rank of the job. */
  public Transport transport() {
    return transport;
  }
}
