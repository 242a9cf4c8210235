package dev.vertxrma.junit;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.JobOptions;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.launch.ClassDataArchive;
import dev.vertxrma.impl.launch.FailureReport;
import dev.vertxrma.impl.launch.JobDescription;
import dev.vertxrma.impl.launch.JobJvm;
import dev.vertxrma.impl.launch.RmaRun;
import dev.vertxrma.impl.transport.JobSecret;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * One job split over new JVMs, as {@code bin/rmarun --jvms K} starts them (the same java, JVM
 * flags and class path as this JVM, each running {@link JobJvm} with a {@link JobDescription} of
 * its ranks in a file, the secret in a file only this user can read), with each JVM's output in a
 * file and its failure reported in another. {@value #CLASS_PATH} and {@value #JAVA_OPTIONS} give
 * them another class path and more flags; a class path of one jar gets the launcher's class-data
 * archive beside it ({@link ClassDataArchive}), as {@code bin/rmarun}'s JVMs do.
 * The job's failure is the first one a JVM reported that is not the echo of another's (an abort,
 * a JVM gone).
 */
final class JvmJob {

  /** The system property naming the class path of the JVMs, instead of this JVM's. */
  static final String CLASS_PATH = "rma.junit.classPath";
  /** The system property holding more flags for the JVMs, after this JVM's own (split at spaces). */
  static final String JAVA_OPTIONS = "rma.junit.javaOptions";
  /** How long the other JVMs get to end on their own after one failed, before they are killed. */
  private static final long GRACE_MS = 10_000;
  /** Lines of a JVM's output quoted when it ended without reporting a failure. */
  private static final int TAIL_LINES = 30;

  private final JobOptions options;
  private final int jvms;
  private final String programClass;
  private final long timeoutSeconds;

  JvmJob(JobOptions options, int jvms, String programClass, long timeoutSeconds) {
    this.options = options;
    this.jvms = jvms;
    this.programClass = programClass;
    this.timeoutSeconds = timeoutSeconds;
  }

  private static final class Jvm {
    final int index;
    final int first;
    final int count;
    final Path report;
    final Path log;
    final Path description;
    Process process;

    Jvm(int index, int first, int count, Path dir) {
      this.index = index;
      this.first = first;
      this.count = count;
      this.report = dir.resolve("jvm" + index + ".report");
      this.log = dir.resolve("jvm" + index + ".log");
      this.description = dir.resolve("jvm" + index + ".json");
    }

    String describe() {
      String ranks = count == 1 ? "rank " + first : "ranks " + first + ".." + (first + count - 1);
      return "JVM " + index + " (" + ranks + (process == null ? "" : ", pid " + process.pid()) + ")";
    }
  }

  void run() {
    Path dir;
    try {
      dir = Files.createTempDirectory("rmatest-", PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rwx------")));
    } catch (IOException e) {
      throw new RmaException(ErrorClass.INTERN, "cannot make a directory for job " + options.getJobName() + ": " + e, e);
    }
    List<Jvm> started = new ArrayList<>();
    String classPath = System.getProperty(CLASS_PATH, "");
    if (classPath.isBlank()) {
      classPath = System.getProperty("java.class.path");
    }
    ClassDataArchive classData = ClassDataArchive.forClassPath(classPath);
    boolean wroteWell = false;
    try {
      Path secret = dir.resolve("secret");
      Files.createFile(secret, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
          java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"))); // a secret file others can read is refused
      Files.writeString(secret, options.getSecret() != null ? options.getSecret() : JobSecret.random().text());
      int np = options.getNp();
      for (int k = 0; k < jvms; k++) {
        int first = (int) ((long) k * np / jvms);
        int next = (int) ((long) (k + 1) * np / jvms);
        Jvm j = new Jvm(k, first, next - first, dir);
        ProcessBuilder pb = new ProcessBuilder(command(j, classPath, classData)).redirectErrorStream(true)
            .redirectOutput(j.log.toFile());
        pb.environment().put(JobSecret.FILE_ENV, secret.toString());
        j.process = pb.start();
        started.add(j);
      }
      waitFor(started);
      wroteWell = started.get(0).process.exitValue() == 0;
      RmaException failure = failure(started);
      if (failure != null) {
        throw failure;
      }
    } catch (IOException e) {
      throw new RmaException(ErrorClass.INTERN, "cannot start the JVMs of job " + options.getJobName() + ": " + e, e);
    } finally {
      for (Jvm j : started) {
        j.process.destroyForcibly();
      }
      if (classData != null) {
        classData.finish(wroteWell);
      }
      deleteAll(dir);
    }
  }

  private List<String> command(Jvm j, String classPath, ClassDataArchive classData) throws IOException {
    JobDescription d = new JobDescription(options.getJobName(), options.getNp(), programClass)
        .setArgs(options.getArgs()).setRanks(j.first, j.count).setJvmIndex(j.index)
        // a cluster of new JVMs gets at least a minute to form, as under bin/rmarun
        .setTimeouts(options.getWaitTimeoutMs(), Math.max(60_000, options.getStartupTimeoutMs()))
        .setRequireFreedWindows(options.isRequireFreedWindows()).setVirtualThreads(options.isVirtualThreads())
        .setReport(j.report.toString());
    Files.writeString(j.description, d.toJson().encode(), StandardCharsets.UTF_8);
    List<String> cmd = new ArrayList<>();
    for (String s : RmaRun.javaCommand(JobJvm.class.getName())) {
      // a debugger agent of this JVM would make the new ones fail on its port
      if (!s.startsWith("-agentlib:jdwp") && !s.startsWith("-Xrunjdwp") && !ClassDataArchive.isArchiveFlag(s)) {
        cmd.add(s);
      }
    }
    int cp = cmd.indexOf("-cp");
    cmd.set(cp + 1, classPath);
    List<String> flags = new ArrayList<>();
    for (String f : System.getProperty(JAVA_OPTIONS, "").trim().split("\\s+")) {
      if (!f.isEmpty()) {
        flags.add(f);
      }
    }
    if (classData != null) {
      flags.addAll(classData.flags(j.index));
    }
    cmd.addAll(cp, flags);
    cmd.add(j.description.toString());
    return cmd;
  }

  /**
   * Waits until every JVM has ended: the others get {@link #GRACE_MS} once one failed, and all
   * are killed at the job's time limit.
   */
  private void waitFor(List<Jvm> all) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    boolean failed = false;
    List<Jvm> left = new ArrayList<>(all);
    while (!left.isEmpty()) {
      long wait = deadline - System.nanoTime();
      try {
        CompletableFuture.anyOf(left.stream().map(j -> j.process.onExit()).toArray(CompletableFuture[]::new))
            .get(Math.max(0, wait), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        if (failed) {
          // one failed and the others did not end within the grace: kill them, report the failure
          for (Jvm j : left) {
            j.process.destroyForcibly();
            j.process.onExit().join();
          }
          return;
        }
        StringBuilder sb = new StringBuilder("job " + options.getJobName() + " did not end within " + timeoutSeconds
            + " s (@RmaTest(timeoutSeconds))");
        for (Jvm j : left) {
          j.process.destroyForcibly();
          sb.append("\n").append(j.describe()).append(" was still running; its last output:").append(tail(j));
        }
        throw new RmaException(ErrorClass.TIMEOUT, sb.toString());
      } catch (ExecutionException e) {
        throw new RmaException(ErrorClass.INTERN, "waiting for the JVMs of job " + options.getJobName() + ": " + e, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RmaException(ErrorClass.OTHER, "interrupted while waiting for job " + options.getJobName(), e);
      }
      for (Jvm j : new ArrayList<>(left)) {
        if (!j.process.isAlive()) {
          left.remove(j);
          if (j.process.exitValue() != 0 && !failed) {
            failed = true;
            deadline = Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GRACE_MS));
          }
        }
      }
    }
  }

  /** The job's failure, or {@code null} if every JVM exited with 0. */
  private RmaException failure(List<Jvm> all) {
    List<RmaException> reported = new ArrayList<>();
    for (Jvm j : all) {
      if (j.process.exitValue() == 0) {
        continue;
      }
      RmaException r = reported(j);
      if (r != null) {
        reported.add(r);
      }
    }
    // a rank's own failure first; then one JVM seeing another go (it may have gone on purpose,
    // having failed), then another rank's abort echoed
    for (ErrorClass echo : new ErrorClass[] {null, ErrorClass.PROC_FAILED, ErrorClass.COMM}) {
      for (RmaException r : reported) {
        if (echo == null ? r.errorClass() != ErrorClass.PROC_FAILED && r.errorClass() != ErrorClass.COMM
            : r.errorClass() == echo) {
          return r;
        }
      }
    }
    for (Jvm j : all) {
      if (j.process.exitValue() != 0) {
        return new RmaException(ErrorClass.PROC_FAILED, j.describe() + " of job " + options.getJobName()
            + " exited with status " + j.process.exitValue() + " without reporting a failure; its last output:"
            + tail(j));
      }
    }
    return null;
  }

  /** The failure {@code j} reported, with its stack trace as cause, or {@code null}. */
  private RmaException reported(Jvm j) {
    if (!Files.isRegularFile(j.report)) {
      return null;
    }
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(j.report, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException e) {
      return null;
    }
    ErrorClass ec;
    try {
      ec = ErrorClass.valueOf(p.getProperty(FailureReport.ERROR_CLASS, "OTHER"));
    } catch (IllegalArgumentException e) {
      ec = ErrorClass.OTHER;
    }
    RemoteFailure trace = new RemoteFailure(j.describe() + " of job " + options.getJobName()
        + " reported it with this stack trace:\n" + p.getProperty(FailureReport.TRACE, ""));
    return new RmaException(ec, p.getProperty(FailureReport.MESSAGE, "(no message)"), trace);
  }

  private static String tail(Jvm j) {
    try {
      List<String> lines = Files.readAllLines(j.log, StandardCharsets.UTF_8);
      StringBuilder sb = new StringBuilder();
      for (String s : lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size())) {
        sb.append("\n    ").append(s);
      }
      return sb.length() == 0 ? " (none)" : sb.toString();
    } catch (IOException | RuntimeException e) {
      return " (unreadable: " + e + ")";
    }
  }

  private static void deleteAll(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a temporary directory: the system cleans it up
    }
  }

  /** A failure in another JVM: its stack trace as text, no stack trace of its own. */
  static final class RemoteFailure extends Exception {
    private static final long serialVersionUID = 1L;

    RemoteFailure(String message) {
      super(message, null, false, false);
    }
  }
}
