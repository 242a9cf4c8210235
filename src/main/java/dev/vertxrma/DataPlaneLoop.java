package dev.vertxrma;

/**
 * Which event loop runs a JVM's data plane (its connections to the job's other JVMs, and the
 * operations that arrive on them and are applied at once). Chosen per job part
 * ({@link TransportOptions#setDataPlaneLoop}); the system property
 * {@code -Drma.planeLoop=auto|rank|own} sets the default of the JVM.
 *
 * <p>The trade: on a loop of its own, a rank whose program holds its thread (a long computation in
 * a callback) delays no operation another JVM aims at its windows, and none aimed at another
 * rank's; on the loop of the JVM's only rank, frames between that rank and the network change no
 * thread, which is faster when the host has no core to spare for a second polling loop (measured
 * on 2 cores, 2 JVMs over TCP: fetch-and-op, put and barrier round trips 1.3 to 3 times slower on a
 * loop of its own).
 */
public enum DataPlaneLoop {

  /**
   * The default: a loop of its own, unless the JVM hosts a single rank and has fewer than
   * {@link #OWN_LOOP_MIN_PROCESSORS} processors, where it shares that rank's loop.
   */
  AUTO,

  /**
   * The loop of the JVM's rank when it hosts exactly one (several ranks, or a count not known when
   * the part starts, as under the Vert.x launchers: a loop of its own, so no rank delays another's
   * operations).
   */
  RANK,

  /** Always a loop of its own. */
  OWN;

  /** The system property that sets the default of a JVM. */
  public static final String PROPERTY = "rma.planeLoop";

  /**
   * The processors ({@code Runtime.availableProcessors()}, which follows a container's limit) from
   * which {@link #AUTO} gives a one-rank JVM's data plane a loop of its own: with one rank per JVM
   * and two JVMs per host, a loop each for the rank and the plane keeps up to four threads polling
   * while traffic flows (the adaptive progress of {@link Progress#ADAPTIVE}); below four
   * processors they would take turns on the cores, which costs more than the thread hand-over saves.
   */
  public static final int OWN_LOOP_MIN_PROCESSORS = 4;

  /**
   * Whether the data plane shares a rank's loop under this choice.
   *
   * @param localRanks the ranks the JVM hosts in the job, or -1 when not known
   * @param processors the processors available to the JVM
   * @return {@code true} when the plane runs on the loop of the JVM's only rank
   */
  public boolean sharesRankLoop(int localRanks, int processors) {
    return switch (this) {
      case OWN -> false;
      case RANK -> localRanks == 1;
      case AUTO -> localRanks == 1 && processors < OWN_LOOP_MIN_PROCESSORS;
    };
  }
}
