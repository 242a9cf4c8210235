package dev.vertxrma.impl.runtime;

import com.hazelcast.config.Config;
import dev.vertxrma.ClusterOptions;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import dev.vertxrma.Progress;
import dev.vertxrma.impl.transport.PollingTransport;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.File;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Creates clustered Vert.x instances for jobs: Hazelcast configured as
 * {@link #clusterConfig(ClusterOptions)} says, with the cluster name set to the job's so that
 * concurrent jobs never join each other; the event bus bound to the options' host. Every value
 * comes from the {@link ClusterOptions} it is handed (resolved from the system properties at the
 * API's edge); the names of those properties are here for the launcher, which passes them to the
 * JVMs it starts:
 * <ul>
 * <li>{@value #HOST}: this JVM's address, bound and advertised by the event bus, the data plane
 *     and (through {@code ${rma.host}} in {@code cluster.xml}) Hazelcast; default 127.0.0.1;</li>
 * <li>{@value #MEMBERS}: the job's hosts, comma separated ({@code host} or {@code host:port}),
 *     Hazelcast's TCP-IP members through {@code ${rma.members}}; default: {@value #HOST};</li>
 * <li>{@value #CLUSTER_PORT}: Hazelcast's port through {@code ${rma.clusterPort}} (default
 *     5701; the default {@code cluster.xml} takes the first free one from there);</li>
 * <li>{@value #BUS_PORT}, {@value #DATA_PORT}: the event bus's and the data plane's ports
 *     (default 0: any free port), fixed for containers and firewalls;</li>
 * <li>{@value #LEADER}: {@code host:port} of the job's first JVM, which {@code bin/rmarun} sets for
 *     the JVMs it starts on its own host: that JVM binds exactly that port and forms the cluster at
 *     once, the others join it directly (Hazelcast's required member) instead of searching a port
 *     range and voting on a master, which took about 2 s. Ignored unless the configuration joins
 *     over TCP-IP.</li>
 * </ul>
 */
public final class ClusterSupport {

  /** The library's default configuration (loopback only), under a name no application uses. */
  static final String DEFAULT_CONFIG = "dev/vertxrma/cluster.xml";

  /** System property: this JVM's address (default 127.0.0.1). */
  public static final String HOST = "rma.host";
  /** System property: the job's hosts, Hazelcast's TCP-IP members (default: {@link #HOST}'s value). */
  public static final String MEMBERS = "rma.members";
  /** System property: Hazelcast's port, {@code ${rma.clusterPort}} in {@code cluster.xml} (default 5701). */
  public static final String CLUSTER_PORT = "rma.clusterPort";
  /** System property: the clustered event bus's port (default 0: any free port). */
  public static final String BUS_PORT = "rma.busPort";
  /** System property: the data plane's port (default 0: any free port). */
  public static final String DATA_PORT = "rma.dataPort";

  /** System property: {@code host:port} of the JVM that forms the job's cluster (unset: Hazelcast's search). */
  public static final String LEADER = "rma.clusterLeader";

  /** Hazelcast's property that turns its phone home on or off. */
  static final String PHONE_HOME = "hazelcast.phone.home.enabled";

  private static final String DEFAULT_HOST = "127.0.0.1";
  private static final String DEFAULT_CLUSTER_PORT = "5701";
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  private ClusterSupport() {
  }

  /**
   * A new clustered Vert.x node in cluster {@code clusterName} with {@code base}'s options (a
   * copy; its event-bus host and port are {@code cluster}'s), Hazelcast configured from
   * {@code cluster}, its event loops waiting as {@code progress} says.
   */
  public static Future<Vertx> clusteredVertx(String clusterName, VertxOptions base, ClusterOptions cluster,
      Progress progress) {
    Config config;
    try {
      config = clusterConfig(cluster);
      config.setClusterName(clusterName);
      joinLeader(config, cluster.getLeader(), cluster.getClusterPort());
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
    HazelcastClusterManager manager = new HazelcastClusterManager(config);
    String host = cluster.getHost();
    VertxOptions options = new VertxOptions(base).setPreferNativeTransport(true);
    options.getEventBusOptions().setHost(host).setClusterPublicHost(host).setPort(cluster.getBusPort());
    io.vertx.core.VertxBuilder builder = Vertx.builder().with(options).withClusterManager(manager);
    io.vertx.core.transport.Transport polling = PollingTransport.of(progress);
    if (polling != null) {
      // busy: one polling loop per JVM unless the caller chose a pool size, each keeps a core busy
      if (progress == Progress.BUSY && options.getEventLoopPoolSize() == VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE) {
        options.setEventLoopPoolSize(1);
      }
      builder.withTransport(polling);
    }
    return builder.buildClustered();
  }

  /**
   * Why a clustered Vert.x node could not start, in the words of its cause and without its Java
   * class when it has words ({@code Cannot bind to a given address: /127.0.0.1. Hazelcast cannot
   * start. Port [5706] is already in use …}): the one line a job prints for it.
   */
  public static String startFailure(Throwable cause) {
    String message = cause.getMessage();
    return message == null || message.isBlank() ? cause.toString() : message;
  }

  /**
   * Completes when the node {@code vertx} may leave its cluster without waiting: at once on a
   * node that is not the cluster's master (its oldest member) or not clustered with Hazelcast; on
   * the master, once the other members have handed it their partitions (which a member's
   * graceful shutdown does first) or left, or after {@code maxMs}. For the JVMs of a job that all
   * end together: Hazelcast's graceful shutdown asks the master to take over a leaving member's
   * partitions and checks for the answer once a second, so a member whose master leaves at the
   * same moment waits a whole second for a new master, and a master that leaves while another
   * member's partitions are migrating waits for its next check. The others leaving first and the
   * master last, the job's JVMs are gone about 0.5 s after its end instead of 1 s (the master
   * still waits about 0.3 s for Hazelcast to drop the members that left, after three failed
   * reconnections 100 ms apart). Never fails.
   */
  public static Future<Void> masterLeavesLast(Vertx vertx, long maxMs) {
    if (!vertx.isClustered()
        || !(((io.vertx.core.internal.VertxInternal) vertx).clusterManager() instanceof HazelcastClusterManager)) {
      return Future.succeededFuture();
    }
    com.hazelcast.core.HazelcastInstance hz =
        ((HazelcastClusterManager) ((io.vertx.core.internal.VertxInternal) vertx).clusterManager()).getHazelcastInstance();
    long deadline = System.nanoTime() + maxMs * 1_000_000;
    io.vertx.core.Promise<Void> free = io.vertx.core.Promise.promise();
    checkLast(vertx, hz, true, deadline, free);
    return free.future();
  }

  /** How often {@link #masterLeavesLast} looks at the cluster. */
  private static final long LEAVE_POLL_MS = 10;

  private static void checkLast(Vertx vertx, com.hazelcast.core.HazelcastInstance hz, boolean first, long deadline,
      io.vertx.core.Promise<Void> free) {
    // Hazelcast's calls are not made on an event loop
    vertx.executeBlocking(() -> {
      java.util.Set<com.hazelcast.cluster.Member> members = hz.getCluster().getMembers();
      com.hazelcast.cluster.Member master = members.iterator().next();
      if (members.size() <= 1 || !master.localMember()) {
        return true;
      }
      for (com.hazelcast.partition.Partition p : hz.getPartitionService().getPartitions()) {
        if (p.getOwner() != null && !p.getOwner().localMember()) {
          return false;
        }
      }
      return !first; // on the first look, the others may not have been given partitions yet: look again
    }).onComplete(ar -> {
      if (ar.failed() || ar.result() || System.nanoTime() - deadline >= 0) {
        free.tryComplete();
      } else {
        vertx.setTimer(LEAVE_POLL_MS, id -> checkLast(vertx, hz, false, deadline, free));
      }
    });
  }

  /**
   * Makes {@code config} join the cluster that the JVM at {@code leader} ({@code host:port}, or
   * {@code null}: nothing changes) forms: Hazelcast's required member; the JVM whose
   * {@code clusterPort} (0: not chosen) is the leader's port is the leader itself and binds
   * exactly that port, the others search for a free port as configured. Only a TCP-IP
   * join is changed. {@code leader} comes from {@link ClusterOptions#getLeader()}, which holds only
   * a {@code host:port}.
   */
  static void joinLeader(Config config, String leader, int clusterPort) {
    if (leader == null || leader.isBlank()) {
      return;
    }
    com.hazelcast.config.TcpIpConfig tcp = config.getNetworkConfig().getJoin().getTcpIpConfig();
    if (!tcp.isEnabled()) {
      return;
    }
    String l = leader.trim(); // HOST:PORT, checked by ClusterOptions.setLeader
    int port = Integer.parseInt(l.substring(l.lastIndexOf(':') + 1));
    tcp.setRequiredMember(l);
    if (clusterPort == port) {
      config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
    }
    // the others search from their configured port (5701 by default) upwards, below the leaders'
    // ports (LeaderPort in the launcher), so none takes this job's or another's leader port before it binds
  }

  /**
   * This JVM's address as its cluster options resolve it ({@value #HOST}, default 127.0.0.1), for
   * the launcher, which is an edge of its own: the engine takes the address from the options it
   * is handed.
   */
  public static String host() {
    return new ClusterOptions().getHost();
  }

  /**
   * The properties {@code ${...}} in a {@code cluster.xml} are replaced from: this JVM's system
   * properties (for placeholders of the user's own in the user's file) and {@code network} (which
   * wins: the engine's path gives the cluster options' {@code rma.host}, {@code rma.members} and
   * {@code rma.clusterPort} there, the launcher's the values of the JVM it will start), with
   * {@code rma.host} (as an IP address, for {@code <interface>}), {@code rma.members} and
   * {@code rma.clusterPort} always set (their defaults if unset).
   */
  static Properties configProperties(java.util.Map<String, String> network) {
    Properties p = new Properties();
    p.putAll(System.getProperties());
    p.putAll(network);
    String h = p.getProperty(HOST);
    String host = h == null || h.isBlank() ? DEFAULT_HOST : h.trim();
    p.setProperty(HOST, address(host));
    String members = p.getProperty(MEMBERS);
    p.setProperty(MEMBERS, members == null || members.isBlank() ? host : members.trim());
    String clusterPort = p.getProperty(CLUSTER_PORT);
    p.setProperty(CLUSTER_PORT, clusterPort == null || clusterPort.isBlank() ? DEFAULT_CLUSTER_PORT : clusterPort.trim());
    return p;
  }

  /** {@code host} as an IP address (Hazelcast's interfaces are addresses): resolved if it is a name. */
  private static String address(String host) {
    if (IPV4.matcher(host).matches() || host.indexOf(':') >= 0) {
      return host;
    }
    try {
      return java.net.InetAddress.getByName(host).getHostAddress();
    } catch (java.net.UnknownHostException e) {
      throw RmaException.of(ErrorClass.ARG, "-D%s=%s: unknown host", HOST, host);
    }
  }

  /**
   * The Hazelcast configuration of a job's node, read at each call from the first of: the file
   * {@link ClusterOptions#getConfigFile()} names ({@code -Dvertx.hazelcast.config}, Vert.x's own
   * property); {@code cluster.xml} in {@link ClusterOptions#getConfigDirectory()} ({@code -Drma.conf};
   * {@code bin/rmarun} sets it to its {@code conf/}); the library's loopback default. An
   * application's own {@code cluster.xml} on the class path is never read. Its {@code ${...}} are
   * replaced as {@link #configProperties} says, {@code rma.host}, {@code rma.members} and
   * {@code rma.clusterPort} by the options' values.
   *
   * @throws RmaException {@link ErrorClass#ARG} when the file chosen is missing or malformed
   */
  public static Config clusterConfig(ClusterOptions cluster) {
    java.util.Map<String, String> network = new java.util.HashMap<>();
    network.put(HOST, cluster.getHost());
    network.put(MEMBERS, cluster.getMembers() != null ? cluster.getMembers() : cluster.getHost());
    network.put(CLUSTER_PORT, cluster.getClusterPort() != 0 ? String.valueOf(cluster.getClusterPort())
        : DEFAULT_CLUSTER_PORT);
    return clusterConfig(cluster.getConfigFile(), cluster.getConfigDirectory(), "-Drma.conf", network);
  }

  /**
   * As {@link #clusterConfig()} with the values of {@code -Dvertx.hazelcast.config} and
   * {@code -Drma.conf} given ({@code null} when unset; {@code dirSource} says where {@code dir}
   * came from, for the error): {@code bin/rmarun} checks the configuration its JVMs will read
   * before it starts them.
   */
  static Config clusterConfig(String named, String dir, String dirSource) {
    return clusterConfig(named, dir, dirSource, java.util.Map.of());
  }

  /**
   * As {@link #clusterConfig(String, String, String)}, with {@code network}'s values in place of
   * this JVM's system properties of the same names ({@value #HOST}, {@value #MEMBERS}...): how
   * the file reads in a JVM started with them.
   */
  public static Config clusterConfig(String named, String dir, String dirSource, java.util.Map<String, String> network) {
    if (named != null && !named.isBlank()) {
      return noPhoneHome(load(new File(named.startsWith("file:") ? named.substring(5) : named), "-Dvertx.hazelcast.config", network));
    }
    if (dir != null && !dir.isBlank() && new File(dir, "cluster.xml").isFile()) {
      return noPhoneHome(load(new File(dir, "cluster.xml"), dirSource, network));
    }
    try {
      return noPhoneHome(Config.loadFromClasspath(ClusterSupport.class.getClassLoader(), DEFAULT_CONFIG, configProperties(network)));
    } catch (RmaException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new RmaException(ErrorClass.INTERN, "the library's default cluster configuration " + DEFAULT_CONFIG
          + " cannot be read: " + e.getMessage(), e);
    }
  }

  /**
   * {@code config} with Hazelcast's phone home (usage statistics sent to Hazelcast, on by default)
   * turned off, unless the file or a system property says otherwise: the library reports nothing
   * to anyone, whatever cluster.xml a job is given.
   */
  static Config noPhoneHome(Config config) {
    // Hazelcast's getProperty falls back to the system property of that name
    if (config.getProperty(PHONE_HOME) == null) {
      config.setProperty(PHONE_HOME, "false");
    }
    return config;
  }

  /** The file {@link #clusterConfig(String, String, String)} reads, for messages. */
  public static String configFile(String named, String dir) {
    if (named != null && !named.isBlank()) {
      return named.startsWith("file:") ? named.substring(5) : named;
    }
    if (dir != null && !dir.isBlank() && new File(dir, "cluster.xml").isFile()) {
      return new File(dir, "cluster.xml").getPath();
    }
    return "(the library's default, " + DEFAULT_CONFIG + ")";
  }

  private static Config load(File file, String source, java.util.Map<String, String> network) {
    if (!file.isFile()) {
      throw RmaException.of(ErrorClass.ARG, "cluster configuration %s (from %s) does not exist", file, source);
    }
    Properties properties = configProperties(network);
    try {
      return Config.loadFromFile(file, properties);
    } catch (Exception e) {
      throw new RmaException(ErrorClass.ARG, "cluster configuration " + file + " (from " + source
          + ") is not a valid Hazelcast configuration: " + e.getMessage(), e);
    }
  }
}
