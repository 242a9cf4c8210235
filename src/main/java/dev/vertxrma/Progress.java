package dev.vertxrma;

/**
 * How the event loops of a clustered Vert.x node wait for the network: what MPI calls the
 * progress engine. A round trip between JVMs costs two thread wake-ups when the loops sleep in
 * {@code epoll_wait} (tens of microseconds each on a virtual machine); a loop that polls instead
 * sees the reply as soon as it lands. Chosen per node, when it starts
 * ({@link JobOptions#setProgress}, {@link Rma#clusteredVertx(String, io.vertx.core.VertxOptions,
 * Progress)}); the system property {@code -Drma.progress=sleep|adaptive|busy} sets the default of
 * the JVM.
 *
 * <p>The polling modes need Netty's native epoll transport (Linux). Its jars are optional
 * dependencies of the library: a project that wants polling adds
 * {@code io.netty:netty-transport-native-epoll} with the classifier of its platform
 * ({@code linux-x86_64}, {@code linux-aarch_64}). Where epoll does not load (those jars absent,
 * macOS, Windows) a clustered node runs on the transport Vert.x chooses (NIO) and every mode
 * behaves as {@link #SLEEP}: an idle loop sleeps in {@code select}, and each round trip between
 * JVMs pays the wake-ups. Nothing fails; the JVM says so once in its log (DEBUG for
 * {@link #ADAPTIVE}, INFO for {@link #BUSY}).
 */
public enum Progress {

  /** The loops sleep in {@code epoll_wait} whenever they have nothing to do (Vert.x's own behaviour). */
  SLEEP,

  /**
   * The default: a loop that has just run a task or handled a frame polls its sockets instead of
   * sleeping, for a short while (about 200 µs, yielding the processor between polls to any thread
   * that has work), then sleeps until woken. Round trips that follow each other, as an MPI program's
   * do, then find the loops awake, while a job that waits on nothing sleeps: an idle JVM spends
   * next to nothing of a core on it.
   */
  ADAPTIVE,

  /**
   * The loops never sleep, as MPICH's progress engine polls: the lowest latency, at the price of
   * one core per event loop busy all the time (one event loop per node unless its
   * {@code VertxOptions} choose a pool size). For jobs that own their cores.
   */
  BUSY;

  /** The system property that sets the default of a JVM. */
  public static final String PROPERTY = "rma.progress";

  /**
   * This JVM's default: {@code -Drma.progress} ({@code sleep}, {@code adaptive} or {@code busy}),
   * else {@code BUSY} if {@code -Drma.busyPoll=true} (the older flag), else {@link #ADAPTIVE}
   * ({@link TransportOptions#DEFAULT_PROGRESS}). A new {@link TransportOptions} starts from it.
   *
   * @return the default mode
   * @throws RmaException {@link ErrorClass#ARG} when {@code -Drma.progress} names no mode
   */
  public static Progress jvmDefault() {
    return JvmDefaults.progress();
  }
}
