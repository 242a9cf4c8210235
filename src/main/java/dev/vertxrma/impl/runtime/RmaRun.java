package dev.vertxrma.impl.runtime;

import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
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
 * {@link RankProgram} with a no-argument constructor (one instance per rank). With one JVM (the
 * default) all ranks run embedded in this JVM; with {@code --jvms K} the ranks are split over K
 * local JVMs joined by the clustered event bus on loopback. Exit status 0 only when every rank
 * completed; otherwise 1 (2 for a usage error) with the failing rank's error on stderr.
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
    String program;
    List<String> programArgs = new ArrayList<>();
  }

  static int run(String[] argv) {
    Args a;
    try {
      a = parse(argv);
    } catch (IllegalArgumentException e) {
      System.err.println("rmarun: " + e.getMessage());
      System.err.println("usage: rmarun -np N [--jvms K] [--job NAME] [--timeout SECONDS] PROGRAM [ARGS...]");
      return 2;
    }
    RankProgram program;
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

  static RankProgram resolve(String program) {
    String name = className(program);
    Class<?> c;
    try {
      c = Class.forName(name);
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("no program '" + program + "' (looked for class " + name + ")");
    }
    if (!RankProgram.class.isAssignableFrom(c)) {
      throw new IllegalArgumentException(name + " does not implement " + RankProgram.class.getName());
    }
    try {
      c.getConstructor();
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(name + " needs a public no-argument constructor");
    }
    return (world, args) -> {
      try {
        return ((RankProgram) c.getConstructor().newInstance()).run(world, args);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot instantiate " + name + ": " + e, e);
      }
    };
  }

  private static int runRanks(Args a, RankProgram program, boolean clustered) {
    JobOptions options = new JobOptions().setNp(a.np).setJobName(a.job).setArgs(a.programArgs)
        .setWaitTimeoutMs(a.timeoutSeconds * 1000).setStartupTimeoutMs(Math.max(60, a.timeoutSeconds) * 1000L)
        .setClustered(clustered);
    if (clustered) {
      options.setLocalRanks(a.firstRank, a.rankCount);
    }
    try {
      Rma.run(options, program).toCompletionStage().toCompletableFuture()
          .get(a.timeoutSeconds * 2 + 120, TimeUnit.SECONDS);
      return 0;
    } catch (java.util.concurrent.ExecutionException e) {
      System.err.println("rmarun: job " + a.job + " failed: " + e.getCause().getMessage());
      return 1;
    } catch (Exception e) {
      System.err.println("rmarun: job " + a.job + " failed: " + e);
      return 1;
    }
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

  private static int runJvms(Args a) {
    List<Process> procs = new ArrayList<>();
    try {
      for (int k = 0; k < a.jvms; k++) {
        int first = (int) ((long) k * a.np / a.jvms);
        int next = (int) ((long) (k + 1) * a.np / a.jvms);
        List<String> cmd = javaCommand(RmaRun.class.getName());
        cmd.addAll(List.of("-np", String.valueOf(a.np), "--job", a.job, "--timeout", String.valueOf(a.timeoutSeconds),
            "--ranks", first + ":" + (next - first), a.program));
        cmd.addAll(a.programArgs);
        procs.add(new ProcessBuilder(cmd).inheritIO().start());
      }
    } catch (java.io.IOException e) {
      System.err.println("rmarun: cannot start JVM: " + e);
      procs.forEach(Process::destroyForcibly);
      return 1;
    }
    // the first JVM that fails ends the others after a grace period (they normally abort on their own)
    CompletableFuture<?>[] exits = procs.stream().map(Process::onExit).toArray(CompletableFuture[]::new);
    int status = 0;
    List<Process> left = new ArrayList<>(procs);
    while (!left.isEmpty()) {
      CompletableFuture.anyOf(left.stream().map(Process::onExit).toArray(CompletableFuture[]::new)).join();
      for (Process p : new ArrayList<>(left)) {
        if (!p.isAlive()) {
          left.remove(p);
          if (p.exitValue() != 0 && status == 0) {
            status = p.exitValue();
            scheduleKill(left);
          }
        }
      }
    }
    CompletableFuture.allOf(exits).join();
    return status;
  }

  private static void scheduleKill(List<Process> others) {
    List<Process> snapshot = new ArrayList<>(others);
    CompletableFuture.delayedExecutor(20, TimeUnit.SECONDS).execute(() -> snapshot.forEach(Process::destroyForcibly));
  }
}
