package dev.vertxrma.impl.launch;

import dev.vertxrma.impl.runtime.ClusterSupport;
import dev.vertxrma.impl.runtime.StartupProgress;
import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.World;
import dev.vertxrma.WorldProgram;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.File;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@code mpirun} of vertx-rma, behind {@code bin/rmarun} (its options: {@link RmaRunCommand},
 * or {@code bin/rmarun --help}):
 *
 * <pre>
 * rmarun -np N [--jvms K | --host H1,H2,... | --hostfile FILE] [--launch ssh|print|TEMPLATE]
 *        [--job NAME] [--timeout SECONDS] [-cp PATH] [-x NAME=VALUE]...
 *        [--tag-output] [--conf DIR] [--virtual-threads] [-q] PROGRAM [ARGS...]
 * </pre>
 *
 * PROGRAM is a sample name ({@code twisted}, {@code double-buffer}: class
 * {@code dev.vertxrma.samples.Twisted}, {@code DoubleBuffer}) or the class name of a
 * {@link RankProgram} with a no-argument constructor (one instance per rank), or of a
 * {@link WorldProgram} (one instance per JVM, given the JVM's ranks as a {@link World}), or a source
 * file {@code FILE.java} whose first class is one ({@link SourceProgram}: every JVM of the job
 * compiles it from its absolute path). With one JVM (the
 * default) all ranks run embedded in this JVM (in a JVM of their own when {@code -x} or
 * {@code --conf} asks for another environment or configuration); with {@code --jvms K} the ranks
 * are split over K local JVMs joined by the clustered event bus on loopback; with {@code --host}
 * or {@code --hostfile}, over one JVM per host entry, started by ssh (or a command template), each
 * bound to its host's address, the job secret passed on its standard input. Every argument is
 * checked before any JVM starts.
 *
 * <p>A JVM started with {@code --ranks first:count} (by {@code --jvms}, or by
 * {@code dev.vertxrma.junit.RmaJob}) also takes {@code --require-freed-windows}
 * ({@link JobOptions#setRequireFreedWindows}) and {@code --report FILE} (its failure, as
 * properties), and from {@code rmarun} {@code --progress [HOST:]PORT}, {@code --jvm-index K} and
 * {@code --secret-stdin} (see {@link LauncherLink}).
 *
 * <p>Exit status: 0 when every rank completed; 1 when the job failed, with the failing rank's
 * error on stderr (a rank failed, or a JVM died: {@code rmarun: PROC_FAILED: JVM k (ranks a..b,
 * pid p) of job j was killed by signal 9 (SIGKILL)}); 2 for a usage error, with a one-line
 * message and no stack trace.
 */
public final class RmaRun {

  private RmaRun() {
  }

  /** Command-line entry point. */
  public static void main(String[] argv) {
    System.exit(run(argv));
  }

  /**
   * Whether picocli is on the class path (an optional dependency: a JVM that runs ranks for
   * {@code dev.vertxrma.junit.RmaJob} in a user's project may lack it). {@link RmaRunCli} is only
   * loaded when it is, since loading it loads picocli's classes.
   */
  private static final boolean PICOCLI = picocliAvailable();

  private static boolean picocliAvailable() {
    try {
      Class.forName("picocli.CommandLine", false, RmaRun.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  static int run(String[] argv) {
    return run(argv, System.out, System.err);
  }

  /**
   * Runs {@code rmarun ARGV}: help, version and usage errors are printed to {@code out} and
   * {@code err}, as are the launcher's own messages; the ranks print where they like.
   *
   * @return the exit status
   */
  public static int run(String[] argv, PrintStream out, PrintStream err) {
    RmaRunCommand a = new RmaRunCommand();
    ProcessManagerRun managed;
    try {
      boolean go = PICOCLI ? RmaRunCli.parse(a, argv, out) : a.parsePlain(argv, out);
      if (!go) {
        return 0;
      }
      managed = ProcessManagerRun.of(a, System.getenv());
      a.validate();
    } catch (RmaRunCommand.UsageError e) {
      String m = String.valueOf(e.getMessage()).replaceAll("\\s*\\R\\s*", " ").trim();
      if (e.details != null) {
        err.print(e.details);
        err.println("rmarun: " + m);
      } else {
        err.println("rmarun: " + m + " (see rmarun --help)");
      }
      return RmaRunCommand.USAGE;
    }
    // javac's warnings of a source-file program once: from the launcher (the JVMs it starts compile
    // the same file), or from rank 0 of a job started by mpiexec or srun
    if (a.sourceWarnings != null && (managed != null ? managed.rank == 0 : a.ranks == null && a.jvmIndex < 0)) {
      err.print(a.sourceWarnings);
    }
    if (managed != null) {
      // started by mpiexec or srun: this JVM holds one rank of the job
      return managed.run(a, err, () -> tagged(a, () -> runRanks(a, true, err)));
    }
    if (a.secretStdin) {
      try {
        a.secret = LauncherLink.readSecret(System.in);
        dev.vertxrma.impl.transport.JobSecret.parse(a.secret);
      } catch (java.io.IOException | dev.vertxrma.RmaException e) {
        err.println("rmarun: JVM " + a.jvmIndex + " of job " + a.job + " has no job secret on its standard input: "
            + e.getMessage());
        return 1;
      }
      LauncherLink.stopWhenClosed(System.in, a.job, a.jvmIndex, err);
    }
    if (a.progressPort >= 0 && a.ranks != null) {
      StartupProgress.reportTo(a.progressHost, a.progressPort, a.jvmIndex, a.job);
    }
    try {
      if (a.ranks != null) {
        return tagged(a, () -> runRanks(a, true, err));
      }
      if (RmaRunCommand.PRINT.equals(a.launchHow)) {
        return printCommands(a, out, err);
      }
      if (a.jvmCount > 1 || !a.hosts.isEmpty() || !a.environment.isEmpty() || a.confChanged()) {
        return runJvms(a, err);
      }
      return tagged(a, () -> runRanks(a, false, err));
    } finally {
      StartupProgress.stopReporting();
    }
  }

  /**
   * Runs {@code body} with the output's lines kept whole (ranks printing at once never mix their
   * lines), and tagged if {@code --tag-output} asks for it.
   */
  private static int tagged(RmaRunCommand a, java.util.function.IntSupplier body) {
    TaggedOutput.Installed t = TaggedOutput.install(a.job, "[jvm " + Math.max(0, a.jvmIndex) + "] ", a.tagOutput);
    try {
      return body.getAsInt();
    } finally {
      TaggedOutput.uninstall(t);
    }
  }

  /**
   * The program class {@code c} stands for, creating one instance per rank (a
   * {@link RankProgram}) or per JVM (a {@link WorldProgram}).
   */
  static Object program(Class<?> c) {
    String name = c.getName();
    if (WorldProgram.class.isAssignableFrom(c)) {
      return (WorldProgram) (vertx, world, args) -> {
        try {
          return ((WorldProgram) c.getConstructor().newInstance()).run(vertx, world, args);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot instantiate " + name + ": " + e, e);
        }
      };
    }
    return (RankProgram) (world, args) -> {
      try {
        return ((RankProgram) c.getConstructor().newInstance()).run(world, args);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot instantiate " + name + ": " + e, e);
      }
    };
  }

  private static int runRanks(RmaRunCommand a, boolean clustered, PrintStream err) {
    JobOptions options = new JobOptions().setNp(a.np).setJobName(a.job).setArgs(a.args)
        .setWaitTimeoutMs(a.timeoutSeconds * 1000).setStartupTimeoutMs(Math.max(60, a.timeoutSeconds) * 1000L)
        .setClustered(clustered).setRequireFreedWindows(a.requireFreedWindows)
        .setVirtualThreads(a.virtualThreads);
    if (a.trace != null) {
      options.setTraceFile(a.trace.toString());
    }
    if (a.secret != null) {
      options.setSecret(a.secret);
    }
    if (clustered) {
      options.setLocalRanks(a.firstRank, a.rankCount);
    }
    Thread me = Thread.currentThread();
    ClassLoader before = me.getContextClassLoader();
    me.setContextClassLoader(a.loader);
    try {
      Future<Void> job = a.resolved instanceof WorldProgram ? runWorld(options, (WorldProgram) a.resolved)
          : Rma.run(options, (RankProgram) a.resolved);
      job.toCompletionStage().toCompletableFuture()
          .get(a.timeoutSeconds * 2 + 120, TimeUnit.SECONDS);
      return 0;
    } catch (java.util.concurrent.ExecutionException e) {
      err.println("rmarun: job " + a.job + " failed: " + e.getCause().getMessage());
      report(a, e.getCause(), err);
      return 1;
    } catch (Exception e) {
      err.println("rmarun: job " + a.job + " failed: " + e);
      report(a, e instanceof java.util.concurrent.TimeoutException
          ? new dev.vertxrma.RmaException(dev.vertxrma.ErrorClass.TIMEOUT, "job " + a.job + " did not end in time", e) : e,
          err);
      return 1;
    } finally {
      me.setContextClassLoader(before);
    }
  }

  /** Keys of a {@code --report} file: the failure of this JVM's ranks, for the process that started it. */
  public static final String REPORT_ERROR_CLASS = "errorClass";
  /** The failure's message (without the error class prefix of an {@code RmaException}). */
  public static final String REPORT_MESSAGE = "message";
  /** The failure's stack trace as text. */
  public static final String REPORT_TRACE = "trace";

  /**
   * Writes the failure to the {@code --report} file, if one was asked for, as properties
   * ({@link #REPORT_ERROR_CLASS}, {@link #REPORT_MESSAGE}, {@link #REPORT_TRACE}).
   */
  private static void report(RmaRunCommand a, Throwable failure, PrintStream err) {
    if (a.report == null) {
      return;
    }
    java.util.Properties p = new java.util.Properties();
    String message = String.valueOf(failure.getMessage());
    if (failure instanceof dev.vertxrma.RmaException) {
      dev.vertxrma.ErrorClass ec = ((dev.vertxrma.RmaException) failure).errorClass();
      p.setProperty(REPORT_ERROR_CLASS, ec.name());
      if (message.startsWith(ec + ": ")) {
        message = message.substring(ec.toString().length() + 2);
      }
    } else {
      p.setProperty(REPORT_ERROR_CLASS, dev.vertxrma.ErrorClass.OTHER.name());
      message = failure.toString();
    }
    p.setProperty(REPORT_MESSAGE, message);
    java.io.StringWriter trace = new java.io.StringWriter();
    failure.printStackTrace(new java.io.PrintWriter(trace));
    p.setProperty(REPORT_TRACE, trace.toString());
    try (java.io.Writer w = java.nio.file.Files.newBufferedWriter(java.nio.file.Path.of(a.report))) {
      p.store(w, "rmarun: failure of ranks " + a.firstRank + ".." + (a.firstRank + a.rankCount - 1) + " of job " + a.job);
    } catch (java.io.IOException e) {
      err.println("rmarun: cannot write the report " + a.report + ": " + e);
    }
  }

  /**
   * Runs a {@link WorldProgram} on a Vert.x instance of its own: starts this JVM's ranks, runs the
   * program, closes the world (MPI_Finalize) and Vert.x; fails with the program's failure first.
   */
  static Future<Void> runWorld(JobOptions options, WorldProgram program) {
    Future<Vertx> started;
    try {
      started = options.isClustered()
          ? Rma.clusteredVertx(options.getJobName(), new io.vertx.core.VertxOptions(), options.getProgress())
          : Future.succeededFuture(Vertx.vertx());
    } catch (dev.vertxrma.RmaException e) {
      return Future.failedFuture(e);
    }
    // completed from Vert.x's close, when no context of that instance runs any more
    io.vertx.core.Promise<Void> result = io.vertx.core.Promise.promise();
    started.onComplete(s -> {
      if (s.failed()) {
        result.fail(s.cause());
        return;
      }
      Vertx vertx = s.result();
      Rma.world(vertx, options).compose(world -> runAndClose(vertx, world, options, program))
          .onComplete(outcome -> vertx.close().onComplete(closed -> result.handle(outcome)));
    });
    return result.future();
  }

  private static Future<Void> runAndClose(Vertx vertx, World world, JobOptions options, WorldProgram program) {
    Future<?> body;
    try {
      body = program.run(vertx, world, options.getArgs());
    } catch (RuntimeException | Error e) {
      body = Future.failedFuture(e);
    }
    io.vertx.core.Promise<Void> done = io.vertx.core.Promise.promise();
    body.onComplete(outcome -> world.close().onComplete(closed -> {
      if (outcome.failed()) {
        done.fail(outcome.cause());
      } else {
        done.handle(closed);
      }
    }));
    return done.future();
  }

  /**
   * The command line that starts {@code mainClass} in a new JVM like this one: the same java
   * executable, JVM flags and class path.
   */
  public static List<String> javaCommand(String mainClass) {
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass);
    return cmd;
  }

  /** How long the other JVMs of a failed job get to end on their own before they are killed. */
  static final long GRACE_MS = 3_000;

  /** One JVM of a multi-JVM job and the ranks it hosts. */
  private static final class RankJvm {
    final int index;
    final int firstRank;
    final int lastRank;
    final Process process;
    /** The host it runs on (started by the launch command), or null for a JVM of this host. */
    final RmaRunCommand.Host host;
    /** Its standard input: the job secret went in, and closing it stops the JVM (null: a local JVM). */
    final java.io.OutputStream link;
    /** Set when rmarun itself killed it (then its signal is no news). */
    volatile boolean killedHere;

    RankJvm(int index, int firstRank, int lastRank, Process process, RmaRunCommand.Host host, java.io.OutputStream link) {
      this.index = index;
      this.firstRank = firstRank;
      this.lastRank = lastRank;
      this.process = process;
      this.host = host;
      this.link = link;
    }

    String describe() {
      String ranks = firstRank == lastRank ? "rank " + firstRank : "ranks " + firstRank + ".." + lastRank;
      return host == null ? "JVM " + index + " (" + ranks + ", pid " + process.pid() + ")"
          : "JVM " + index + " on " + host.name() + " (" + ranks + ")";
    }

    /** Why it ended, from its exit status (a JVM killed by signal N exits with 128 + N). */
    String ending(String launch) {
      int status = process.exitValue();
      if (host != null && status == 255 && RmaRunCommand.SSH_TEMPLATE.equals(launch)) {
        return "ended with status 255, ssh's own failure (can this user run ssh -o BatchMode=yes " + host.name()
            + " true, without a password?)";
      }
      if (status > 128 && status < 128 + 65) {
        int signal = status - 128;
        return "was killed by signal " + signal + signalName(signal);
      }
      return "exited with status " + status;
    }

    /** Kills it: the process rmarun started, and by closing its standard input the JVM on its host. */
    void kill() {
      closeLink();
      process.destroyForcibly();
    }

    void closeLink() {
      if (link != null) {
        try {
          link.close();
        } catch (java.io.IOException e) {
          // gone already
        }
      }
    }
  }

  private static String signalName(int signal) {
    switch (signal) {
      case 1: return " (SIGHUP)";
      case 2: return " (SIGINT)";
      case 6: return " (SIGABRT)";
      case 9: return " (SIGKILL)";
      case 11: return " (SIGSEGV)";
      case 15: return " (SIGTERM)";
      default: return "";
    }
  }

  /**
   * Starts the JVMs of the job and waits for all of them. The first one that fails (a rank
   * failed, or the JVM died) makes the job fail: a JVM killed by a signal is reported as
   * {@code PROC_FAILED} with its ranks, and the others get {@link #GRACE_MS} to end on their own
   * (they normally do, having seen the failure) before they are killed. With {@code --jvms 1}
   * (a job that needs a JVM of its own for {@code -x} or {@code --conf}) the one JVM runs every
   * rank embedded. The JVMs of a host list start through the launch command, each given the job
   * secret on its standard input.
   */
  private static int runJvms(RmaRunCommand a, PrintStream err) {
    boolean remote = !a.hosts.isEmpty();
    boolean clustered = a.jvmCount > 1 || remote;
    int[] ranksOf = new int[a.jvmCount];
    for (int k = 0; k < a.jvmCount; k++) {
      ranksOf[k] = a.firstRankOf(k + 1) - a.firstRankOf(k);
    }
    if (clustered && !remote) {
      a.clusterLeaderPort = ClusterSupport.freeLeaderPort(ClusterSupport.host());
    }
    if (!remote) {
      a.classData = ClassDataArchive.forClassPath(System.getProperty("java.class.path"));
    }
    List<RankJvm> jvms = new ArrayList<>();
    dev.vertxrma.impl.transport.JobSecret secret = dev.vertxrma.impl.transport.JobSecret.random();
    java.nio.file.Path secretFile = null;
    if (!remote) {
      try {
        secretFile = writeSecret(secret, null);
      } catch (java.io.IOException e) {
        err.println("rmarun: cannot write the job secret file: " + e);
        return 1;
      }
    }
    LaunchProgress progress = null;
    if (clustered && !a.quiet) {
      try {
        progress = new LaunchProgress(err, Boolean.getBoolean(RmaRunCommand.TTY_PROPERTY), a.np, ranksOf, a.job,
            remote ? a.hosts.stream().map(RmaRunCommand.Host::address).collect(java.util.stream.Collectors.toSet())
                : null);
      } catch (java.io.IOException e) {
        progress = null; // no progress report, the job runs all the same
      }
    }
    LaunchProgress shown = progress;
    java.nio.file.Path secretToDelete = secretFile;
    Thread reaper = new Thread(() -> {
      jvms.forEach(RankJvm::kill);
      if (a.classData != null) {
        a.classData.finish(false);
      }
      if (secretToDelete != null) {
        deleteQuietly(secretToDelete);
      }
    }, "rmarun-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
    try {
      for (int k = 0; k < a.jvmCount; k++) {
        int first = a.firstRankOf(k);
        RmaRunCommand.Host host = remote ? a.hosts.get(k) : null;
        String reportTo = progress == null ? null
            : remote ? progressAddress(host.address(), progress.port()) : String.valueOf(progress.port());
        List<String> cmd = rankCommand(a, k, clustered, reportTo, host);
        if (remote) {
          cmd.add(cmd.indexOf("--"), "--secret-stdin");
          String line = launchLine(a.launchHow, host, "exec " + shellLine(a.environment, cmd));
          ProcessBuilder pb = new ProcessBuilder("sh", "-c", line).redirectOutput(ProcessBuilder.Redirect.INHERIT)
              .redirectError(ProcessBuilder.Redirect.INHERIT);
          pb.environment().remove(dev.vertxrma.impl.transport.JobSecret.FILE_ENV);
          Process p = pb.start();
          java.io.OutputStream link = p.getOutputStream();
          jvms.add(new RankJvm(k, first, first + ranksOf[k] - 1, p, host, link));
          try {
            link.write((secret.text() + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            link.flush();
          } catch (java.io.IOException e) {
            // the launch command ended at once: its exit is reported below
          }
        } else {
          ProcessBuilder pb = new ProcessBuilder(cmd).inheritIO();
          pb.environment().putAll(a.environment);
          pb.environment().put(dev.vertxrma.impl.transport.JobSecret.FILE_ENV, secretFile.toString());
          jvms.add(new RankJvm(k, first, first + ranksOf[k] - 1, pb.start(), null, null));
        }
      }
    } catch (java.io.IOException e) {
      if (shown != null) {
        shown.close();
      }
      err.println("rmarun: cannot start JVM: " + e);
      jvms.forEach(RankJvm::kill);
      return 1;
    }
    int status = 0;
    RankJvm firstJvm = jvms.get(0);
    List<RankJvm> left = new ArrayList<>(jvms);
    while (!left.isEmpty()) {
      CompletableFuture.anyOf(left.stream().map(j -> j.process.onExit()).toArray(CompletableFuture[]::new)).join();
      for (RankJvm j : new ArrayList<>(left)) {
        if (j.process.isAlive()) {
          continue;
        }
        left.remove(j);
        j.closeLink();
        if (j.process.exitValue() == 0) {
          continue;
        }
        if (shown != null) {
          shown.close();
        }
        String ending = j.ending(a.launchHow);
        if (j.killedHere) {
          // reported when it was killed
        } else if (ending.startsWith("was killed")) {
          err.println("rmarun: PROC_FAILED: " + j.describe() + " of job " + a.job + " " + ending);
        } else {
          err.println("rmarun: " + j.describe() + " of job " + a.job + " " + ending);
        }
        if (status == 0) {
          status = 1;
          killAfterGrace(left, a.job, err);
        }
      }
    }
    if (a.classData != null) {
      a.classData.finish(firstJvm.process.exitValue() == 0);
    }
    if (shown != null) {
      shown.close();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
    if (secretFile != null) {
      deleteQuietly(secretFile);
    }
    if (a.trace != null) {
      try {
        // normally the last JVM to end has drawn the page; parts left by a JVM that died are drawn here
        if (dev.vertxrma.impl.observe.Trace.renderParts(a.trace, a.job, a.np)) {
          err.println("rmarun: trace of the ranks that reported written to " + a.trace);
        }
      } catch (java.io.IOException e) {
        err.println("rmarun: cannot write the trace " + a.trace + ": " + e);
        status = status == 0 ? 1 : status;
      }
    }
    return status;
  }

  /**
   * The command line of JVM {@code k} of the job: {@link #childCommand} and rmarun's own options
   * for it, up to {@code --}, PROGRAM and its arguments.
   *
   * @param progress where it reports its startup ({@code [HOST:]PORT}), or null
   * @param host its host, or null for a JVM of this host
   */
  private static List<String> rankCommand(RmaRunCommand a, int k, boolean clustered, String progress,
      RmaRunCommand.Host host) {
    int first = a.firstRankOf(k);
    List<String> cmd = childCommand(a, host);
    if (host == null && a.classData != null) {
      cmd.addAll(cmd.indexOf("-cp"), a.classData.flags(k));
    }
    if (clustered && host == null && a.clusterLeaderPort > 0) {
      // the JVMs of this host form their cluster around the first one (ClusterSupport.LEADER)
      int at = cmd.indexOf("-cp");
      List<String> leader = new ArrayList<>(List.of("-D" + ClusterSupport.LEADER + "=" + ClusterSupport.host() + ":"
          + a.clusterLeaderPort));
      if (k == 0) {
        leader.add("-D" + ClusterSupport.CLUSTER_PORT + "=" + a.clusterLeaderPort);
      }
      cmd.addAll(at, leader);
    }
    cmd.addAll(List.of("-np", String.valueOf(a.np), "--job", a.job, "--timeout", String.valueOf(a.timeoutSeconds)));
    if (clustered) {
      cmd.addAll(List.of("--ranks", first + ":" + (a.firstRankOf(k + 1) - first), "--jvm-index", String.valueOf(k)));
      if (progress != null) {
        cmd.addAll(List.of("--progress", progress));
      }
    } else {
      cmd.addAll(List.of("--jvm-index", "0")); // a JVM rmarun started: what rmarun reported (javac's warnings) it does not
    }
    if (a.tagOutput) {
      cmd.add("--tag-output");
    }
    if (a.requireFreedWindows) {
      cmd.add("--require-freed-windows");
    }
    if (a.virtualThreads) {
      cmd.add("--virtual-threads");
    }
    if (a.trace != null) {
      cmd.addAll(List.of("--trace", a.trace.toString()));
    }
    cmd.add("--");
    cmd.add(a.source != null ? a.source.toString() : a.programClass);
    cmd.addAll(a.args);
    return cmd;
  }

  /**
   * Where a JVM on the host at {@code address} reports its startup: this machine's address on
   * the way to it (the route the kernel would take; no packet is sent) and {@code port}; null if
   * there is none.
   */
  private static String progressAddress(String address, int port) {
    try (java.net.DatagramSocket probe = new java.net.DatagramSocket()) {
      probe.connect(java.net.InetAddress.getByName(address), 9);
      java.net.InetAddress local = probe.getLocalAddress();
      if (local == null || local.isAnyLocalAddress()) {
        return null;
      }
      String text = local.getHostAddress();
      return (text.indexOf(':') >= 0 ? "[" + text + "]" : text) + ":" + port;
    } catch (java.io.IOException | SecurityException e) {
      return null;
    }
  }

  /**
   * The line {@code sh -c} runs to start a JVM on {@code host}: the launch template with
   * {@code {host}}, {@code {address}} and {@code {command}} replaced by shell words (the command
   * line appended as {@code {command}} if the template does not place it).
   */
  static String launchLine(String template, RmaRunCommand.Host host, String command) {
    String t = template.contains("{command}") ? template : template + " {command}";
    StringBuilder sb = new StringBuilder();
    int i = 0;
    while (i < t.length()) {
      if (t.startsWith("{host}", i)) {
        sb.append(shellWord(host.name()));
        i += "{host}".length();
      } else if (t.startsWith("{address}", i)) {
        sb.append(shellWord(host.address()));
        i += "{address}".length();
      } else if (t.startsWith("{command}", i)) {
        sb.append(shellWord(command));
        i += "{command}".length();
      } else {
        sb.append(t.charAt(i++));
      }
    }
    return sb.toString();
  }

  /** {@code cmd} as one shell line, preceded by {@code env NAME=VALUE...} when there are variables. */
  static String shellLine(java.util.Map<String, String> environment, List<String> cmd) {
    List<String> words = new ArrayList<>();
    if (!environment.isEmpty()) {
      words.add("env");
      environment.forEach((name, value) -> words.add(name + "=" + value));
    }
    words.addAll(cmd);
    StringBuilder sb = new StringBuilder();
    for (String w : words) {
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append(shellWord(w));
    }
    return sb.toString();
  }

  private static final java.util.regex.Pattern PLAIN_WORD = java.util.regex.Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

  /** {@code s} as one word of a POSIX shell: as it is when that is safe, else in single quotes. */
  static String shellWord(String s) {
    if (PLAIN_WORD.matcher(s).matches()) {
      return s;
    }
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /**
   * {@code --launch print}: writes the job secret to {@code NAME.secret} (mode 0600) and prints,
   * for each host, the command that starts its JVM (a shell script: comments start with #).
   */
  private static int printCommands(RmaRunCommand a, PrintStream out, PrintStream err) {
    java.nio.file.Path secretFile;
    try {
      secretFile = writeSecret(dev.vertxrma.impl.transport.JobSecret.random(), a.printedSecret);
    } catch (java.io.IOException e) {
      err.println("rmarun: cannot write the job secret to " + a.printedSecret + ": " + e);
      return 1;
    }
    out.println("# rmarun: job " + a.job + ", " + a.np + " ranks over " + a.jvmCount + " JVMs. Copy the job secret "
        + secretFile + " (mode 0600) to the same path on every host");
    out.println("# (scp -p), run each command on its host, and delete the secret everywhere when the job is done.");
    java.util.Map<String, String> environment = new java.util.LinkedHashMap<>();
    environment.put(dev.vertxrma.impl.transport.JobSecret.FILE_ENV, secretFile.toString());
    environment.putAll(a.environment);
    for (int k = 0; k < a.jvmCount; k++) {
      RmaRunCommand.Host host = a.hosts.get(k);
      int first = a.firstRankOf(k);
      int last = a.firstRankOf(k + 1) - 1;
      out.println("# JVM " + k + " on " + host.name() + " (" + host.address() + "): "
          + (first == last ? "rank " + first : "ranks " + first + ".." + last));
      out.println(shellLine(environment, rankCommand(a, k, true, null, host)));
    }
    out.flush();
    return 0;
  }

  /**
   * The command line of a JVM of the job, up to its main class: this JVM's java and flags, with
   * {@code --conf}'s configuration in place of this JVM's, and the user's {@code -cp} after this
   * JVM's class path; on a host, its address and the job's members ({@code -Drma.host},
   * {@code -Drma.members}) in place of any this JVM has.
   */
  private static List<String> childCommand(RmaRunCommand a, RmaRunCommand.Host host) {
    String conf = a.conf == null ? null : a.conf.toString();
    java.nio.file.Path logging = conf == null ? null : a.conf.resolve("logging.properties");
    boolean ownLogging = logging != null && java.nio.file.Files.isRegularFile(logging);
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (ClassDataArchive.isArchiveFlag(arg)
          || conf != null && arg.startsWith("-Drma.conf=")
          || ownLogging && arg.startsWith("-Djava.util.logging.config.file=")
          || host != null && (arg.startsWith("-D" + ClusterSupport.HOST + "=")
              || arg.startsWith("-D" + ClusterSupport.MEMBERS + "="))) {
        continue;
      }
      cmd.add(arg);
    }
    if (conf != null) {
      cmd.addAll(jvmOptions(a.conf.resolve("jvm.options")));
      cmd.add("-Drma.conf=" + conf);
      if (ownLogging) {
        cmd.add("-Djava.util.logging.config.file=" + logging);
      }
    }
    if (host != null) {
      cmd.add("-D" + ClusterSupport.HOST + "=" + host.address());
      cmd.add("-D" + ClusterSupport.MEMBERS + "=" + a.members());
    }
    cmd.add("-cp");
    String cp = System.getProperty("java.class.path");
    cmd.add(a.userClasspath.isEmpty() ? cp : cp + File.pathSeparator + a.userClasspathText());
    cmd.add(RmaRun.class.getName());
    return cmd;
  }

  /** The flags of a {@code jvm.options} file (one a line, {@code #} comments), none if it is missing. */
  private static List<String> jvmOptions(java.nio.file.Path file) {
    List<String> flags = new ArrayList<>();
    if (!java.nio.file.Files.isRegularFile(file)) {
      return flags;
    }
    try {
      for (String line : java.nio.file.Files.readAllLines(file)) {
        String t = line.trim();
        if (!t.isEmpty() && !t.startsWith("#")) {
          flags.add(t);
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return flags;
  }

  /**
   * {@code secret} in a new file only this user can read (a temporary one if {@code path} is
   * null), never on a command line: the JVMs of the job find it through {@code RMA_JOB_SECRET_FILE}.
   */
  private static java.nio.file.Path writeSecret(dev.vertxrma.impl.transport.JobSecret secret, java.nio.file.Path path)
      throws java.io.IOException {
    java.nio.file.attribute.FileAttribute<?> owner = java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    java.nio.file.Path f = path == null ? java.nio.file.Files.createTempFile("rmarun-", ".secret", owner)
        : java.nio.file.Files.createFile(path, owner);
    java.nio.file.Files.writeString(f, secret.text() + "\n");
    return f;
  }

  private static void deleteQuietly(java.nio.file.Path f) {
    try {
      java.nio.file.Files.deleteIfExists(f);
    } catch (java.io.IOException e) {
      // a temp file: the system cleans it up
    }
  }

  private static void killAfterGrace(List<RankJvm> others, String job, PrintStream err) {
    List<RankJvm> snapshot = new ArrayList<>(others);
    CompletableFuture.delayedExecutor(GRACE_MS, TimeUnit.MILLISECONDS).execute(() -> {
      for (RankJvm j : snapshot) {
        if (j.process.isAlive()) {
          err.println("rmarun: " + j.describe() + " of job " + job + " did not end within " + GRACE_MS
              + " ms of the failure; killed");
          j.killedHere = true;
          j.kill();
        }
      }
    });
  }
}
