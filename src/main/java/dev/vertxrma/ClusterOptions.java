package dev.vertxrma;

/**
 * How a JVM joins its job's cluster, the control plane of a job over JVMs (Hazelcast under the
 * clustered Vert.x event bus): its address, the job's hosts, the ports and the Hazelcast
 * configuration. Used where a clustered Vert.x node is made for a job:
 * {@link Rma#run(JobOptions, RankProgram)} with {@link JobOptions#isClustered()} (and
 * {@code rmarun}), and {@link Rma#clusteredVertx(String, io.vertx.core.VertxOptions, ClusterOptions,
 * Progress)}. Part of {@link JobOptions} ({@link JobOptions#getClusterOptions()}). Fluent setters
 * in the Vert.x options style.
 *
 * <p>A new instance holds this JVM's defaults: each {@code DEFAULT_*} value, replaced by its
 * system property when that is set ({@code -Drma.host}, {@code -Drma.members},
 * {@code -Drma.clusterPort}, {@code -Drma.busPort}, {@code -Drma.clusterLeader},
 * {@code -Dvertx.hazelcast.config}, {@code -Drma.conf}). The properties are read when the options
 * are made and nowhere below.
 *
 * <p>The Hazelcast configuration is read when a node starts, from the first of:
 * {@link #getConfigFile()}; {@code cluster.xml} in {@link #getConfigDirectory()}; the library's
 * own (TCP-IP on loopback, multicast off). Its {@code ${rma.host}}, {@code ${rma.members}} and
 * {@code ${rma.clusterPort}} are replaced by these options' values, any other {@code ${...}} by
 * the JVM's system property of that name.
 */
public class ClusterOptions {

  /** This JVM's address when {@code -Drma.host} is not set: loopback. */
  public static final String DEFAULT_HOST = "127.0.0.1";
  /** The job's hosts when {@code -Drma.members} is not set: none given, the node's own host. */
  public static final String DEFAULT_MEMBERS = null;
  /**
   * Hazelcast's port when {@code -Drma.clusterPort} is not set: 0, not chosen ({@code ${rma.clusterPort}}
   * reads 5701, from where the library's {@code cluster.xml} takes the first free port).
   */
  public static final int DEFAULT_CLUSTER_PORT = 0;
  /** The clustered event bus's port when {@code -Drma.busPort} is not set: 0, any free port. */
  public static final int DEFAULT_BUS_PORT = 0;
  /** The job's leader when {@code -Drma.clusterLeader} is not set: none, Hazelcast's own search. */
  public static final String DEFAULT_LEADER = null;
  /** The Hazelcast configuration file when {@code -Dvertx.hazelcast.config} is not set: none. */
  public static final String DEFAULT_CONFIG_FILE = null;
  /** The configuration directory when {@code -Drma.conf} is not set: none. */
  public static final String DEFAULT_CONFIG_DIRECTORY = null;

  private String host = DEFAULT_HOST;
  private String members = DEFAULT_MEMBERS;
  private int clusterPort = DEFAULT_CLUSTER_PORT;
  private int busPort = DEFAULT_BUS_PORT;
  private String leader = DEFAULT_LEADER;
  private String configFile = DEFAULT_CONFIG_FILE;
  private String configDirectory = DEFAULT_CONFIG_DIRECTORY;

  /**
   * This JVM's defaults: the {@code DEFAULT_*} values, each replaced by its system property when
   * that is set.
   *
   * @throws RmaException {@link ErrorClass#ARG} when {@code -Drma.clusterPort} or
   *     {@code -Drma.busPort} is not a port number, or {@code -Drma.clusterLeader} is not
   *     {@code HOST:PORT}
   */
  public ClusterOptions() {
    JvmDefaults.applyTo(this);
  }

  /**
   * A copy of {@code other}, every setting included (no system property is read).
   *
   * @param other the options to copy
   */
  public ClusterOptions(ClusterOptions other) {
    this.host = other.host;
    this.members = other.members;
    this.clusterPort = other.clusterPort;
    this.busPort = other.busPort;
    this.leader = other.leader;
    this.configFile = other.configFile;
    this.configDirectory = other.configDirectory;
  }

  /**
   * This JVM's address: Hazelcast ({@code ${rma.host}}, as an IP address) and the clustered event
   * bus bind and advertise it.
   *
   * @return a host name or address; {@code -Drma.host}, else {@link #DEFAULT_HOST}
   */
  public String getHost() {
    return host;
  }

  /**
   * Sets this JVM's address in the cluster.
   *
   * @param host a host name or address, not blank; a name that does not resolve fails the node's
   *     start with {@link ErrorClass#ARG}
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} for a {@code null} or blank host
   */
  public ClusterOptions setHost(String host) {
    this.host = JvmDefaults.host(host, "cluster host");
    return this;
  }

  /**
   * The job's hosts, Hazelcast's TCP-IP members ({@code ${rma.members}}).
   *
   * @return comma separated {@code HOST} or {@code HOST:PORT}; {@code -Drma.members}, else
   *     {@code null}: the node's own {@link #getHost() host}
   */
  public String getMembers() {
    return members;
  }

  /**
   * Sets the job's hosts.
   *
   * @param members comma separated {@code HOST} or {@code HOST:PORT}, or {@code null} or empty
   *     for the node's own host
   * @return these options
   */
  public ClusterOptions setMembers(String members) {
    this.members = members == null || members.isBlank() ? null : members.trim();
    return this;
  }

  /**
   * Hazelcast's port, {@code ${rma.clusterPort}} in the configuration.
   *
   * @return the port, or 0 when not chosen (the configuration reads 5701); {@code -Drma.clusterPort},
   *     else {@link #DEFAULT_CLUSTER_PORT}
   */
  public int getClusterPort() {
    return clusterPort;
  }

  /**
   * Sets Hazelcast's port. With a {@link #setLeader leader} whose port it is, this node is the
   * leader and binds exactly that port.
   *
   * @param port 1-65535, or 0 for not chosen
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} outside 0-65535
   */
  public ClusterOptions setClusterPort(int port) {
    this.clusterPort = JvmDefaults.port(port, "cluster port");
    return this;
  }

  /**
   * The clustered event bus's port.
   *
   * @return the port, 0 for any free one; {@code -Drma.busPort}, else {@link #DEFAULT_BUS_PORT}
   */
  public int getBusPort() {
    return busPort;
  }

  /**
   * Sets the clustered event bus's port, fixed for containers and firewalls.
   *
   * @param port 0 (any free port) to 65535
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} outside 0-65535
   */
  public ClusterOptions setBusPort(int port) {
    this.busPort = JvmDefaults.port(port, "event-bus port");
    return this;
  }

  /**
   * {@code HOST:PORT} of the JVM that forms the job's cluster: the others join it directly as
   * Hazelcast's required member instead of searching a port range and voting on a master (about
   * 2 s); {@code bin/rmarun} sets it for the JVMs it starts. Ignored unless the configuration
   * joins over TCP-IP.
   *
   * @return the leader; {@code -Drma.clusterLeader}, else {@code null}
   */
  public String getLeader() {
    return leader;
  }

  /**
   * Sets the job's leader.
   *
   * @param leader {@code HOST:PORT}, or {@code null} or empty for none
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} when it is not {@code HOST:PORT}
   */
  public ClusterOptions setLeader(String leader) {
    this.leader = JvmDefaults.leader(leader, "cluster leader ");
    return this;
  }

  /**
   * The Hazelcast configuration file (XML), which wins over {@link #getConfigDirectory()}.
   *
   * @return the file (a path, or a {@code file:} URL); {@code -Dvertx.hazelcast.config} (Vert.x's
   *     own property), else {@code null}
   */
  public String getConfigFile() {
    return configFile;
  }

  /**
   * Sets the Hazelcast configuration file; a missing or invalid file fails the node's start with
   * {@link ErrorClass#ARG}, naming it.
   *
   * @param file the file, or {@code null} or empty for none
   * @return these options
   */
  public ClusterOptions setConfigFile(String file) {
    this.configFile = file == null || file.isBlank() ? null : file;
    return this;
  }

  /**
   * The configuration directory ({@code bin/rmarun} points it at its {@code conf/}, or at
   * {@code --conf DIR}): its {@code cluster.xml} is the Hazelcast configuration unless
   * {@link #getConfigFile()} names one, and its {@code tls/} the data plane's TLS material unless
   * {@link TransportOptions#getTlsDirectory()} names a directory.
   *
   * @return the directory; {@code -Drma.conf}, else {@code null}
   */
  public String getConfigDirectory() {
    return configDirectory;
  }

  /**
   * Sets the configuration directory.
   *
   * @param directory the directory, or {@code null} or empty for none
   * @return these options
   */
  public ClusterOptions setConfigDirectory(String directory) {
    this.configDirectory = directory == null || directory.isBlank() ? null : directory;
    return this;
  }
}
