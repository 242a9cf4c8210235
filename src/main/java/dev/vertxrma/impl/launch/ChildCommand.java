package dev.vertxrma.impl.launch;

import dev.vertxrma.impl.runtime.ClusterSupport;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What {@code rmarun} gives each JVM it starts: its {@link JobDescription} and its command line
 * ({@code java [FLAGS] -cp CLASSPATH dev.vertxrma.impl.launch.JobJvm - LABEL}, the description on
 * standard input), and that command line as a shell line for a launch template or for
 * {@code --launch print}.
 */
final class ChildCommand {

  private static final Pattern PLAIN_WORD = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

  private ChildCommand() {
  }

  /**
   * The description of JVM {@code k} of the job: its ranks when the job is spread over JVMs
   * ({@code clustered}; else every rank, embedded), and where it reports its startup.
   *
   * @param progressHost the launcher's address as seen from the JVM (null: loopback)
   * @param progressPort the launcher's progress port, or -1 for no report
   */
  static JobDescription description(RmaRunCommand a, int k, boolean clustered, String progressHost, int progressPort) {
    JobDescription d = a.describe();
    if (clustered) {
      d.setRanks(a.firstRankOf(k), a.firstRankOf(k + 1) - a.firstRankOf(k)).setJvmIndex(k);
      if (progressPort > 0) {
        d.setProgress(progressHost, progressPort);
      }
    }
    return d;
  }

  /**
   * The words after the main class: where the description is ({@code -}, standard input) and a
   * label that names the job and the JVM's ranks for {@code ps} (the JVM does not read it).
   */
  static List<String> arguments(JobDescription d) {
    String ranks = d.isClustered() ? d.getFirstRank() + ".." + (d.getFirstRank() + d.getRankCount() - 1)
        : "0.." + (d.getNp() - 1);
    return List.of("-", "job=" + d.getJob() + ",jvm=" + d.getJvmIndex() + ",ranks=" + ranks);
  }

  /** Hazelcast's system property that turns the XML schema check of its configuration on or off. */
  static final String SCHEMA_VALIDATION = "hazelcast.config.schema.validation.enabled";

  /**
   * The command line of JVM {@code k} of the job: this JVM's java and flags, with {@code --conf}'s
   * configuration in place of this JVM's, the user's {@code -cp} after this JVM's class path; on
   * a host, its address and the job's members ({@code -Drma.host}, {@code -Drma.members}) in place
   * of any this JVM has; on this host, the class-data archive's flags, the cluster's leader and
   * no second check of the cluster configuration against Hazelcast's schema.
   *
   * @param host its host, or null for a JVM of this host
   * @param classData the class-data archive of this host's JVMs, or null
   * @param leaderPort the Hazelcast port of JVM 0 of a job over this host's JVMs, or 0
   */
  static List<String> command(RmaRunCommand a, JobDescription d, HostList.Host host, ClassDataArchive classData,
      int leaderPort) {
    Path conf = a.conf;
    Path logging = conf == null ? null : conf.resolve("logging.properties");
    boolean ownLogging = logging != null && Files.isRegularFile(logging);
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (ClassDataArchive.isArchiveFlag(arg)
          || conf != null && arg.startsWith("-Drma.conf=")
          || ownLogging && arg.startsWith("-Djava.util.logging.config.file=")
          || arg.startsWith("-D" + QuietLogFilter.VERBOSE + "=")
          || host != null && (arg.startsWith("-D" + ClusterSupport.HOST + "=")
              || arg.startsWith("-D" + ClusterSupport.MEMBERS + "="))) {
        continue;
      }
      cmd.add(arg);
    }
    if (conf != null) {
      cmd.addAll(jvmOptions(conf.resolve("jvm.options")));
      cmd.add("-Drma.conf=" + conf);
      if (ownLogging) {
        cmd.add("-Djava.util.logging.config.file=" + logging);
      }
    }
    if (a.verbose) {
      cmd.add("-D" + QuietLogFilter.VERBOSE + "=true");
    }
    if (host != null) {
      cmd.add("-D" + ClusterSupport.HOST + "=" + host.address());
      cmd.add("-D" + ClusterSupport.MEMBERS + "=" + HostList.members(a.hosts));
    } else {
      if (classData != null) {
        cmd.addAll(classData.flags(d.getJvmIndex()));
      }
      if (d.isClustered()) {
        // the launcher has just checked this host's cluster.xml, the one they read, against
        // Hazelcast's schema (JobConf.checkCluster): its JVMs skip that check, 0.3-0.4 s of CPU each
        cmd.add("-D" + SCHEMA_VALIDATION + "=false");
      }
      if (d.isClustered() && leaderPort > 0) {
        // the JVMs of this host form their cluster around the first one (ClusterSupport.LEADER)
        cmd.add("-D" + ClusterSupport.LEADER + "=" + ClusterSupport.host() + ":" + leaderPort);
        if (d.getJvmIndex() == 0) {
          cmd.add("-D" + ClusterSupport.CLUSTER_PORT + "=" + leaderPort);
        }
      }
    }
    cmd.add("-cp");
    String cp = System.getProperty("java.class.path");
    cmd.add(a.userClasspath.isEmpty() ? cp : cp + File.pathSeparator + ProgramLoader.classpathText(a.userClasspath));
    cmd.add(JobJvm.class.getName());
    cmd.addAll(arguments(d));
    return cmd;
  }

  /** The flags of a {@code jvm.options} file (one a line, {@code #} comments), none if it is missing. */
  private static List<String> jvmOptions(Path file) {
    List<String> flags = new ArrayList<>();
    if (!Files.isRegularFile(file)) {
      return flags;
    }
    try {
      for (String line : Files.readAllLines(file)) {
        String t = line.trim();
        if (!t.isEmpty() && !t.startsWith("#")) {
          flags.add(t);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return flags;
  }

  /**
   * The address a JVM on the host at {@code address} reports its startup to: this machine's
   * address on the way to it (the route the kernel would take; no packet is sent); null if there
   * is none.
   */
  static String progressHost(String address) {
    try (DatagramSocket probe = new DatagramSocket()) {
      probe.connect(InetAddress.getByName(address), 9);
      InetAddress local = probe.getLocalAddress();
      return local == null || local.isAnyLocalAddress() ? null : local.getHostAddress();
    } catch (IOException | SecurityException e) {
      return null;
    }
  }

  /**
   * The line {@code sh -c} runs to start a JVM on {@code host}: the launch template with
   * {@code {host}}, {@code {address}} and {@code {command}} replaced by shell words (the command
   * line appended as {@code {command}} if the template does not place it).
   */
  static String launchLine(String template, HostList.Host host, String command) {
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
  static String shellLine(Map<String, String> environment, List<String> cmd) {
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

  /**
   * A shell line that starts {@code cmd} with {@code d} on its standard input:
   * {@code printf '%s\n' DESCRIPTION | env ... java ...}, for {@code --launch print}.
   */
  static String printedLine(JobDescription d, Map<String, String> environment, List<String> cmd) {
    return "printf '%s\\n' " + shellWord(d.toJson().encode()) + " | " + shellLine(environment, cmd);
  }

  /** {@code s} as one word of a POSIX shell: as it is when that is safe, else in single quotes. */
  static String shellWord(String s) {
    if (PLAIN_WORD.matcher(s).matches()) {
      return s;
    }
    return "'" + s.replace("'", "'\\''") + "'";
  }
}
