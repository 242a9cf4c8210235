package dev.vertxrma.impl.observe;

/**
 * The synchronization calls of a window as the observers see them, with what each means for the
 * epochs: which epoch it opens (the timeline's bars, the {@code rma.epochs} counter) and which
 * meter times it.
 */
public enum Sync {
  /** MPI_Win_fence that opens the next epoch. */
  FENCE("fence", "fence", Meter.SYNC),
  /** MPI_Win_fence with NOSUCCEED: closes the epoch, opens none. */
  FENCE_END("fence", null, Meter.SYNC),
  /** MPI_Win_post: opens an exposure epoch. */
  POST("post", "exposure", Meter.SYNC),
  /** MPI_Win_start: opens an access epoch (completes when the targets have posted). */
  START("start", "access", Meter.SYNC),
  /** MPI_Win_complete: closes the access epoch. */
  COMPLETE("complete", null, Meter.SYNC),
  /** MPI_Win_wait: closes the exposure epoch. */
  WAIT("wait", null, Meter.SYNC),
  /** MPI_Win_lock(SHARED): completes when granted. */
  LOCK_SHARED("lock_shared", "lock", Meter.LOCK_WAIT),
  /** MPI_Win_lock(EXCLUSIVE): completes when granted. */
  LOCK_EXCLUSIVE("lock_exclusive", "lock", Meter.LOCK_WAIT),
  /** MPI_Win_unlock. */
  UNLOCK("unlock", null, Meter.SYNC),
  /** MPI_Win_lock_all: completes when every rank granted its shared lock. */
  LOCK_ALL("lock_all", "lock_all", Meter.LOCK_WAIT),
  /** MPI_Win_unlock_all. */
  UNLOCK_ALL("unlock_all", null, Meter.SYNC),
  /** MPI_Win_flush (and flush_local) of one target. */
  FLUSH("flush", null, Meter.FLUSH),
  /** MPI_Win_flush_all (and flush_local_all). */
  FLUSH_ALL("flush_all", null, Meter.FLUSH);

  /** Which timer measures a synchronization call. */
  public enum Meter {
    /** {@code rma.sync}: epoch synchronization (fence, PSCW, unlock). */
    SYNC,
    /** {@code rma.lock.wait}: from the lock call to the grant. */
    LOCK_WAIT,
    /** {@code rma.flush}. */
    FLUSH
  }

  private final String label;
  private final String opens;
  private final Meter meter;

  Sync(String label, String opens, Meter meter) {
    this.label = label;
    this.opens = opens;
    this.meter = meter;
  }

  /** The name in metrics tags and on the timeline ({@code fence}, {@code lock_shared}, ...). */
  public String label() {
    return label;
  }

  /** The kind of epoch this call opens ({@code fence}, {@code access}, {@code exposure}, {@code lock}, {@code lock_all}), or {@code null}. */
  public String opens() {
    return opens;
  }

  /** The timer of this call. */
  public Meter meter() {
    return meter;
  }

  /** Whether it is lock or lockAll (its duration is a lock wait). */
  public boolean isLock() {
    return meter == Meter.LOCK_WAIT;
  }
}
