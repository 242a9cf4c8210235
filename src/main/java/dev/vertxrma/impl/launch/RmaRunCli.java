package dev.vertxrma.impl.launch;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * The picocli side of {@code rmarun}'s command line ({@link RmaRunCommand} holds the options):
 * parsing, {@code --help} and {@code --version}. Kept apart because loading it loads picocli's
 * classes, an optional dependency of the library: {@link RmaRun} loads it only when picocli is
 * there.
 */
final class RmaRunCli {

  private RmaRunCli() {
  }

  /**
   * Parses {@code argv} into {@code into}; answers {@code --help} and {@code --version} on
   * {@code out}.
   *
   * @return whether the job is to be run
   * @throws RmaRunCommand.UsageError for an argument picocli refuses
   */
  static boolean parse(RmaRunCommand into, String[] argv, PrintStream out) {
    CommandLine cl = commandLine(into);
    try {
      cl.parseArgs(argv);
    } catch (CommandLine.ParameterException e) {
      throw new RmaRunCommand.UsageError(e.getMessage());
    }
    if (cl.isUsageHelpRequested()) {
      cl.usage(out);
      return false;
    }
    if (cl.isVersionHelpRequested()) {
      cl.printVersionHelp(out);
      return false;
    }
    return true;
  }

  /** The picocli command line of {@code command}, as {@code rmarun} parses it. */
  static CommandLine commandLine(RmaRunCommand command) {
    CommandLine cl = new CommandLine(command);
    // everything after PROGRAM is the program's, options included (e.g. soak --seconds 3)
    cl.setStopAtPositional(true);
    cl.setOverwrittenOptionsAllowed(true);
    cl.getCommandSpec().usageMessage().footer(footer().toArray(new String[0]));
    return cl;
  }

  private static List<String> footer() {
    List<String> f = new ArrayList<>();
    f.add("%nSamples: " + String.join(", ", SampleCatalog.samples(RmaRunCli.class.getClassLoader())));
    f.add("%nExamples:");
    f.add("  rmarun -np 4 twisted");
    f.add("  rmarun -np 4 --jvms 2 --tag-output double-buffer");
    f.add("  rmarun -np 4 --jvms 2 -cp target/classes -x MODE=fast com.example.MyProgram arg1");
    f.add("  rmarun -np 4 --jvms 2 Hello.java                (a source file, compiled in memory)");
    f.add("  rmarun -np 6 --host node1,node2,node3 --tag-output linked-list");
    f.add("  rmarun -np 6 --hostfile hosts --launch print twisted");
    f.add("  rmarun -np 4 --jvms 4 --on-failure continue resilient-heat --die 2 --at 5");
    f.add("%nExit status: 0 when every rank completed; 1 when the job failed (the failing rank's error is on "
        + "stderr; a JVM that died is reported as PROC_FAILED with its ranks); 2 for a usage error. Under "
        + "--on-failure continue, ranks whose JVM was killed by a signal are lost, not failed: 0 when every other "
        + "JVM (at least one) ended on its own with status 0; 1 when one of them failed, or did not end within "
        + "--timeout of the first one's end and was killed.");
    f.add("%nEnvironment: JAVA (the java executable), RMA_JAVA_OPTS (more JVM flags), RMA_JAR (the runnable jar).");
    return f;
  }

  /** {@code --version}: the project version (a resource Maven filters) and the Java running it. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"rmarun (vertx-rma " + RmaRunCommand.version() + ")",
          "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + "), "
              + System.getProperty("java.home")};
    }
  }
}
