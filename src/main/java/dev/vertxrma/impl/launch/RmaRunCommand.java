package dev.vertxrma.impl.launch;

import dev.vertxrma.FailurePolicy;
import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.WorldProgram;
import dev.vertxrma.impl.job.RankHost;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Modifier;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The command line of {@code bin/rmarun}, for people (picocli, {@link RmaRunCli}): the options,
 * their help, and the checks of every argument made before any JVM starts ({@link #validate()},
 * with {@link HostList}, {@link JobConf} and {@link ProgramLoader}). {@link RmaRun} runs what it
 * describes. It has no hidden options: a JVM that rmarun starts is told its part of the job by a
 * {@link JobDescription} ({@link #describe()} is where one starts).
 */
@Command(name = "rmarun", mixinStandardHelpOptions = true, versionProvider = RmaRunCli.Version.class,
    sortOptions = false, usageHelpWidth = 100, abbreviateSynopsis = true,
    customSynopsis = {"rmarun -np N [--jvms K | --host H1,H2,... | --hostfile FILE] [OPTIONS] PROGRAM [ARGS...]"},
    description = {"The mpirun of vertx-rma: runs PROGRAM with N ranks, all embedded in one JVM, or spread over K "
        + "local JVMs that join a Hazelcast cluster on loopback (cluster name = job name), or over one JVM per host "
        + "of a host list. Every argument is checked before any JVM starts."},
    parameterListHeading = "%nArguments:%n", optionListHeading = "%nOptions:%n")
final class RmaRunCommand {

  /** Exit status of a usage error. */
  static final int USAGE = 2;

  /** Set by {@code bin/rmarun}: whether stderr is a terminal (the progress line is redrawn in place). */
  static final String TTY_PROPERTY = "rmarun.tty";

  /** --launch ssh: the template it stands for. */
  static final String SSH = "ssh";
  static final String SSH_TEMPLATE = "ssh -o BatchMode=yes {host} {command}";
  /** --launch print. */
  static final String PRINT = "print";

  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final long MAX_TIMEOUT_SECONDS = 1_000_000_000L;

  @Option(names = {"-n", "-np", "--np"}, paramLabel = "N", order = 1,
      description = "Number of ranks of the job (required, except in a process started by mpiexec or srun: each "
          + "process they start is then the JVM of one rank, docs/running-jobs.md \"mpiexec and srun\").")
  Integer np;

  @Option(names = "--jvms", paramLabel = "K", order = 2,
      description = "Spread the ranks over K local JVMs, 1..N (default 1: every rank embedded in one "
          + "JVM). JVM k hosts ranks k*N/K to (k+1)*N/K-1; the JVMs form a Hazelcast cluster on loopback, and "
          + "rmarun reports on stderr how many ranks have joined while it forms.")
  Integer jvms;

  @Option(names = "--host", paramLabel = "HOST[,HOST...]", order = 3,
      description = "Run the job over hosts: one JVM per entry (repeat a host for several JVMs on it), JVM k with "
          + "ranks k*N/K to (k+1)*N/K-1 of the K entries, started as --launch says. Each JVM binds and advertises the "
          + "address rmarun resolves its host to (the cluster's TCP-IP members are those addresses); a host that "
          + "resolves to loopback while others do not is refused. Repeatable.")
  List<String> host = new ArrayList<>();

  @Option(names = "--hostfile", paramLabel = "FILE", order = 4,
      description = "As --host, with the hosts read from FILE: one entry a line, HOST [address=ADDRESS] (the address "
          + "the JVM binds and advertises, default HOST resolved here); # starts a comment.")
  Path hostfile;

  @Option(names = "--launch", paramLabel = "HOW", order = 5,
      description = "How the JVMs of a --host or --hostfile job start: 'ssh' (the default, as the template 'ssh -o "
          + "BatchMode=yes {host} {command}'), 'print' (start nothing: print each host's command and write the job "
          + "secret to NAME.secret, mode 0600, to copy to every host), or a template run by sh -c where {host}, "
          + "{address} and {command} (the JVM's command line as one shell word, for a shell to run) are replaced, "
          + "e.g. 'docker exec -i {host} sh -c {command}'. The job secret reaches each JVM on its standard input, "
          + "never on a command line, and a JVM stops when its standard input closes (rmarun is gone).")
  String launch;

  @Option(names = "--job", paramLabel = "NAME", order = 6,
      description = "Job name, also the cluster's name: 1-64 characters of A-Z a-z 0-9 . _ - "
          + "(default rmarun-<8 random hex digits>).")
  String job;

  @Option(names = "--timeout", paramLabel = "SECONDS", order = 7,
      description = "Limit of every wait of the job (a lock, a fence, a receive...): a wait that lasts longer fails "
          + "with TIMEOUT (default ${DEFAULT-VALUE}). The cluster gets max(60, SECONDS) to form.")
  long timeoutSeconds = JobOptions.DEFAULT_WAIT_TIMEOUT_MS / 1000;

  @Option(names = {"-cp", "--classpath"}, paramLabel = "PATH", order = 8,
      description = "Where PROGRAM and the classes it uses are: directories and jars separated by "
          + "'${sys:path.separator}' (DIR/* is every jar in DIR), searched after rmarun's own.")
  String classpath;

  @Option(names = "-x", paramLabel = "NAME[=VALUE]", order = 9,
      description = "Set the environment variable NAME to VALUE in the JVMs that run the ranks (repeatable); "
          + "-x NAME passes rmarun's own value. Without --jvms the job then runs in a JVM of its own.")
  List<String> env = new ArrayList<>();

  @Option(names = "--tag-output", order = 10,
      description = "Prefix every line of standard output and error with who printed it: [R] for rank R (its "
          + "program and callbacks), [jvm K] for anything else in JVM K (logs, a WorldProgram's own threads).")
  boolean tagOutput;

  @Option(names = "--conf", paramLabel = "DIR", order = 11,
      description = "Configuration directory of the job's JVMs (default: conf/ beside bin/): cluster.xml "
          + "(Hazelcast, checked before any JVM starts), jvm.options (JVM flags, added to the default ones), "
          + "logging.properties. A file missing from DIR is taken from the default. Without --jvms the job "
          + "then runs in a JVM of its own.")
  Path conf;

  @Option(names = "--virtual-threads", order = 12,
      description = "Run each rank on a Vert.x virtual-thread context, so that a rank program may await() every "
          + "call (MPI's blocking style). Needs Java 21+: bin/rmarun then uses $JAVA, else the newest JDK 21+ it "
          + "finds (bin/vt-jdk/bin/java).")
  boolean virtualThreads;

  @Option(names = "--trace", paramLabel = "FILE", order = 13,
      description = "Record what every rank does (epochs, operations, lock and sync waits) and write it to FILE "
          + "when the job ends: FILE.json in the trace-event format that ui.perfetto.dev and chrome://tracing open, "
          + "any other name one self-contained HTML timeline (over --jvms or hosts, every JVM writes a part beside "
          + "FILE and the last one to end writes FILE). Off by default.")
  Path trace;

  @Option(names = "--on-failure", paramLabel = "POLICY", order = 14,
      description = "What the job does when one of its ranks dies (its JVM killed, crashed, or gone from the "
          + "cluster): 'abort' (the default, MPI's: every survivor's calls fail with PROC_FAILED, and rmarun kills the "
          + "JVMs still running 10 s after the death) or 'continue' (ULFM: only what depends on the dead ranks fails, "
          + "the survivors may revoke, agree, shrink and go on; rmarun reports the death once and lets the others run "
          + "to their end). -Drma.onFailure in RMA_JAVA_OPTS changes the default. Exit status: below.")
  String onFailure;

  @Option(names = {"-q", "--quiet"}, order = 15, description = "No progress report while the cluster forms.")
  boolean quiet;

  @Option(names = {"-v", "--verbose"}, order = 16,
      description = "Also what Hazelcast and Vert.x log of their cluster (errors and warnings, with their stacks), "
          + "which the JVMs leave out by default: the job reports each fault they stand for in one line of its own.")
  boolean verbose;

  @Parameters(index = "0", arity = "1", paramLabel = "PROGRAM",
      description = "A sample name (listed below) or the class name of a RankProgram (one instance per rank) or of "
          + "a WorldProgram (one instance per JVM, given that JVM's ranks as a World): a public class with a "
          + "public no-argument constructor, from rmarun's jar or -cp; or a source file FILE.java, compiled in "
          + "memory, whose first class is such a program (every JVM of the job compiles it from its path).")
  String program;

  @Parameters(index = "1..*", paramLabel = "ARGS", description = "The program's own arguments, for every rank.")
  List<String> args = new ArrayList<>();

  // ---- what validate() works out ----

  /** How many JVMs run the job: --jvms, or one per host entry. */
  int jvmCount = 1;
  /** The hosts of --host or --hostfile, one per JVM, in rank order; empty for a job on this host. */
  List<HostList.Host> hosts = List.of();
  /** How the JVMs on hosts start: {@link #SSH_TEMPLATE}, {@link #PRINT} or a command template. */
  String launchHow;
  /** Where --launch print writes the job secret. */
  Path printedSecret;
  /** The user's class path entries, checked. */
  List<Path> userClasspath = List.of();
  /** Variables for the JVMs of the job. */
  Map<String, String> environment = new LinkedHashMap<>();
  /** --on-failure, checked: what the job does when a rank dies. */
  FailurePolicy failurePolicy = FailurePolicy.ABORT;
  /** PROGRAM, resolved and checked. */
  ProgramLoader.Program resolved;
  /**
   * Set by {@link ProcessManagerRun}: this process is one JVM of a job that a process manager
   * started, which rmarun only runs its part of (no JVM to start, no cluster configuration to check).
   */
  boolean managed;

  /** A usage error: one line, exit status {@value #USAGE}. */
  static final class UsageError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Text printed as it is before the line (javac's messages for a source file), or null. */
    final String details;

    UsageError(String message) {
      this(message, null);
    }

    UsageError(String message, String details) {
      super(message, null, false, false);
      this.details = details;
    }
  }

  /**
   * Checks every argument, before anything starts: counts, timeout, job name, host list, class
   * path, variables, configuration, and that PROGRAM is a program.
   *
   * @throws UsageError naming the first argument that is wrong
   */
  void validate() {
    if (program == null) {
      throw new UsageError(np == null ? "-np N and a PROGRAM are required" : "no PROGRAM given");
    }
    if (np == null) {
      throw new UsageError("-np N is required: the number of ranks (under mpiexec or srun, which give each process "
          + "its rank, rmarun runs without it)");
    }
    if (np < 1) {
      throw new UsageError("-np " + np + ": the number of ranks must be at least 1");
    }
    if (jvms != null && (jvms < 1 || jvms > np)) {
      throw new UsageError("--jvms " + jvms + " must be between 1 and the number of ranks (" + np + ")");
    }
    jvmCount = jvms == null ? 1 : jvms;
    if (jvmCount > 1 && np > JobOptions.MAX_NP_OVER_JVMS) {
      throw new UsageError("-np " + np + " over --jvms " + jvmCount + ": a job whose ranks span JVMs has at most "
          + JobOptions.MAX_NP_OVER_JVMS + " ranks (" + JobOptions.MAX_NP + " in one JVM): every rank greets every rank "
          + "when the job starts, and larger jobs do not start in time");
    }
    if (timeoutSeconds < 1 || timeoutSeconds > MAX_TIMEOUT_SECONDS) {
      throw new UsageError("--timeout " + timeoutSeconds + " must be between 1 and " + MAX_TIMEOUT_SECONDS + " seconds");
    }
    if (job == null) {
      job = "rmarun-" + UUID.randomUUID().toString().substring(0, 8);
    }
    try {
      // (a JobOptions of this JVM: its failure policy is -Drma.onFailure, else abort)
      failurePolicy = new JobOptions().setNp(np).setJobName(job).setWaitTimeoutMs(timeoutSeconds * 1000)
          .getFailurePolicy();
    } catch (RmaException e) {
      throw new UsageError(stripClass(e));
    }
    if (onFailure != null) {
      failurePolicy = switch (onFailure.toLowerCase(Locale.ROOT)) {
        case "abort" -> FailurePolicy.ABORT;
        case "continue" -> FailurePolicy.CONTINUE;
        default -> throw new UsageError("--on-failure " + onFailure + ": give abort or continue");
      };
    }
    if (trace != null) {
      trace = trace.toAbsolutePath().normalize();
      if (!Files.isDirectory(trace.getParent())) {
        throw new UsageError("--trace " + trace + ": its directory does not exist");
      }
      if (Files.isDirectory(trace)) {
        throw new UsageError("--trace " + trace + " is a directory; give the file to write (.html or .json)");
      }
    }
    if (virtualThreads) {
      try {
        RankHost.deployment(true);
      } catch (RmaException e) {
        throw new UsageError("--virtual-threads: " + e.getMessage());
      }
    }
    hosts();
    for (String v : env) {
      int eq = v.indexOf('=');
      String name = eq < 0 ? v : v.substring(0, eq);
      if (!ENV_NAME.matcher(name).matches()) {
        throw new UsageError("-x " + v + ": '" + name + "' is not a variable name (letters, digits, _)");
      }
      String value = eq < 0 ? System.getenv(name) : v.substring(eq + 1);
      if (value == null) {
        throw new UsageError("-x " + name + ": " + name + " is not set in rmarun's environment (give -x NAME=VALUE)");
      }
      environment.put(name, value);
    }
    userClasspath = ProgramLoader.classpathEntries(classpath);
    if (conf != null) {
      conf = JobConf.checked(conf);
    }
    if (!managed && (jvmCount > 1 || !hosts.isEmpty())) {
      // the launcher of a clustered job (its JVMs, and those RmaJob starts, meet a bad file when
      // they join the cluster: ARG, naming it)
      JobConf.checkCluster(conf, hosts);
    }
    resolved = ProgramLoader.resolve(program, classpath, userClasspath);
  }

  /** Reads and checks --host or --hostfile (resolving every host) and --launch. */
  private void hosts() {
    if (host.isEmpty() && hostfile == null) {
      if (launch != null) {
        throw new UsageError("--launch " + launch + " needs --host or --hostfile: the hosts to start the JVMs on");
      }
      return;
    }
    String option = hostfile != null ? "--hostfile" : "--host";
    if (!host.isEmpty() && hostfile != null) {
      throw new UsageError("--host and --hostfile: give one host list, not both");
    }
    if (jvms != null) {
      throw new UsageError("--jvms " + jvms + " and " + option + ": the host list gives the JVMs, one per entry");
    }
    hosts = HostList.read(host, hostfile, np);
    jvmCount = hosts.size();
    if (launch == null || launch.equals(SSH)) {
      launchHow = SSH_TEMPLATE;
    } else if (launch.equals(PRINT)) {
      launchHow = PRINT;
      printedSecret = Path.of(job + ".secret").toAbsolutePath();
      if (Files.exists(printedSecret)) {
        throw new UsageError("--launch print writes the job secret to " + printedSecret + ", which exists: remove it, "
            + "or choose another --job");
      }
    } else if (launch.contains("{host}") || launch.contains("{address}")) {
      launchHow = launch;
    } else {
      throw new UsageError("--launch " + launch + ": not ssh, print or a command template naming {host} or {address}");
    }
  }

  /** The first rank of JVM {@code k} of the job ({@code k} = {@link #jvmCount} gives np). */
  int firstRankOf(int k) {
    return (int) ((long) k * np / jvmCount);
  }

  /**
   * The description of this job for a JVM that runs all its ranks, embedded, as JVM 0 (the
   * launcher sets the ranks of each JVM it starts): what the command line says of the job, once
   * validated. The cluster gets max(60, --timeout) seconds to form.
   */
  JobDescription describe() {
    return new JobDescription(job, np, resolved.described()).setArgs(args)
        .setTimeouts(timeoutSeconds * 1000, Math.max(60, timeoutSeconds) * 1000)
        .setTagOutput(tagOutput).setVirtualThreads(virtualThreads).setTrace(trace == null ? null : trace.toString())
        .setFailurePolicy(failurePolicy);
  }

  static String stripClass(RmaException e) {
    String m = String.valueOf(e.getMessage());
    String prefix = e.errorClass() + ": ";
    return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
  }

  /** The project version, from the resource Maven filters ({@code dev/vertxrma/version.properties}). */
  static String version() {
    try (InputStream in = RmaRunCommand.class.getResourceAsStream("/dev/vertxrma/version.properties")) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        String v = p.getProperty("version", "");
        if (!v.isBlank() && !v.startsWith("${")) {
          return v.trim();
        }
      }
    } catch (IOException e) {
      // unknown
    }
    return "unknown";
  }
}
