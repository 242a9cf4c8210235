package dev.vertxrma;

import java.util.Properties;

/**
 * This JVM's defaults for the options tree: the one place where the library reads its
 * {@code rma.*} system properties (and Vert.x's {@code vertx.hazelcast.config}). A new
 * {@link TransportOptions}, {@link ClusterOptions}, {@link TraceOptions}, {@link CopyOptions} (and
 * so a new {@link JobOptions}) starts from them; the entry points that take no options
 * ({@link Rma#clusteredVertx(String)}, {@link RankVerticle}) make options here. Below this edge
 * the engine takes every value from the options it is handed and reads no system property, so
 * that two jobs in one JVM may differ in any of them. Users set the properties with
 * {@code -D...} (for {@code bin/rmarun}'s JVMs, in {@code RMA_JAVA_OPTS}); the table is in
 * {@code docs/running-jobs.md}.
 */
final class JvmDefaults {

  static final String HOST = "rma.host";
  static final String MEMBERS = "rma.members";
  static final String CLUSTER_PORT = "rma.clusterPort";
  static final String BUS_PORT = "rma.busPort";
  static final String DATA_PORT = "rma.dataPort";
  static final String LEADER = "rma.clusterLeader";
  static final String HAZELCAST_CONFIG = "vertx.hazelcast.config";
  static final String CONF = "rma.conf";
  static final String TLS = "rma.tls";
  static final String BUSY_POLL = "rma.busyPoll";
  /** Whether JVMs of one host share window memory ({@link TransportOptions#isSharedMemory()}). */
  static final String SHARED_MEMORY = "rma.shm";
  static final String TRACE = "rma.trace";
  static final String TRACE_EVENTS = "rma.trace.events";
  static final String COPY_THREADS = "rma.copyThreads";
  static final String NP = "rma.np";

  private static final System.Logger LOG = System.getLogger(JvmDefaults.class.getName());

  private JvmDefaults() {
  }

  /** {@code o} with this JVM's transport settings. */
  static void applyTo(TransportOptions o) {
    Properties p = System.getProperties();
    String host = value(p, HOST);
    if (host != null) {
      o.setHost(host);
    }
    o.setPort(port(p, DATA_PORT, TransportOptions.DEFAULT_PORT));
    o.setTlsDirectory(value(p, TLS));
    o.setProgress(progress(p));
    String shm = value(p, SHARED_MEMORY);
    if (shm != null) {
      if (!shm.equalsIgnoreCase("true") && !shm.equalsIgnoreCase("false")) {
        throw RmaException.of(ErrorClass.ARG, "-D%s=%s: use true or false", SHARED_MEMORY, shm);
      }
      o.setSharedMemory(Boolean.parseBoolean(shm));
    }
    String loop = value(p, DataPlaneLoop.PROPERTY);
    if (loop != null) {
      o.setDataPlaneLoop(java.util.Arrays.stream(DataPlaneLoop.values()).filter(l -> l.name().equalsIgnoreCase(loop))
          .findFirst().orElseThrow(() -> RmaException.of(ErrorClass.ARG, "-D%s=%s names no data-plane loop: use auto, "
              + "rank or own", DataPlaneLoop.PROPERTY, loop)));
    }
  }

  /** {@code o} with this JVM's cluster settings. */
  static void applyTo(ClusterOptions o) {
    Properties p = System.getProperties();
    String host = value(p, HOST);
    if (host != null) {
      o.setHost(host);
    }
    o.setMembers(value(p, MEMBERS));
    o.setClusterPort(port(p, CLUSTER_PORT, ClusterOptions.DEFAULT_CLUSTER_PORT));
    o.setBusPort(port(p, BUS_PORT, ClusterOptions.DEFAULT_BUS_PORT));
    o.setLeader(leader(value(p, LEADER), "-D" + LEADER + "="));
    o.setConfigFile(value(p, HAZELCAST_CONFIG));
    o.setConfigDirectory(value(p, CONF));
  }

  /** {@code o} with this JVM's trace settings. */
  static void applyTo(TraceOptions o) {
    Properties p = System.getProperties();
    o.setFile(p.getProperty(TRACE));
    String events = value(p, TRACE_EVENTS);
    if (events != null) {
      try {
        o.setEventsPerRank(Math.max(TraceOptions.MIN_EVENTS_PER_RANK,
            Math.min(Integer.parseInt(events), TraceOptions.MAX_EVENTS_PER_RANK)));
      } catch (NumberFormatException e) {
        LOG.log(System.Logger.Level.WARNING, "-D" + TRACE_EVENTS + "=" + events + " is not a number; a rank's "
            + "trace keeps " + o.getEventsPerRank() + " events");
      }
    }
  }

  /** {@code o} with this JVM's copy settings. */
  static void applyTo(CopyOptions o) {
    String v = value(System.getProperties(), COPY_THREADS);
    if (v != null) {
      try {
        o.setCopyThreads(Math.max(0, Math.min(Integer.parseInt(v), CopyOptions.MAX_COPY_THREADS)));
      } catch (NumberFormatException e) {
        LOG.log(System.Logger.Level.WARNING, "-D" + COPY_THREADS + "=" + v + " is not a number; the machine "
            + "chooses the number of copy threads");
      }
    }
  }

  /** The environment variable naming the job secret's file. */
  static final String SECRET_FILE_ENV = "RMA_JOB_SECRET_FILE";

  /**
   * The job secret's file this process was given: the environment variable
   * {@value #SECRET_FILE_ENV}, or {@code null} if it is unset or blank. Read here, where a new
   * options object starts from this JVM's defaults; the engine reads the file the options name.
   */
  static String secretFile() {
    String f = System.getenv(SECRET_FILE_ENV);
    return f == null || f.isBlank() ? null : f;
  }

  /**
   * This JVM's failure policy: {@code -Drma.onFailure} ({@code abort} or {@code continue}), else
   * {@link JobOptions#DEFAULT_FAILURE_POLICY}.
   *
   * @throws RmaException ARG when {@code -Drma.onFailure} names no policy
   */
  static FailurePolicy failurePolicy() {
    String v = value(System.getProperties(), FailurePolicy.PROPERTY);
    if (v == null) {
      return JobOptions.DEFAULT_FAILURE_POLICY;
    }
    for (FailurePolicy f : FailurePolicy.values()) {
      if (f.name().equalsIgnoreCase(v)) {
        return f;
      }
    }
    throw RmaException.of(ErrorClass.ARG, "-D%s=%s names no failure policy: use abort or continue",
        FailurePolicy.PROPERTY, v);
  }

  /**
   * This JVM's progress mode: {@code -Drma.progress}, else {@link Progress#BUSY} with
   * {@code -Drma.busyPoll=true} (the older flag), else {@link TransportOptions#DEFAULT_PROGRESS}.
   *
   * @throws RmaException ARG when {@code -Drma.progress} names no mode
   */
  static Progress progress() {
    return progress(System.getProperties());
  }

  private static Progress progress(Properties p) {
    String v = value(p, Progress.PROPERTY);
    if (v == null) {
      return Boolean.parseBoolean(p.getProperty(BUSY_POLL)) ? Progress.BUSY : TransportOptions.DEFAULT_PROGRESS;
    }
    for (Progress mode : Progress.values()) {
      if (mode.name().equalsIgnoreCase(v)) {
        return mode;
      }
    }
    throw RmaException.of(ErrorClass.ARG, "-D%s=%s names no progress mode: use sleep, adaptive or busy",
        Progress.PROPERTY, v);
  }

  /** {@code -Drma.np}, the number of ranks of a {@link RankVerticle} job without {@code np} in its configuration; -1 if unset. */
  static int np() {
    String v = value(System.getProperties(), NP);
    try {
      return v == null ? -1 : Integer.parseInt(v);
    } catch (NumberFormatException e) {
      return -1; // reported as a missing np, naming the value
    }
  }

  /** The property's value, trimmed; {@code null} when unset or blank. */
  private static String value(Properties p, String name) {
    String v = p.getProperty(name);
    return v == null || v.isBlank() ? null : v.trim();
  }

  private static int port(Properties p, String name, int unset) {
    String v = value(p, name);
    if (v == null) {
      return unset;
    }
    try {
      int port = Integer.parseInt(v);
      if (port >= 0 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw RmaException.of(ErrorClass.ARG, "-D%s=%s is not a port number (0-65535)", name, v);
  }

  /** A setter's port: 0-65535. */
  static int port(int port, String what) {
    if (port < 0 || port > 65535) {
      throw RmaException.of(ErrorClass.ARG, "%s %d is not a port number (0-65535)", what, port);
    }
    return port;
  }

  /** A setter's host: not blank, trimmed. */
  static String host(String host, String what) {
    if (host == null || host.isBlank()) {
      throw RmaException.of(ErrorClass.ARG, "%s must not be blank, was '%s'", what, host);
    }
    return host.trim();
  }

  /** A leader, {@code HOST:PORT} ({@code what} comes before it in the error), or {@code null} for none. */
  static String leader(String leader, String what) {
    if (leader == null || leader.isBlank()) {
      return null;
    }
    String l = leader.trim();
    int colon = l.lastIndexOf(':');
    int port = -1;
    try {
      port = colon > 0 ? Integer.parseInt(l.substring(colon + 1)) : -1;
    } catch (NumberFormatException e) {
      // below
    }
    if (port < 1 || port > 65535) {
      throw RmaException.of(ErrorClass.ARG, "%s%s is not HOST:PORT", what, leader);
    }
    return l;
  }
}
