package dev.vertxrma;

/**
 * How {@link Comm#splitType} partitions a communicator: MPI_Comm_split_type's {@code split_type}.
 */
public enum SplitType {
  /**
   * MPI_COMM_TYPE_SHARED: the ranks that can create a shared-memory window together
   * ({@link Win#allocateShared}), that is, whose JVMs share a memory segment directory
   * ({@code /dev/shm} on Linux). Found by proof — a file one rank writes and the others read —
   * not by host names, so JVMs in containers or namespaces with directories of their own are
   * different hosts.
   */
  SHARED
}
