package dev.vertxrma;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * How to run a job: how many ranks, which of them this JVM hosts, its name, its timeouts; and,
 * nested, how its JVMs reach each other ({@link TransportOptions}), how a JVM joins the job's
 * cluster ({@link ClusterOptions}), whether it is traced ({@link TraceOptions}) and how large
 * copies share the cores ({@link CopyOptions}). Fluent setters in the Vert.x options style.
 *
 * <p>This tree is the job's whole configuration: the engine takes every value from it and reads
 * no system property. The {@code rma.*} system properties (the table is in
 * {@code docs/running-jobs.md}) are this JVM's defaults: a new options object starts from them,
 * and a value set on it wins over them, so that two jobs in one JVM may differ in any of them.
 */
public class JobOptions {

  /** Default startup timeout: all ranks must have joined within it (ms). */
  public static final long DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
  /** Default timeout of any wait: receive, barrier, epoch, lock (ms). */
  public static final long DEFAULT_WAIT_TIMEOUT_MS = 120_000;
  /**
   * The most ranks a job may have when they all live in one JVM (measured: 256 ranks start in
   * 13 s on 2 loaded cores; 512 do not start within the default startup timeout, every rank
   * greeting every rank in the startup handshake).
   */
  public static final int MAX_NP = 256;
  /**
   * The most ranks a job may have when its ranks span JVMs (measured: 128 ranks over 2 JVMs start
   * in 6 s on 2 loaded cores; 256 do not start within two minutes).
   */
  public static final int MAX_NP_OVER_JVMS = 128;
  /** Default failure policy: a lost rank fails the whole job, as MPI's default error handler does. */
  public static final FailurePolicy DEFAULT_FAILURE_POLICY = FailurePolicy.ABORT;

  private int np = 1;
  private String jobName = "job-" + UUID.randomUUID().toString().substring(0, 8);
  private int firstLocalRank = 0;
  private int localRankCount = -1;
  private boolean clustered;
  private long startupTimeoutMs = DEFAULT_STARTUP_TIMEOUT_MS;
  private long waitTimeoutMs = DEFAULT_WAIT_TIMEOUT_MS;
  private List<String> args = new ArrayList<>();
  private String secret;
  private String secretFile;
  private boolean requireFreedWindows;
  private boolean virtualThreads;
  private FailurePolicy failurePolicy;
  // made by the constructors: a copy reads no system property
  private TransportOptions transportOptions;
  private ClusterOptions clusterOptions;
  private TraceOptions traceOptions;
  private CopyOptions copyOptions;

  /**
   * Default options: one rank, embedded, a fresh job name, the timeouts' {@code DEFAULT_*}
   * values; the nested options hold this JVM's defaults (their {@code DEFAULT_*} values, each
   * replaced by its system property when that is set: traced to the file {@code -Drma.trace}
   * names, if it is set, see {@link #setTraceFile}).
   *
   * @throws RmaException {@link ErrorClass#ARG} when one of those system properties holds a value
   *     that is not one (a port that is no number, a progress mode that does not exist), naming it
   */
  public JobOptions() {
    this.transportOptions = new TransportOptions();
    this.clusterOptions = new ClusterOptions();
    this.traceOptions = new TraceOptions();
    this.copyOptions = new CopyOptions();
    this.failurePolicy = JvmDefaults.failurePolicy();
    this.secretFile = JvmDefaults.secretFile();
  }

  /**
   * A copy of {@code other} (Vert.x's options idiom), every setting included.
   *
   * @param other the options to copy
   */
  public JobOptions(JobOptions other) {
    this.np = other.np;
    this.jobName = other.jobName;
    this.firstLocalRank = other.firstLocalRank;
    this.localRankCount = other.localRankCount;
    this.clustered = other.clustered;
    this.startupTimeoutMs = other.startupTimeoutMs;
    this.waitTimeoutMs = other.waitTimeoutMs;
    this.args = new ArrayList<>(other.args);
    this.secret = other.secret;
    this.secretFile = other.secretFile;
    this.failurePolicy = other.failurePolicy;
    this.requireFreedWindows = other.requireFreedWindows;
    this.virtualThreads = other.virtualThreads;
    this.transportOptions = new TransportOptions(other.transportOptions);
    this.clusterOptions = new ClusterOptions(other.clusterOptions);
    this.traceOptions = new TraceOptions(other.traceOptions);
    this.copyOptions = new CopyOptions(other.copyOptions);
  }

  /**
   * The number of ranks of the job ({@code mpirun -np}).
   *
   * @return the number of ranks, 1 by default
   */
  public int getNp() {
    return np;
  }

  /**
   * Sets the number of ranks of the whole job; the same in every JVM of the job.
   *
   * @param np the number of ranks, at least 1 and at most {@link #MAX_NP} ({@link
   *     #MAX_NP_OVER_JVMS} when the ranks span JVMs, checked when the job starts)
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} if {@code np < 1} or {@code np > MAX_NP}
   */
  public JobOptions setNp(int np) {
    if (np < 1) {
      throw RmaException.of(ErrorClass.ARG, "np must be at least 1, was %d", np);
    }
    if (np > MAX_NP) {
      throw RmaException.of(ErrorClass.ARG, "np=%d: a job has at most %d ranks in one JVM and %d over several (every "
          + "rank greets every rank when the job starts, and larger jobs do not start in time); run fewer ranks, each "
          + "with a larger share of the work", np, MAX_NP, MAX_NP_OVER_JVMS);
    }
    this.np = np;
    return this;
  }

  /**
   * The job's name: the event-bus address prefix and, when clustered, the Hazelcast cluster name.
   *
   * @return the name; by default {@code job-} and 8 random hex digits
   */
  public String getJobName() {
    return jobName;
  }

  /**
   * Sets the job's name; it must be the same in every JVM of the job.
   *
   * @param jobName 1 to 64 letters, digits, '-', '_' and '.'
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} for a {@code null} or malformed name
   */
  public JobOptions setJobName(String jobName) {
    if (jobName == null || !jobName.matches("[A-Za-z0-9._-]{1,64}")) {
      throw RmaException.of(ErrorClass.ARG, "job name '%s' must be 1-64 characters of [A-Za-z0-9._-]", jobName);
    }
    this.jobName = jobName;
    return this;
  }

  /**
   * The first rank this JVM hosts.
   *
   * @return the first local rank, 0 by default
   */
  public int getFirstLocalRank() {
    return firstLocalRank;
  }

  /**
   * The number of ranks this JVM hosts.
   *
   * @return the count given to {@link #setLocalRanks}; by default all ranks from the first,
   *     {@code getNp() - getFirstLocalRank()}
   */
  public int getLocalRankCount() {
    return localRankCount < 0 ? np - firstLocalRank : localRankCount;
  }

  /**
   * Hosts ranks {@code [first, first + count)} in this JVM; the other ranks join from other JVMs.
   * A range beyond {@link #getNp()} fails the job's start with {@link ErrorClass#RANK}.
   *
   * @param first the first local rank
   * @param count the number of local ranks
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} if {@code first} or {@code count} is negative
   */
  public JobOptions setLocalRanks(int first, int count) {
    if (first < 0 || count < 0) {
      throw RmaException.of(ErrorClass.ARG, "local ranks [%d, %d+%d) are invalid", first, first, count);
    }
    this.firstLocalRank = first;
    this.localRankCount = count;
    return this;
  }

  /**
   * Whether {@link Rma#run(JobOptions, RankProgram)} starts a clustered Vert.x.
   *
   * @return whether it is clustered, {@code false} by default
   */
  public boolean isClustered() {
    return clustered;
  }

  /**
   * Chooses a clustered Vert.x for {@link Rma#run(JobOptions, RankProgram)}
   * (see {@link Rma#clusteredVertx(String)}).
   *
   * @param clustered whether to cluster
   * @return these options
   */
  public JobOptions setClustered(boolean clustered) {
    this.clustered = clustered;
    return this;
  }

  /**
   * The startup timeout: ranks still missing after it fail the job's start with
   * {@link ErrorClass#TIMEOUT}, naming them.
   *
   * @return the timeout in milliseconds, {@link #DEFAULT_STARTUP_TIMEOUT_MS} by default
   */
  public long getStartupTimeoutMs() {
    return startupTimeoutMs;
  }

  /**
   * Sets the startup timeout.
   *
   * @param ms the timeout in milliseconds, positive
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} if {@code ms <= 0}
   */
  public JobOptions setStartupTimeoutMs(long ms) {
    this.startupTimeoutMs = positive(ms, "startup timeout");
    return this;
  }

  /**
   * The timeout of every wait: receives, collectives, epochs, locks and flushes fail with
   * {@link ErrorClass#TIMEOUT} after it.
   *
   * @return the timeout in milliseconds, {@link #DEFAULT_WAIT_TIMEOUT_MS} by default
   */
  public long getWaitTimeoutMs() {
    return waitTimeoutMs;
  }

  /**
   * Sets the wait timeout.
   *
   * @param ms the timeout in milliseconds, positive
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} if {@code ms <= 0}
   */
  public JobOptions setWaitTimeoutMs(long ms) {
    this.waitTimeoutMs = positive(ms, "wait timeout");
    return this;
  }

  /**
   * The program arguments handed to every rank ({@link RankProgram#run}).
   *
   * @return the arguments, empty by default (the list itself, not a copy)
   */
  public List<String> getArgs() {
    return args;
  }

  /**
   * Sets the program arguments.
   *
   * @param args the arguments (copied)
   * @return these options
   */
  public JobOptions setArgs(List<String> args) {
    this.args = new ArrayList<>(args);
    return this;
  }

  /**
   * The job secret (Base64 text of at least 16 random bytes), or {@code null}: then the file
   * {@link #getSecretFile()} names is read, and without one a job in one JVM makes a random one. Every JVM of a job must have the same secret: a data-plane connection or a
   * handshake message that does not prove it is refused. {@code bin/rmarun --jvms K} makes a
   * fresh secret per job and hands it to its JVMs in a file only the user can read.
   *
   * @return the secret, or {@code null} (the default)
   */
  public String getSecret() {
    return secret;
  }

  /**
   * Sets the job secret (see {@link #getSecret()}); never log or print it. A malformed secret
   * fails the job's start with {@link ErrorClass#ARG}.
   *
   * @param secret Base64 text of at least 16 random bytes, or {@code null}
   * @return these options
   */
  public JobOptions setSecret(String secret) {
    this.secret = secret;
    return this;
  }

  /**
   * The file the job secret is read from when {@link #getSecret()} is {@code null}: by default the
   * one the environment variable {@code RMA_JOB_SECRET_FILE} named when these options were made
   * (the environment is read there, never later). The file must be this user's and closed to
   * others (mode 0600 or 0400), as ssh requires of its keys: otherwise the job's start fails with
   * {@link ErrorClass#ARG}, saying what to run.
   *
   * @return the file's path, or {@code null}
   */
  public String getSecretFile() {
    return secretFile;
  }

  /**
   * Sets the job secret's file (see {@link #getSecretFile()}); {@code null} for none.
   *
   * @param file the path of a file of Base64 text, or {@code null}
   * @return these options
   */
  public JobOptions setSecretFile(String file) {
    this.secretFile = file == null || file.isBlank() ? null : file;
    return this;
  }

  /**
   * Whether a rank that finalizes with windows it created and never freed fails the job (off by
   * default: such windows are released with a warning).
   *
   * @return {@code true} if unfreed windows fail the job
   */
  public boolean isRequireFreedWindows() {
    return requireFreedWindows;
  }

  /**
   * Makes a rank that finalizes (its program's future completed, or {@link World#close()}) while
   * windows it created are not freed fail with {@link ErrorClass#WIN}, naming the rank and the
   * windows; the job fails with that error. {@code dev.vertxrma.junit.RmaTest} turns it on.
   *
   * @param requireFreedWindows {@code true} to fail the job on unfreed windows
   * @return these options
   */
  public JobOptions setRequireFreedWindows(boolean requireFreedWindows) {
    this.requireFreedWindows = requireFreedWindows;
    return this;
  }

  /**
   * What the job does when one of its ranks dies.
   *
   * @return the policy set, else this JVM's default: {@code -Drma.onFailure}, else
   *     {@link #DEFAULT_FAILURE_POLICY}
   */
  public FailurePolicy getFailurePolicy() {
    return failurePolicy;
  }

  /**
   * Chooses what the job does when one of its ranks dies: fail the whole job
   * ({@link FailurePolicy#ABORT}, MPI's default) or let the survivors go on and recover with
   * {@link Comm#revoke()}, {@link Comm#agree(int)} and {@link Comm#shrink()}
   * ({@link FailurePolicy#CONTINUE}, ULFM). Every JVM of a job must choose the same.
   *
   * @param failurePolicy the policy
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} for {@code null}
   */
  public JobOptions setFailurePolicy(FailurePolicy failurePolicy) {
    this.failurePolicy = nonNull(failurePolicy, "failure policy");
    return this;
  }

  /**
   * Whether each rank runs on a virtual-thread context (off by default: an event loop).
   *
   * @return {@code true} for virtual-thread ranks
   */
  public boolean isVirtualThreads() {
    return virtualThreads;
  }

  /**
   * Runs each rank, its program included, on a Vert.x virtual-thread context
   * ({@code ThreadingModel.VIRTUAL_THREAD}) instead of an event loop, so that a rank program may
   * write MPI's blocking style: {@code win.put(...).await(); win.flush(1).await();}. Every call
   * still returns a {@link io.vertx.core.Future}; composing works as before. While the program is
   * parked in {@code await()}, the rank's other tasks run (the passive-target operations other
   * ranks aim at its window, its point-to-point traffic, its timers): MPI's progress rule holds.
   * Code between two {@code await()}s runs alone on the rank, as a task of an event loop would.
   * Needs Java 21 or newer at run time: on an older JVM the job fails to start with
   * {@link ErrorClass#ARG} naming the version; the library itself needs only Java 17.
   *
   * @param virtualThreads {@code true} to run ranks on virtual threads
   * @return these options
   */
  public JobOptions setVirtualThreads(boolean virtualThreads) {
    this.virtualThreads = virtualThreads;
    return this;
  }

  /**
   * The file this job's trace is written to, or {@code null} (not traced).
   *
   * @return the file's path; by default the value of the system property {@code rma.trace}, else
   *     {@code null}
   */
  public String getTraceFile() {
    return traceOptions.getFile();
  }

  /**
   * Traces the job: every rank records its windows' operations (kind, target, bytes, issue and
   * completion), epochs, synchronization calls and their waits (lock waits among them) and failed
   * calls, with timestamps, in a ring of bounded size (the last 65536 events per rank;
   * {@link TraceOptions#setEventsPerRank} or {@code -Drma.trace.events=N} changes it), and when the job ends the trace is written to
   * {@code file} in one of two formats, chosen by the file's name:
   *
   * <ul>
   *   <li>a name ending in {@code .json}: the trace-event JSON format that ui.perfetto.dev and
   *       {@code chrome://tracing} open (one process per JVM of the job, ranks as threads named
   *       {@code rank N}, epochs and synchronization calls as slices, operations as short slices
   *       with flow arrows from origin to target, windows and failed calls as instants; times in
   *       microseconds from the first event);
   *   <li>any other name: one self-contained HTML page: ranks as lanes, epochs as bars,
   *       operations as arrows from origin to target, waits shaded.
   * </ul>
   *
   * <p>Off by default, and then nothing is recorded and nothing costs.
   *
   * <p>The file is written before the job's future ({@link Rma#run}, {@link World#close()})
   * completes. A job over several JVMs writes it once: each JVM leaves its part next to the file
   * ({@code FILE.JOB.part-R}) and the last JVM to end renders all of them (the JVMs must share
   * the file's directory). The system property {@code -Drma.trace=FILE} sets this default for
   * every job of the JVM ({@code RMA_JAVA_OPTS="-Drma.trace=t.html" bin/rmarun ...}).
   *
   * @param file the file to write (created or replaced): {@code .json} for the trace-event format,
   *     else HTML; or {@code null} or empty not to trace
   * @return these options
   */
  public JobOptions setTraceFile(String file) {
    traceOptions.setFile(file);
    return this;
  }

  /**
   * How the event loops of the clustered Vert.x node that {@link Rma#run} (and {@code rmarun})
   * start for this job wait for the network.
   *
   * @return the mode set, else this JVM's default ({@link Progress#jvmDefault()}:
   *     {@link Progress#ADAPTIVE} unless {@code -Drma.progress} says otherwise); the transport
   *     options' ({@link TransportOptions#getProgress()})
   */
  public Progress getProgress() {
    return transportOptions.getProgress();
  }

  /**
   * Chooses how the event loops of the clustered Vert.x node that {@link Rma#run} (and
   * {@code rmarun}) start for this job wait for the network ({@link Progress}). A job that runs on
   * a Vert.x instance of yours takes that instance's: choose it with
   * {@link Rma#clusteredVertx(String, io.vertx.core.VertxOptions, Progress)}.
   *
   * @param progress the mode, or {@code null} for this JVM's default
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} when {@code progress} is {@code null} and
   *     {@code -Drma.progress} names no mode
   */
  public JobOptions setProgress(Progress progress) {
    transportOptions.setProgress(progress);
    return this;
  }

  /**
   * How the job's JVMs reach each other: the data plane's address, port and TLS, and how the
   * event loops wait for the network.
   *
   * @return the transport options (the object itself, not a copy)
   */
  public TransportOptions getTransportOptions() {
    return transportOptions;
  }

  /**
   * Sets how the job's JVMs reach each other.
   *
   * @param transportOptions the options (kept, not copied)
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} for {@code null}
   */
  public JobOptions setTransportOptions(TransportOptions transportOptions) {
    this.transportOptions = nonNull(transportOptions, "transport options");
    return this;
  }

  /**
   * How this JVM joins the job's cluster when {@link Rma#run(JobOptions, RankProgram)} (and
   * {@code rmarun}) make its clustered Vert.x node.
   *
   * @return the cluster options (the object itself, not a copy)
   */
  public ClusterOptions getClusterOptions() {
    return clusterOptions;
  }

  /**
   * Sets how this JVM joins the job's cluster.
   *
   * @param clusterOptions the options (kept, not copied)
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} for {@code null}
   */
  public JobOptions setClusterOptions(ClusterOptions clusterOptions) {
    this.clusterOptions = nonNull(clusterOptions, "cluster options");
    return this;
  }

  /**
   * Whether and how the job is traced ({@link #getTraceFile()} is its file).
   *
   * @return the trace options (the object itself, not a copy)
   */
  public TraceOptions getTraceOptions() {
    return traceOptions;
  }

  /**
   * Sets whether and how the job is traced.
   *
   * @param traceOptions the options (kept, not copied)
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} for {@code null}
   */
  public JobOptions setTraceOptions(TraceOptions traceOptions) {
    this.traceOptions = nonNull(traceOptions, "trace options");
    return this;
  }

  /**
   * How large copies share the cores of the Vert.x instance the job starts on.
   *
   * @return the copy options (the object itself, not a copy)
   */
  public CopyOptions getCopyOptions() {
    return copyOptions;
  }

  /**
   * Sets how large copies share the cores.
   *
   * @param copyOptions the options (kept, not copied)
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} for {@code null}
   */
  public JobOptions setCopyOptions(CopyOptions copyOptions) {
    this.copyOptions = nonNull(copyOptions, "copy options");
    return this;
  }

  private static <T> T nonNull(T value, String what) {
    if (value == null) {
      throw RmaException.of(ErrorClass.ARG, "%s must not be null", what);
    }
    return value;
  }

  private static long positive(long ms, String what) {
    if (ms <= 0) {
      throw RmaException.of(ErrorClass.ARG, "%s must be positive, was %d ms", what, ms);
    }
    return ms;
  }
}
