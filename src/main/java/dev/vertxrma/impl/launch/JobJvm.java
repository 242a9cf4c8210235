package dev.vertxrma.impl.launch;

import dev.vertxrma.JobOptions;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.runtime.StartupProgress;
import dev.vertxrma.impl.transport.JobSecret;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The main class of a JVM that {@code rmarun} starts for a job over JVMs or hosts (and that
 * {@code dev.vertxrma.junit.RmaJob} starts): it runs the ranks its {@link JobDescription} gives it.
 *
 * <pre>
 * java [FLAGS] -cp CLASSPATH dev.vertxrma.impl.launch.JobJvm FILE|- [LABEL]
 * </pre>
 *
 * FILE holds the description; {@code -} reads it from the first line of standard input. LABEL,
 * which {@code rmarun} adds, names the job and the JVM's ranks for {@code ps} and is not read.
 * The command line has no other options: people use {@code rmarun} ({@link RmaRun}), and
 * everything a JVM of a job is told is in its description.
 *
 * <p>Exit status: 0 when every rank of this JVM completed; 1 when one failed (or the JVM could not
 * run them: no secret, a program it cannot load), said on stderr and in the description's report
 * file; 2 for a description that cannot be read or is not valid, in one line on stderr
 * ({@code rmarun: bad job description (-): field 'np' must be an integer, got "four"}).
 */
public final class JobJvm {

  /** The longest description read from standard input (its program's arguments included). */
  private static final int MAX_DESCRIPTION = 1 << 20;

  private JobJvm() {
  }

  /** Runs the ranks of the description {@code argv[0]} names, then exits with its status. */
  public static void main(String[] argv) {
    System.exit(run(argv, System.in, System.err));
  }

  /**
   * Runs the ranks of the description {@code argv[0]} names ({@code -}: the first line of
   * {@code in}); the failure of the description or of the ranks is said on {@code err}.
   *
   * @return the exit status
   */
  static int run(String[] argv, InputStream in, PrintStream err) {
    if (argv.length < 1 || argv.length > 2) {
      err.println("rmarun: a JVM of a job takes one argument, its job description: FILE, or - for standard input "
          + "(people start jobs with bin/rmarun)");
      return RmaRunCommand.USAGE;
    }
    boolean stdin = argv[0].equals("-");
    String where = stdin ? "standard input" : argv[0];
    JobDescription d;
    try {
      d = JobDescription.fromJson(stdin ? LauncherLink.readLine(in, MAX_DESCRIPTION, "the job description")
          : Files.readString(Path.of(argv[0]), StandardCharsets.UTF_8));
      if (d.isLauncherLink() && !stdin) {
        throw new JobDescription.Invalid("field 'launcherLink' is for a description on standard input, which the "
            + "secret follows");
      }
    } catch (IOException | RuntimeException e) {
      String why = e instanceof JobDescription.Invalid ? e.getMessage() : "cannot be read: " + e.getMessage();
      err.println("rmarun: bad job description (" + where + "): " + why);
      return RmaRunCommand.USAGE;
    }
    String secret = null;
    if (d.isLauncherLink()) {
      try {
        secret = LauncherLink.readSecret(in);
        JobSecret.parse(secret);
      } catch (IOException | RmaException e) {
        err.println("rmarun: JVM " + d.getJvmIndex() + " of job " + d.getJob() + " has no job secret on its standard "
            + "input: " + e.getMessage());
        return 1;
      }
      LauncherLink.stopWhenClosed(in, d.getJob(), d.getJvmIndex(), err);
    }
    ProgramLoader.Program program;
    try {
      program = ProgramLoader.described(d.getProgram());
    } catch (RmaRunCommand.UsageError e) {
      if (e.details != null) {
        err.print(e.details);
      }
      err.println("rmarun: " + d.describeJvm() + " of job " + d.getJob() + ": " + e.getMessage());
      return 1;
    }
    if (d.getProgressPort() > 0 && d.isClustered()) {
      StartupProgress.reportTo(d.getProgressHost(), d.getProgressPort(), d.getJvmIndex(), d.getJob());
    }
    try {
      // this JVM's options start from its defaults (its -D flags, RMA_JOB_SECRET_FILE): its edge
      JobOptions base = new JobOptions();
      if (secret != null) {
        base.setSecret(secret);
      }
      return RankRun.run(d, program, base, err);
    } finally {
      StartupProgress.stopReporting();
    }
  }
}
