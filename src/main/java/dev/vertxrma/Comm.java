package dev.vertxrma;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * A communicator (MPI_Comm): the ranks of a job and the point-to-point and collective operations
 * between them. Every operation returns a {@link Future}; nothing blocks. Calls made off the
 * rank's own event loop are moved onto it.
 *
 * <p><b>Buffers.</b> A buffer is a Java primitive array ({@code byte[] short[] char[] int[] long[]
 * float[] double[] boolean[]}) with {@code offset} counted in array elements (the mpiJava
 * convention), or a Chronicle {@code BytesStore} with {@code offset} counted in bytes. The
 * datatype says how {@code count} elements are laid out from there. An array other than a
 * {@code byte[]} must hold the datatype's basic elements ({@code long[]} for LONG and AINT,
 * {@code double[]} for DOUBLE, {@code int[]} for INT and INT_INT, ...); a {@code byte[]} or a
 * {@code BytesStore} is raw memory and takes any datatype, also one that mixes basic types. A
 * call with count 0 may pass {@code null} as its buffer (an empty message); a null buffer with a
 * positive count is {@link ErrorClass#BUFFER}.
 *
 * <p><b>Errors.</b> Futures fail with {@link RmaException}: {@link ErrorClass#RANK} for a rank
 * outside {@code [0, size())}, {@link ErrorClass#COUNT} for a negative count,
 * {@link ErrorClass#TYPE} for an uncommitted datatype or an array whose element type contradicts
 * it (a {@code double[]} with LONG, say), {@link ErrorClass#BUFFER} when the buffer
 * is too small, {@link ErrorClass#TAG} for a negative tag, {@link ErrorClass#COMM} after the job
 * ended, {@link ErrorClass#TIMEOUT} when a wait exceeds the job's timeout.
 */
public interface Comm {

  /** MPI_ANY_SOURCE: receive from any rank. */
  int ANY_SOURCE = -1;
  /** MPI_ANY_TAG: receive with any tag. */
  int ANY_TAG = -1;
  /** MPI_PROC_NULL: a peer that makes the call a no-op. */
  int PROC_NULL = -2;
  /** Bytes that {@code bsend} adds to each message in the attached buffer (MPI_BSEND_OVERHEAD). */
  int BSEND_OVERHEAD = 32;

  /** This process's rank in the communicator (MPI_Comm_rank). */
  int rank();

  /** Number of ranks (MPI_Comm_size). */
  int size();

  /** The group of this communicator (MPI_Comm_group). */
  Group group();

  /** The Vert.x instance this rank runs on. */
  Vertx vertx();

  /** The job's name (unique per run; also the cluster-wide address prefix). */
  String jobName();

  // ------------------------------------------------------------------ point-to-point

  /**
   * MPI_Send, standard mode. The future completes when the send buffer may be reused (the data
   * was copied out); the message is then on its way. Non-overtaking: two messages from this rank
   * to the same destination that both match a receive are received in send order.
   */
  Future<Void> send(Object buf, int offset, int count, Datatype type, int dest, int tag);

  /** MPI_Isend. Identical to {@link #send}: in a future-based API every call is nonblocking. */
  Future<Void> isend(Object buf, int offset, int count, Datatype type, int dest, int tag);

  /**
   * MPI_Ssend, synchronous mode: the future completes only once the destination has matched the
   * message with a receive.
   */
  Future<Void> ssend(Object buf, int offset, int count, Datatype type, int dest, int tag);

  /**
   * MPI_Bsend, buffered mode: the message is copied into the buffer attached with
   * {@link #bufferAttach} (circular, contiguous allocation as the standard's model implementation)
   * and the future completes at once. Fails with {@link ErrorClass#BUFFER} when the message
   * (plus {@link #BSEND_OVERHEAD}) does not fit in the free space, or when no buffer is attached.
   */
  Future<Void> bsend(Object buf, int offset, int count, Datatype type, int dest, int tag);

  /**
   * MPI_Recv. The future completes with the message's status once a matching message has been
   * received into the buffer. {@code source} may be {@link #ANY_SOURCE}, {@code tag}
   * {@link #ANY_TAG}. Fails with {@link ErrorClass#TRUNCATE} when the message is longer than the
   * buffer (the buffer is then left untouched) and with {@link ErrorClass#TIMEOUT} after the job's
   * wait timeout.
   */
  Future<Status> recv(Object buf, int offset, int count, Datatype type, int source, int tag);

  /** MPI_Irecv. Identical to {@link #recv}. */
  Future<Status> irecv(Object buf, int offset, int count, Datatype type, int source, int tag);

  /**
   * MPI_Buffer_attach: gives the library {@code sizeBytes} bytes of {@code buffer} (a
   * {@code byte[]} or a {@code BytesStore}) for buffered sends. Only one buffer per rank:
   * attaching a second fails with {@link ErrorClass#BUFFER}.
   */
  Future<Void> bufferAttach(Object buffer, int sizeBytes);

  /**
   * MPI_Buffer_detach: completes once every message in the attached buffer has been delivered,
   * with the buffer that was attached. Fails with {@link ErrorClass#BUFFER} if none is attached.
   */
  Future<Object> bufferDetach();

  // ------------------------------------------------------------------ collectives

  /** MPI_Barrier: completes once every rank has entered the barrier (dissemination, log2(P) rounds). */
  Future<Void> barrier();

  /** MPI_Bcast from {@code root} (binomial tree): completes once the data is in this rank's buffer. */
  Future<Void> bcast(Object buf, int offset, int count, Datatype type, int root);

  /**
   * MPI_Reduce: combines {@code count} elements of every rank's send buffer with {@code op} into
   * the receive buffer of {@code root} (ignored elsewhere). The datatype must be predefined; the
   * op must be defined on it ({@link ErrorClass#OP} otherwise).
   */
  Future<Void> reduce(Object sendBuf, int sendOffset, Object recvBuf, int recvOffset, int count, Datatype type,
      Op op, int root);

  /** MPI_Allreduce: as {@link #reduce}, with the result at every rank. */
  Future<Void> allreduce(Object sendBuf, int sendOffset, Object recvBuf, int recvOffset, int count, Datatype type,
      Op op);

  /** MPI_Allreduce of one {@code double}: the combined value. */
  Future<Double> allreduce(double value, Op op);

  /** MPI_Allreduce of one {@code long}: the combined value. */
  Future<Long> allreduce(long value, Op op);

  /** MPI_Gather: rank {@code i}'s block lands at block {@code i} of root's receive buffer. */
  Future<Void> gather(Object sendBuf, int sendOffset, int sendCount, Datatype sendType, Object recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root);

  /** MPI_Allgather: as {@link #gather}, with the result at every rank. */
  Future<Void> allgather(Object sendBuf, int sendOffset, int sendCount, Datatype sendType, Object recvBuf,
      int recvOffset, int recvCount, Datatype recvType);

  /** MPI_Scatter: block {@code i} of root's send buffer lands in rank {@code i}'s receive buffer. */
  Future<Void> scatter(Object sendBuf, int sendOffset, int sendCount, Datatype sendType, Object recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root);

  /** MPI_Alltoall: block {@code j} of rank {@code i}'s send buffer lands at block {@code i} of rank {@code j}. */
  Future<Void> alltoall(Object sendBuf, int sendOffset, int sendCount, Datatype sendType, Object recvBuf,
      int recvOffset, int recvCount, Datatype recvType);

  /**
   * MPI_Abort: ends the whole job; every rank's pending and future calls fail with
   * {@link ErrorClass#COMM} naming this rank and {@code reason}.
   */
  void abort(String reason);
}
