package dev.vertxrma.impl.coll;

/**
 * The collective calls whose arguments a rank checks before it takes part, with the number of
 * call numbers ({@link Collectives}' per-communicator sequence) each takes: a rank whose check
 * fails takes the same numbers, so that its next call still matches the others' next call
 * ({@link Collectives#checked}). The vector variants take what their plain call takes.
 */
public enum CollectiveKind {
  /** MPI_Bcast: one call (a binomial tree, or an exchange in shared memory). */
  BCAST(1),
  /** MPI_Gather, MPI_Gatherv. */
  GATHER(1),
  /** MPI_Scatter, MPI_Scatterv. */
  SCATTER(1),
  /** MPI_Allgather, MPI_Allgatherv: a gather and a broadcast. */
  ALLGATHER(2),
  /** MPI_Alltoall, MPI_Alltoallv. */
  ALLTOALL(1),
  /** MPI_Reduce: the reduction and the agreement of a user-defined op. */
  REDUCE(2),
  /** MPI_Allreduce: a reduce, a broadcast and the agreement of a user-defined op. */
  ALLREDUCE(3),
  /** MPI_Reduce_scatter, MPI_Reduce_scatter_block: a reduce, a scatter and the agreement. */
  REDUCE_SCATTER(3),
  /** MPI_Scan, MPI_Exscan: the scan and the agreement. */
  SCAN(2);

  final int calls;

  CollectiveKind(int calls) {
    this.calls = calls;
  }
}
