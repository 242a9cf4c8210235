package dev.vertxrma;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * A communicator (MPI_Comm): the ranks of a job and the point-to-point and collective operations
 * between them. Every operation returns a {@link Future}; nothing blocks. A call may be made from
 * any thread: calls made off the rank's own event loop are moved onto it, in call order, and
 * their futures complete there.
 *
 * <p><b>Buffers.</b> A buffer is a {@link Buf}: a view of a Java primitive array ({@code byte[]
 * short[] char[] int[] long[] float[] double[] boolean[]}) with {@code offset} counted in array
 * elements (the mpiJava convention), or of a Chronicle {@code BytesStore}, a Vert.x
 * {@code Buffer} or a {@code ByteBuffer} with {@code offset} counted in bytes. The
 * datatype says how {@code count} elements are laid out from there. An array other than a
 * {@code byte[]} must hold the datatype's basic elements ({@code long[]} for LONG and AINT,
 * {@code double[]} for DOUBLE, {@code int[]} for INT and INT_INT, ...); a {@code byte[]} or a
 * {@code BytesStore} is raw memory and takes any datatype, also one that mixes basic types. A
 * call with count 0 may pass {@code null} as its buffer (an empty message); a null buffer with a
 * positive count is {@link ErrorClass#BUFFER}.
 *
 * <p><b>Errors.</b> Futures fail with {@link RmaException}. The argument checks, made before
 * anything is sent: {@link ErrorClass#RANK} for a rank outside {@code [0, size())},
 * {@link ErrorClass#COUNT} for a negative count, {@link ErrorClass#TYPE} for a null or
 * uncommitted datatype or an array whose element type contradicts it (a {@code double[]} with
 * LONG, say), {@link ErrorClass#BUFFER} for a buffer that is null (with a positive count), too
 * small from its offset, of an unsupported class or released, {@link ErrorClass#ARG} for a
 * Chronicle {@code Bytes} (which may move; pass its {@code BytesStore}) or a store that is
 * neither native nor backed by a {@code byte[]}, {@link ErrorClass#TAG} for a negative tag.
 * Then, for every call: {@link ErrorClass#TIMEOUT} when a wait exceeds
 * {@link JobOptions#getWaitTimeoutMs()}, {@link ErrorClass#PROC_FAILED} when a rank the call
 * waits for is lost, {@link ErrorClass#COMM} for a call made after the job ended (aborted, failed,
 * or finished), {@link ErrorClass#INTERN} for a failure inside the library.
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

  /**
   * MPI_Comm_rank: this process's rank in the communicator.
   *
   * @return the rank, in {@code [0, size())}
   */
  int rank();

  /**
   * MPI_Comm_size: the number of ranks.
   *
   * @return the number of ranks of the communicator
   */
  int size();

  /**
   * MPI_Comm_group: the group of this communicator.
   *
   * @return the group of all its ranks, in rank order, seen from this rank
   */
  Group group();

  /**
   * The Vert.x instance this rank runs on.
   *
   * @return the Vert.x instance
   */
  Vertx vertx();

  /**
   * The job's name.
   *
   * @return the name, unique per run; also the cluster-wide address prefix
   */
  String jobName();

  // ------------------------------------------------------------------ point-to-point

  /**
   * MPI_Send, standard mode. Non-overtaking: two messages from this rank to the same destination
   * that both match a receive are received in send order.
   *
   * @param buf the send buffer ({@code null} with count 0)
   * @param offset where the data starts in {@code buf}: array elements, or bytes for other buffers
   * @param count the number of elements of {@code type}
   * @param type the datatype, committed
   * @param dest the destination rank, or {@link #PROC_NULL} (no-op)
   * @param tag the message tag, {@code >= 0}
   * @return completes when the send buffer may be reused (the data was copied out); the message
   *     is then on its way. Fails with the argument errors listed in the class comment (RANK,
   *     COUNT, TYPE, BUFFER, ARG, TAG) or COMM.
   */
  Future<Void> send(Buf buf, int offset, int count, Datatype type, int dest, int tag);

  /**
   * MPI_Isend: identical to {@link #send}, since in a future-based API every call is nonblocking.
   *
   * @param buf the send buffer ({@code null} with count 0)
   * @param offset where the data starts in {@code buf}: array elements, or bytes for other buffers
   * @param count the number of elements of {@code type}
   * @param type the datatype, committed
   * @param dest the destination rank, or {@link #PROC_NULL} (no-op)
   * @param tag the message tag, {@code >= 0}
   * @return as {@link #send}
   */
  Future<Void> isend(Buf buf, int offset, int count, Datatype type, int dest, int tag);

  /**
   * MPI_Ssend, synchronous mode.
   *
   * @param buf the send buffer ({@code null} with count 0)
   * @param offset where the data starts in {@code buf}: array elements, or bytes for other buffers
   * @param count the number of elements of {@code type}
   * @param type the datatype, committed
   * @param dest the destination rank, or {@link #PROC_NULL} (no-op)
   * @param tag the message tag, {@code >= 0}
   * @return completes only once the destination has matched the message with a receive. Fails
   *     as {@link #send}, and with TIMEOUT when no receive matches within the wait timeout.
   */
  Future<Void> ssend(Buf buf, int offset, int count, Datatype type, int dest, int tag);

  /**
   * MPI_Bsend, buffered mode: the message is copied into the buffer attached with
   * {@link #bufferAttach} (circular, contiguous allocation as the standard's model implementation).
   *
   * @param buf the send buffer ({@code null} with count 0)
   * @param offset where the data starts in {@code buf}: array elements, or bytes for other buffers
   * @param count the number of elements of {@code type}
   * @param type the datatype, committed
   * @param dest the destination rank, or {@link #PROC_NULL} (no-op)
   * @param tag the message tag, {@code >= 0}
   * @return completes at once, the message copied. Fails as {@link #send}, and with
   *     {@link ErrorClass#BUFFER} when the message (plus {@link #BSEND_OVERHEAD}) does not fit in
   *     the free space of the attached buffer, when no buffer is attached, or while it is being
   *     detached.
   */
  Future<Void> bsend(Buf buf, int offset, int count, Datatype type, int dest, int tag);

  /**
   * MPI_Recv. On a mismatch the buffer is left untouched.
   *
   * @param buf the receive buffer ({@code null} with count 0)
   * @param offset where the data goes in {@code buf}: array elements, or bytes for other buffers
   * @param count the capacity in elements of {@code type}
   * @param type the datatype, committed
   * @param source the source rank, {@link #ANY_SOURCE}, or {@link #PROC_NULL} (completes at once
   *     with source PROC_NULL and count 0)
   * @param tag the tag to match, {@code >= 0}, or {@link #ANY_TAG}
   * @return completes with the message's status once a matching message has been received into
   *     the buffer. Fails with the argument errors listed in the class comment,
   *     {@link ErrorClass#TRUNCATE} when the message is longer than the buffer,
   *     {@link ErrorClass#TYPE} when it is not a whole number of elements of {@code type},
   *     {@link ErrorClass#TIMEOUT} when no message matches within the wait timeout.
   */
  Future<Status> recv(Buf buf, int offset, int count, Datatype type, int source, int tag);

  /**
   * MPI_Irecv: identical to {@link #recv}.
   *
   * @param buf the receive buffer ({@code null} with count 0)
   * @param offset where the data goes in {@code buf}: array elements, or bytes for other buffers
   * @param count the capacity in elements of {@code type}
   * @param type the datatype, committed
   * @param source the source rank, {@link #ANY_SOURCE}, or {@link #PROC_NULL}
   * @param tag the tag to match, {@code >= 0}, or {@link #ANY_TAG}
   * @return as {@link #recv}
   */
  Future<Status> irecv(Buf buf, int offset, int count, Datatype type, int source, int tag);

  /**
   * MPI_Buffer_attach: gives the library a buffer for buffered sends. Only one buffer per rank.
   *
   * @param buffer a {@link Buf} of a {@code byte[]} or a {@code BytesStore}
   * @param sizeBytes how many bytes of it, from its start, the library may use
   * @return completes at once. Fails with {@link ErrorClass#BUFFER} when a buffer is already
   *     attached, or {@code buffer} is null, of another class, or smaller than
   *     {@code sizeBytes}; {@link ErrorClass#ARG} for a negative size.
   */
  Future<Void> bufferAttach(Buf buffer, int sizeBytes);

  /**
   * MPI_Buffer_detach: takes the attached buffer back.
   *
   * @return completes, with the buffer that was attached, once every message in it has been
   *     delivered. Fails with {@link ErrorClass#BUFFER} if none is attached,
   *     {@link ErrorClass#TIMEOUT} when the messages are not delivered within the wait timeout.
   */
  Future<Buf> bufferDetach();

  // ------------------------------------------------------------------ collectives

  /**
   * MPI_Barrier (dissemination, log2(P) rounds). Like every collective, a call of every rank,
   * matched in the order each rank makes its collective calls.
   *
   * @return completes once every rank has entered the barrier. Fails with TIMEOUT when a rank
   *     does not enter it within the wait timeout.
   */
  Future<Void> barrier();

  /**
   * MPI_Bcast from {@code root} (binomial tree).
   *
   * @param buf the data at root, the receive buffer elsewhere ({@code null} with count 0)
   * @param offset where the data is in {@code buf}: array elements, or bytes for other buffers
   * @param count the number of elements of {@code type}, the same amount of data at every rank
   * @param type the datatype, committed
   * @param root the rank that broadcasts
   * @return completes once the data is in this rank's buffer (at root: once it is sent). Fails
   *     with the argument errors listed in the class comment (RANK for a bad root),
   *     {@link ErrorClass#TRUNCATE} when root's data is not the size of this rank's buffer,
   *     TIMEOUT.
   */
  Future<Void> bcast(Buf buf, int offset, int count, Datatype type, int root);

  /**
   * MPI_Reduce: combines {@code count} elements of every rank's send buffer with {@code op}
   * into the receive buffer of {@code root}.
   *
   * @param sendBuf this rank's contribution
   * @param sendOffset where it starts in {@code sendBuf}
   * @param recvBuf the result at root; ignored elsewhere
   * @param recvOffset where the result goes in {@code recvBuf}
   * @param count the number of elements of {@code type}; the same at every rank, as MPI requires
   * @param type the datatype, committed and of one basic type
   * @param op the operation; not {@link Op#REPLACE} or {@link Op#NO_OP}
   * @param root the rank that receives the result
   * @return completes when this rank's part is done (at root: the result is in
   *     {@code recvBuf}). Fails with the argument errors listed in the class comment,
   *     {@link ErrorClass#OP} for a null op, one not defined on the datatype, REPLACE or NO_OP,
   *     {@link ErrorClass#TYPE} for a datatype that mixes basic types, TIMEOUT.
   */
  Future<Void> reduce(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Op op, int root);

  /**
   * MPI_Allreduce: as {@link #reduce}, with the result at every rank.
   *
   * @param sendBuf this rank's contribution
   * @param sendOffset where it starts in {@code sendBuf}
   * @param recvBuf the result
   * @param recvOffset where the result goes in {@code recvBuf}
   * @param count the number of elements of {@code type}; the same at every rank, as MPI requires
   * @param type the datatype, committed and of one basic type
   * @param op the operation; not {@link Op#REPLACE} or {@link Op#NO_OP}
   * @return completes when the result is in {@code recvBuf}. Fails as {@link #reduce}.
   */
  Future<Void> allreduce(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Op op);

  /**
   * MPI_Allreduce of one {@code double}.
   *
   * @param value this rank's contribution
   * @param op the operation, defined on DOUBLE (arithmetic, MAX, MIN)
   * @return completes with the combined value. Fails with {@link ErrorClass#OP} for an op not
   *     defined on DOUBLE, TIMEOUT.
   */
  Future<Double> allreduce(double value, Op op);

  /**
   * MPI_Allreduce of one {@code long}.
   *
   * @param value this rank's contribution
   * @param op the operation, defined on LONG (all but MAXLOC, MINLOC, REPLACE, NO_OP)
   * @return completes with the combined value. Fails with {@link ErrorClass#OP} for an op not
   *     defined on LONG, TIMEOUT.
   */
  Future<Long> allreduce(long value, Op op);

  /**
   * MPI_Gather: rank {@code i}'s block lands at block {@code i} of root's receive buffer.
   *
   * @param sendBuf this rank's block
   * @param sendOffset where it starts in {@code sendBuf}
   * @param sendCount the number of elements of {@code sendType} in it
   * @param sendType the send datatype, committed
   * @param recvBuf at root, room for {@code size()} blocks; ignored elsewhere
   * @param recvOffset where block 0 goes in {@code recvBuf}
   * @param recvCount the number of elements of {@code recvType} per block (at root)
   * @param recvType the receive datatype, committed (at root)
   * @param root the rank that receives the blocks
   * @return completes when this rank's part is done (at root: every block is in
   *     {@code recvBuf}). Fails with the argument errors listed in the class comment,
   *     {@link ErrorClass#TRUNCATE} when a block is not the size of a receive block, TIMEOUT.
   */
  Future<Void> gather(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root);

  /**
   * MPI_Allgather: as {@link #gather}, with the result at every rank.
   *
   * @param sendBuf this rank's block
   * @param sendOffset where it starts in {@code sendBuf}
   * @param sendCount the number of elements of {@code sendType} in it
   * @param sendType the send datatype, committed
   * @param recvBuf room for {@code size()} blocks
   * @param recvOffset where block 0 goes in {@code recvBuf}
   * @param recvCount the number of elements of {@code recvType} per block
   * @param recvType the receive datatype, committed
   * @return completes when every block is in {@code recvBuf}. Fails as {@link #gather}.
   */
  Future<Void> allgather(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType);

  /**
   * MPI_Scatter: block {@code i} of root's send buffer lands in rank {@code i}'s receive buffer.
   *
   * @param sendBuf at root, {@code size()} blocks; ignored elsewhere
   * @param sendOffset where block 0 starts in {@code sendBuf}
   * @param sendCount the number of elements of {@code sendType} per block (at root)
   * @param sendType the send datatype, committed (at root)
   * @param recvBuf this rank's block
   * @param recvOffset where it goes in {@code recvBuf}
   * @param recvCount the number of elements of {@code recvType} in it
   * @param recvType the receive datatype, committed
   * @param root the rank that sends the blocks
   * @return completes when this rank's block is in {@code recvBuf}. Fails with the argument
   *     errors listed in the class comment, {@link ErrorClass#TRUNCATE} when root's block is not
   *     the size of this rank's receive block, TIMEOUT.
   */
  Future<Void> scatter(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root);

  /**
   * MPI_Alltoall: block {@code j} of rank {@code i}'s send buffer lands at block {@code i} of
   * rank {@code j}.
   *
   * @param sendBuf {@code size()} blocks, one per destination
   * @param sendOffset where block 0 starts in {@code sendBuf}
   * @param sendCount the number of elements of {@code sendType} per block
   * @param sendType the send datatype, committed
   * @param recvBuf room for {@code size()} blocks, one per source
   * @param recvOffset where block 0 goes in {@code recvBuf}
   * @param recvCount the number of elements of {@code recvType} per block
   * @param recvType the receive datatype, committed
   * @return completes when every block is in {@code recvBuf}. Fails as {@link #gather}.
   */
  Future<Void> alltoall(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType);

  /**
   * MPI_Abort: ends the whole job, at once and without waiting (there is no future); every
   * rank's pending and later calls fail with {@link ErrorClass#COMM} naming this rank and
   * {@code reason}.
   *
   * @param reason why, for the error messages
   */
  void abort(String reason);
}
