package dev.vertxrma.rx;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.RmaException;
import dev.vertxrma.SplitType;
import dev.vertxrma.ErrorHandler;
import dev.vertxrma.DetachedBuffer;
import dev.vertxrma.Group;
import dev.vertxrma.Message;
import dev.vertxrma.Reduction;
import dev.vertxrma.Status;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Single;
import io.vertx.core.Vertx;
import java.util.Optional;

/**
 * RxJava 3 view of a {@link Comm}: every call of the communicator, each asynchronous one as a
 * cold {@link Completable} or {@link Single} (the call is made on subscription, once per
 * subscription). Buffers, offsets and counts follow {@link Comm}'s conventions, and each call
 * fails with the {@link dev.vertxrma.RmaException} its {@link Comm} twin documents.
 */
public final class RxComm {

  private final Comm comm;

  private RxComm(Comm comm) {
    RxJava.require();
    this.comm = comm;
  }

  /**
   * The RxJava view of a communicator.
   *
   * @param comm the communicator to wrap
   * @return a view whose calls go to {@code comm}
   */
  public static RxComm of(Comm comm) {
    return new RxComm(comm);
  }

  /**
   * The underlying communicator.
   *
   * @return the wrapped {@link Comm}
   */
  public Comm delegate() {
    return comm;
  }

  // ------------------------------------------------------------------ attributes

  /**
   * MPI_Comm_rank ({@link Comm#rank}).
   *
   * @return this process's rank in the communicator
   */
  public int rank() {
    return comm.rank();
  }

  /**
   * MPI_Comm_size ({@link Comm#size}).
   *
   * @return the number of ranks
   */
  public int size() {
    return comm.size();
  }

  /**
   * MPI_Comm_group ({@link Comm#group}).
   *
   * @return the group of the communicator
   */
  public Group group() {
    return comm.group();
  }

  /**
   * MPI_Comm_get_name ({@link Comm#getName}).
   *
   * @return the name of the communicator at this rank
   */
  public String getName() {
    return comm.getName();
  }

  /**
   * MPI_Comm_set_name ({@link Comm#setName}), at once.
   *
   * @param name the new name
   * @throws RmaException as {@link Comm#setName}
   */
  public void setName(String name) {
    comm.setName(name);
  }

  // ------------------------------------------------------------------ communicators

  /**
   * MPI_Comm_split ({@link Comm#split}): collective over this communicator. Emits this rank's new
   * communicator, or completes empty for {@link Comm#UNDEFINED} (MPI_COMM_NULL). Fails with ARG
   * (a negative color other than UNDEFINED at some rank), COMM, OTHER or TIMEOUT.
   *
   * @param color the new communicator to join, {@code >= 0}, or {@link Comm#UNDEFINED}
   * @param key the order of this rank in it
   * @return this rank's new communicator, or empty
   */
  public Maybe<RxComm> split(int color, int key) {
    return Deferred.single(() -> comm.split(color, key)).flatMapMaybe(RxComm::view);
  }

  /**
   * MPI_Comm_split_type ({@link Comm#splitType}): collective over this communicator. Emits the
   * communicator of the ranks that share memory with this one. Fails with ARG (a null type), COMM,
   * OTHER or TIMEOUT.
   *
   * @param type the locality to split by
   * @param key the order of this rank in the new communicator
   * @return this rank's new communicator
   */
  public Single<RxComm> splitType(SplitType type, int key) {
    return Deferred.single(() -> comm.splitType(type, key)).map(RxComm::of);
  }

  /**
   * MPI_Comm_dup ({@link Comm#dup}): collective over this communicator. Emits the new
   * communicator. Fails with COMM, OTHER or TIMEOUT.
   *
   * @return the duplicate, with a context of its own
   */
  public Single<RxComm> dup() {
    return Deferred.single(() -> comm.dup()).map(RxComm::of);
  }

  /**
   * MPI_Comm_create ({@link Comm#create}): collective over this communicator. Emits the new
   * communicator at the members of {@code group}, completes empty elsewhere. Fails with GROUP,
   * COMM, OTHER or TIMEOUT.
   *
   * @param group the members of the new communicator, the same at every rank
   * @return this rank's new communicator, or empty
   */
  public Maybe<RxComm> create(Group group) {
    return Deferred.single(() -> comm.create(group)).flatMapMaybe(RxComm::view);
  }

  private static Maybe<RxComm> view(Optional<Comm> c) {
    return c.map(x -> Maybe.just(of(x))).orElseGet(Maybe::empty);
  }

  /**
   * MPI_COMM_SELF ({@link Comm#self}).
   *
   * @return the Rx view of this rank's COMM_SELF
   */
  public RxComm self() {
    return of(comm.self());
  }

  /**
   * MPI_Comm_free ({@link Comm#free}): completes at once; later calls on the communicator fail
   * with COMM. Fails with COMM for the world, COMM_SELF or a communicator freed already.
   *
   * @return completes once freed
   */
  public Completable free() {
    return Deferred.completable(() -> comm.free());
  }

  /**
   * The Vert.x instance this rank runs on ({@link Comm#vertx}).
   *
   * @return the rank's Vert.x instance
   */
  public Vertx vertx() {
    return comm.vertx();
  }

  /**
   * The job's name ({@link Comm#jobName}).
   *
   * @return the name, unique per run
   */
  public String jobName() {
    return comm.jobName();
  }

  // ------------------------------------------------------------------ fault tolerance (ULFM)

  /**
   * MPI_Comm_revoke ({@link Comm#revoke}): every member's pending and later calls on this
   * communicator fail with REVOKED, but agree, shrink, getFailed, ackFailed and free.
   *
   * @return completes once revoked here and passed on
   */
  public Completable revoke() {
    return Deferred.completable(() -> comm.revoke());
  }

  /**
   * MPIX_Comm_is_revoked ({@link Comm#isRevoked}).
   *
   * @return whether this rank knows it revoked
   */
  public boolean isRevoked() {
    return comm.isRevoked();
  }

  /**
   * MPI_Comm_get_failed ({@link Comm#getFailed}): the members known dead, in the order learned.
   *
   * @return the group of failed members
   */
  public Single<Group> getFailed() {
    return Deferred.single(() -> comm.getFailed());
  }

  /**
   * MPI_Comm_ack_failed ({@link Comm#ackFailed}): receives from ANY_SOURCE wait again once every
   * failure is acknowledged.
   *
   * @param numToAck how many failures to acknowledge
   * @return the number acknowledged now
   */
  public Single<Integer> ackFailed(int numToAck) {
    return Deferred.single(() -> comm.ackFailed(numToAck));
  }

  /**
   * MPI_Comm_agree ({@link Comm#agree}): the same AND of the survivors' flags at every survivor.
   *
   * @param flag this rank's flag
   * @return the AND of the survivors' flags
   */
  public Single<Integer> agree(int flag) {
    return Deferred.single(() -> comm.agree(flag));
  }

  /**
   * MPI_Comm_shrink ({@link Comm#shrink}): the same communicator of the survivors at every survivor.
   *
   * @return the Rx view of the new communicator
   */
  public Single<RxComm> shrink() {
    return Deferred.single(() -> comm.shrink()).map(RxComm::of);
  }

  // ------------------------------------------------------------------ point-to-point

  /**
   * MPI_Send ({@link Comm#send}): completes when the send buffer may be reused. Fails with RANK,
   * COUNT, TYPE, BUFFER, TAG or COMM.
   *
   * @param buf the send buffer
   * @param offset the first element of {@code buf} to send
   * @param count number of elements
   * @param type datatype of the elements
   * @param dest destination rank
   * @param tag message tag
   * @return completes at local completion of the send
   */
  public Completable send(Buf buf, int offset, int count, Datatype type, int dest, int tag) {
    return Deferred.completable(() -> comm.send(buf, offset, count, type, dest, tag));
  }

  /**
   * MPI_Isend ({@link Comm#isend}): as {@link #send}. Fails with RANK, COUNT, TYPE, BUFFER, TAG
   * or COMM.
   *
   * @param buf the send buffer
   * @param offset the first element of {@code buf} to send
   * @param count number of elements
   * @param type datatype of the elements
   * @param dest destination rank
   * @param tag message tag
   * @return the request: completes at local completion of the send
   */
  public Completable isend(Buf buf, int offset, int count, Datatype type, int dest, int tag) {
    return Deferred.completable(() -> comm.isend(buf, offset, count, type, dest, tag));
  }

  /**
   * MPI_Ssend ({@link Comm#ssend}): completes once the destination has matched the message.
   * Fails with RANK, COUNT, TYPE, BUFFER, TAG, COMM or TIMEOUT.
   *
   * @param buf the send buffer
   * @param offset the first element of {@code buf} to send
   * @param count number of elements
   * @param type datatype of the elements
   * @param dest destination rank
   * @param tag message tag
   * @return completes when a receive has matched the message
   */
  public Completable ssend(Buf buf, int offset, int count, Datatype type, int dest, int tag) {
    return Deferred.completable(() -> comm.ssend(buf, offset, count, type, dest, tag));
  }

  /**
   * MPI_Bsend ({@link Comm#bsend}): completes once the message is copied into the attached
   * buffer. Fails with BUFFER (no buffer, or no room) and the errors of {@link Comm#send}.
   *
   * @param buf the send buffer
   * @param offset the first element of {@code buf} to send
   * @param count number of elements
   * @param type datatype of the elements
   * @param dest destination rank
   * @param tag message tag
   * @return completes when the message is buffered
   */
  public Completable bsend(Buf buf, int offset, int count, Datatype type, int dest, int tag) {
    return Deferred.completable(() -> comm.bsend(buf, offset, count, type, dest, tag));
  }

  /**
   * MPI_Recv ({@link Comm#recv}): emits once a matching message is in the buffer. Fails with
   * RANK, COUNT, TYPE, BUFFER, TAG, TRUNCATE, COMM or TIMEOUT.
   *
   * @param buf the receive buffer
   * @param offset the first element of {@code buf} to receive into
   * @param count capacity in elements
   * @param type datatype of the elements
   * @param source source rank or {@link Comm#ANY_SOURCE}
   * @param tag message tag or {@link Comm#ANY_TAG}
   * @return the status of the received message
   */
  public Single<Status> recv(Buf buf, int offset, int count, Datatype type, int source, int tag) {
    return Deferred.single(() -> comm.recv(buf, offset, count, type, source, tag));
  }

  /**
   * MPI_Irecv ({@link Comm#irecv}): as {@link #recv}. Fails with RANK, COUNT, TYPE, BUFFER, TAG,
   * TRUNCATE, COMM or TIMEOUT.
   *
   * @param buf the receive buffer
   * @param offset the first element of {@code buf} to receive into
   * @param count capacity in elements
   * @param type datatype of the elements
   * @param source source rank or {@link Comm#ANY_SOURCE}
   * @param tag message tag or {@link Comm#ANY_TAG}
   * @return the request: the status of the received message
   */
  public Single<Status> irecv(Buf buf, int offset, int count, Datatype type, int source, int tag) {
    return Deferred.single(() -> comm.irecv(buf, offset, count, type, source, tag));
  }

  /**
   * MPI_Probe ({@link Comm#probe}): emits the status of a matching message as soon as one has
   * arrived, leaving it queued for a receive. Fails with RANK, TAG, COMM or TIMEOUT.
   *
   * @param source source rank, {@link Comm#ANY_SOURCE} or {@link Comm#PROC_NULL}
   * @param tag message tag or {@link Comm#ANY_TAG}
   * @return the status of the first matching message (count in bytes)
   */
  public Single<Status> probe(int source, int tag) {
    return Deferred.single(() -> comm.probe(source, tag));
  }

  /**
   * MPI_Iprobe ({@link Comm#iprobe}): emits at once the status of a matching message that has
   * arrived, or an empty {@link Optional} (MPI's {@code flag = false}). Fails with RANK, TAG or
   * COMM.
   *
   * @param source source rank, {@link Comm#ANY_SOURCE} or {@link Comm#PROC_NULL}
   * @param tag message tag or {@link Comm#ANY_TAG}
   * @return the status of the first matching message, if one is there
   */
  public Single<Optional<Status>> iprobe(int source, int tag) {
    return Deferred.single(() -> comm.iprobe(source, tag));
  }

  /**
   * MPI_Mprobe ({@link Comm#mprobe}): emits the handle of a matching message as soon as one has
   * arrived, taken out of matching for {@link #mrecv}. Fails with RANK, TAG, COMM or TIMEOUT.
   *
   * @param source source rank, {@link Comm#ANY_SOURCE} or {@link Comm#PROC_NULL}
   * @param tag message tag or {@link Comm#ANY_TAG}
   * @return the matched message ({@link Message#NO_PROC} for PROC_NULL)
   */
  public Single<Message> mprobe(int source, int tag) {
    return Deferred.single(() -> comm.mprobe(source, tag));
  }

  /**
   * MPI_Improbe ({@link Comm#improbe}): emits at once the handle of a matching message that has
   * arrived, taken out of matching, or an empty {@link Optional} (MPI's {@code flag = false}).
   * Fails with RANK, TAG or COMM.
   *
   * @param source source rank, {@link Comm#ANY_SOURCE} or {@link Comm#PROC_NULL}
   * @param tag message tag or {@link Comm#ANY_TAG}
   * @return the matched message, if one is there
   */
  public Single<Optional<Message>> improbe(int source, int tag) {
    return Deferred.single(() -> comm.improbe(source, tag));
  }

  /**
   * MPI_Mrecv ({@link Comm#mrecv}): emits the status once the matched message is in the buffer.
   * Fails with COUNT, TYPE, BUFFER, REQUEST (null, spent or foreign handle), TRUNCATE or COMM.
   *
   * @param buf the receive buffer
   * @param offset the first element of {@code buf} to receive into
   * @param count capacity in elements
   * @param type datatype of the elements
   * @param message the handle from {@link #mprobe} or {@link #improbe}
   * @return the status of the received message
   */
  public Single<Status> mrecv(Buf buf, int offset, int count, Datatype type, Message message) {
    return Deferred.single(() -> comm.mrecv(buf, offset, count, type, message));
  }

  /**
   * MPI_Imrecv ({@link Comm#imrecv}): as {@link #mrecv}. Fails with COUNT, TYPE, BUFFER, REQUEST,
   * TRUNCATE or COMM.
   *
   * @param buf the receive buffer
   * @param offset the first element of {@code buf} to receive into
   * @param count capacity in elements
   * @param type datatype of the elements
   * @param message the handle from {@link #mprobe} or {@link #improbe}
   * @return the request: the status of the received message
   */
  public Single<Status> imrecv(Buf buf, int offset, int count, Datatype type, Message message) {
    return Deferred.single(() -> comm.imrecv(buf, offset, count, type, message));
  }

  /**
   * MPI_Sendrecv ({@link Comm#sendrecv}): emits the status of the received message once it is in
   * {@code recvBuf}. Fails with RANK, COUNT, TYPE, BUFFER, TAG, TRUNCATE, COMM or TIMEOUT.
   *
   * @param sendBuf the send buffer
   * @param sendOffset the first element of {@code sendBuf} to send
   * @param sendCount number of elements sent
   * @param sendType their datatype
   * @param dest destination rank or {@link Comm#PROC_NULL}
   * @param sendTag tag of the message sent
   * @param recvBuf the receive buffer
   * @param recvOffset the first element of {@code recvBuf} to receive into
   * @param recvCount capacity in elements
   * @param recvType their datatype
   * @param source source rank, {@link Comm#ANY_SOURCE} or {@link Comm#PROC_NULL}
   * @param recvTag tag to match or {@link Comm#ANY_TAG}
   * @return the status of the received message
   */
  public Single<Status> sendrecv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, int dest,
      int sendTag, Buf recvBuf, int recvOffset, int recvCount, Datatype recvType, int source, int recvTag) {
    return Deferred.single(() -> comm.sendrecv(sendBuf, sendOffset, sendCount, sendType, dest, sendTag, recvBuf,
        recvOffset, recvCount, recvType, source, recvTag));
  }

  /**
   * MPI_Sendrecv_replace ({@link Comm#sendrecvReplace}): emits the status of the received message
   * once it has replaced the data sent. Fails with RANK, COUNT, TYPE, BUFFER, TAG, TRUNCATE, COMM
   * or TIMEOUT.
   *
   * @param buf the buffer sent, then received into
   * @param offset the first element of {@code buf}
   * @param count number of elements sent, and capacity for the message received
   * @param type their datatype
   * @param dest destination rank or {@link Comm#PROC_NULL}
   * @param sendTag tag of the message sent
   * @param source source rank, {@link Comm#ANY_SOURCE} or {@link Comm#PROC_NULL}
   * @param recvTag tag to match or {@link Comm#ANY_TAG}
   * @return the status of the received message
   */
  public Single<Status> sendrecvReplace(Buf buf, int offset, int count, Datatype type, int dest, int sendTag,
      int source, int recvTag) {
    return Deferred.single(() -> comm.sendrecvReplace(buf, offset, count, type, dest, sendTag, source, recvTag));
  }

  /**
   * MPI_Buffer_attach ({@link Comm#bufferAttach}): completes once the buffer is attached for
   * buffered sends. Fails with BUFFER when one is attached already.
   *
   * @param buffer a {@link Buf} of a {@code byte[]} or a {@code BytesStore}
   * @param sizeBytes bytes of {@code buffer} to use
   * @return completes when the buffer is attached
   */
  public Completable bufferAttach(Buf buffer, int sizeBytes) {
    return Deferred.completable(() -> comm.bufferAttach(buffer, sizeBytes));
  }

  /**
   * MPI_Buffer_detach ({@link Comm#bufferDetach}): emits once every buffered message has been
   * delivered. Fails with BUFFER when none is attached.
   *
   * @return the buffer that was attached and its size
   */
  public Single<DetachedBuffer> bufferDetach() {
    return Deferred.single(comm::bufferDetach);
  }

  // ------------------------------------------------------------------ collectives

  /**
   * MPI_Barrier ({@link Comm#barrier}): completes once every rank has entered the barrier. Fails
   * with COMM or TIMEOUT.
   *
   * @return completes when all ranks are in
   */
  public Completable barrier() {
    return Deferred.completable(comm::barrier);
  }

  /**
   * MPI_Bcast ({@link Comm#bcast}): completes once the data is in this rank's buffer. Fails with
   * RANK, COUNT, TYPE, BUFFER, COMM or TIMEOUT.
   *
   * @param buf the data at {@code root}, the receive buffer elsewhere
   * @param offset the first element of {@code buf}
   * @param count number of elements
   * @param type datatype of the elements
   * @param root the broadcasting rank
   * @return completes when this rank has the data
   */
  public Completable bcast(Buf buf, int offset, int count, Datatype type, int root) {
    return Deferred.completable(() -> comm.bcast(buf, offset, count, type, root));
  }

  /**
   * MPI_Reduce ({@link Comm#reduce}): completes once this rank's part is done (at {@code root}:
   * the result is in {@code recvBuf}). Fails with RANK, COUNT, TYPE, OP, BUFFER, COMM or TIMEOUT.
   *
   * @param sendBuf this rank's operand
   * @param sendOffset the first element of {@code sendBuf}
   * @param recvBuf the result buffer at {@code root} (ignored elsewhere)
   * @param recvOffset the first element of {@code recvBuf}
   * @param count number of elements
   * @param type a predefined datatype
   * @param op the reduction
   * @param root the rank that receives the result
   * @return completes when this rank's part of the reduction is done
   */
  public Completable reduce(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op, int root) {
    return Deferred.completable(() -> comm.reduce(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op, root));
  }

  /**
   * MPI_Allreduce ({@link Comm#allreduce(Buf, int, Buf, int, int, Datatype, Reduction)}): completes
   * once the result is in {@code recvBuf}. Fails with COUNT, TYPE, OP, BUFFER, COMM or TIMEOUT.
   *
   * @param sendBuf this rank's operand
   * @param sendOffset the first element of {@code sendBuf}
   * @param recvBuf the result buffer
   * @param recvOffset the first element of {@code recvBuf}
   * @param count number of elements
   * @param type a predefined datatype
   * @param op the reduction
   * @return completes when this rank has the result
   */
  public Completable allreduce(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count,
      Datatype type, Reduction op) {
    return Deferred.completable(() -> comm.allreduce(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op));
  }

  /**
   * MPI_Allreduce of one double ({@link Comm#allreduce(double, Reduction)}). Fails with OP, COMM or
   * TIMEOUT.
   *
   * @param value this rank's operand
   * @param op the reduction
   * @return the combined value, at every rank
   */
  public Single<Double> allreduce(double value, Reduction op) {
    return Deferred.single(() -> comm.allreduce(value, op));
  }

  /**
   * MPI_Allreduce of one long ({@link Comm#allreduce(long, Reduction)}). Fails with OP, COMM or TIMEOUT.
   *
   * @param value this rank's operand
   * @param op the reduction
   * @return the combined value, at every rank
   */
  public Single<Long> allreduce(long value, Reduction op) {
    return Deferred.single(() -> comm.allreduce(value, op));
  }

  /**
   * MPI_Gather ({@link Comm#gather}): completes once this rank's part is done (at {@code root}:
   * every block is in {@code recvBuf}). Fails with RANK, COUNT, TYPE, BUFFER, TRUNCATE, COMM or
   * TIMEOUT.
   *
   * @param sendBuf this rank's block
   * @param sendOffset the first element of {@code sendBuf}
   * @param sendCount elements in this rank's block
   * @param sendType their datatype
   * @param recvBuf the receive buffer at {@code root} (ignored elsewhere)
   * @param recvOffset the first element of {@code recvBuf}
   * @param recvCount elements per block received from each rank
   * @param recvType their datatype
   * @param root the rank that receives the blocks
   * @return completes when this rank's part of the gather is done
   */
  public Completable gather(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root) {
    return Deferred.completable(() -> comm.gather(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset,
        recvCount, recvType, root));
  }

  /**
   * MPI_Allgather ({@link Comm#allgather}): completes once every rank's block is in
   * {@code recvBuf}. Fails with COUNT, TYPE, BUFFER, TRUNCATE, COMM or TIMEOUT.
   *
   * @param sendBuf this rank's block
   * @param sendOffset the first element of {@code sendBuf}
   * @param sendCount elements in this rank's block
   * @param sendType their datatype
   * @param recvBuf the receive buffer
   * @param recvOffset the first element of {@code recvBuf}
   * @param recvCount elements per block received from each rank
   * @param recvType their datatype
   * @return completes when this rank holds every block
   */
  public Completable allgather(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType) {
    return Deferred.completable(() -> comm.allgather(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset,
        recvCount, recvType));
  }

  /**
   * MPI_Scatter ({@link Comm#scatter}): completes once this rank's block is in {@code recvBuf}.
   * Fails with RANK, COUNT, TYPE, BUFFER, TRUNCATE, COMM or TIMEOUT.
   *
   * @param sendBuf the blocks at {@code root}, block {@code i} for rank {@code i} (ignored elsewhere)
   * @param sendOffset the first element of {@code sendBuf}
   * @param sendCount elements per block sent to each rank
   * @param sendType their datatype
   * @param recvBuf this rank's receive buffer
   * @param recvOffset the first element of {@code recvBuf}
   * @param recvCount elements received
   * @param recvType their datatype
   * @param root the rank that sends the blocks
   * @return completes when this rank has its block
   */
  public Completable scatter(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root) {
    return Deferred.completable(() -> comm.scatter(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset,
        recvCount, recvType, root));
  }

  /**
   * MPI_Alltoall ({@link Comm#alltoall}): completes once the block of every rank is in
   * {@code recvBuf}. Fails with COUNT, TYPE, BUFFER, TRUNCATE, COMM or TIMEOUT.
   *
   * @param sendBuf the blocks to send, block {@code j} for rank {@code j}
   * @param sendOffset the first element of {@code sendBuf}
   * @param sendCount elements per block sent to each rank
   * @param sendType their datatype
   * @param recvBuf the receive buffer, block {@code i} from rank {@code i}
   * @param recvOffset the first element of {@code recvBuf}
   * @param recvCount elements per block received from each rank
   * @param recvType their datatype
   * @return completes when this rank holds every block sent to it
   */
  public Completable alltoall(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType) {
    return Deferred.completable(() -> comm.alltoall(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset,
        recvCount, recvType));
  }

  /**
   * MPI_Gatherv ({@link Comm#gatherv}): completes once this rank's part is done (at {@code root}:
   * every block is in {@code recvBuf}).
   *
   * @param sendBuf this rank's block, or {@link Comm#IN_PLACE} at root
   * @param sendOffset where it starts in {@code sendBuf}
   * @param sendCount the number of elements of {@code sendType} in it
   * @param sendType the send datatype
   * @param recvBuf the receive buffer at root
   * @param recvOffset where displacement 0 is in {@code recvBuf}
   * @param recvCounts at root, the number of elements from each rank
   * @param displs at root, where each rank's block goes, in extents of {@code recvType}
   * @param recvType the receive datatype
   * @param root the rank that receives the blocks
   * @return completes when this rank's part of the gatherv is done
   */
  public Completable gatherv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int[] recvCounts, int[] displs, Datatype recvType, int root) {
    return Deferred.completable(() -> comm.gatherv(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset,
        recvCounts, displs, recvType, root));
  }

  /**
   * MPI_Allgatherv ({@link Comm#allgatherv}): completes once every rank's block is in
   * {@code recvBuf}.
   *
   * @param sendBuf this rank's block, or {@link Comm#IN_PLACE}
   * @param sendOffset where it starts in {@code sendBuf}
   * @param sendCount the number of elements of {@code sendType} in it
   * @param sendType the send datatype
   * @param recvBuf the receive buffer
   * @param recvOffset where displacement 0 is in {@code recvBuf}
   * @param recvCounts the number of elements from each rank
   * @param displs where each rank's block goes, in extents of {@code recvType}
   * @param recvType the receive datatype
   * @return completes when every block is in {@code recvBuf}
   */
  public Completable allgatherv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int[] recvCounts, int[] displs, Datatype recvType) {
    return Deferred.completable(() -> comm.allgatherv(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset,
        recvCounts, displs, recvType));
  }

  /**
   * MPI_Scatterv ({@link Comm#scatterv}): completes once this rank's block is in {@code recvBuf}.
   *
   * @param sendBuf the send buffer at root
   * @param sendOffset where displacement 0 is in {@code sendBuf}
   * @param sendCounts at root, the number of elements for each rank
   * @param displs at root, where each rank's block starts, in extents of {@code sendType}
   * @param sendType the send datatype
   * @param recvBuf this rank's block, or {@link Comm#IN_PLACE} at root
   * @param recvOffset where it goes in {@code recvBuf}
   * @param recvCount the number of elements of {@code recvType} in it
   * @param recvType the receive datatype
   * @param root the rank that sends the blocks
   * @return completes when this rank's block is in {@code recvBuf}
   */
  public Completable scatterv(Buf sendBuf, int sendOffset, int[] sendCounts, int[] displs, Datatype sendType,
      Buf recvBuf, int recvOffset, int recvCount, Datatype recvType, int root) {
    return Deferred.completable(() -> comm.scatterv(sendBuf, sendOffset, sendCounts, displs, sendType, recvBuf,
        recvOffset, recvCount, recvType, root));
  }

  /**
   * MPI_Alltoallv ({@link Comm#alltoallv}): completes once the block of every rank is in
   * {@code recvBuf}.
   *
   * @param sendBuf the send buffer, or {@link Comm#IN_PLACE}
   * @param sendOffset where displacement 0 is in {@code sendBuf}
   * @param sendCounts the number of elements for each rank
   * @param sdispls where each rank's block starts, in extents of {@code sendType}
   * @param sendType the send datatype
   * @param recvBuf the receive buffer
   * @param recvOffset where displacement 0 is in {@code recvBuf}
   * @param recvCounts the number of elements from each rank
   * @param rdispls where each rank's block goes, in extents of {@code recvType}
   * @param recvType the receive datatype
   * @return completes when every block is in {@code recvBuf}
   */
  public Completable alltoallv(Buf sendBuf, int sendOffset, int[] sendCounts, int[] sdispls, Datatype sendType,
      Buf recvBuf, int recvOffset, int[] recvCounts, int[] rdispls, Datatype recvType) {
    return Deferred.completable(() -> comm.alltoallv(sendBuf, sendOffset, sendCounts, sdispls, sendType, recvBuf,
        recvOffset, recvCounts, rdispls, recvType));
  }

  /**
   * MPI_Reduce_scatter ({@link Comm#reduceScatter}): completes once this rank's block of the
   * result is in {@code recvBuf}. Fails with ARG, COUNT, TYPE, OP, BUFFER, TRUNCATE, COMM or
   * TIMEOUT.
   *
   * @param sendBuf this rank's operand (every rank's block of it), or {@link Comm#IN_PLACE}
   * @param sendOffset the first element of {@code sendBuf}
   * @param recvBuf this rank's block of the result
   * @param recvOffset the first element of {@code recvBuf}
   * @param recvCounts elements of each rank's block, one per rank
   * @param type a datatype of one basic type
   * @param op the reduction
   * @return completes when this rank has its block
   */
  public Completable reduceScatter(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int[] recvCounts,
      Datatype type, Reduction op) {
    return Deferred.completable(() -> comm.reduceScatter(sendBuf, sendOffset, recvBuf, recvOffset, recvCounts, type,
        op));
  }

  /**
   * MPI_Reduce_scatter_block ({@link Comm#reduceScatterBlock}): completes once this rank's block
   * of the result is in {@code recvBuf}. Fails with COUNT, TYPE, OP, BUFFER, TRUNCATE, COMM or
   * TIMEOUT.
   *
   * @param sendBuf this rank's operand ({@code size() * recvCount} elements), or {@link Comm#IN_PLACE}
   * @param sendOffset the first element of {@code sendBuf}
   * @param recvBuf this rank's block of the result
   * @param recvOffset the first element of {@code recvBuf}
   * @param recvCount elements of each rank's block
   * @param type a datatype of one basic type
   * @param op the reduction
   * @return completes when this rank has its block
   */
  public Completable reduceScatterBlock(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int recvCount,
      Datatype type, Reduction op) {
    return Deferred.completable(() -> comm.reduceScatterBlock(sendBuf, sendOffset, recvBuf, recvOffset, recvCount,
        type, op));
  }

  /**
   * MPI_Scan ({@link Comm#scan}): completes once the combination of ranks {@code 0..rank()} is in
   * {@code recvBuf}. Fails with COUNT, TYPE, OP, BUFFER, TRUNCATE, COMM or TIMEOUT.
   *
   * @param sendBuf this rank's operand, or {@link Comm#IN_PLACE}
   * @param sendOffset the first element of {@code sendBuf}
   * @param recvBuf the result buffer
   * @param recvOffset the first element of {@code recvBuf}
   * @param count number of elements
   * @param type a datatype of one basic type
   * @param op the reduction
   * @return completes when this rank has its prefix result
   */
  public Completable scan(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op) {
    return Deferred.completable(() -> comm.scan(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op));
  }

  /**
   * MPI_Exscan ({@link Comm#exscan}): completes once the combination of ranks
   * {@code 0..rank()-1} is in {@code recvBuf}; rank 0's buffer is left untouched. Fails with
   * COUNT, TYPE, OP, BUFFER, TRUNCATE, COMM or TIMEOUT.
   *
   * @param sendBuf this rank's operand, or {@link Comm#IN_PLACE}
   * @param sendOffset the first element of {@code sendBuf}
   * @param recvBuf the result buffer
   * @param recvOffset the first element of {@code recvBuf}
   * @param count number of elements
   * @param type a datatype of one basic type
   * @param op the reduction
   * @return completes when this rank has its prefix result
   */
  public Completable exscan(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op) {
    return Deferred.completable(() -> comm.exscan(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op));
  }

  /**
   * MPI_Abort ({@link Comm#abort}): ends the whole job at once, not on subscription (there is
   * nothing to wait for); every rank's pending and later calls fail with COMM.
   *
   * @param reason why the job is aborted, reported to every rank
   */
  public void abort(String reason) {
    comm.abort(reason);
  }

  /**
   * MPI_Comm_get_errhandler ({@link Comm#getErrhandler}).
   *
   * @return the handler
   */
  public ErrorHandler getErrhandler() {
    return comm.getErrhandler();
  }

  /**
   * MPI_Comm_set_errhandler ({@link Comm#setErrhandler}), at once.
   *
   * @param handler the handler
   */
  public void setErrhandler(ErrorHandler handler) {
    comm.setErrhandler(handler);
  }

  /**
   * MPI_Comm_call_errhandler ({@link Comm#callErrhandler}), on subscription.
   *
   * @param error the error to report
   * @return completes once the handler has run
   */
  public Completable callErrhandler(RmaException error) {
    return Deferred.completable(() -> comm.callErrhandler(error));
  }
}
