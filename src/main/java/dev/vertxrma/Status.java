package dev.vertxrma;

/**
 * The status of a completed receive or probe (MPI_Status): who sent the message, with which tag,
 * and how much data arrived (or, for a probe, would arrive).
 *
 * @param source the sending rank
 * @param tag the message tag
 * @param count number of received elements of the receive datatype (MPI_Get_count); for a
 *     status from {@link Comm#probe}, {@link Comm#iprobe} or a matched probe's {@link Message},
 *     which know no datatype, the number of bytes (the count in {@link Datatype#BYTE}); use
 *     {@link #count(Datatype)} for another type
 * @param byteCount number of received bytes
 */
public record Status(int source, int tag, int count, long byteCount) {

  /**
   * MPI_Get_count: the number of whole elements of {@code type} in the message, e.g. to size the
   * receive buffer after a {@link Comm#probe}.
   *
   * @param type a datatype, committed
   * @return {@code byteCount / type.size()}, or {@link Comm#UNDEFINED} when the message is not a
   *     whole number of elements of {@code type} (or does not fit in an {@code int}); 0 for a
   *     type of size 0 and an empty message
   * @throws RmaException {@link ErrorClass#TYPE} for a null or uncommitted datatype
   */
  public int count(Datatype type) {
    if (type == null || !type.isCommitted()) {
      throw RmaException.of(ErrorClass.TYPE, "Status.count: datatype is %s",
          type == null ? "null" : type.name() + ", not committed (call commit() first)");
    }
    long size = type.size();
    if (size == 0) {
      return byteCount == 0 ? 0 : Comm.UNDEFINED;
    }
    if (byteCount % size != 0 || byteCount / size > Integer.MAX_VALUE) {
      return Comm.UNDEFINED;
    }
    return (int) (byteCount / size);
  }
}
