package dev.vertxrma;

/**
 * How the JVMs of a job reach each other: the data plane that carries RMA and point-to-point
 * frames between JVMs (its address, port and TLS), and how the event loops of the clustered Vert.x
 * node that {@link Rma#run(JobOptions, RankProgram)} (and {@code rmarun}) start for the job wait
 * for the network ({@link Progress}). Part of {@link JobOptions}
 * ({@link JobOptions#getTransportOptions()}); a job whose ranks all live in one JVM uses none of
 * it. Fluent setters in the Vert.x options style.
 *
 * <p>A new instance holds this JVM's defaults: each {@code DEFAULT_*} value, replaced by its
 * system property when that is set ({@code -Drma.host}, {@code -Drma.dataPort}, {@code -Drma.tls},
 * {@code -Drma.progress}). The properties are read when the options are made and nowhere below:
 * the engine takes every value from the options, so that two jobs in one JVM may differ.
 */
public class TransportOptions {

  /** The data plane's address when {@code -Drma.host} is not set: loopback. */
  public static final String DEFAULT_HOST = "127.0.0.1";
  /** The data plane's port when {@code -Drma.dataPort} is not set: 0, any free port. */
  public static final int DEFAULT_PORT = 0;
  /** The data plane's TLS directory when {@code -Drma.tls} is not set: none. */
  public static final String DEFAULT_TLS_DIRECTORY = null;
  /** How the event loops wait when neither {@code -Drma.progress} nor {@code -Drma.busyPoll} is set. */
  public static final Progress DEFAULT_PROGRESS = Progress.ADAPTIVE;
  /**
   * Whether JVMs of one host share window memory when {@code -Drma.shm} is not set: yes (the
   * on-node path; {@code false} sends every operation between JVMs over the data plane, as
   * MPICH's {@code MPIR_CVAR_NOLOCAL}).
   */
  public static final boolean DEFAULT_SHARED_MEMORY = true;
  /** Which loop runs the data plane when {@code -Drma.planeLoop} is not set: {@link DataPlaneLoop#AUTO}. */
  public static final DataPlaneLoop DEFAULT_DATA_PLANE_LOOP = DataPlaneLoop.AUTO;

  private String host = DEFAULT_HOST;
  private int port = DEFAULT_PORT;
  private String tlsDirectory = DEFAULT_TLS_DIRECTORY;
  private Progress progress = DEFAULT_PROGRESS;
  private boolean sharedMemory = DEFAULT_SHARED_MEMORY;
  private DataPlaneLoop dataPlaneLoop = DEFAULT_DATA_PLANE_LOOP;

  /**
   * This JVM's defaults: the {@code DEFAULT_*} values, each replaced by its system property when
   * that is set.
   *
   * @throws RmaException {@link ErrorClass#ARG} when {@code -Drma.dataPort} is not a port number or
   *     {@code -Drma.progress} names no mode
   */
  public TransportOptions() {
    JvmDefaults.applyTo(this);
  }

  /**
   * A copy of {@code other}, every setting included (no system property is read).
   *
   * @param other the options to copy
   */
  public TransportOptions(TransportOptions other) {
    this.host = other.host;
    this.port = other.port;
    this.tlsDirectory = other.tlsDirectory;
    this.progress = other.progress;
    this.sharedMemory = other.sharedMemory;
    this.dataPlaneLoop = other.dataPlaneLoop;
  }

  /**
   * The address this JVM's data plane binds and advertises to the job's other JVMs.
   *
   * @return a host name or address; {@code -Drma.host}, else {@link #DEFAULT_HOST}
   */
  public String getHost() {
    return host;
  }

  /**
   * Sets the data plane's address (on a machine with several networks, the one the job's other
   * JVMs reach; the same as the cluster's, {@link ClusterOptions#setHost}, as a rule).
   *
   * @param host a host name or address, not blank
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} for a {@code null} or blank host
   */
  public TransportOptions setHost(String host) {
    this.host = JvmDefaults.host(host, "data-plane host");
    return this;
  }

  /**
   * The port this JVM's data plane listens on.
   *
   * @return the port, 0 for any free one; {@code -Drma.dataPort}, else {@link #DEFAULT_PORT}
   */
  public int getPort() {
    return port;
  }

  /**
   * Sets the data plane's port, fixed for containers and firewalls.
   *
   * @param port 0 (any free port) to 65535
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} outside 0-65535
   */
  public TransportOptions setPort(int port) {
    this.port = JvmDefaults.port(port, "data-plane port");
    return this;
  }

  /**
   * The directory of the data plane's mutual TLS ({@code ca.pem}, {@code node.p12},
   * {@code password}, as {@code bin/rmatls} writes them), or {@code null}: then the data plane
   * uses TLS only if the {@code tls/} directory of the cluster's configuration directory
   * ({@link ClusterOptions#getConfigDirectory()}) holds that material, else plain TCP (every
   * connection still proves the job's secret).
   *
   * @return the directory; {@code -Drma.tls}, else {@code null}
   */
  public String getTlsDirectory() {
    return tlsDirectory;
  }

  /**
   * Runs every data-plane connection of the job over mutual TLS with the material in
   * {@code directory}; a job whose directory lacks a file fails to start with
   * {@link ErrorClass#ARG}, naming it.
   *
   * @param directory the directory, or {@code null} or empty for none
   * @return these options
   */
  public TransportOptions setTlsDirectory(String directory) {
    this.tlsDirectory = directory == null || directory.isBlank() ? null : directory;
    return this;
  }

  /**
   * How the event loops of the job's clustered Vert.x node wait for the network.
   *
   * @return the mode; {@code -Drma.progress} ({@code -Drma.busyPoll=true}: {@link Progress#BUSY}),
   *     else {@link #DEFAULT_PROGRESS}
   */
  public Progress getProgress() {
    return progress;
  }

  /**
   * Chooses how the event loops of the clustered Vert.x node that {@link Rma#run(JobOptions,
   * RankProgram)} (and {@code rmarun}) start for the job wait for the network. A job that runs on
   * a Vert.x instance of yours takes that instance's (see
   * {@link Rma#clusteredVertx(String, io.vertx.core.VertxOptions, Progress)}).
   *
   * @param progress the mode, or {@code null} for this JVM's default ({@link Progress#jvmDefault()})
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} when {@code progress} is {@code null} and
   *     {@code -Drma.progress} names no mode
   */
  public TransportOptions setProgress(Progress progress) {
    this.progress = progress != null ? progress : Progress.jvmDefault();
    return this;
  }

  /**
   * Whether ranks in different JVMs of one host reach each other's {@code allocate} windows
   * through shared memory (the on-node path): the window memory of such a rank lives in a file of
   * the user's segment directory ({@code /dev/shm}) that the host's other JVMs map, and their
   * operations on it are applied by the origin, without a message. Windows over the caller's
   * memory ({@code create}, dynamic windows) always use the data plane.
   *
   * @return {@code -Drma.shm}, else {@link #DEFAULT_SHARED_MEMORY}
   */
  public boolean isSharedMemory() {
    return sharedMemory;
  }

  /**
   * Turns the on-node path on or off ({@code false}: every operation between JVMs crosses the data
   * plane, so it can be measured and tested on one machine).
   *
   * @param sharedMemory whether JVMs of one host share window memory
   * @return these options
   */
  public TransportOptions setSharedMemory(boolean sharedMemory) {
    this.sharedMemory = sharedMemory;
    return this;
  }

  /**
   * Which event loop runs this JVM's data plane ({@link DataPlaneLoop}).
   *
   * @return {@code -Drma.planeLoop}, else {@link #DEFAULT_DATA_PLANE_LOOP}
   */
  public DataPlaneLoop getDataPlaneLoop() {
    return dataPlaneLoop;
  }

  /**
   * Chooses the event loop of this JVM's data plane.
   *
   * @param dataPlaneLoop the choice, not {@code null}
   * @return these options
   */
  public TransportOptions setDataPlaneLoop(DataPlaneLoop dataPlaneLoop) {
    this.dataPlaneLoop = java.util.Objects.requireNonNull(dataPlaneLoop, "dataPlaneLoop");
    return this;
  }
}
