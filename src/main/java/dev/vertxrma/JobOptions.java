package dev.vertxrma;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * How to run a job: how many ranks, which of them this JVM hosts, its name, its timeouts.
 * Fluent setters in the Vert.x options style.
 */
public class JobOptions {

  /** Default startup timeout: all ranks must have joined within it (ms). */
  public static final long DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
  /** Default timeout of any wait: receive, barrier, epoch, lock (ms). */
  public static final long DEFAULT_WAIT_TIMEOUT_MS = 120_000;

  private int np = 1;
  private String jobName = "job-" + UUID.randomUUID().toString().substring(0, 8);
  private int firstLocalRank = 0;
  private int localRankCount = -1;
  private boolean clustered;
  private long startupTimeoutMs = DEFAULT_STARTUP_TIMEOUT_MS;
  private long waitTimeoutMs = DEFAULT_WAIT_TIMEOUT_MS;
  private List<String> args = new ArrayList<>();
  private String secret;
  private boolean requireFreedWindows;

  /** Number of ranks of the job ({@code mpirun -np}). */
  public int getNp() {
    return np;
  }

  /** Sets the number of ranks (at least 1). */
  public JobOptions setNp(int np) {
    if (np < 1) {
      throw RmaException.of(ErrorClass.ARG, "np must be at least 1, was %d", np);
    }
    this.np = np;
    return this;
  }

  /** The job's name: the event-bus address prefix and, when clustered, the Hazelcast cluster name. */
  public String getJobName() {
    return jobName;
  }

  /** Sets the job's name (letters, digits, '-', '_' and '.'); must be the same in every JVM of the job. */
  public JobOptions setJobName(String jobName) {
    if (jobName == null || !jobName.matches("[A-Za-z0-9._-]{1,64}")) {
      throw RmaException.of(ErrorClass.ARG, "job name '%s' must be 1-64 characters of [A-Za-z0-9._-]", jobName);
    }
    this.jobName = jobName;
    return this;
  }

  /** The first rank this JVM hosts. */
  public int getFirstLocalRank() {
    return firstLocalRank;
  }

  /** The number of ranks this JVM hosts; {@code -1} (default) means all ranks from the first. */
  public int getLocalRankCount() {
    return localRankCount < 0 ? np - firstLocalRank : localRankCount;
  }

  /** Hosts ranks {@code [first, first + count)} in this JVM; the other ranks join from other JVMs. */
  public JobOptions setLocalRanks(int first, int count) {
    if (first < 0 || count < 0) {
      throw RmaException.of(ErrorClass.ARG, "local ranks [%d, %d+%d) are invalid", first, first, count);
    }
    this.firstLocalRank = first;
    this.localRankCount = count;
    return this;
  }

  /** Whether {@link Rma#run(JobOptions, RankProgram)} starts a clustered Vert.x (Hazelcast on loopback). */
  public boolean isClustered() {
    return clustered;
  }

  /** Chooses a clustered Vert.x for {@link Rma#run(JobOptions, RankProgram)}. */
  public JobOptions setClustered(boolean clustered) {
    this.clustered = clustered;
    return this;
  }

  /** Startup timeout (ms): missing ranks after it fail the job with TIMEOUT naming them. */
  public long getStartupTimeoutMs() {
    return startupTimeoutMs;
  }

  /** Sets the startup timeout in milliseconds. */
  public JobOptions setStartupTimeoutMs(long ms) {
    this.startupTimeoutMs = positive(ms, "startup timeout");
    return this;
  }

  /** Timeout of every wait (ms): receives, barriers, epochs, locks fail with TIMEOUT after it. */
  public long getWaitTimeoutMs() {
    return waitTimeoutMs;
  }

  /** Sets the wait timeout in milliseconds. */
  public JobOptions setWaitTimeoutMs(long ms) {
    this.waitTimeoutMs = positive(ms, "wait timeout");
    return this;
  }

  /** Program arguments handed to every rank. */
  public List<String> getArgs() {
    return args;
  }

  /** Sets the program arguments. */
  public JobOptions setArgs(List<String> args) {
    this.args = new ArrayList<>(args);
    return this;
  }

  /**
   * The job secret (Base64 text of at least 16 random bytes), or {@code null}: then the file named
   * by the environment variable {@code RMA_JOB_SECRET_FILE} is read, and a job in one JVM makes a
   * random one. Every JVM of a job must have the same secret: a data-plane connection or a
   * handshake message that does not prove it is refused. {@code bin/rmarun --jvms K} makes a
   * fresh secret per job and hands it to its JVMs in a file only the user can read.
   */
  public String getSecret() {
    return secret;
  }

  /** Sets the job secret (see {@link #getSecret()}); never log or print it. */
  public JobOptions setSecret(String secret) {
    this.secret = secret;
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

  private static long positive(long ms, String what) {
    if (ms <= 0) {
      throw RmaException.of(ErrorClass.ARG, "%s must be positive, was %d ms", what, ms);
    }
    return ms;
  }
}
