package dev.vertxrma.impl.launch;

import dev.vertxrma.RmaException;
import dev.vertxrma.impl.runtime.ClusterSupport;
import dev.vertxrma.impl.transport.DataPlaneTls;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The configuration directory of a job's JVMs ({@code rmarun --conf DIR}, else the one rmarun
 * was started with, {@code -Drma.conf}): checked before any JVM starts, {@code cluster.xml} (a
 * valid Hazelcast configuration that can join the job's hosts) and {@code tls/} included.
 */
final class JobConf {

  private JobConf() {
  }

  /**
   * {@code --conf conf}, checked: a directory holding at least one of the files a JVM of a job
   * reads, with usable TLS material if it has {@code tls/}.
   *
   * @return the directory, absolute
   * @throws RmaRunCommand.UsageError saying what is wrong
   */
  static Path checked(Path conf) {
    if (!Files.isDirectory(conf)) {
      throw new RmaRunCommand.UsageError("--conf " + conf + " is not a directory");
    }
    if (Stream.of("cluster.xml", "jvm.options", "logging.properties").noneMatch(f -> Files.isRegularFile(conf.resolve(f)))
        && !Files.isDirectory(conf.resolve("tls"))) {
      throw new RmaRunCommand.UsageError("--conf " + conf + " holds none of cluster.xml, jvm.options, logging.properties, "
          + "tls/");
    }
    try {
      DataPlaneTls.of(conf.resolve("tls"), false);
    } catch (RmaException e) {
      throw new RmaRunCommand.UsageError("--conf " + conf + ": " + e.getMessage().replaceFirst("^ARG: ", ""));
    }
    return conf.toAbsolutePath().normalize();
  }

  /** The configuration directory of the job's JVMs: {@code conf} (--conf), else the one rmarun was started with. */
  static String dir(Path conf) {
    return conf != null ? conf.toString() : System.getProperty("rma.conf");
  }

  /** Whether {@code conf} (--conf) names another directory than the one this JVM was started with. */
  static boolean changed(Path conf) {
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

  /**
   * A clustered job: its {@code cluster.xml} must be a valid Hazelcast configuration before any
   * JVM starts, and for a job on {@code hosts} (none: this host) one that does not keep the
   * cluster on loopback.
   *
   * @throws RmaRunCommand.UsageError saying what is wrong, in one line
   */
  static void checkCluster(Path conf, List<HostList.Host> hosts) {
    // Hazelcast logs a malformed file at length and its XML parser prints to stderr: quiet while
    // checking, the one-line error says it all (nothing else runs in this JVM yet)
    // (the console handler takes System.err when made: make it now, with the real one)
    Logger.getLogger("").getHandlers();
    Logger hazelcast = Logger.getLogger("com.hazelcast");
    Level level = hazelcast.getLevel();
    PrintStream err = System.err;
    String named = System.getProperty("vertx.hazelcast.config");
    String source = conf != null ? "--conf" : "conf/";
    Map<String, String> network = new LinkedHashMap<>();
    if (!hosts.isEmpty()) {
      network.put(ClusterSupport.HOST, hosts.get(0).address());
      network.put(ClusterSupport.MEMBERS, HostList.members(hosts));
    }
    com.hazelcast.config.Config config;
    try {
      hazelcast.setLevel(Level.OFF);
      System.setErr(new PrintStream(OutputStream.nullOutputStream()));
      config = ClusterSupport.clusterConfig(named, dir(conf), source, network);
    } catch (RmaException e) {
      String m = firstLine(RmaRunCommand.stripClass(e));
      // a schema error lists every element Hazelcast knows: the start says what and where
      throw new RmaRunCommand.UsageError(m.length() > 400 ? m.substring(0, 400) + "..." : m);
    } finally {
      System.setErr(err);
      hazelcast.setLevel(level);
    }
    if (!hosts.isEmpty() && !HostList.isLoopback(hosts.get(0).address())) {
      // a configuration that keeps the cluster on loopback cannot join hosts: say so now, not after a timeout
      String file = ClusterSupport.configFile(named, dir(conf));
      com.hazelcast.config.TcpIpConfig tcp = config.getNetworkConfig().getJoin().getTcpIpConfig();
      if (tcp.isEnabled() && !tcp.getMembers().isEmpty() && tcp.getMembers().stream().allMatch(JobConf::loopbackMember)) {
        throw new RmaRunCommand.UsageError("cluster configuration " + file + " lists only loopback members "
            + tcp.getMembers() + " for a job on hosts: list the hosts with <members>${rma.members}</members>, as "
            + "conf/cluster.xml does");
      }
      com.hazelcast.config.InterfacesConfig interfaces = config.getNetworkConfig().getInterfaces();
      if (interfaces.isEnabled() && !interfaces.getInterfaces().isEmpty()
          && interfaces.getInterfaces().stream().allMatch(i -> i.startsWith("127."))) {
        throw new RmaRunCommand.UsageError("cluster configuration " + file + " binds Hazelcast to loopback "
            + interfaces.getInterfaces() + " for a job on hosts: use <interface>${rma.host}</interface>, as "
            + "conf/cluster.xml does");
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

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).trim();
  }
}
