package dev.vertxrma.impl.runtime;

import dev.vertxrma.JobOptions;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.impl.observe.Trace;
import dev.vertxrma.impl.transport.DataPlane;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.JobSecret;
import dev.vertxrma.impl.transport.RejectedInput;
import dev.vertxrma.impl.transport.Transport;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * One job as seen from one Vert.x instance: its name and size, the ranks this instance hosts
 * (for the same-JVM fast path) and the transport to all ranks. Kept in the instance's
 * {@link JobRegistry}; its settings are the job's options, copied when it is made (no system
 * property is read here).
 */
public final class JobRuntime {

  private static final System.Logger LOG = System.getLogger(JobRuntime.class.getName());

  private final Vertx vertx;
  private final JobRegistry registry;
  private final String jobName;
  private final int np;
  private final long startupTimeoutMs;
  private final long waitTimeoutMs;
  /** What a rank's death does to the job ({@link JobOptions#getFailurePolicy()}). */
  private final dev.vertxrma.FailurePolicy failurePolicy;
  /** The cluster nodes of the job's ranks known gone (each is reported once). */
  private final java.util.Set<String> lostNodes = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final AtomicReferenceArray<RankProcess> localRanks;
  private final Transport transport;
  private final ClusterMembership membership;
  private final JobSecret secret;
  /** Frames to and from the ranks of other JVMs; {@code null} when not clustered. */
  private final DataPlane dataPlane;
  /** What the data plane hands this JVM: records checked and delivered to its ranks. */
  private final DataPlaneIntake intake;
  /** Barriers in shared memory, when every rank of the job lives in this JVM (no data plane). */
  private final dev.vertxrma.impl.coll.SharedMemoryBarriers sharedBarriers;
  private final RejectedInput rejected;
  private Future<String> dataPlaneAddress;
  /** Whether the data plane may share the event loop of this JVM's rank (it hosts only one). */
  private volatile boolean dataPlaneNearRank;
  private volatile String[] rankNodes;
  /** The process mark of each node of the job (what its JVM writes into the owner words it takes). */
  private volatile Map<String, Long> nodeMarks = Map.of();
  private final java.util.List<Consumer<String>> nodeLeftListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
  /** The data plane's address and port (the transport options'). */
  private final String host;
  private final int dataPort;
  /** Whether JVMs of one host share window memory ({@link dev.vertxrma.TransportOptions#isSharedMemory()}). */
  private final boolean sharedMemory;
  private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
  /** The job's trace in this JVM, or {@code null} when it is not traced. */
  private volatile Trace trace;

  private JobRuntime(Vertx vertx, JobRegistry registry, JobOptions options, JobSecret secret) {
    this.vertx = vertx;
    this.registry = registry;
    this.secret = secret;
    this.jobName = options.getJobName();
    this.np = options.getNp();
    this.startupTimeoutMs = options.getStartupTimeoutMs();
    this.waitTimeoutMs = options.getWaitTimeoutMs();
    this.failurePolicy = options.getFailurePolicy();
    this.host = options.getTransportOptions().getHost();
    this.dataPort = options.getTransportOptions().getPort();
    this.sharedMemory = options.getTransportOptions().isSharedMemory();
    this.localRanks = new AtomicReferenceArray<>(np);
    this.transport = new Transport(jobName, this::sendRemote, this::localSink, this::inlineSink);
    this.membership = ClusterMembership.watch(vertx, this::nodeLeft);
    this.rejected = new RejectedInput("job " + jobName + " in this JVM", (ms, task) -> vertx.setTimer(ms, id -> task.run()),
        RejectedInput.DEFAULT_INTERVAL_MS);
    this.sharedBarriers = vertx.isClustered() ? null : new dev.vertxrma.impl.coll.SharedMemoryBarriers();
    this.intake = new DataPlaneIntake(this, rejected);
    this.dataPlane = vertx.isClustered() ? new DataPlane(vertx, jobName, secret, nodeId(), intake,
        dev.vertxrma.impl.transport.DataPlaneTls.fromConfiguration(options.getTransportOptions().getTlsDirectory(),
        options.getClusterOptions().getConfigDirectory())) : null;
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
   * Says how many of the job's ranks this JVM hosts, before they start, and which loop the data
   * plane is to run on ({@link dev.vertxrma.DataPlaneLoop}): sharing the loop of the JVM's only
   * rank, frames between it and the network change no thread; on a loop of its own (several
   * ranks, a count not known as under the Vert.x launchers, or cores to spare), a rank whose
   * program holds its thread (computing in a callback) delays no operation on any rank's window.
   */
  public void expectLocalRanks(int count, dev.vertxrma.DataPlaneLoop loop) {
    dataPlaneNearRank = loop.sharesRankLoop(count, Runtime.getRuntime().availableProcessors());
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
          dataPlaneAddress = dataPlane.listen(host, dataPort, dataPlaneNearRank ? near : null);
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
    intake.receive(node, io.netty.buffer.Unpooled.wrappedBuffer(record.getBytes()), null);
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
  synchronized void learnNodes(String[] nodes, Map<String, String> dataPlanes, Map<String, Long> marks) {
    if (rankNodes != null) {
      return;
    }
    this.nodeMarks = Map.copyOf(marks);
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

  /**
   * {@code node} hosted ranks of this job and is gone ({@code how} says why): under
   * {@link dev.vertxrma.FailurePolicy#ABORT} every local rank fails with PROC_FAILED; under
   * {@link dev.vertxrma.FailurePolicy#CONTINUE} every local rank is told which ranks died and
   * goes on.
   */
  void nodeLost(String node, String how) {
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
    boolean goOn = failurePolicy == dev.vertxrma.FailurePolicy.CONTINUE;
    if (goOn) {
      if (!lostNodes.add(node)) {
        return;
      }
      LOG.log(System.Logger.Level.WARNING, "job " + jobName + " goes on without rank(s) " + lost + " (they " + how
          + ")");
    }
    int[] dead = lost.stream().mapToInt(Integer::intValue).toArray();
    for (int r = 0; r < np; r++) {
      RankProcess p = localRanks.get(r);
      if (p != null) {
        p.context().runOnContext(v -> {
          if (goOn) {
            p.peersFailed(dead, cause);
          } else {
            p.fail(cause);
          }
        });
      }
    }
  }

  /**
   * Removes the shared-memory files job {@code jobName} left in this host's segment directory
   * (window segments and barrier pages a JVM killed while it made them did not remove): the
   * launcher's last step. Blocking file I/O. Returns how many there were.
   */
  public static int removeSharedMemoryFiles(String jobName) {
    return dev.vertxrma.impl.memory.SharedMapping.removeJob(jobName);
  }

  /**
   * The ranks of the jobs on {@code vertx} whose event loop is thread {@code t}, named ("rank 2 of
   * job J"); empty if none. Any thread (the blocked-thread checker's).
   */
  public static java.util.List<String> ranksOn(Vertx vertx, Thread t) {
    JobRegistry registry = JobRegistry.find(vertx);
    java.util.List<String> found = new java.util.ArrayList<>();
    if (registry == null) {
      return found;
    }
    for (JobRuntime job : registry.all()) {
      for (int r = 0; r < job.np; r++) {
        RankProcess p = job.localRanks.get(r);
        if (p != null && p.runsOn(t)) {
          found.add("rank " + r + " of job " + job.jobName);
        }
      }
    }
    return found;
  }

  /**
   * The process mark ({@code HolderMark}) of the JVM that hosts job rank {@code r}, or 0 if unknown
   * (an embedded job, or before the startup handshake ended). Any thread.
   */
  public long holderMarkOf(int r) {
    String[] nodes = rankNodes;
    if (nodes == null || r < 0 || r >= nodes.length || nodes[r] == null) {
      return 0;
    }
    Long m = nodeMarks.get(nodes[r]);
    return m == null ? 0 : m;
  }

  /** What a rank's death does to the job. */
  public dev.vertxrma.FailurePolicy failurePolicy() {
    return failurePolicy;
  }

  /** Whether ranks in this JVM share window memory with the other JVMs of their host (the on-node path). */
  public boolean sharedMemory() {
    return sharedMemory;
  }

  /**
   * The runtime of job {@code options.getJobName()} on {@code vertx}, created on first use from
   * the options' values; every call must be balanced by {@link #release()}. Traced if the options
   * ask for it ({@link JobOptions#getTraceFile()}). The first job on {@code vertx} also gives it
   * its copy threads ({@link JobOptions#getCopyOptions()}).
   *
   * @throws RmaException ARG when the job runs here with another np, its secret is malformed or
   *     missing (clustered), its TLS material is incomplete, or {@code vertx} is closed
   */
  public static JobRuntime obtain(Vertx vertx, JobOptions options) {
    JobRegistry registry = JobRegistry.of(vertx);
    int threads = options.getCopyOptions().getCopyThreads();
    dev.vertxrma.impl.memory.ParallelCopy.install(vertx, threads >= 0 ? threads
        : dev.vertxrma.impl.memory.ParallelCopy.machineThreads(
            dev.vertxrma.impl.transport.PollingTransport.modeOf(vertx) == dev.vertxrma.Progress.BUSY));
    JobOptions own = new JobOptions(options);
    if (vertx.isClustered() && own.getNp() > JobOptions.MAX_NP_OVER_JVMS) {
      throw RmaException.of(ErrorClass.ARG, "np=%d: a job whose ranks span JVMs has at most %d ranks (every rank "
          + "greets every rank when the job starts, and larger jobs do not start in time); run fewer ranks, each with "
          + "a larger share of the work", own.getNp(), JobOptions.MAX_NP_OVER_JVMS);
    }
    JobRuntime job = registry.obtain(own.getJobName(), own.getNp(),
        () -> new JobRuntime(vertx, registry, own, secretOf(vertx, own.getJobName(), own.getSecret(), own.getSecretFile())));
    if (own.getTraceFile() != null) {
      job.traceTo(own);
    }
    return job;
  }

  /** Traces the job's ranks in this JVM as {@code options} say (the first call decides); before any rank starts. */
  private synchronized void traceTo(JobOptions options) {
    if (trace == null) {
      String given = options.getTransportOptions().getHost();
      trace = new Trace(java.nio.file.Path.of(options.getTraceFile()), jobName, np,
          options.getTraceOptions().getEventsPerRank(),
          given.equals(dev.vertxrma.TransportOptions.DEFAULT_HOST) ? null : given);
    }
  }

  /** The trace recorder of local rank {@code rank}: {@link RankObserver#NOOP} when the job is not traced. */
  RankObserver traceRecorder(int rank) {
    Trace t = trace;
    return t == null ? RankObserver.NOOP : t.recorder(rank);
  }

  /**
   * {@link #release()}, and when that was the last user, waits (if the job ended well here) for
   * the data plane's goodbyes to the other JVMs, then writes the job's trace (if it is traced)
   * on a worker thread. Never fails.
   *
   * @param endedWell whether every local rank of the job succeeded
   */
  public Future<Void> releaseAndTrace(boolean endedWell) {
    Trace t = trace;
    if (!release()) {
      return Future.succeededFuture();
    }
    // a job that ended well waits for its goodbyes (its peers may still be in their finalize);
    // a failed one need not (its peers fail too), and its failure is reported at once
    Future<Void> closed = endedWell ? resourcesClosed : Future.succeededFuture();
    return closed.transform(ar -> t != null ? t.finish(vertx) : Future.succeededFuture());
  }

  /**
   * The job's secret: the one given, else the one in the file the options name
   * ({@link dev.vertxrma.JobOptions#getSecretFile()}, {@code RMA_JOB_SECRET_FILE} where they were
   * made: the environment is not read here); a job that does not leave this JVM may make a random
   * one, a clustered job may not.
   */
  private static JobSecret secretOf(Vertx vertx, String jobName, String text, String file) {
    JobSecret s = text != null ? JobSecret.parse(text) : file != null ? JobSecret.read(java.nio.file.Path.of(file)) : null;
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

  /**
   * Drops one user; the last one removes the job from this Vert.x instance and closes its cluster
   * watch and data plane.
   *
   * @return whether it was the last one
   */
  public boolean release() {
    return registry.release(this);
  }

  /** Closes the job's cluster watch and data plane, once (the last user, or the instance's close). */
  void closeResources() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (membership != null) {
      membership.close();
    }
    if (dataPlane != null) {
      resourcesClosed = dataPlane.close();
    }
  }

  /**
   * Completes once the job's resources here are closed: its data plane's goodbyes written to the
   * other JVMs (bounded by the plane's linger time), so that a JVM that exits once its job's
   * future completed never closes a connection its peers, still in their finalize, would take for
   * a lost JVM.
   */
  private volatile Future<Void> resourcesClosed = Future.succeededFuture();

  /** The runtime of job {@code jobName} on {@code vertx} if it runs there, else {@code null} (tests, tools). */
  public static JobRuntime find(Vertx vertx, String jobName) {
    JobRegistry registry = JobRegistry.find(vertx);
    return registry == null ? null : registry.get(jobName);
  }

  /**
   * Shared-memory barriers in use by job {@code jobName} on a Vert.x instance, -1 if no such job
   * runs or its barriers exchange messages (tests check freed windows release theirs).
   */
  public static int sharedBarriersInUse(Vertx vertx, String jobName) {
    JobRuntime job = find(vertx, jobName);
    return job == null || job.sharedBarriers == null ? -1 : job.sharedBarriers.size();
  }

  /** Number of jobs registered on a Vert.x instance (tests check it returns to zero, and to zero when it closes). */
  public static int activeJobs(Vertx vertx) {
    JobRegistry registry = JobRegistry.find(vertx);
    return registry == null ? 0 : registry.size();
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

  /** The address this JVM's data plane binds for the job (its transport options' host). */
  public String host() {
    return host;
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
