package dev.vertxrma.impl.launch;

import dev.vertxrma.impl.runtime.ClusterSupport;
import dev.vertxrma.impl.runtime.RankHost;
import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.WorldProgram;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Modifier;
import java.net.JarURLConnection;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
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
 * The command line of {@code bin/rmarun} (picocli): the options, their help, and the checks of
 * every argument made before any JVM starts. {@link RmaRun} runs what it describes.
 *
 * <p>Hidden options, for the JVMs {@code rmarun --jvms K} (or {@code --host}) and
 * {@code dev.vertxrma.junit.RmaJob} start: {@code --ranks FIRST:COUNT} (the ranks of this JVM; the
 * job is clustered), {@code --require-freed-windows}, {@code --report FILE} (the JVM's failure, as
 * properties), {@code --progress [HOST:]PORT} (startup progress to the launcher),
 * {@code --jvm-index K} (this JVM's number, for {@code --tag-output}), {@code --secret-stdin} (the
 * job secret is the first line of standard input, and the JVM stops when standard input closes:
 * its launcher is gone).
 */
@Command(name = "rmarun", mixinStandardHelpOptions = true, versionProvider = RmaRunCli.Version.class,
    sortOptions = false, usageHelpWidth = 100, abbreviateSynopsis = true,
    customSynopsis = {"rmarun -np N [--jvms K | --host H1,H2,... | --hostfile FILE] [OPTIONS] PROGRAM [ARGS...]"},
    description = {"The mpirun of vertx-rma: runs PROGRAM with N ranks, all embedded in one JVM, or spread over K "
        + "local JVMs that join a Hazelcast cluster on loopback (cluster name = job name), or over one JVM per host "
        + "of a host list. Every argument is checked before any JVM starts."},
    parameterListHeading = "%nArguments:%n", optionListHeading = "%nOptions:%n")
public final class RmaRunCommand {

  /** Exit status of a usage error. */
  public static final int USAGE = 2;

  /** Set by {@code bin/rmarun}: whether stderr is a terminal (the progress line is redrawn in place). */
  static final String TTY_PROPERTY = "rmarun.tty";

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

  @Option(names = {"-q", "--quiet"}, order = 14, description = "No progress report while the cluster forms.")
  boolean quiet;

  @Option(names = "--ranks", paramLabel = "FIRST:COUNT", hidden = true)
  String ranks;

  @Option(names = "--require-freed-windows", hidden = true)
  boolean requireFreedWindows;

  @Option(names = "--report", paramLabel = "FILE", hidden = true)
  String report;

  @Option(names = "--progress", paramLabel = "[HOST:]PORT", hidden = true)
  String progress;

  @Option(names = "--jvm-index", paramLabel = "K", hidden = true)
  int jvmIndex = -1;

  @Option(names = "--secret-stdin", hidden = true)
  boolean secretStdin;

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
  /** The Hazelcast port of the first JVM of a job over local JVMs, chosen when they start (0: none). */
  int clusterLeaderPort;
  /** The class-data archive of the JVMs of this host, chosen when they start (null: none). */
  ClassDataArchive classData;
  /** The hosts of --host or --hostfile, one per JVM, in rank order; empty for a job on this host. */
  List<Host> hosts = List.of();
  /** How the JVMs on hosts start: {@link #SSH}, {@link #PRINT} or a command template. */
  String launchHow;
  /** Where --launch print writes the job secret. */
  Path printedSecret;
  /** Where this JVM reports its startup (--progress): host (null: loopback) and port (-1: nowhere). */
  String progressHost;
  int progressPort = -1;
  /** The job secret, read from standard input (--secret-stdin); null otherwise. */
  String secret;
  /** Ranks of this JVM when started with --ranks. */
  int firstRank = -1;
  int rankCount = -1;
  /** The user's class path entries, checked. */
  List<Path> userClasspath = List.of();
  /** Variables for the JVMs of the job. */
  Map<String, String> environment = new LinkedHashMap<>();
  /** The class PROGRAM names. */
  String programClass;
  /** PROGRAM as a source file, absolute (what the JVMs of the job compile), or null. */
  Path source;
  /** javac's warnings about that file, or null. */
  String sourceWarnings;
  /** The loader of PROGRAM (the user's class path after rmarun's own). */
  ClassLoader loader;
  /** A RankProgram or WorldProgram. */
  Object resolved;

  /** --launch ssh: the template it stands for. */
  static final String SSH = "ssh";
  static final String SSH_TEMPLATE = "ssh -o BatchMode=yes {host} {command}";
  /** --launch print. */
  static final String PRINT = "print";

  /**
   * One entry of the host list: {@code name} is what the launch command gets ({@code {host}}),
   * {@code address} the IP address the JVM binds and advertises.
   */
  record Host(String name, String address) {
  }

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
   * Parses {@code argv} without picocli: the same options (long and short names, {@code --opt=value},
   * {@code --}, PROGRAM and everything after it as the program's), for the JVMs that run ranks
   * where picocli is not on the class path ({@code dev.vertxrma.junit.RmaJob} in a project that
   * depends on the library alone). No help text: {@code --help} and {@code --version} say where
   * to find it.
   *
   * @return whether the job is to be run ({@code false}: {@code --help} or {@code --version},
   *     answered on {@code out})
   * @throws UsageError for an unknown option or a malformed value
   */
  boolean parsePlain(String[] argv, java.io.PrintStream out) {
    int i = 0;
    while (i < argv.length) {
      String s = argv[i];
      if (s.equals("--")) {
        i++;
        break;
      }
      if (!s.startsWith("-") || s.equals("-")) {
        break;
      }
      String name = s;
      String value = null;
      int eq = s.indexOf('=');
      if (s.startsWith("--") && eq > 0) {
        name = s.substring(0, eq);
        value = s.substring(eq + 1);
      }
      switch (name) {
        case "-h", "--help", "-V", "--version" -> {
          out.println("rmarun (vertx-rma " + version() + "): the full command line and its help need picocli on the "
              + "class path (bin/rmarun has it)");
          return false;
        }
        case "--tag-output" -> tagOutput = true;
        case "-q", "--quiet" -> quiet = true;
        case "--require-freed-windows" -> requireFreedWindows = true;
        case "--virtual-threads" -> virtualThreads = true;
        case "--secret-stdin" -> secretStdin = true;
        default -> {
          if (value == null) {
            if (++i >= argv.length) {
              throw new UsageError("Missing required parameter for option '" + name + "'");
            }
            value = argv[i];
          }
          switch (name) {
            case "-n", "-np", "--np" -> np = intValue(name, value);
            case "--jvms" -> jvms = intValue(name, value);
            case "--host" -> host.add(value);
            case "--hostfile" -> hostfile = Path.of(value);
            case "--launch" -> launch = value;
            case "--job" -> job = value;
            case "--timeout" -> timeoutSeconds = intValue(name, value);
            case "-cp", "--classpath" -> classpath = value;
            case "-x" -> env.add(value);
            case "--conf" -> conf = Path.of(value);
            case "--trace" -> trace = Path.of(value);
            case "--ranks" -> ranks = value;
            case "--report" -> report = value;
            case "--progress" -> progress = value;
            case "--jvm-index" -> jvmIndex = intValue(name, value);
            default -> throw new UsageError("Unknown option: '" + name + "'");
          }
        }
      }
      i++;
    }
    if (i < argv.length) {
      program = argv[i];
      args.addAll(List.of(argv).subList(i + 1, argv.length));
    }
    return true;
  }

  private static int intValue(String option, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new UsageError("Invalid value for option '" + option + "': '" + value + "' is not an int");
    }
  }

  /**
   * Checks every argument, before anything starts: counts, timeout, job name, class path,
   * variables, configuration, and that PROGRAM is a program.
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
    if (timeoutSeconds < 1 || timeoutSeconds > MAX_TIMEOUT_SECONDS) {
      throw new UsageError("--timeout " + timeoutSeconds + " must be between 1 and " + MAX_TIMEOUT_SECONDS + " seconds");
    }
    if (job == null) {
      job = "rmarun-" + UUID.randomUUID().toString().substring(0, 8);
    }
    try {
      new JobOptions().setNp(np).setJobName(job).setWaitTimeoutMs(timeoutSeconds * 1000);
    } catch (RmaException e) {
      throw new UsageError(stripClass(e));
    }
    if (ranks != null) {
      parseRanks();
    }
    if (trace != null) {
      trace = trace.toAbsolutePath().normalize();
      if (!java.nio.file.Files.isDirectory(trace.getParent())) {
        throw new UsageError("--trace " + trace + ": its directory does not exist");
      }
      if (java.nio.file.Files.isDirectory(trace)) {
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
    if (progress != null) {
      parseProgress();
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
    userClasspath = classpathEntries();
    if (conf != null) {
      checkConf();
    }
    if (ranks == null && (jvmCount > 1 || !hosts.isEmpty())) {
      // the launcher of a clustered job (its JVMs, and those RmaJob starts, meet a bad file when
      // they join the cluster: ARG, naming it)
      checkClusterConfig();
    }
    loader = userClasspath.isEmpty() ? RmaRunCommand.class.getClassLoader() : userLoader();
    resolve();
  }

  private void parseProgress() {
    int colon = progress.lastIndexOf(':');
    String h = colon < 0 ? null : progress.substring(0, colon);
    try {
      int port = Integer.parseInt(progress.substring(colon + 1));
      if (port < 0 || port > 65535 || h != null && h.isBlank()) {
        throw new NumberFormatException();
      }
      progressHost = h;
      progressPort = port;
    } catch (NumberFormatException e) {
      throw new UsageError("--progress " + progress + " is not [HOST:]PORT");
    }
  }

  /** A host name as ssh and the templates take it: no blank, no shell or option syntax. */
  private static final Pattern HOST_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.@%:\\[\\]-]*");

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
    List<String[]> entries = hostfile != null ? hostfileEntries() : hostEntries();
    if (entries.size() > np) {
      throw new UsageError(option + " lists " + entries.size() + " hosts for " + np + " ranks: a host's JVM needs at "
          + "least one rank");
    }
    List<Host> list = new ArrayList<>();
    for (String[] e : entries) {
      String name = e[0];
      if (!HOST_NAME.matcher(name).matches()) {
        throw new UsageError(option + ": '" + name + "' is not a host name");
      }
      String target = e[1] != null ? e[1] : name.substring(name.lastIndexOf('@') + 1);
      if (target.startsWith("[") && target.endsWith("]")) {
        target = target.substring(1, target.length() - 1);
      }
      java.net.InetAddress a;
      try {
        a = java.net.InetAddress.getByName(target);
      } catch (java.net.UnknownHostException | SecurityException x) {
        throw new UsageError(option + ": unknown host '" + target + "' (rmarun resolves each host to the address its "
            + "JVM binds; give an address" + (hostfile != null ? ", or HOST address=ADDRESS" : "") + ")");
      }
      list.add(new Host(name, a.getHostAddress()));
    }
    for (Host h : list) {
      if (isLoopback(h.address()) && list.stream().anyMatch(o -> !isLoopback(o.address()))) {
        throw new UsageError(option + ": " + h.name() + " resolves to " + h.address() + " here, a loopback address, "
            + "while other hosts of the job do not: give its network address"
            + (hostfile != null ? " (HOST address=ADDRESS)" : ""));
      }
    }
    hosts = List.copyOf(list);
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

  private List<String[]> hostEntries() {
    List<String[]> entries = new ArrayList<>();
    for (String value : host) {
      for (String h : value.split(",", -1)) {
        if (h.isBlank()) {
          throw new UsageError("--host '" + value + "' has an empty entry");
        }
        entries.add(new String[] {h.trim(), null});
      }
    }
    return entries;
  }

  private List<String[]> hostfileEntries() {
    if (!Files.isRegularFile(hostfile)) {
      throw new UsageError("--hostfile " + hostfile + " does not exist");
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(hostfile);
    } catch (IOException e) {
      throw new UsageError("--hostfile " + hostfile + " cannot be read: " + e.getMessage());
    }
    List<String[]> entries = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      int hash = line.indexOf('#');
      String[] words = (hash < 0 ? line : line.substring(0, hash)).trim().split("\\s+");
      if (words[0].isEmpty()) {
        continue;
      }
      String address = null;
      for (int w = 1; w < words.length; w++) {
        if (words[w].startsWith("address=") && address == null && words[w].length() > "address=".length()) {
          address = words[w].substring("address=".length());
        } else {
          throw new UsageError("--hostfile " + hostfile + " line " + (i + 1) + ": '" + words[w] + "' is not understood "
              + "(a line is HOST [address=ADDRESS], one JVM per line)");
        }
      }
      entries.add(new String[] {words[0], address});
    }
    if (entries.isEmpty()) {
      throw new UsageError("--hostfile " + hostfile + " lists no host");
    }
    return entries;
  }

  static boolean isLoopback(String address) {
    try {
      return java.net.InetAddress.getByName(address).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  /** The addresses of the hosts, each once, in order: the cluster's members ({@code -Drma.members}). */
  String members() {
    return String.join(",", new java.util.LinkedHashSet<>(hosts.stream().map(Host::address).toList()));
  }

  /** The first rank of JVM {@code k} of the job ({@code k} = {@link #jvmCount} gives np). */
  int firstRankOf(int k) {
    return (int) ((long) k * np / jvmCount);
  }

  private void parseRanks() {
    String[] r = ranks.split(":", -1);
    try {
      if (r.length != 2) {
        throw new NumberFormatException();
      }
      firstRank = Integer.parseInt(r[0]);
      rankCount = Integer.parseInt(r[1]);
    } catch (NumberFormatException e) {
      throw new UsageError("--ranks " + ranks + " must be FIRST:COUNT, two numbers");
    }
    if (firstRank < 0 || rankCount < 1 || (long) firstRank + rankCount > np) {
      throw new UsageError("--ranks " + ranks + " must name ranks within 0.." + (np - 1));
    }
  }

  private List<Path> classpathEntries() {
    if (classpath == null) {
      return List.of();
    }
    if (classpath.isBlank()) {
      throw new UsageError("-cp needs a class path, got ''");
    }
    List<Path> entries = new ArrayList<>();
    for (String e : classpath.split(Pattern.quote(File.pathSeparator))) {
      if (e.isEmpty()) {
        continue;
      }
      if (e.equals("*") || e.endsWith(File.separator + "*")) {
        Path dir = Path.of(e.substring(0, e.length() - 1).isEmpty() ? "." : e.substring(0, e.length() - 1));
        if (!Files.isDirectory(dir)) {
          throw new UsageError("-cp: " + dir + " (of " + e + ") is not a directory");
        }
        try (Stream<Path> jars = Files.list(dir)) {
          jars.filter(p -> p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jar")).sorted()
              .forEach(entries::add);
        } catch (IOException x) {
          throw new UsageError("-cp: cannot list " + dir + ": " + x.getMessage());
        }
        continue;
      }
      Path p = Path.of(e);
      if (!Files.exists(p)) {
        throw new UsageError("-cp: " + e + " does not exist");
      }
      entries.add(p.toAbsolutePath());
    }
    return entries;
  }

  private ClassLoader userLoader() {
    URL[] urls = new URL[userClasspath.size()];
    for (int i = 0; i < urls.length; i++) {
      try {
        urls[i] = userClasspath.get(i).toAbsolutePath().toUri().toURL();
      } catch (MalformedURLException e) {
        throw new UsageError("-cp: " + userClasspath.get(i) + " cannot be used: " + e.getMessage());
      }
    }
    return new URLClassLoader("rmarun -cp", urls, RmaRunCommand.class.getClassLoader());
  }

  /** The class path of the user's JVMs: entries as given (a JVM expands DIR/* itself). */
  String userClasspathText() {
    List<String> parts = new ArrayList<>();
    for (Path p : userClasspath) {
      parts.add(p.toAbsolutePath().toString());
    }
    return String.join(File.pathSeparator, parts);
  }

  private void checkConf() {
    if (!Files.isDirectory(conf)) {
      throw new UsageError("--conf " + conf + " is not a directory");
    }
    if (Stream.of("cluster.xml", "jvm.options", "logging.properties").noneMatch(f -> Files.isRegularFile(conf.resolve(f)))
        && !Files.isDirectory(conf.resolve("tls"))) {
      throw new UsageError("--conf " + conf + " holds none of cluster.xml, jvm.options, logging.properties, tls/");
    }
    try {
      dev.vertxrma.impl.transport.DataPlaneTls.of(conf.resolve("tls"), false);
    } catch (dev.vertxrma.RmaException e) {
      throw new UsageError("--conf " + conf + ": " + e.getMessage().replaceFirst("^ARG: ", ""));
    }
    conf = conf.toAbsolutePath().normalize();
  }

  /** The configuration directory of the job's JVMs: --conf, else the one rmarun was started with. */
  String confDir() {
    return conf != null ? conf.toString() : System.getProperty("rma.conf");
  }

  /** Whether --conf names another directory than the one this JVM was started with. */
  boolean confChanged() {
    if (conf == null) {
      return false;
    }
    String own = System.getProperty("rma.conf");
    try {
      return own == null || !Path.of(own).toRealPath().equals(conf.toRealPath());
    } catch (IOException e) {
      return true;
    }
  }

  /** A clustered job: its cluster.xml must be a valid Hazelcast configuration before any JVM starts. */
  private void checkClusterConfig() {
    // Hazelcast logs a malformed file at length and its XML parser prints to stderr: quiet while
    // checking, the one-line error says it all (nothing else runs in this JVM yet)
    // (the console handler takes System.err when made: make it now, with the real one)
    java.util.logging.Logger.getLogger("").getHandlers();
    java.util.logging.Logger hazelcast = java.util.logging.Logger.getLogger("com.hazelcast");
    java.util.logging.Level level = hazelcast.getLevel();
    java.io.PrintStream err = System.err;
    String named = System.getProperty("vertx.hazelcast.config");
    String source = conf != null ? "--conf" : "conf/";
    Map<String, String> network = new LinkedHashMap<>();
    if (!hosts.isEmpty()) {
      network.put(ClusterSupport.HOST, hosts.get(0).address());
      network.put(ClusterSupport.MEMBERS, members());
    }
    com.hazelcast.config.Config config;
    try {
      hazelcast.setLevel(java.util.logging.Level.OFF);
      System.setErr(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
      config = ClusterSupport.clusterConfig(named, confDir(), source, network);
    } catch (RmaException e) {
      String m = firstLine(stripClass(e));
      // a schema error lists every element Hazelcast knows: the start says what and where
      throw new UsageError(m.length() > 400 ? m.substring(0, 400) + "..." : m);
    } finally {
      System.setErr(err);
      hazelcast.setLevel(level);
    }
    if (!hosts.isEmpty() && !isLoopback(hosts.get(0).address())) {
      // a configuration that keeps the cluster on loopback cannot join hosts: say so now, not after a timeout
      String file = ClusterSupport.configFile(named, confDir());
      com.hazelcast.config.TcpIpConfig tcp = config.getNetworkConfig().getJoin().getTcpIpConfig();
      if (tcp.isEnabled() && !tcp.getMembers().isEmpty() && tcp.getMembers().stream().allMatch(RmaRunCommand::loopbackMember)) {
        throw new UsageError("cluster configuration " + file + " lists only loopback members " + tcp.getMembers()
            + " for a job on hosts: list the hosts with <members>${rma.members}</members>, as conf/cluster.xml does");
      }
      com.hazelcast.config.InterfacesConfig interfaces = config.getNetworkConfig().getInterfaces();
      if (interfaces.isEnabled() && !interfaces.getInterfaces().isEmpty()
          && interfaces.getInterfaces().stream().allMatch(i -> i.startsWith("127."))) {
        throw new UsageError("cluster configuration " + file + " binds Hazelcast to loopback " + interfaces.getInterfaces()
            + " for a job on hosts: use <interface>${rma.host}</interface>, as conf/cluster.xml does");
      }
    }
  }

  private static boolean loopbackMember(String member) {
    String m = member.trim();
    int colon = m.lastIndexOf(':');
    if (colon > 0 && m.indexOf(':') == colon) {
      m = m.substring(0, colon); // host:port
    }
    return m.startsWith("127.") || m.equals("localhost") || m.equals("::1") || m.equals("[::1]");
  }

  /** The program PROGRAM names, loaded (not initialized) and checked. */
  private void resolve() {
    Class<?> c = null;
    String origin = "";
    boolean sampleName = !program.contains(".");
    if (SourceProgram.isSource(program)) {
      SourceProgram.Compiled compiled = SourceProgram.compile(Path.of(program),
          SourceProgram.classpath(userClasspathText()), loader);
      loader = compiled.loader();
      c = load(compiled.className());
      if (c == null || c.getClassLoader() != loader) {
        throw new UsageError(compiled.className() + " (the first class of " + program + ") is also a class of rmarun's "
            + "class path or -cp, which would run instead: rename it");
      }
      source = Path.of(program).toAbsolutePath().normalize();
      sourceWarnings = compiled.warnings().isEmpty() ? null : compiled.warnings();
      origin = " (the first class of " + program + ")";
    } else if (sampleName) {
      c = load(sampleClass(program));
      if (c == null) {
        c = load(program); // a class of the default package
      }
      if (c == null) {
        throw new UsageError("unknown program '" + program + "': no sample of that name (the samples are "
            + String.join(", ", samples(loader)) + ") and no class of that name"
            + (classpath == null ? " (a program of yours: its class name, and -cp for where it is)" : " in -cp"));
      }
    } else {
      c = load(program);
      if (c == null) {
        throw new UsageError("unknown program '" + program + "': no class of that name in "
            + (classpath == null ? "rmarun's class path (give -cp PATH for where your classes are)" : "-cp " + classpath
            + " or rmarun's class path"));
      }
    }
    String name = c.getName();
    if (!RankProgram.class.isAssignableFrom(c) && !WorldProgram.class.isAssignableFrom(c)) {
      throw new UsageError(name + origin + " is not a program: it implements neither " + RankProgram.class.getName()
          + " nor " + WorldProgram.class.getName());
    }
    if (!Modifier.isPublic(c.getModifiers()) || Modifier.isAbstract(c.getModifiers()) || c.isInterface()) {
      throw new UsageError(name + origin + " must be a public, concrete class");
    }
    try {
      if (!Modifier.isPublic(c.getConstructor().getModifiers())) {
        throw new NoSuchMethodException();
      }
    } catch (NoSuchMethodException e) {
      throw new UsageError(name + origin + " needs a public no-argument constructor");
    } catch (LinkageError e) {
      throw new UsageError("cannot load " + name + ": " + e);
    }
    programClass = name;
    resolved = RmaRun.program(c);
  }

  /** Class {@code name} from the program loader, not initialized; {@code null} if there is none. */
  private Class<?> load(String name) {
    try {
      return Class.forName(name, false, loader);
    } catch (ClassNotFoundException e) {
      return null;
    } catch (LinkageError e) {
      throw new UsageError("cannot load " + name + ": " + e);
    }
  }

  /** The class a sample name stands for: {@code double-buffer} is {@code dev.vertxrma.samples.DoubleBuffer}. */
  static String sampleClass(String sample) {
    StringBuilder sb = new StringBuilder(SAMPLES);
    for (String part : sample.split("-")) {
      if (!part.isEmpty()) {
        sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
      }
    }
    return sb.toString();
  }

  /** The sample name of a class of the samples package: {@code DoubleBufferRx} is {@code double-buffer-rx}. */
  static String sampleName(String simpleName) {
    return simpleName.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  private static final String SAMPLES = "dev.vertxrma.samples.";

  /**
   * The samples {@code loader} can load: the public programs of package {@code dev.vertxrma.samples}
   * with a public no-argument constructor, by sample name; empty without the samples (the library
   * jar alone).
   */
  static List<String> samples(ClassLoader loader) {
    TreeSet<String> classes = new TreeSet<>();
    String dir = SAMPLES.replace('.', '/');
    try {
      for (URL u : Collections.list(loader.getResources(dir.substring(0, dir.length() - 1)))) {
        listClasses(u, dir, classes);
      }
    } catch (IOException e) {
      return List.of();
    }
    TreeSet<String> names = new TreeSet<>();
    for (String simple : classes) {
      try {
        Class<?> c = Class.forName(SAMPLES + simple, false, loader);
        int m = c.getModifiers();
        if ((RankProgram.class.isAssignableFrom(c) || WorldProgram.class.isAssignableFrom(c)) && Modifier.isPublic(m)
            && !Modifier.isAbstract(m) && !c.isInterface() && Modifier.isPublic(c.getConstructor().getModifiers())) {
          names.add(sampleName(simple));
        }
      } catch (ReflectiveOperationException | LinkageError e) {
        // not a sample
      }
    }
    return new ArrayList<>(names);
  }

  private static void listClasses(URL u, String dir, TreeSet<String> classes) throws IOException {
    if (u.getProtocol().equals("file")) {
      try (Stream<Path> files = Files.list(Path.of(u.toURI()))) {
        files.map(p -> p.getFileName().toString()).forEach(n -> addClass(n, classes));
      } catch (java.net.URISyntaxException e) {
        // not a directory we can read
      }
    } else if (u.getProtocol().equals("jar")) {
      URLConnection conn = u.openConnection();
      conn.setUseCaches(false);
      if (conn instanceof JarURLConnection) {
        try (java.util.jar.JarFile jar = ((JarURLConnection) conn).getJarFile()) {
          for (java.util.jar.JarEntry e : Collections.list(jar.entries())) {
            String n = e.getName();
            if (n.startsWith(dir) && n.indexOf('/', dir.length()) < 0) {
              addClass(n.substring(dir.length()), classes);
            }
          }
        }
      }
    }
  }

  private static void addClass(String fileName, TreeSet<String> classes) {
    if (fileName.endsWith(".class") && fileName.indexOf('$') < 0) {
      classes.add(fileName.substring(0, fileName.length() - ".class".length()));
    }
  }

  static String stripClass(RmaException e) {
    String m = String.valueOf(e.getMessage());
    String prefix = e.errorClass() + ": ";
    return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).trim();
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
