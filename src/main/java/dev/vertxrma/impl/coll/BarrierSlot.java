package dev.vertxrma.impl.coll;

/**
 * One rank's slot of a {@link HostBarrier}: two words in memory every rank of the barrier maps
 * (a window's control page, or a communicator's barrier page), read and written by any thread of
 * any JVM of the host.
 */
public interface BarrierSlot {

  /** The last barrier this rank reached (an acquire load). */
  long arrived();

  /** This rank reached barrier {@code n} (a volatile store: what it wrote before is visible with it). */
  void arrive(long n);

  /** The parked word: n while this rank sleeps in barrier n, -n once a rank wakes it, else 0. */
  long parked();

  /** Compare-and-set of the parked word. */
  boolean casParked(long expect, long update);
}
