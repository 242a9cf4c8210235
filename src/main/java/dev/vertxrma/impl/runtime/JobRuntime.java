package dev.vertxrma.impl.runtime;

import dev.vertxrma.JobOptions;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.impl.observe.Trace;
import dev.vertxrma.impl.transport.DataPlane;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameCodec;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.ReceivedPayload;
import dev.vertxrma.impl.transport.JobSecret;
import dev.vertxrma.impl.transport.RejectedInput;
import dev.vertxrma.impl.transport.Transport;
import io.vertx.core.Future;
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

  private static final System.Logger LOG = System.getLogger(JobRuntime.class.getName());

  private static final Map<Vertx, Map<String, JobRuntime>> JOBS = new IdentityHashMap<>();

  private final Vertx vertx;
  private final String jobName;
  private final int np;
  private final long startupTimeoutMs;
  private final long waitTimeoutMs;
  private final AtomicReferenceArray<RankProcess> localRanks;
  private final Transport transport;
  private final ClusterMembership membership;
  private final JobSecret secret;
  /** Frames to and from the ranks of other JVMs; {@code null} when not clustered. */
  private final DataPlane dataPlane;
  /** Barriers in shared memory, when every rank of the job lives in this JVM (no data plane). */
  private final dev.vertxrma.impl.coll.SharedMemoryBarriers sharedBarriers;
  private final RejectedInput rejected;
  private Future<String> dataPlaneAddress;
  /** Whether the data plane may share the event loop of this JVM's rank (it hosts only one). */
  private volatile boolean dataPlaneNearRank;
  private volatile String[] rankNodes;
  private final java.util.List<Consumer<String>> nodeLeftListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
  private int users;
  /** The job's trace in this JVM, or {@code null} when it is not traced. */
  private volatile Trace trace;

  private JobRuntime(Vertx vertx, String jobName, int np, long startupTimeoutMs, long waitTimeoutMs,
      JobSecret secret) {
    this.vertx = vertx;
    this.secret = secret;
    this.jobName = jobName;
    this.np = np;
    this.startupTimeoutMs = startupTimeoutMs;
    this.waitTimeoutMs = waitTimeoutMs;
    this.localRanks = new AtomicReferenceArray<>(np);
    this.transport = new Transport(jobName, this::sendRemote, this::localSink, this::inlineSink);
    this.membership = ClusterMembership.watch(vertx, this::nodeLeft);
    this.rejected = new RejectedInput("job " + jobName + " in this JVM", (ms, task) -> vertx.setTimer(ms, id -> task.run()),
        RejectedInput.DEFAULT_INTERVAL_MS);
    this.sharedBarriers = vertx.isClustered() ? null : new dev.vertxrma.impl.coll.SharedMemoryBarriers();
    this.dataPlane = vertx.isClustered() ? new DataPlane(vertx, jobName, secret, nodeId(), new DataPlane.Job() {
      @Override
      public void receive(String node, io.netty.buffer.ByteBuf record) {
        JobRuntime.this.receive(node, record);
      }

      @Override
      public void unreachable(String node, String reason) {
        nodeLost(node, "are unreachable: " + reason);
      }

      @Override
      public void reject(String what) {
        rejected.reject(what);
      }
    }, dev.vertxrma.impl.transport.DataPlaneTls.fromConfiguration()) : null;
  }

  /** The job's secret (handshake messages carry its proof). */
  JobSecret secret() {
    return secret;
  }

  /**
   * This JVM's data-plane address for the job ({@code host:port}, listening once asked for), or
   * "-" when the job is not clustered.
   */
  public Future<String> dataPlaneAddress() {
    return dataPlaneAddress(null);
  }

  /**
   * Says how many of the job's ranks this JVM hosts, before they start: with one, the data plane
   * shares that rank's event loop (frames between it and the network change no thread); with
   * several (or unknown, as under the Vert.x launchers), it takes an event loop of its own, so
   * that a rank whose program holds its thread (computing in a callback) delays no operation on
   * another rank's window.
   */
  public void expectLocalRanks(int count) {
    dataPlaneNearRank = count == 1;
  }

  /**
   * As {@link #dataPlaneAddress()}; the first caller's context {@code near} (a local rank's, in its
   * handshake) also places the data plane's own context on that rank's event loop when it is an
   * event-loop context and this JVM hosts no other rank ({@link #expectLocalRanks}), so that frames
   * between that rank and the network change no thread.
   */
  synchronized Future<String> dataPlaneAddress(io.vertx.core.internal.ContextInternal near) {
    if (dataPlaneAddress == null) {
      if (dataPlane == null) {
        dataPlaneAddress = Future.succeededFuture("-");
      } else {
        try {
          dataPlaneAddress = dataPlane.listen(ClusterSupport.host(), ClusterSupport.port(ClusterSupport.DATA_PORT),
              dataPlaneNearRank ? near : null);
        } catch (RmaException e) {
          dataPlaneAddress = Future.failedFuture(e);
        }
      }
    }
    return dataPlaneAddress;
  }

  private void sendRemote(int dst, Frame frame) {
    String[] nodes = rankNodes;
    if (dataPlane == null || nodes == null) {
      throw new IllegalStateException("rank " + dst + " of job " + jobName + " is not in this JVM and the job's "
          + "data plane is not up");
    }
    dataPlane.send(nodes[dst], dst, frame);
  }

  /**
   * A data-plane record from peer JVM {@code node} ({@code i32 destination rank | frame}): decoded
   * and handed to the destination rank if it lives here and the frame's source is a rank of that
   * JVM (a peer speaks only for its own ranks); anything else is rejected and counted. The data
   * plane's entry, public so that tests can feed it junk.
   */
  public void receive(String node, io.vertx.core.buffer.Buffer record) {
    receive(node, io.netty.buffer.Unpooled.wrappedBuffer(record.getBytes()));
  }

  /**
   * A record from the data plane ({@code i32 destination rank | frame}), which this call owns and
   * releases (a payload left in it holds a reference of its own): decoded, checked, delivered.
   */
  void receive(String node, io.netty.buffer.ByteBuf record) {
    Frame f;
    int dst;
    try {
      if (record.readableBytes() < 4) {
        rejected.reject("a data-plane record of " + record.readableBytes() + " bytes from JVM " + node);
        return;
      }
      dst = record.getInt(record.readerIndex());
      f = FrameCodec.decode(record, record.readerIndex() + 4, record.writerIndex());
    } catch (RmaException e) {
      rejected.reject("a malformed frame from JVM " + node + ": " + e.getMessage());
      return;
    } finally {
      record.release();
    }
    RankProcess p = localRank(dst);
    if (p == null) {
      ReceivedPayload.release(f);
      rejected.reject("a frame from JVM " + node + " for rank " + dst + ", which is not in this JVM: " + f);
      return;
    }
    String[] nodes = rankNodes;
    if (nodes == null || f.src < 0 || f.src >= np || !node.equals(nodes[f.src])) {
      ReceivedPayload.release(f);
      rejected.reject("a frame from JVM " + node + " that claims to come from rank " + f.src + ", which is not "
          + "one of its ranks: " + f);
      return;
    }
    if (FrameType.isOperation(f.type)) {
      p.inlineSink().accept(f);
    } else {
      p.fromNetwork(f);
    }
  }

  /** The node that hosts rank {@code r}, once the handshake is done (else {@code null}). */
  public String nodeOf(int r) {
    String[] nodes = rankNodes;
    return nodes == null ? null : nodes[r];
  }

  /** This JVM's data plane of the job (its bounds and counters, for tests), or {@code null} when not clustered. */
  public DataPlane dataPlane() {
    return dataPlane;
  }

  /** The input this JVM's part of the job rejected before it reached a rank. */
  public RejectedInput rejectedInput() {
    return rejected;
  }

  /** This Vert.x instance's cluster node id ("local" when not clustered). */
  String nodeId() {
    return membership == null ? "local" : membership.localNodeId();
  }

  /**
   * Records which cluster node hosts each rank and where each node's data plane listens (from the
   * handshake); the data plane connects to the nodes it is to connect to.
   */
  synchronized void learnNodes(String[] nodes, Map<String, String> dataPlanes) {
    if (rankNodes != null) {
      return;
    }
    this.rankNodes = nodes;
    if (dataPlane != null) {
      dataPlanes.forEach(dataPlane::learn);
    }
    LOG.log(System.Logger.Level.DEBUG, () -> describeNodes(nodes, dataPlanes));
  }

  /** {@code job J: ranks [0, 1] at 10.0.0.2:40123, ranks [2, 3] at 10.0.0.3:39011} (the data planes). */
  private String describeNodes(String[] nodes, Map<String, String> dataPlanes) {
    Map<String, java.util.List<Integer>> ranksOf = new java.util.LinkedHashMap<>();
    for (int r = 0; r < nodes.length; r++) {
      ranksOf.computeIfAbsent(nodes[r], n -> new java.util.ArrayList<>()).add(r);
    }
    StringBuilder sb = new StringBuilder("job ").append(jobName).append(": ");
    String sep = "";
    for (Map.Entry<String, java.util.List<Integer>> e : ranksOf.entrySet()) {
      sb.append(sep).append("ranks ").append(e.getValue()).append(" at ").append(dataPlanes.getOrDefault(e.getKey(), "?"));
      sep = ", ";
    }
    return sb.toString();
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
    nodeLost(node, "left: their cluster node " + node + " is gone");
  }

  /** Every local rank fails with PROC_FAILED if {@code node} hosted ranks of this job; {@code how} says why. */
  private void nodeLost(String node, String how) {
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
    RmaException cause = RmaException.of(ErrorClass.PROC_FAILED, "rank(s) %s of job %s %s", lost, jobName, how);
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
  public static JobRuntime obtain(Vertx vertx, String jobName, int np, long startupTimeoutMs, long waitTimeoutMs,
      String secretText) {
    synchronized (JOBS) {
      registerCodec(vertx);
      JobRuntime job = JOBS.computeIfAbsent(vertx, v -> new ConcurrentHashMap<>())
          .computeIfAbsent(jobName, n -> new JobRuntime(vertx, n, np, startupTimeoutMs, waitTimeoutMs,
              secretOf(vertx, n, secretText)));
      if (job.np != np) {
        throw dev.vertxrma.RmaException.of(dev.vertxrma.ErrorClass.ARG,
            "job %s already runs here with np=%d, cannot join it with np=%d", jobName, job.np, np);
      }
      job.users++;
      return job;
    }
  }

  /**
   * As {@link #obtain(Vertx, String, int, long, long, String)} with the options' values; traced if
   * the options ask for it ({@link JobOptions#getTraceFile()}).
   */
  public static JobRuntime obtain(Vertx vertx, JobOptions options) {
    JobRuntime job = obtain(vertx, options.getJobName(), options.getNp(), options.getStartupTimeoutMs(),
        options.getWaitTimeoutMs(), options.getSecret());
    if (options.getTraceFile() != null) {
      job.traceTo(java.nio.file.Path.of(options.getTraceFile()));
    }
    return job;
  }

  /** Traces the job's ranks in this JVM to {@code file} (the first call decides); before any rank starts. */
  synchronized void traceTo(java.nio.file.Path file) {
    if (trace == null) {
      trace = new Trace(file, jobName, np);
    }
  }

  /** The trace recorder of local rank {@code rank}: {@link RankObserver#NOOP} when the job is not traced. */
  RankObserver traceRecorder(int rank) {
    Trace t = trace;
    return t == null ? RankObserver.NOOP : t.recorder(rank);
  }

  /**
   * {@link #release()}, and when that was the last user, writes the job's trace (if it is traced)
   * on a worker thread. Never fails.
   */
  public Future<Void> releaseAndTrace() {
    Trace t = trace;
    return release() && t != null ? t.finish(vertx) : Future.succeededFuture();
  }

  /**
   * The job's secret: the one given, else the one in the file {@code RMA_JOB_SECRET_FILE} names;
   * a job that does not leave this JVM may make a random one, a clustered job may not.
   */
  private static JobSecret secretOf(Vertx vertx, String jobName, String text) {
    JobSecret s = text != null ? JobSecret.parse(text) : JobSecret.fromEnvironment();
    if (s != null) {
      return s;
    }
    if (vertx.isClustered()) {
      throw RmaException.of(ErrorClass.ARG, "clustered job %s has no secret: give every JVM of the job the same one "
          + "(JobOptions.setSecret, or a file named by %s; bin/rmarun --jvms K makes one per job)", jobName,
          JobSecret.FILE_ENV);
    }
    return JobSecret.random();
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

  /**
   * Drops one user; the last one removes the job from this Vert.x instance.
   *
   * @return whether it was the last one
   */
  public boolean release() {
    synchronized (JOBS) {
      if (--users == 0) {
        if (membership != null) {
          membership.close();
        }
        if (dataPlane != null) {
          dataPlane.close();
        }
        Map<String, JobRuntime> jobs = JOBS.get(vertx);
        if (jobs != null) {
          jobs.remove(jobName);
        }
        return true;
      }
      return false;
    }
  }

  /** The runtime of job {@code jobName} on {@code vertx} if it runs there, else {@code null} (tests, tools). */
  public static JobRuntime find(Vertx vertx, String jobName) {
    synchronized (JOBS) {
      Map<String, JobRuntime> jobs = JOBS.get(vertx);
      return jobs == null ? null : jobs.get(jobName);
    }
  }

  /**
   * Shared-memory barriers in use by job {@code jobName} on a Vert.x instance, -1 if no such job
   * runs or its barriers exchange messages (tests check freed windows release theirs).
   */
  public static int sharedBarriersInUse(Vertx vertx, String jobName) {
    synchronized (JOBS) {
      Map<String, JobRuntime> jobs = JOBS.get(vertx);
      JobRuntime job = jobs == null ? null : jobs.get(jobName);
      return job == null || job.sharedBarriers == null ? -1 : job.sharedBarriers.size();
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

  /**
   * The rank of job {@code job} whose context the current thread runs, or -1 (a thread of no
   * rank of that job): who printed a line, for {@code rmarun --tag-output}.
   */
  public static int currentRank(String job) {
    io.vertx.core.Context c = Vertx.currentContext();
    if (!(c instanceof io.vertx.core.internal.ContextInternal)) {
      return -1;
    }
    io.vertx.core.internal.ContextInternal ctx = ((io.vertx.core.internal.ContextInternal) c).unwrap();
    JobRuntime runtime = find(ctx.owner(), job);
    if (runtime == null) {
      return -1;
    }
    for (int r = 0; r < runtime.np(); r++) {
      RankProcess p = runtime.localRank(r);
      if (p != null && p.context().unwrap() == ctx) {
        return r;
      }
    }
    return -1;
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

  /** The job's shared-memory barriers if every rank lives in this JVM, else {@code null}. */
  public dev.vertxrma.impl.coll.SharedMemoryBarriers sharedBarriers() {
    return sharedBarriers;
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
