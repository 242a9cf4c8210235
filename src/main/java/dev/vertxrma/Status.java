package dev.vertxrma;

/**
 * The status of a completed receive (MPI_Status): who sent the message, with which tag, and how
 * much data arrived.
 *
 * @param source the sending rank
 * @param tag the message tag
 * @param count number of received elements of the receive datatype (MPI_Get_count)
 * @param byteCount number of received bytes
 */
public record Status(int source, int tag, int count, long byteCount) {
}
