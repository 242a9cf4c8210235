package dev.vertxrma;

/**
 * A message taken out of matching by a matched probe (MPI_Message): {@link Comm#mprobe} or
 * {@link Comm#improbe} found it and removed it from the communicator's queue, so that no other
 * receive or probe can see it any more, and {@link Comm#mrecv} (or {@link Comm#imrecv}) receives
 * it, exactly once. This is how a program of several threads, or several chains of futures, sizes
 * its buffer from the status and then receives that very message without a racing
 * {@code ANY_SOURCE} receive taking it in between (the race MPI_Probe + MPI_Recv has).
 *
 * <p>Messages are made by the library only: a {@code Message} implemented elsewhere is refused
 * by {@code mrecv} with {@link ErrorClass#REQUEST}. A message belongs to the rank and the
 * communicator that matched it. Once received, the handle is spent (MPI sets it to
 * MPI_MESSAGE_NULL); a second {@code mrecv} of it fails with {@link ErrorClass#REQUEST}. A message
 * that is never received stays held by its rank until the job ends, as in MPI.
 */
public interface Message {

  /**
   * MPI_MESSAGE_NO_PROC: what a matched probe of {@link Comm#PROC_NULL} returns. Its status has
   * source PROC_NULL, tag ANY_TAG and count 0; {@link Comm#mrecv} of it completes at once with that
   * status and writes nothing, however often it is received.
   */
  Message NO_PROC = new Message() {
    private final Status status = new Status(Comm.PROC_NULL, Comm.ANY_TAG, 0, 0);

    @Override
    public Status status() {
      return status;
    }

    @Override
    public String toString() {
      return "Message.NO_PROC";
    }
  };

  /**
   * The status the matched probe reported (MPI_Mprobe's {@code status}): the real source and tag,
   * {@link Status#byteCount()} the message's size and {@link Status#count()} that size in bytes (a
   * probe knows no datatype; {@link Status#count(Datatype)} gives the count in another, to size
   * the receive buffer).
   *
   * @return the status of the message; the same before and after it was received
   */
  Status status();
}
