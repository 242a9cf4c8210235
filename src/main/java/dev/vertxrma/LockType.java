package dev.vertxrma;

/** The kind of a passive-target lock (MPI_LOCK_EXCLUSIVE, MPI_LOCK_SHARED). */
public enum LockType {
  /** No other lock on the target window may be held at the same time (MPI_LOCK_EXCLUSIVE). */
  EXCLUSIVE,
  /** Other shared locks may be held at the same time (MPI_LOCK_SHARED). */
  SHARED
}
