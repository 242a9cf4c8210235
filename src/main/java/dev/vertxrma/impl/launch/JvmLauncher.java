package dev.vertxrma.impl.launch;

import dev.vertxrma.FailurePolicy;
import dev.vertxrma.impl.observe.Trace;
import dev.vertxrma.impl.runtime.ClusterSupport;
import dev.vertxrma.impl.runtime.JobRuntime;
import dev.vertxrma.impl.transport.JobSecret;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Starts the JVMs of a job, on this host ({@code rmarun --jvms K}, or one JVM for {@code -x} or
 * {@code --conf}) or on hosts through the launch command, each given its {@link JobDescription}
 * on its standard input, and waits for all of them; or, for {@code --launch print}, prints the
 * command of each.
 *
 * <p>Under {@code --on-failure abort} (the default) the first JVM that fails (a rank failed, or the
 * JVM died) makes the job fail: a JVM killed by a signal is reported as {@code PROC_FAILED} with
 * its ranks, and the others get {@link #GRACE_MS} to end on their own (they normally do, having
 * seen the failure) before they are killed. Under {@code --on-failure continue} a JVM killed by a
 * signal is reported once and the others run to their end ({@link RankJvm#awaitSurvivors}). A JVM
 * on a host gets the job secret on its standard input after its description, and stops when that
 * input closes ({@link LauncherLink}); a JVM of this host finds it in a file only this user can
 * read ({@code RMA_JOB_SECRET_FILE}).
 */
final class JvmLauncher {

  /**
   * How long the other JVMs of a failed job get to end on their own before they are killed: long
   * enough that every survivor has seen the lost JVM and said so (PROC_FAILED) first, whatever
   * found it. A killed JVM is normally found by its closed connections, within 2 s
   * (docs/failure-and-security.md; 0.4-0.8 s measured on one host); where that takes longer (3
   * hosts, the cluster's master the one killed: the survivors must agree on a new master first),
   * the backstop is the missing heartbeat, 4 s counted from the last one, which the tests allow
   * 10 s on loaded cores. 3 s was too short for that: a JVM killed in MultiHostTest once had every
   * survivor killed before any said PROC_FAILED. A survivor that is itself hung is still killed,
   * 10 s after the failure; one that ends on its own ends the job as early as before.
   */
  static final long GRACE_MS = 10_000;
  /** How often the launcher looks whether the JVMs it waits for are stopped (during a grace). */
  static final long STOPPED_POLL_MS = 200;

  private JvmLauncher() {
  }

  /**
   * Under {@code --on-failure continue}: how long the JVMs still running after the first survivor
   * ended on its own get before they are killed: the job's wait limit ({@code --timeout}), at
   * least {@link #GRACE_MS}. Its survivors end together (their finalize is an agreement), but the
   * cluster's master leaves last and, beside other jobs on 2 cores, was seen to need more than
   * 10 s to close Hazelcast; one still running after every wait of the job would have timed out is
   * hung.
   */
  static long endGraceMs(RmaRunCommand a) {
    return Math.max(GRACE_MS, a.timeoutSeconds * 1000);
  }

  /**
   * Starts the JVMs of the job {@code a} describes and waits for all of them.
   *
   * @return the exit status: 0 when every JVM ended well, else 1
   */
  static int run(RmaRunCommand a, PrintStream err) {
    boolean remote = !a.hosts.isEmpty();
    boolean clustered = a.jvmCount > 1 || remote;
    int[] ranksOf = new int[a.jvmCount];
    for (int k = 0; k < a.jvmCount; k++) {
      ranksOf[k] = a.firstRankOf(k + 1) - a.firstRankOf(k);
    }
    int leaderPort = clustered && !remote ? LeaderPort.free(ClusterSupport.host()) : 0;
    ClassDataArchive classData = remote ? null : ClassDataArchive.forClassPath(System.getProperty("java.class.path"),
        a.userClasspath);
    List<RankJvm> jvms = new ArrayList<>();
    JobSecret secret = JobSecret.random();
    Path secretFile = null;
    if (!remote) {
      try {
        secretFile = writeSecret(secret, null);
      } catch (IOException e) {
        err.println("rmarun: cannot write the job secret file: " + e);
        return 1;
      }
    }
    LaunchProgress progress = null;
    if (clustered) {
      try {
        progress = new LaunchProgress(err, Boolean.getBoolean(RmaRunCommand.TTY_PROPERTY), a.quiet, a.np, ranksOf, a.job,
            remote ? a.hosts.stream().map(HostList.Host::address).collect(Collectors.toSet()) : null);
      } catch (IOException e) {
        progress = null; // no progress report, the job runs all the same
      }
    }
    LaunchProgress shown = progress;
    Path secretToDelete = secretFile;
    Thread reaper = new Thread(() -> {
      jvms.forEach(RankJvm::kill);
      if (classData != null) {
        classData.finish(false);
      }
      if (secretToDelete != null) {
        deleteQuietly(secretToDelete);
      }
      if (!remote) {
        JobRuntime.removeSharedMemoryFiles(a.job);
      }
    }, "rmarun-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
    try {
      for (int k = 0; k < a.jvmCount; k++) {
        HostList.Host host = remote ? a.hosts.get(k) : null;
        String progressHost = progress == null || !remote ? null : ChildCommand.progressHost(host.address());
        int progressPort = progress == null || remote && progressHost == null ? -1 : progress.port();
        JobDescription d = ChildCommand.description(a, k, clustered, progressHost, progressPort).setLauncherLink(remote);
        List<String> cmd = ChildCommand.command(a, d, host, classData, leaderPort);
        String input = d.toJson().encode() + "\n";
        ProcessBuilder pb;
        if (remote) {
          pb = new ProcessBuilder("sh", "-c", ChildCommand.launchLine(a.launchHow, host,
              "exec " + ChildCommand.shellLine(a.environment, cmd)));
          pb.environment().remove(JobSecret.FILE_ENV);
          input += secret.text() + "\n";
        } else {
          pb = new ProcessBuilder(cmd);
          pb.environment().putAll(a.environment);
          pb.environment().put(JobSecret.FILE_ENV, secretFile.toString());
        }
        Process p = pb.redirectOutput(ProcessBuilder.Redirect.INHERIT).redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
        RankJvm jvm = new RankJvm(k, d.getFirstRank(), ranksOf[k], p, host);
        jvms.add(jvm);
        jvm.tell(input, remote);
      }
    } catch (IOException e) {
      if (shown != null) {
        shown.close();
      }
      err.println("rmarun: cannot start JVM: " + e);
      jvms.forEach(RankJvm::kill);
      return 1;
    }
    int status = RankJvm.awaitAll(jvms, a.job, a.launchHow, a.failurePolicy, endGraceMs(a), shown,
        !remote && shown != null ? shown::allJoined : () -> true, err);
    if (classData != null) {
      classData.finish(jvms.get(0).process.exitValue() == 0);
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
    if (!remote) {
      JobRuntime.removeSharedMemoryFiles(a.job); // what JVMs killed while making a window or barrier left
    }
    if (a.trace != null) {
      try {
        // normally the last JVM to end has drawn the page; parts left by a JVM that died are drawn here
        if (Trace.renderParts(a.trace, a.job, a.np)) {
          err.println("rmarun: trace of the ranks that reported written to " + a.trace);
        }
      } catch (IOException e) {
        err.println("rmarun: cannot write the trace " + a.trace + ": " + e);
        status = status == 0 ? 1 : status;
      }
    }
    return status;
  }

  /**
   * {@code --launch print}: writes the job secret to {@code NAME.secret} (mode 0600) and prints,
   * for each host, the command that starts its JVM with its description (a shell script:
   * comments start with #).
   */
  static int printCommands(RmaRunCommand a, PrintStream out, PrintStream err) {
    Path secretFile;
    try {
      secretFile = writeSecret(JobSecret.random(), a.printedSecret);
    } catch (IOException e) {
      err.println("rmarun: cannot write the job secret to " + a.printedSecret + ": " + e);
      return 1;
    }
    out.println("# rmarun: job " + a.job + ", " + a.np + " ranks over " + a.jvmCount + " JVMs. Copy the job secret "
        + secretFile + " (mode 0600) to the same path on every host");
    out.println("# (scp -p), run each command on its host, and delete the secret everywhere when the job is done.");
    Map<String, String> environment = new LinkedHashMap<>();
    environment.put(JobSecret.FILE_ENV, secretFile.toString());
    environment.putAll(a.environment);
    for (int k = 0; k < a.jvmCount; k++) {
      HostList.Host host = a.hosts.get(k);
      int first = a.firstRankOf(k);
      int last = a.firstRankOf(k + 1) - 1;
      out.println("# JVM " + k + " on " + host.name() + " (" + host.address() + "): "
          + (first == last ? "rank " + first : "ranks " + first + ".." + last));
      JobDescription d = ChildCommand.description(a, k, true, null, -1);
      out.println(ChildCommand.printedLine(d, environment, ChildCommand.command(a, d, host, null, 0)));
    }
    out.flush();
    return 0;
  }

  /**
   * {@code secret} in a new file only this user can read (a temporary one if {@code path} is
   * null), never on a command line: the JVMs of the job find it through {@code RMA_JOB_SECRET_FILE}.
   */
  private static Path writeSecret(JobSecret secret, Path path) throws IOException {
    java.nio.file.attribute.FileAttribute<?> owner = PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rw-------"));
    Path f = path == null ? Files.createTempFile("rmarun-", ".secret", owner) : Files.createFile(path, owner);
    Files.writeString(f, secret.text() + "\n");
    return f;
  }

  private static void deleteQuietly(Path f) {
    try {
      Files.deleteIfExists(f);
    } catch (IOException e) {
      // a temp file: the system cleans it up
    }
  }

  /** One JVM of a multi-JVM job and the ranks it hosts. */
  private static final class RankJvm {
    final int index;
    final int firstRank;
    final int lastRank;
    final Process process;
    /** The host it runs on (started by the launch command), or null for a JVM of this host. */
    final HostList.Host host;
    /** Its standard input, kept open for a JVM on a host: closing it stops the JVM (null: closed). */
    OutputStream link;
    /** Set when rmarun itself killed it (then its signal is no news). */
    volatile boolean killedHere;

    RankJvm(int index, int firstRank, int count, Process process, HostList.Host host) {
      this.index = index;
      this.firstRank = Math.max(0, firstRank);
      this.lastRank = this.firstRank + count - 1;
      this.process = process;
      this.host = host;
    }

    /**
     * Whether the process is stopped (state {@code T} or {@code t} in {@code /proc/PID/stat}); false
     * where that cannot be read (not Linux, a JVM on another host: its local process is the launch
     * command's).
     */
    boolean stopped() {
      if (host != null) {
        return false;
      }
      try {
        String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
        int end = stat.lastIndexOf(')'); // the command name may hold spaces and parentheses
        char state = end >= 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
        return state == 'T' || state == 't';
      } catch (IOException | RuntimeException e) {
        return false;
      }
    }

    /** Writes {@code input} to its standard input, then closes it unless it stays the link to a JVM on a host. */
    void tell(String input, boolean keepOpen) {
      OutputStream in = process.getOutputStream();
      link = in;
      try {
        in.write(input.getBytes(StandardCharsets.UTF_8));
        in.flush();
      } catch (IOException e) {
        // the JVM (or the launch command) ended at once: its exit is reported
      }
      if (!keepOpen) {
        closeLink();
      }
    }

    String describe() {
      String ranks = firstRank == lastRank ? "rank " + firstRank : "ranks " + firstRank + ".." + lastRank;
      return host == null ? "JVM " + index + " (" + ranks + ", pid " + process.pid() + ")"
          : "JVM " + index + " on " + host.name() + " (" + ranks + ")";
    }

    /** Whether it ended by a signal (a JVM killed by signal N exits with 128 + N), as {@link #ending} says. */
    boolean killedBySignal() {
      return ending(null).startsWith("was killed");
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

    /** Kills it: the process rmarun started, and by closing its standard input the JVM on its host. */
    void kill() {
      closeLink();
      process.destroyForcibly();
    }

    void closeLink() {
      OutputStream l = link;
      if (l != null) {
        try {
          l.close();
        } catch (IOException e) {
          // gone already
        }
      }
    }

    /**
     * Waits until every JVM of {@code jvms} has ended, as {@code policy} says: under
     * {@link FailurePolicy#ABORT} the first failure is reported on {@code err} (after the progress
     * line {@code shown} is ended) and the others are killed {@link #GRACE_MS} after it if they
     * still run, or at once, without a line of their own, if the job had not {@code started}
     * (they wait for the failed one to join); under {@link FailurePolicy#CONTINUE} see
     * {@link #awaitSurvivors}.
     *
     * @param started whether every rank had joined (the job started); unknown counts as started
     * @return under abort 0 when every JVM exited with 0, else 1; under continue as
     *     {@link #awaitSurvivors} says
     */
    static int awaitAll(List<RankJvm> jvms, String job, String launch, FailurePolicy policy, long endGraceMs,
        LaunchProgress shown, java.util.function.BooleanSupplier started, PrintStream err) {
      if (policy == FailurePolicy.CONTINUE) {
        return awaitSurvivors(jvms, job, launch, endGraceMs, shown, err);
      }
      int status = 0;
      List<RankJvm> left = new ArrayList<>(jvms);
      while (!left.isEmpty()) {
        for (RankJvm j : ended(left)) {
          if (j.process.exitValue() == 0) {
            continue;
          }
          if (shown != null) {
            shown.close();
          }
          String ending = j.ending(launch);
          if (j.killedHere) {
            // reported when it was killed
          } else if (j.killedBySignal()) {
            err.println("rmarun: PROC_FAILED: " + j.describe() + " of job " + job + " " + ending);
          } else {
            err.println("rmarun: " + j.describe() + " of job " + job + " " + ending);
          }
          if (status == 0) {
            status = 1;
            if (started.getAsBoolean()) {
              killAfterGrace(left, job, err, GRACE_MS, "of the failure");
            } else {
              // the job never started (not every rank joined) and cannot without this JVM: the
              // others are waiting for it, not ending; stopped at once, the one fault is the line above
              for (RankJvm other : left) {
                other.killedHere = true;
                other.kill();
              }
            }
          }
        }
      }
      return status;
    }

    /**
     * {@code --on-failure continue}: waits until every JVM of {@code jvms} has ended, killing none
     * for another's death. A JVM killed by a signal (from outside: {@code kill -9}, a crash, the
     * OOM killer) lost its ranks, which the job goes on without: it is reported once on
     * {@code err}, {@code rmarun: PROC_FAILED: JVM k (ranks a..b, pid p) of job j was killed by
     * signal 9 (SIGKILL); the job goes on without it (--on-failure continue)}, and does not count
     * in the status. Every other JVM is a survivor. Once one survivor has ended on its own (the
     * job is ending: under continue its ranks' finalize is an agreement of the survivors), those
     * still running get {@code endGraceMs} ({@link JvmLauncher#endGraceMs}) to end and are then
     * killed: a stopped or hung JVM, which its peers removed from the job, would otherwise keep
     * rmarun waiting for ever, and rmarun cannot tell it from a hung survivor, so it counts as a
     * failure.
     *
     * @return 0 when at least one JVM ended on its own and every JVM that did exited with 0
     *     (every survivor succeeded), else 1
     */
    static int awaitSurvivors(List<RankJvm> jvms, String job, String launch, long endGraceMs, LaunchProgress shown,
        PrintStream err) {
      boolean failed = false;
      int succeeded = 0;
      int lost = 0;
      boolean graceStarted = false;
      List<RankJvm> left = new ArrayList<>(jvms);
      while (!left.isEmpty()) {
        for (RankJvm j : ended(left)) {
          if (j.killedHere) {
            failed = true; // reported when it was killed
            continue;
          }
          if (j.killedBySignal()) {
            if (shown != null) {
              shown.close();
            }
            err.println("rmarun: PROC_FAILED: " + j.describe() + " of job " + job + " " + j.ending(launch)
                + "; the job goes on without it (--on-failure continue)");
            lost++;
            continue;
          }
          if (j.process.exitValue() == 0) {
            succeeded++;
          } else {
            if (shown != null) {
              shown.close();
            }
            err.println("rmarun: " + j.describe() + " of job " + job + " " + j.ending(launch));
            failed = true;
          }
          if (!graceStarted) {
            graceStarted = true;
            killAfterGrace(left, job, err, endGraceMs, "of the end of " + j.describe());
          }
        }
      }
      if (lost > 0) {
        err.println("rmarun: job " + job + " lost " + lost + " of " + jvms.size() + " JVMs and went on; "
            + (failed || succeeded == 0 ? "not every survivor succeeded" : "every survivor (" + succeeded
            + ") ended with status 0"));
      }
      return failed || succeeded == 0 ? 1 : 0;
    }

    /**
     * Every {@value #STOPPED_POLL_MS} ms until {@code deadline}: when each JVM of {@code jvms} still
     * alive is stopped, kills them, each with a line saying so.
     */
    private static void watchStopped(List<RankJvm> jvms, String job, PrintStream err, long deadline) {
      CompletableFuture.delayedExecutor(STOPPED_POLL_MS, TimeUnit.MILLISECONDS).execute(() -> {
        List<RankJvm> alive = jvms.stream().filter(j -> j.process.isAlive() && !j.killedHere).toList();
        if (alive.isEmpty() || System.nanoTime() - deadline >= 0) {
          return;
        }
        if (alive.stream().allMatch(RankJvm::stopped)) {
          for (RankJvm j : alive) {
            err.println("rmarun: " + j.describe() + " of job " + job + " is stopped (SIGSTOP, or a debugger) and "
                + "cannot end on its own; killed");
            j.killedHere = true;
            j.kill();
          }
          return;
        }
        watchStopped(jvms, job, err, deadline);
      });
    }

    /** Waits until one JVM of {@code left} has ended; removes those that have from it and returns them. */
    private static List<RankJvm> ended(List<RankJvm> left) {
      CompletableFuture.anyOf(left.stream().map(j -> j.process.onExit()).toArray(CompletableFuture[]::new)).join();
      List<RankJvm> ended = new ArrayList<>();
      for (RankJvm j : new ArrayList<>(left)) {
        if (!j.process.isAlive()) {
          left.remove(j);
          j.closeLink();
          ended.add(j);
        }
      }
      return ended;
    }

    /**
     * Kills the JVMs of {@code others} still running {@code graceMs} from now; before that, at
     * once those that are stopped ({@code SIGSTOP}, a debugger) once every other one has ended:
     * a stopped process cannot end on its own, and nobody is left to see it go.
     */
    private static void killAfterGrace(List<RankJvm> others, String job, PrintStream err, long graceMs, String after) {
      List<RankJvm> snapshot = new ArrayList<>(others);
      watchStopped(snapshot, job, err, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs));
      CompletableFuture.delayedExecutor(graceMs, TimeUnit.MILLISECONDS).execute(() -> {
        for (RankJvm j : snapshot) {
          if (j.process.isAlive() && !j.killedHere) {
            err.println("rmarun: " + j.describe() + " of job " + job + " did not end within " + graceMs
                + " ms " + after + "; killed");
            j.killedHere = true;
            j.kill();
          }
        }
      });
    }
  }
}
