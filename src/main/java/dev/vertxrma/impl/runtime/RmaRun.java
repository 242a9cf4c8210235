package dev.vertxrma.impl.runtime;

import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.World;
import dev.vertxrma.WorldProgram;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@code mpirun} of vertx-rma, behind {@code bin/rmarun}:
 *
 * <pre>
 * rmarun -np N [--jvms K] [--job NAME] [--timeout SECONDS] PROGRAM [ARGS...]
 * </pre>
 *
 * PROGRAM is a sample name ({@code twisted}, {@code double-buffer}: class
 * {@code dev.vertxrma.samples.Twisted}, {@code DoubleBuffer}) or the class name of a
 * {@link RankProgram} with a no-argument constructor (one instance per rank), or of a
 * {@link WorldProgram} (one instance per JVM, given the JVM's ranks as a {@link World}). With one JVM (the
 * default) all ranks run embedded in this JVM; with {@code --jvms K} the ranks are split over K
 * local JVMs joined by the clustered event bus on loopback.
 *
 * <p>A JVM started with {@code --ranks first:count} (by {@code --jvms}, or by
 * {@code dev.vertxrma.junit.RmaJob}) also takes {@code --require-freed-windows}
 * ({@link JobOptions#setRequireFreedWindows}) and {@code --report FILE} (its failure, as
 * properties).
 *
 * <p>Exit status: 0 when every rank completed; 1 when the job failed, with the failing rank's
 * error on stderr (a rank failed, or a JVM died: {@code rmarun: PROC_FAILED: JVM k (ranks a..b,
 * pid p) of job j was killed by signal 9 (SIGKILL)}); 2 for a usage error.
 */
public final class RmaRun {

  private RmaRun() {
  }

  /** Command-line entry point. */
  public static void main(String[] argv) {
    System.exit(run(argv));
  }

  static final class Args {
    int np = -1;
    int jvms = 1;
    String job = "rmarun-" + UUID.randomUUID().toString().substring(0, 8);
    long timeoutSeconds = JobOptions.DEFAULT_WAIT_TIMEOUT_MS / 1000;
    int firstRank = -1;
    int rankCount = -1;
    boolean requireFreedWindows;
    boolean virtualThreads;
    String report;
    String program;
    List<String> programArgs = new ArrayList<>();
  }

  static int run(String[] argv) {
    Args a;
    try {
      a = parse(argv);
    } catch (IllegalArgumentException e) {
      System.err.println("rmarun: " + e.getMessage());
      System.err.println("usage: rmarun -np N [--jvms K] [--job NAME] [--timeout SECONDS] [--virtual-threads] PROGRAM [ARGS...]");
      return 2;
    }
    Object program;
    try {
      program = resolve(a.program);
    } catch (IllegalArgumentException e) {
      System.err.println("rmarun: " + e.getMessage());
      return 2;
    }
    if (a.firstRank >= 0) {
      return runRanks(a, program, true);
    }
    if (a.jvms <= 1) {
      return runRanks(a, program, false);
    }
    return runJvms(a);
  }

  static Args parse(String[] argv) {
    Args a = new Args();
    int i = 0;
    while (i < argv.length && a.program == null) {
      String s = argv[i];
      switch (s) {
        case "-np":
        case "-n":
        case "--np":
          a.np = intArg(argv, ++i, s);
          break;
        case "--jvms":
          a.jvms = intArg(argv, ++i, s);
          break;
        case "--job":
          a.job = strArg(argv, ++i, s);
          break;
        case "--timeout":
          a.timeoutSeconds = intArg(argv, ++i, s);
          break;
        case "--require-freed-windows":
          a.requireFreedWindows = true;
          break;
        case "--virtual-threads":
          a.virtualThreads = true;
          break;
        case "--report":
          a.report = strArg(argv, ++i, s);
          break;
        case "--ranks": {
          String[] r = strArg(argv, ++i, s).split(":");
          a.firstRank = Integer.parseInt(r[0]);
          a.rankCount = Integer.parseInt(r[1]);
          break;
        }
        default:
          if (s.startsWith("-")) {
            throw new IllegalArgumentException("unknown option " + s);
          }
          a.program = s;
      }
      i++;
    }
    if (a.program == null) {
      throw new IllegalArgumentException("no PROGRAM given");
    }
    a.programArgs.addAll(Arrays.asList(argv).subList(i, argv.length));
    if (a.np < 1) {
      throw new IllegalArgumentException("-np N (N >= 1) is required");
    }
    if (a.jvms < 1 || a.jvms > a.np) {
      throw new IllegalArgumentException("--jvms " + a.jvms + " must be between 1 and np=" + a.np);
    }
    if (a.virtualThreads) {
      try {
        RankHost.deployment(true);
      } catch (dev.vertxrma.RmaException e) {
        throw new IllegalArgumentException("--virtual-threads: " + e.getMessage());
      }
    }
    return a;
  }

  private static int intArg(String[] argv, int i, String opt) {
    try {
      return Integer.parseInt(strArg(argv, i, opt));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(opt + " takes a number, got '" + argv[i] + "'");
    }
  }

  private static String strArg(String[] argv, int i, String opt) {
    if (i >= argv.length) {
      throw new IllegalArgumentException(opt + " needs a value");
    }
    return argv[i];
  }

  /** The class a program name stands for: a sample name or a class name. */
  static String className(String program) {
    if (program.contains(".")) {
      return program;
    }
    StringBuilder sb = new StringBuilder("dev.vertxrma.samples.");
    for (String part : program.split("-")) {
      if (!part.isEmpty()) {
        sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
      }
    }
    return sb.toString();
  }

  /** The program a name stands for: a {@link RankProgram} or a {@link WorldProgram}. */
  static Object resolve(String program) {
    String name = className(program);
    Class<?> c;
    try {
      c = Class.forName(name);
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("no program '" + program + "' (looked for class " + name + ")");
    }
    if (!RankProgram.class.isAssignableFrom(c) && !WorldProgram.class.isAssignableFrom(c)) {
      throw new IllegalArgumentException(name + " implements neither " + RankProgram.class.getName() + " nor "
          + WorldProgram.class.getName());
    }
    try {
      c.getConstructor();
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(name + " needs a public no-argument constructor");
    }
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

  private static int runRanks(Args a, Object program, boolean clustered) {
    JobOptions options = new JobOptions().setNp(a.np).setJobName(a.job).setArgs(a.programArgs)
        .setWaitTimeoutMs(a.timeoutSeconds * 1000).setStartupTimeoutMs(Math.max(60, a.timeoutSeconds) * 1000L)
        .setClustered(clustered).setRequireFreedWindows(a.requireFreedWindows)
        .setVirtualThreads(a.virtualThreads);
    if (clustered) {
      options.setLocalRanks(a.firstRank, a.rankCount);
    }
    try {
      Future<Void> job = program instanceof WorldProgram ? runWorld(options, (WorldProgram) program)
          : Rma.run(options, (RankProgram) program);
      job.toCompletionStage().toCompletableFuture()
          .get(a.timeoutSeconds * 2 + 120, TimeUnit.SECONDS);
      return 0;
    } catch (java.util.concurrent.ExecutionException e) {
      System.err.println("rmarun: job " + a.job + " failed: " + e.getCause().getMessage());
      report(a, e.getCause());
      return 1;
    } catch (Exception e) {
      System.err.println("rmarun: job " + a.job + " failed: " + e);
      report(a, e instanceof java.util.concurrent.TimeoutException
          ? new dev.vertxrma.RmaException(dev.vertxrma.ErrorClass.TIMEOUT, "job " + a.job + " did not end in time", e) : e);
      return 1;
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
  private static void report(Args a, Throwable failure) {
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
      System.err.println("rmarun: cannot write the report " + a.report + ": " + e);
    }
  }

  /**
   * Runs a {@link WorldProgram} on a Vert.x instance of its own: starts this JVM's ranks, runs the
   * program, closes the world (MPI_Finalize) and Vert.x; fails with the program's failure first.
   */
  static Future<Void> runWorld(JobOptions options, WorldProgram program) {
    Future<Vertx> started = options.isClustered() ? Rma.clusteredVertx(options.getJobName())
        : Future.succeededFuture(Vertx.vertx());
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
    /** Set when rmarun itself killed it (then its signal is no news). */
    volatile boolean killedHere;

    RankJvm(int index, int firstRank, int lastRank, Process process) {
      this.index = index;
      this.firstRank = firstRank;
      this.lastRank = lastRank;
      this.process = process;
    }

    String describe() {
      String ranks = firstRank == lastRank ? "rank " + firstRank : "ranks " + firstRank + ".." + lastRank;
      return "JVM " + index + " (" + ranks + ", pid " + process.pid() + ")";
    }

    /** Why it ended, from its exit status (a JVM killed by signal N exits with 128 + N). */
    String ending() {
      int status = process.exitValue();
      if (status > 128 && status < 128 + 65) {
        int signal = status - 128;
        return "was killed by signal " + signal + signalName(signal);
      }
      return "exited with status " + status;
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
   * (they normally do, having seen the failure) before they are killed.
   */
  private static int runJvms(Args a) {
    List<RankJvm> jvms = new ArrayList<>();
    java.nio.file.Path secretFile;
    try {
      secretFile = writeSecret();
    } catch (java.io.IOException e) {
      System.err.println("rmarun: cannot write the job secret file: " + e);
      return 1;
    }
    Thread reaper = new Thread(() -> {
      jvms.forEach(j -> j.process.destroyForcibly());
      deleteQuietly(secretFile);
    }, "rmarun-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
    try {
      for (int k = 0; k < a.jvms; k++) {
        int first = (int) ((long) k * a.np / a.jvms);
        int next = (int) ((long) (k + 1) * a.np / a.jvms);
        List<String> cmd = javaCommand(RmaRun.class.getName());
        cmd.addAll(List.of("-np", String.valueOf(a.np), "--job", a.job, "--timeout", String.valueOf(a.timeoutSeconds),
            "--ranks", first + ":" + (next - first), a.program));
        if (a.virtualThreads) {
          cmd.add(cmd.size() - 1, "--virtual-threads");
        }
        cmd.addAll(a.programArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd).inheritIO();
        pb.environment().put(dev.vertxrma.impl.transport.JobSecret.FILE_ENV, secretFile.toString());
        jvms.add(new RankJvm(k, first, next - 1, pb.start()));
      }
    } catch (java.io.IOException e) {
      System.err.println("rmarun: cannot start JVM: " + e);
      jvms.forEach(j -> j.process.destroyForcibly());
      return 1;
    }
    int status = 0;
    List<RankJvm> left = new ArrayList<>(jvms);
    while (!left.isEmpty()) {
      CompletableFuture.anyOf(left.stream().map(j -> j.process.onExit()).toArray(CompletableFuture[]::new)).join();
      for (RankJvm j : new ArrayList<>(left)) {
        if (j.process.isAlive()) {
          continue;
        }
        left.remove(j);
        if (j.process.exitValue() == 0) {
          continue;
        }
        String ending = j.ending();
        if (j.killedHere) {
          // reported when it was killed
        } else if (ending.startsWith("was killed")) {
          System.err.println("rmarun: PROC_FAILED: " + j.describe() + " of job " + a.job + " " + ending);
        } else {
          System.err.println("rmarun: " + j.describe() + " of job " + a.job + " " + ending);
        }
        if (status == 0) {
          status = 1;
          killAfterGrace(left, a.job);
        }
      }
    }
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
    deleteQuietly(secretFile);
    return status;
  }

  /**
   * A fresh secret for the job in a file only this user can read (never on a command line): the
   * JVMs of the job find it through {@code RMA_JOB_SECRET_FILE}.
   */
  private static java.nio.file.Path writeSecret() throws java.io.IOException {
    java.nio.file.Path f = java.nio.file.Files.createTempFile("rmarun-", ".secret",
        java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
            java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
    java.nio.file.Files.writeString(f, dev.vertxrma.impl.transport.JobSecret.random().text());
    return f;
  }

  private static void deleteQuietly(java.nio.file.Path f) {
    try {
      java.nio.file.Files.deleteIfExists(f);
    } catch (java.io.IOException e) {
      // a temp file: the system cleans it up
    }
  }

  private static void killAfterGrace(List<RankJvm> others, String job) {
    List<RankJvm> snapshot = new ArrayList<>(others);
    CompletableFuture.delayedExecutor(GRACE_MS, TimeUnit.MILLISECONDS).execute(() -> {
      for (RankJvm j : snapshot) {
        if (j.process.isAlive()) {
          System.err.println("rmarun: " + j.describe() + " of job " + job + " did not end within " + GRACE_MS
              + " ms of the failure; killed");
          j.killedHere = true;
          j.process.destroyForcibly();
        }
      }
    });
  }
}
