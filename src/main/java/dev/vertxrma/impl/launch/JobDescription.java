package dev.vertxrma.impl.launch;

import dev.vertxrma.FailurePolicy;
import dev.vertxrma.JobOptions;
import dev.vertxrma.RmaException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What one JVM of a job runs: the only thing a JVM started by {@code rmarun} (or by
 * {@code dev.vertxrma.junit.RmaJob}) is told about its job, as one JSON object ({@link #toJson},
 * {@link #fromJson}) that {@link JobJvm} reads from a file or from the first line of its standard
 * input. The JVM's environment, flags and class path come with its command line; the job secret
 * comes from the file {@code RMA_JOB_SECRET_FILE} names or, with {@link #isLauncherLink()}, on
 * standard input: never in a description, which {@code rmarun --launch print} prints.
 *
 * <p>The fields, by their JSON names (a missing optional field has the default given; any other
 * name is refused):
 * <ul>
 * <li>{@code job} (string, required): the job's name, also its cluster's name;</li>
 * <li>{@code np} (integer, at least 1, required): the ranks of the whole job;</li>
 * <li>{@code program} (string, required): the class name of a {@code RankProgram} or
 *     {@code WorldProgram}, or the absolute path of a source file {@code FILE.java} whose first
 *     class is one (this JVM compiles it);</li>
 * <li>{@code args} (array of strings, default none): the program's arguments, for every rank;</li>
 * <li>{@code firstRank}, {@code rankCount} (integers, both or neither): this JVM's ranks, which
 *     join the job's other JVMs in a cluster; without them this JVM runs every rank, embedded;</li>
 * <li>{@code jvmIndex} (integer, default 0): this JVM's number in the job, in {@code [jvm K]}
 *     tags and in its startup reports;</li>
 * <li>{@code waitTimeoutMs} (integer, default {@link JobOptions#DEFAULT_WAIT_TIMEOUT_MS}): the
 *     limit of every wait of the job;</li>
 * <li>{@code startupTimeoutMs} (integer, default {@link JobOptions#DEFAULT_STARTUP_TIMEOUT_MS}):
 *     the time the job's ranks get to find each other;</li>
 * <li>{@code tagOutput} (boolean, default false): every line of output tagged with who printed it;</li>
 * <li>{@code requireFreedWindows} (boolean, default false):
 *     {@link JobOptions#setRequireFreedWindows};</li>
 * <li>{@code virtualThreads} (boolean, default false): ranks on virtual threads;</li>
 * <li>{@code trace} (string, default none): the trace file ({@link JobOptions#setTraceFile});</li>
 * <li>{@code onFailure} (string {@code "abort"} or {@code "continue"}, default this JVM's own
 *     default: {@code -Drma.onFailure}, else abort): what the job does when one of its ranks dies
 *     ({@link JobOptions#setFailurePolicy}); {@code rmarun} always gives it, so that its JVMs and
 *     rmarun itself (which stops the job's other JVMs after a death only under abort) agree;</li>
 * <li>{@code report} (string, default none): a file this JVM writes its failure to
 *     ({@link FailureReport});</li>
 * <li>{@code progressPort} (integer 1..65535, default none) and {@code progressHost} (string,
 *     default loopback; only with a port): where this JVM reports its startup to the launcher;</li>
 * <li>{@code launcherLink} (boolean, default false; only for a description read from standard
 *     input): the line after it is the job secret, and the end of standard input means the
 *     launcher is gone, upon which the JVM stops ({@link LauncherLink}).</li>
 * </ul>
 * A description that breaks any of this is refused as a whole ({@link Invalid}, one line).
 */
public final class JobDescription {

  private static final long MAX_TIMEOUT_MS = 1_000_000_000_000L;
  private static final Set<String> FIELDS = Set.of("job", "np", "program", "args", "firstRank", "rankCount", "jvmIndex",
      "waitTimeoutMs", "startupTimeoutMs", "tagOutput", "requireFreedWindows", "virtualThreads", "trace", "onFailure",
      "report", "progressPort", "progressHost", "launcherLink");

  private String job;
  private int np;
  private String program;
  private List<String> args = List.of();
  private int firstRank = -1;
  private int rankCount = -1;
  private int jvmIndex;
  private long waitTimeoutMs = JobOptions.DEFAULT_WAIT_TIMEOUT_MS;
  private long startupTimeoutMs = JobOptions.DEFAULT_STARTUP_TIMEOUT_MS;
  private boolean tagOutput;
  private boolean requireFreedWindows;
  private boolean virtualThreads;
  private String trace;
  /** What the job does when a rank dies; null: this JVM's default ({@link JobOptions#getFailurePolicy()}). */
  private FailurePolicy failurePolicy;
  private String report;
  private int progressPort = -1;
  private String progressHost;
  private boolean launcherLink;

  /** A description of job {@code job}, {@code np} ranks, running {@code program}: every rank in this JVM. */
  public JobDescription(String job, int np, String program) {
    this.job = job;
    this.np = np;
    this.program = program;
  }

  /** A description that breaks the rules above: its message is one line naming the field. */
  public static final class Invalid extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Invalid(String message) {
      super(message, null, false, false);
    }
  }

  /** The JSON object of this description, every field set (those at their defaults left out). */
  public JsonObject toJson() {
    JsonObject j = new JsonObject().put("job", job).put("np", np).put("program", program);
    if (!args.isEmpty()) {
      j.put("args", new JsonArray(new ArrayList<>(args)));
    }
    if (firstRank >= 0) {
      j.put("firstRank", firstRank).put("rankCount", rankCount);
    }
    if (jvmIndex != 0) {
      j.put("jvmIndex", jvmIndex);
    }
    j.put("waitTimeoutMs", waitTimeoutMs).put("startupTimeoutMs", startupTimeoutMs);
    putIfTrue(j, "tagOutput", tagOutput);
    putIfTrue(j, "requireFreedWindows", requireFreedWindows);
    putIfTrue(j, "virtualThreads", virtualThreads);
    putIfTrue(j, "launcherLink", launcherLink);
    if (trace != null) {
      j.put("trace", trace);
    }
    if (failurePolicy != null) {
      j.put("onFailure", policyName(failurePolicy));
    }
    if (report != null) {
      j.put("report", report);
    }
    if (progressPort >= 0) {
      j.put("progressPort", progressPort);
      if (progressHost != null) {
        j.put("progressHost", progressHost);
      }
    }
    return j;
  }

  private static void putIfTrue(JsonObject j, String name, boolean value) {
    if (value) {
      j.put(name, true);
    }
  }

  /**
   * The description {@code text} holds: one JSON object, checked field by field.
   *
   * @throws Invalid for text that is not a JSON object, an unknown field, a field of the wrong
   *     type or out of its range, or a required field missing
   */
  public static JobDescription fromJson(String text) {
    String t = text.strip();
    if (!t.startsWith("{")) {
      throw new Invalid("not a JSON object: " + (t.isEmpty() ? "it is empty" : "it starts with "
          + shown(t.substring(0, Math.min(t.length(), 20)))));
    }
    JsonObject j;
    try {
      j = new JsonObject(t);
    } catch (DecodeException | ClassCastException e) {
      String why = String.valueOf(e.getMessage()).replaceAll("\\s*\\R\\s*", " ");
      throw new Invalid("not a JSON object: " + (why.length() > 200 ? why.substring(0, 200) + "..." : why));
    }
    for (String name : j.fieldNames()) {
      if (!FIELDS.contains(name)) {
        throw new Invalid("unknown field '" + name + "' (the fields are " + String.join(", ", new java.util.TreeSet<>(FIELDS))
            + ")");
      }
    }
    JobDescription d = new JobDescription(string(j, "job", true), (int) number(j, "np", true, 1, Integer.MAX_VALUE, 0),
        string(j, "program", true));
    try {
      new JobOptions().setJobName(d.job);
    } catch (RmaException e) {
      throw new Invalid("field 'job': " + RmaRunCommand.stripClass(e));
    }
    d.args = strings(j, "args");
    if (j.containsKey("firstRank") != j.containsKey("rankCount")) {
      throw new Invalid("fields 'firstRank' and 'rankCount' go together: give both or neither");
    }
    if (j.containsKey("firstRank")) {
      d.setRanks((int) number(j, "firstRank", true, 0, d.np - 1, 0), (int) number(j, "rankCount", true, 1, d.np, 0));
      if ((long) d.firstRank + d.rankCount > d.np) {
        throw new Invalid("fields 'firstRank' " + d.firstRank + " and 'rankCount' " + d.rankCount + " name ranks past "
            + (d.np - 1) + ", the last of " + d.np);
      }
    }
    d.jvmIndex = (int) number(j, "jvmIndex", false, 0, Integer.MAX_VALUE, 0);
    d.waitTimeoutMs = number(j, "waitTimeoutMs", false, 1, MAX_TIMEOUT_MS, JobOptions.DEFAULT_WAIT_TIMEOUT_MS);
    d.startupTimeoutMs = number(j, "startupTimeoutMs", false, 1, MAX_TIMEOUT_MS, JobOptions.DEFAULT_STARTUP_TIMEOUT_MS);
    d.tagOutput = bool(j, "tagOutput");
    d.requireFreedWindows = bool(j, "requireFreedWindows");
    d.virtualThreads = bool(j, "virtualThreads");
    d.launcherLink = bool(j, "launcherLink");
    d.trace = string(j, "trace", false);
    d.failurePolicy = policy(string(j, "onFailure", false));
    d.report = string(j, "report", false);
    d.progressPort = (int) number(j, "progressPort", false, 1, 65535, -1);
    d.progressHost = string(j, "progressHost", false);
    if (d.progressHost != null && d.progressPort < 0) {
      throw new Invalid("field 'progressHost' needs 'progressPort'");
    }
    return d;
  }

  private static String string(JsonObject j, String name, boolean required) {
    Object v = j.getValue(name);
    if (v == null) {
      if (required || j.containsKey(name)) {
        throw new Invalid(j.containsKey(name) ? "field '" + name + "' is null" : "field '" + name + "' is missing");
      }
      return null;
    }
    if (!(v instanceof String) || ((String) v).isBlank()) {
      throw new Invalid("field '" + name + "' must be a non-empty string, got " + shown(v));
    }
    return (String) v;
  }

  /** The policy {@code name} ({@code abort} or {@code continue}) stands for; null for null. */
  private static FailurePolicy policy(String name) {
    if (name == null) {
      return null;
    }
    for (FailurePolicy p : FailurePolicy.values()) {
      if (policyName(p).equals(name)) {
        return p;
      }
    }
    throw new Invalid("field 'onFailure' must be \"abort\" or \"continue\", got " + shown(name));
  }

  /** The name of {@code p} in a description and on rmarun's command line: {@code abort}, {@code continue}. */
  static String policyName(FailurePolicy p) {
    return p.name().toLowerCase(java.util.Locale.ROOT);
  }

  private static long number(JsonObject j, String name, boolean required, long min, long max, long absent) {
    Object v = j.getValue(name);
    if (v == null) {
      if (required || j.containsKey(name)) {
        throw new Invalid(j.containsKey(name) ? "field '" + name + "' is null" : "field '" + name + "' is missing");
      }
      return absent;
    }
    if (v instanceof java.math.BigInteger) {
      throw new Invalid("field '" + name + "' must be between " + min + " and " + max + ", got " + shown(v));
    }
    if (!(v instanceof Integer || v instanceof Long)) {
      throw new Invalid("field '" + name + "' must be an integer, got " + shown(v));
    }
    long n = ((Number) v).longValue();
    if (n < min || n > max) {
      throw new Invalid("field '" + name + "' must be between " + min + " and " + max + ", got " + n);
    }
    return n;
  }

  private static boolean bool(JsonObject j, String name) {
    Object v = j.getValue(name);
    if (v == null && !j.containsKey(name)) {
      return false;
    }
    if (!(v instanceof Boolean)) {
      throw new Invalid("field '" + name + "' must be true or false, got " + shown(v));
    }
    return (Boolean) v;
  }

  private static List<String> strings(JsonObject j, String name) {
    Object v = j.getValue(name);
    if (v == null && !j.containsKey(name)) {
      return List.of();
    }
    if (!(v instanceof JsonArray)) {
      throw new Invalid("field '" + name + "' must be an array of strings, got " + shown(v));
    }
    List<String> list = new ArrayList<>();
    for (Object e : (JsonArray) v) {
      if (!(e instanceof String)) {
        throw new Invalid("field '" + name + "' must be an array of strings, got an element " + shown(e));
      }
      list.add((String) e);
    }
    return List.copyOf(list);
  }

  /** A JSON value as it appears in a message: short, its type visible (strings quoted). */
  private static String shown(Object v) {
    String s = v == null ? "null" : v instanceof String ? "\"" + v + "\"" : String.valueOf(v);
    return s.length() > 60 ? s.substring(0, 60) + "..." : s;
  }

  // ---- the fields, with fluent setters ----

  /** The job's name ({@code job}). */
  public String getJob() {
    return job;
  }

  /** Sets the job's name (a process manager agrees on it once the JVM runs). */
  public JobDescription setJob(String job) {
    this.job = job;
    return this;
  }

  /** The ranks of the whole job ({@code np}). */
  public int getNp() {
    return np;
  }

  /** The program: a class name or a source file's absolute path ({@code program}). */
  public String getProgram() {
    return program;
  }

  /** The program's arguments ({@code args}). */
  public List<String> getArgs() {
    return args;
  }

  /** Sets the program's arguments ({@code args}). */
  public JobDescription setArgs(List<String> args) {
    this.args = List.copyOf(args);
    return this;
  }

  /** Whether this JVM runs some ranks of a job spread over JVMs ({@link #setRanks}), rather than all. */
  public boolean isClustered() {
    return firstRank >= 0;
  }

  /** This JVM's first rank ({@code firstRank}), -1 when it runs every rank. */
  public int getFirstRank() {
    return firstRank;
  }

  /** How many ranks this JVM runs ({@code rankCount}), -1 when it runs every rank. */
  public int getRankCount() {
    return rankCount;
  }

  /** This JVM runs ranks {@code first} to {@code first + count - 1}, clustered with the job's other JVMs. */
  public JobDescription setRanks(int first, int count) {
    this.firstRank = first;
    this.rankCount = count;
    return this;
  }

  /** This JVM's number in the job ({@code jvmIndex}). */
  public int getJvmIndex() {
    return jvmIndex;
  }

  /** Sets this JVM's number in the job ({@code jvmIndex}). */
  public JobDescription setJvmIndex(int jvmIndex) {
    this.jvmIndex = jvmIndex;
    return this;
  }

  /** The limit of every wait of the job, in milliseconds ({@code waitTimeoutMs}). */
  public long getWaitTimeoutMs() {
    return waitTimeoutMs;
  }

  /** The time the ranks get to find each other, in milliseconds ({@code startupTimeoutMs}). */
  public long getStartupTimeoutMs() {
    return startupTimeoutMs;
  }

  /** Sets {@code waitTimeoutMs} and {@code startupTimeoutMs}. */
  public JobDescription setTimeouts(long waitMs, long startupMs) {
    this.waitTimeoutMs = waitMs;
    this.startupTimeoutMs = startupMs;
    return this;
  }

  /** Whether every line of output is tagged with who printed it ({@code tagOutput}). */
  public boolean isTagOutput() {
    return tagOutput;
  }

  /** Sets {@code tagOutput}. */
  public JobDescription setTagOutput(boolean tagOutput) {
    this.tagOutput = tagOutput;
    return this;
  }

  /** Whether a rank that leaves windows unfreed fails ({@code requireFreedWindows}). */
  public boolean isRequireFreedWindows() {
    return requireFreedWindows;
  }

  /** Sets {@code requireFreedWindows}. */
  public JobDescription setRequireFreedWindows(boolean requireFreedWindows) {
    this.requireFreedWindows = requireFreedWindows;
    return this;
  }

  /** Whether the ranks run on virtual threads ({@code virtualThreads}). */
  public boolean isVirtualThreads() {
    return virtualThreads;
  }

  /** Sets {@code virtualThreads}. */
  public JobDescription setVirtualThreads(boolean virtualThreads) {
    this.virtualThreads = virtualThreads;
    return this;
  }

  /** The trace file, or null ({@code trace}). */
  public String getTrace() {
    return trace;
  }

  /** Sets the trace file ({@code trace}; null: none). */
  public JobDescription setTrace(String trace) {
    this.trace = trace;
    return this;
  }

  /** What the job does when one of its ranks dies, or null for this JVM's default ({@code onFailure}). */
  public FailurePolicy getFailurePolicy() {
    return failurePolicy;
  }

  /** Sets {@code onFailure} (null: this JVM's default). */
  public JobDescription setFailurePolicy(FailurePolicy failurePolicy) {
    this.failurePolicy = failurePolicy;
    return this;
  }

  /** The file this JVM writes its failure to, or null ({@code report}). */
  public String getReport() {
    return report;
  }

  /** Sets the report file ({@code report}; null: none). */
  public JobDescription setReport(String report) {
    this.report = report;
    return this;
  }

  /** The launcher's progress port, or -1 for no report ({@code progressPort}). */
  public int getProgressPort() {
    return progressPort;
  }

  /** The launcher's progress address, null for loopback ({@code progressHost}). */
  public String getProgressHost() {
    return progressHost;
  }

  /** Reports startup to the launcher at {@code host} (null: loopback) and {@code port}. */
  public JobDescription setProgress(String host, int port) {
    this.progressHost = host;
    this.progressPort = port;
    return this;
  }

  /** Whether the secret follows on standard input, whose end stops the JVM ({@code launcherLink}). */
  public boolean isLauncherLink() {
    return launcherLink;
  }

  /** Sets {@code launcherLink}. */
  public JobDescription setLauncherLink(boolean launcherLink) {
    this.launcherLink = launcherLink;
    return this;
  }

  /** "JVM k (ranks a..b)" or "JVM k": for messages. */
  String describeJvm() {
    if (!isClustered()) {
      return "JVM " + jvmIndex;
    }
    return "JVM " + jvmIndex + " (" + (rankCount == 1 ? "rank " + firstRank
        : "ranks " + firstRank + ".." + (firstRank + rankCount - 1)) + ")";
  }
}
