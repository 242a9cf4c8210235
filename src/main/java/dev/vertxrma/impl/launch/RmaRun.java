package dev.vertxrma.impl.launch;

import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.WorldProgram;
import java.io.File;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code mpirun} of vertx-rma, behind {@code bin/rmarun} (its options: {@link RmaRunCommand},
 * or {@code bin/rmarun --help}):
 *
 * <pre>
 * rmarun -np N [--jvms K | --host H1,H2,... | --hostfile FILE] [--launch ssh|print|TEMPLATE]
 *        [--job NAME] [--timeout SECONDS] [-cp PATH] [-x NAME=VALUE]...
 *        [--tag-output] [--conf DIR] [--virtual-threads] [--trace FILE] [--on-failure abort|continue] [-q]
 *        PROGRAM [ARGS...]
 * </pre>
 *
 * PROGRAM is a sample name ({@code twisted}, {@code double-buffer-rx}: class
 * {@code dev.vertxrma.samples.standard.Twisted}, {@code dev.vertxrma.samples.styles.DoubleBufferRx};
 * {@link SampleCatalog}) or the class name of a
 * {@link RankProgram} with a no-argument constructor (one instance per rank), or of a
 * {@link WorldProgram} (one instance per JVM, given the JVM's ranks as a {@code World}), or a
 * source file {@code FILE.java} whose first class is one ({@link SourceProgram}: every JVM of the
 * job compiles it from its absolute path). With one JVM (the default) all ranks run embedded in
 * this JVM ({@link RankRun}; in a JVM of their own when {@code -x} or {@code --conf} asks for
 * another environment or configuration); with {@code --jvms K} the ranks are split over K local
 * JVMs joined by the clustered event bus on loopback; with {@code --host} or {@code --hostfile},
 * over one JVM per host entry, started by ssh (or a command template), each bound to its host's
 * address ({@link JvmLauncher}). Every JVM that rmarun starts runs {@link JobJvm}, told its part
 * of the job by a {@link JobDescription} on its standard input. Every argument is checked before
 * any JVM starts. Without {@code -np}, in a process that {@code mpiexec}, {@code srun} or the
 * Docker entrypoint started, rmarun runs that process's part of the job
 * ({@link ProcessManagerRun}).
 *
 * <p>Exit status: 0 when every rank completed; 1 when the job failed, with the failing rank's
 * error on stderr (a rank failed, or a JVM died: {@code rmarun: PROC_FAILED: JVM k (ranks a..b,
 * pid p) of job j was killed by signal 9 (SIGKILL)}); 2 for a usage error, with a one-line
 * message and no stack trace. Under {@code --on-failure continue} a JVM killed by a signal is
 * reported once and lost, not failed: 0 when every other JVM (at least one) ended on its own with
 * status 0, else 1 ({@code JvmLauncher}).
 */
public final class RmaRun {

  private RmaRun() {
  }

  /** Command-line entry point. */
  public static void main(String[] argv) {
    System.exit(run(argv));
  }

  /**
   * Whether picocli is on the class path. It is an optional dependency of the library, which the
   * runnable jar behind {@code bin/rmarun} holds; {@link RmaRunCli} is only loaded when it is there,
   * since loading it loads picocli's classes. (The JVMs that rmarun and {@code RmaJob} start run
   * {@link JobJvm}, which needs no command-line parser.)
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
    if (!PICOCLI) {
      err.println("rmarun: its command line needs picocli on the class path, which the runnable jar behind "
          + "bin/rmarun has");
      return RmaRunCommand.USAGE;
    }
    RmaRunCommand a = new RmaRunCommand();
    ProcessManagerRun managed;
    try {
      if (!RmaRunCli.parse(a, argv, out)) {
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
    // the same file), or from the process of rank 0 of a job started by a process manager
    if (a.resolved.warnings() != null && (managed == null || managed.rank == 0)) {
      err.print(a.resolved.warnings());
    }
    if (managed != null) {
      // started by mpiexec, srun or the Docker entrypoint: this JVM holds its ranks of the job
      return managed.run(a, err, base -> RankRun.run(a.describe().setRanks(managed.rank, managed.rankCount)
          .setJvmIndex(managed.jvmIndex), a.resolved, base, err));
    }
    if (RmaRunCommand.PRINT.equals(a.launchHow)) {
      return JvmLauncher.printCommands(a, out, err);
    }
    if (a.jvmCount > 1 || !a.hosts.isEmpty() || !a.environment.isEmpty() || JobConf.changed(a.conf)) {
      return JvmLauncher.run(a, err);
    }
    return RankRun.run(a.describe(), a.resolved, new JobOptions(), err);
  }

  /**
   * The command line that starts {@code mainClass} in a new JVM like this one: the same java
   * executable, JVM flags and class path ({@link JobJvm} for a JVM of a job, given its
   * description; this class for a job of its own).
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
}
