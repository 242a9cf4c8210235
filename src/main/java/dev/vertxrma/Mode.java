package dev.vertxrma;

/**
 * Assertions of the synchronization calls (MPI_MODE_*): promises the caller makes so the library
 * can skip work. A wrong promise is erroneous; where it can be detected the call fails with
 * {@link ErrorClass#RMA_SYNC}.
 */
public enum Mode {
  /** start/post/lock: the matching calls have already completed, no handshake is needed (MPI_MODE_NOCHECK). */
  NOCHECK(1),
  /** fence/post: the local window was not updated by local stores since the last synchronization (MPI_MODE_NOSTORE). */
  NOSTORE(2),
  /** fence/post: the local window will not be updated by put or accumulate until the next synchronization (MPI_MODE_NOPUT). */
  NOPUT(4),
  /** fence: the fence completes no sequence of RMA calls; must be given by all ranks or none (MPI_MODE_NOPRECEDE). */
  NOPRECEDE(8),
  /** fence: the fence starts no sequence of RMA calls; must be given by all ranks or none (MPI_MODE_NOSUCCEED). */
  NOSUCCEED(16);

  private final int bit;

  Mode(int bit) {
    this.bit = bit;
  }

  /**
   * The bit of this assertion on the wire.
   *
   * @return a single bit, the MPI_MODE_* value
   */
  public int bit() {
    return bit;
  }

  /**
   * The wire bits of a set of assertions.
   *
   * @param modes the assertions; none gives 0
   * @return the bitwise or of their {@link #bit()}s
   * @throws RmaException {@link ErrorClass#ARG} if an assertion is {@code null}
   */
  public static int bits(Mode... modes) {
    int b = 0;
    for (Mode m : modes) {
      if (m == null) {
        throw new RmaException(ErrorClass.ARG, "null assertion");
      }
      b |= m.bit;
    }
    return b;
  }
}
