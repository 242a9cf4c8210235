package dev.vertxrma.impl.win;

import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.transport.Frame;
import io.vertx.core.Future;

/**
 * What a rank's {@link WindowRegistry} needs of a window it holds: its identity, where its frames
 * go, and its end. {@link WinImpl} implements it, so the registry does not depend on the facade.
 */
interface RegisteredWindow {

  /** The window id, agreed by its communicator. */
  int id();

  /** The window's name (MPI_Win_get_name). */
  String name();

  /** The window's flavor. */
  Win.Flavor flavor();

  /** Its target side, for a same-JVM origin's fast path. */
  TargetWindow targetWindow();

  /** An incoming RMA or synchronization frame for this window, on the rank's context or an origin's thread. */
  void onFrame(Frame f);

  /** The job failed: pending synchronizations fail with {@code cause}. */
  void fail(RmaException cause);

  /**
   * Ranks of the job died while the job goes on (ULFM): what waits on them in this window fails
   * with {@code cause}, locks they held here are given up.
   *
   * @param jobRanks the job ranks that died
   */
  void peersFailed(int[] jobRanks, RmaException cause);

  /**
   * A communicator of the rank was revoked: if it is this window's, a barrier of its collectives
   * waiting in memory fails (one waiting on messages fails through the point-to-point engine).
   */
  void recheck();

  /** Releases the window's memory at once (the rank ends with the window not freed). */
  Future<Void> releaseNow();
}
