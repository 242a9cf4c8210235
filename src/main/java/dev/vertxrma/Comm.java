package dev.vertxrma;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.Optional;

/**
 * A communicator (MPI_Comm): the ranks of a job and the point-to-point and collective operations
 * between them. Every operation returns a {@link Future}; nothing blocks. A call may be made from
 * any thread: calls made off the rank's own event loop are moved onto it, in call order, and
 * their futures complete there.
 *
 * <p><b>Communicators.</b> A rank program starts with the world (every rank of the job). From
 * any communicator, {@link #split}, {@link #dup} and {@link #create} make new ones collectively,
 * and {@link #self()} is MPI_COMM_SELF. Every communicator has its own ranks, {@code 0 ..
 * size()-1}: the ranks passed to and reported by its calls (destinations, sources, roots,
 * statuses, the targets of windows created over it) and named in its errors are its own; its
 * {@link #group()} says which job rank each one is ({@link Group#translateRanks} maps them to
 * another communicator's). Each communicator has its own context, agreed by its members when it
 * is made: a message sent on one is received only by a receive on the same one (the same tag on
 * two communicators never matches across), and collectives on two communicators never mix, even
 * when they are issued without awaiting each other. Each has its own error handler.
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
 * neither native nor backed by a {@code byte[]}, {@link ErrorClass#TAG} for a negative tag,
 * {@link ErrorClass#BUFFER} for {@link #IN_PLACE} where a call does not accept it.
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
  /** MPI_UNDEFINED (MPICH's value): e.g. {@link Status#count(Datatype)} of a message that is not a whole number of elements. */
  int UNDEFINED = -32766;

  /**
   * MPI_IN_PLACE: passed as a buffer, says "the data is already where the result goes". Accepted
   * only where MPI accepts it, with MPI's meaning:
   * <ul>
   *   <li>as the send buffer of {@link #allreduce(Buf, int, Buf, int, int, Datatype, Reduction) allreduce},
   *       {@link #scan}, {@link #exscan}, {@link #reduceScatter} and {@link #reduceScatterBlock}
   *       at any rank: the input is taken from the receive buffer, which the result replaces;</li>
   *   <li>as the send buffer of {@link #reduce} at root only: root's input is taken from its
   *       receive buffer;</li>
   *   <li>as the send buffer of {@link #gather} and {@link #gatherv} at root and of
   *       {@link #allgather} and {@link #allgatherv} at any rank: this rank's block is already in
   *       its place in the receive buffer (block {@code rank()}); send count and type are
   *       ignored;</li>
   *   <li>as the send buffer of {@link #alltoall} and {@link #alltoallv} at any rank: the blocks
   *       to send are taken from the receive buffer (with the receive counts, displacements and
   *       type) and replaced by the blocks received;</li>
   *   <li>as the receive buffer of {@link #scatter} and {@link #scatterv} at root: root's block
   *       stays in the send buffer; receive count and type are ignored.</li>
   * </ul>
   * Anywhere else (a receive buffer, a send buffer at a non-root rank of reduce or gather, a
   * point-to-point or window call) it fails the call with {@link ErrorClass#BUFFER}, as MPICH
   * does, before anything is sent. As in MPI, the ranks of one collective call need not agree on
   * using it.
   */
  Buf IN_PLACE = Buf.IN_PLACE;

  /**
   * MPI_BOTTOM: the buffer at address 0, for a datatype whose displacements are absolute
   * addresses taken with {@link Win#address} (MPI_Get_address) — e.g. an {@code hindexed} or
   * {@code struct} type gathering fields of several native stores into one call. Accepted as the
   * buffer of any point-to-point, collective or window call, with offset 0. Every byte the type
   * reaches must lie in a store whose address was taken and that is still alive; anything else
   * fails the call with {@link ErrorClass#BUFFER} before any byte is read or written.
   */
  Buf BOTTOM = Buf.BOTTOM;

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
   * @return the group of all its ranks, in rank order, seen from this rank: group rank {@code i}
   *     is this communicator's rank {@code i}, and {@link Group#jobRank(int)} says which job rank
   *     that is
   */
  Group group();

  /**
   * MPI_Comm_get_name: the name of this communicator at this rank. Names are local: each rank
   * sees the name it set (MPI does not require the ranks to agree). Until one is set, the world is
   * {@code "MPI_COMM_WORLD"}, {@link #self()} is {@code "MPI_COMM_SELF"}, and a communicator made
   * by {@link #split}, {@link #dup} or {@link #create} has the empty name {@code ""} (MPI's "no
   * name": a name is never copied to a new communicator). The name is for the program only; the
   * library's error messages keep naming communicators their own way ("the world communicator",
   * "split(color 1) of ...").
   *
   * @return the name last set with {@link #setName} at this rank, or the default above; never
   *     {@code null}. Works also after {@link #free()}.
   */
  String getName();

  /**
   * MPI_Comm_set_name: names this communicator at this rank (local, not collective; no
   * communication). Any string is kept whole, the empty one included (MPI_MAX_OBJECT_NAME does
   * not apply to a Java string); the world and {@link #self()} may be renamed too, as in MPI.
   *
   * @param name the new name
   * @throws RmaException {@link ErrorClass#ARG} for {@code null}; {@link ErrorClass#COMM} after
   *     {@link #free()}
   */
  void setName(String name);

  // ------------------------------------------------------------------ communicators

  /**
   * MPI_Comm_split: partitions this communicator by {@code color}. Collective: every rank of this
   * communicator calls it, in the same collective order as its other collective calls. The ranks
   * that give the same color form a new communicator, ordered by {@code key}, ties broken by their
   * rank here (MPI's rule; equal keys are fine). A rank that gives {@link #UNDEFINED} is in none
   * (MPI_COMM_NULL). The new communicators get a context id agreed by an allgather over this one
   * (MPICH's way): the largest of the ranks' next free ids. One rank's communicator creations run
   * one at a time, in call order, like MPI's blocking calls.
   *
   * @param color the new communicator to join, {@code >= 0}, or {@link #UNDEFINED} for none
   * @param key the order of this rank in it (any int)
   * @return completes, once every rank of this communicator has called split, with this rank's
   *     new communicator, or with an empty {@link Optional} for {@link #UNDEFINED} (MPI's
   *     MPI_COMM_NULL, as {@link #iprobe} says "no message"). Fails at every rank with
   *     {@link ErrorClass#ARG} naming the rank that gave a negative color other than UNDEFINED,
   *     {@link ErrorClass#COMM} after {@link #free()} or once the job has ended,
   *     {@link ErrorClass#OTHER} when this rank has made so many communicators (about half a
   *     million) that no context id is left, {@link ErrorClass#TIMEOUT} when a rank does not call
   *     it within the wait timeout.
   */
  Future<Optional<Comm>> split(int color, int key);

  /**
   * MPI_Comm_split_type: partitions this communicator by the kind of locality {@code type} names;
   * with {@link SplitType#SHARED} (MPI_COMM_TYPE_SHARED), into the ranks that can share memory,
   * across the JVMs of a host too. Collective, like {@link #split}; the new communicators are
   * ordered by {@code key}, ties broken by rank here. Each rank proves which others share its
   * memory segment directory by a file it writes there and they read (file work on a worker, never
   * an event loop; the files are removed when the call completes).
   *
   * @param type the locality to split by; not null
   * @param key the order of this rank in its new communicator (any int)
   * @return completes, once every rank of this communicator has called it, with the communicator
   *     of the ranks that share memory with this one (this rank alone if its directory cannot be
   *     written). Fails with {@link ErrorClass#ARG} for a null type (at this rank; the others then
   *     time out, as with any collective one rank does not enter), {@link ErrorClass#COMM} after
   *     {@link #free()} or once the job has ended, {@link ErrorClass#OTHER} when no context id is
   *     left, {@link ErrorClass#TIMEOUT}.
   */
  Future<Comm> splitType(SplitType type, int key);

  /**
   * MPI_Comm_dup: a new communicator with the same ranks in the same order and a context of its
   * own: its traffic never mixes with this one's (a library's messages with its caller's, say).
   * Collective over this communicator, with a context id agreed as for {@link #split}. The error
   * handler is not copied: the new communicator starts with {@link ErrorHandler#ERRORS_RETURN}.
   *
   * @return completes with the new communicator once every rank of this one has called dup. Fails
   *     with {@link ErrorClass#COMM} after {@link #free()} or once the job has ended,
   *     {@link ErrorClass#OTHER} when no context id is left, {@link ErrorClass#TIMEOUT}.
   */
  Future<Comm> dup();

  /**
   * MPI_Comm_create: a new communicator of the members of {@code group}, in the group's order.
   * Collective over this communicator: every rank calls it with the same group, a subgroup of
   * {@link #group()} (make it with {@link Group#incl}, {@link Group#excl} or the set operations),
   * also the ranks that are not in it. Context id agreed as for {@link #split}.
   *
   * @param group the members of the new communicator, as job ranks (a {@link Group})
   * @return completes, once every rank has called create, with the new communicator at its
   *     members and an empty {@link Optional} at the other ranks (MPI_COMM_NULL). Fails at every
   *     rank with {@link ErrorClass#GROUP} when a rank passed {@code null}, a group with a
   *     member outside this communicator, or a group that differs from rank 0's (each failure
   *     names the rank); {@link ErrorClass#COMM} after {@link #free()} or once the job has ended;
   *     OTHER, TIMEOUT as {@link #dup()}.
   */
  Future<Optional<Comm>> create(Group group);

  /**
   * MPI_COMM_SELF: the communicator of this rank alone (rank 0 of size 1). One per rank: every
   * communicator of the rank returns the same one. Made locally, with no communication; it has a
   * context of its own like any communicator, so windows, collectives and messages to itself on
   * it work as on any other.
   *
   * @return this rank's COMM_SELF
   */
  Comm self();

  /**
   * MPI_Comm_free: this rank is done with this communicator. MPI makes it collective; here it
   * needs no communication and completes at once, and the ranks need not call it together.
   * Operations already issued on it (a pending receive, a collective) still complete, and windows
   * created over it keep working until they are freed (they have contexts of their own, as the
   * communicators MPICH duplicates for its windows).
   *
   * @return completes at once. Fails with {@link ErrorClass#COMM} for the world or
   *     {@link #self()} (which cannot be freed) and when this communicator was freed already;
   *     every later call on it fails with {@link ErrorClass#COMM} too.
   */
  Future<Void> free();

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
   * MPI_Probe: waits for a message that a receive of {@code source}/{@code tag} would match,
   * without receiving it. The message stays queued: a later {@link #recv} with the status's
   * source and tag receives exactly this message (the first match, in arrival order; MPI's
   * non-overtaking rule). Only messages that no posted receive has taken are seen: a message
   * arriving while a matching {@link #irecv} is posted goes to that receive.
   *
   * @param source the source rank, {@link #ANY_SOURCE}, or {@link #PROC_NULL} (completes at once
   *     with source PROC_NULL, tag ANY_TAG and count 0)
   * @param tag the tag to match, {@code >= 0}, or {@link #ANY_TAG}
   * @return completes, as soon as such a message has arrived, with its status: real source and
   *     tag, {@link Status#byteCount()} the message's size, and {@link Status#count()} that size
   *     in bytes (a probe knows no datatype; {@link Status#count(Datatype)} gives the count in
   *     another, MPI_Get_count). Fails with {@link ErrorClass#RANK} for a source outside the
   *     communicator, {@link ErrorClass#TAG} for a negative tag other than ANY_TAG,
   *     {@link ErrorClass#TIMEOUT} when no message matches within the wait timeout.
   */
  Future<Status> probe(int source, int tag);

  /**
   * MPI_Iprobe: looks, once, for a message that a receive of {@code source}/{@code tag} would
   * match, without receiving it. The MPI flag is the presence of the status: the future never
   * waits for a message; it completes with {@code Optional.empty()} when none has arrived yet
   * (MPI's {@code flag = false}). Call it again to poll: each call lets the rank's event loop
   * deliver what has arrived meanwhile, and {@link Rma#repeatUntil} polls in constant stack.
   *
   * @param source the source rank, {@link #ANY_SOURCE}, or {@link #PROC_NULL} (completes with
   *     the PROC_NULL status, as {@link #probe})
   * @param tag the tag to match, {@code >= 0}, or {@link #ANY_TAG}
   * @return completes at once with the status of the first matching message that has arrived and
   *     not been received (as {@link #probe} reports it; the message stays queued), or with an
   *     empty {@link Optional} if there is none. Fails with {@link ErrorClass#RANK} or
   *     {@link ErrorClass#TAG} as {@link #probe}.
   */
  Future<Optional<Status>> iprobe(int source, int tag);

  /**
   * MPI_Mprobe, the matched probe: waits for a message that a receive of {@code source}/{@code
   * tag} would match and takes it out of matching, so that no other receive or probe can see it:
   * the {@link Message} it completes with is received by {@link #mrecv}, and by nothing else. A
   * racing {@code recv(ANY_SOURCE, ANY_TAG)} posted after the match takes the next message, never
   * this one. Matching follows MPI's rules as {@link #probe} does: the first unreceived match in
   * arrival order (non-overtaking from each source); a message arriving while a matching receive
   * is posted goes to that receive; when several matched probes wait, the earliest takes the
   * next match (a waiting {@link #probe} still reports it).
   *
   * @param source the source rank, {@link #ANY_SOURCE}, or {@link #PROC_NULL} (completes at once
   *     with {@link Message#NO_PROC})
   * @param tag the tag to match, {@code >= 0}, or {@link #ANY_TAG}
   * @return completes, as soon as such a message has arrived, with its handle; its
   *     {@link Message#status()} is the status {@link #probe} would report. Fails with
   *     {@link ErrorClass#RANK} for a source outside the communicator, {@link ErrorClass#TAG} for
   *     a negative tag other than ANY_TAG, {@link ErrorClass#TIMEOUT} when no message matches
   *     within the wait timeout (nothing is taken then).
   */
  Future<Message> mprobe(int source, int tag);

  /**
   * MPI_Improbe: looks, once, for a message as {@link #mprobe} does and takes it out of matching
   * if there is one. The future never waits for a message: an empty {@link Optional} is MPI's
   * {@code flag = false}, as with {@link #iprobe}.
   *
   * @param source the source rank, {@link #ANY_SOURCE}, or {@link #PROC_NULL} (completes with
   *     {@link Message#NO_PROC})
   * @param tag the tag to match, {@code >= 0}, or {@link #ANY_TAG}
   * @return completes at once with the handle of the first matching message that has arrived and
   *     not been received or matched (now out of matching, for {@link #mrecv}), or with an empty
   *     {@link Optional} if there is none. Fails with {@link ErrorClass#RANK} or
   *     {@link ErrorClass#TAG} as {@link #mprobe}.
   */
  Future<Optional<Message>> improbe(int source, int tag);

  /**
   * MPI_Mrecv: receives the message of a matched probe, once. The handle is spent by the
   * receive, also when the receive fails with TRUNCATE or TYPE (as a {@link #recv} of that message
   * would: the message was received, the buffer is left untouched); a call refused for its
   * arguments leaves the handle as it was, to be received with the right ones.
   *
   * @param buf the receive buffer ({@code null} with count 0)
   * @param offset where the data goes in {@code buf}: array elements, or bytes for other buffers
   * @param count the capacity in elements of {@code type}
   * @param type the datatype, committed
   * @param message a handle from this communicator's {@link #mprobe} or {@link #improbe} at this
   *     rank, or {@link Message#NO_PROC} (completes at once with source PROC_NULL and count 0,
   *     nothing written)
   * @return completes with the message's status, as {@link #recv} reports it, once the message is
   *     in the buffer (a synchronous sender is told of the match now: its {@link #ssend} completes
   *     after this receive, not after the probe, as in MPICH). Fails with the argument errors
   *     listed in the class comment, {@link ErrorClass#REQUEST} when {@code message} is
   *     {@code null} (MPI_MESSAGE_NULL), was received already (a second mrecv of one handle), or
   *     was matched at another rank or on another communicator (MPI_ERR_REQUEST: the handle is
   *     not one this call can take), {@link ErrorClass#TRUNCATE} when the message is longer than
   *     the buffer, {@link ErrorClass#TYPE} when it is not a whole number of elements of
   *     {@code type}.
   */
  Future<Status> mrecv(Buf buf, int offset, int count, Datatype type, Message message);

  /**
   * MPI_Imrecv: identical to {@link #mrecv}, since every call is nonblocking.
   *
   * @param buf the receive buffer ({@code null} with count 0)
   * @param offset where the data goes in {@code buf}: array elements, or bytes for other buffers
   * @param count the capacity in elements of {@code type}
   * @param type the datatype, committed
   * @param message a handle from this communicator's {@link #mprobe} or {@link #improbe}, or
   *     {@link Message#NO_PROC}
   * @return as {@link #mrecv}
   */
  Future<Status> imrecv(Buf buf, int offset, int count, Datatype type, Message message);

  /**
   * MPI_Sendrecv: sends one message and receives one, in one call that cannot deadlock however
   * the ranks pair up (a ring shift, an exchange with a neighbour, a message to self). The send
   * is standard mode and this rank's data is copied out when the call is made; the two buffers
   * must not overlap (use {@link #sendrecvReplace} for one buffer).
   *
   * @param sendBuf the send buffer ({@code null} with sendCount 0)
   * @param sendOffset where the data starts in {@code sendBuf}: array elements, or bytes for other buffers
   * @param sendCount the number of elements of {@code sendType} to send
   * @param sendType the send datatype, committed
   * @param dest the destination rank, or {@link #PROC_NULL} (nothing is sent)
   * @param sendTag the tag of the message sent, {@code >= 0}
   * @param recvBuf the receive buffer ({@code null} with recvCount 0)
   * @param recvOffset where the data goes in {@code recvBuf}
   * @param recvCount the capacity in elements of {@code recvType}
   * @param recvType the receive datatype, committed
   * @param source the source rank, {@link #ANY_SOURCE}, or {@link #PROC_NULL} (nothing is received)
   * @param recvTag the tag to match, {@code >= 0}, or {@link #ANY_TAG}
   * @return completes with the status of the received message once it is in {@code recvBuf} and
   *     the send buffer may be reused. Fails with the argument errors listed in the class comment
   *     (checked on both halves before anything is sent), {@link ErrorClass#TRUNCATE} or
   *     {@link ErrorClass#TYPE} as {@link #recv} (the message sent is then still delivered),
   *     TIMEOUT.
   */
  Future<Status> sendrecv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, int dest, int sendTag,
      Buf recvBuf, int recvOffset, int recvCount, Datatype recvType, int source, int recvTag);

  /**
   * MPI_Sendrecv_replace: sends the buffer's contents and receives a message into the same buffer.
   * The data to send is copied out when the call is made, before anything can be received.
   *
   * @param buf the buffer: sent, then overwritten by the message received ({@code null} with count 0)
   * @param offset where the data is in {@code buf}: array elements, or bytes for other buffers
   * @param count the number of elements of {@code type} sent, and the capacity for the message received
   * @param type the datatype, committed, of both messages
   * @param dest the destination rank, or {@link #PROC_NULL}
   * @param sendTag the tag of the message sent, {@code >= 0}
   * @param source the source rank, {@link #ANY_SOURCE}, or {@link #PROC_NULL} (the buffer is left as it is)
   * @param recvTag the tag to match, {@code >= 0}, or {@link #ANY_TAG}
   * @return completes with the status of the received message once it is in {@code buf}. Fails
   *     as {@link #sendrecv}.
   */
  Future<Status> sendrecvReplace(Buf buf, int offset, int count, Datatype type, int dest, int sendTag, int source,
      int recvTag);

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
   * @return completes, with the buffer that was attached and its size (the {@code buffer_addr}
   *     and {@code size} results of MPI_Buffer_detach: the same {@link Buf} and the
   *     {@code sizeBytes} given to {@link #bufferAttach}), once every message in it has been
   *     delivered. Fails with {@link ErrorClass#BUFFER} if none is attached,
   *     {@link ErrorClass#TIMEOUT} when the messages are not delivered within the wait timeout.
   */
  Future<DetachedBuffer> bufferDetach();

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
   * into the receive buffer of {@code root}, over a binomial tree.
   *
   * <p><b>User-defined ops</b> ({@link Op#create}), here and in every reducing collective: a
   * non-commutative op is applied as if in ascending rank order, {@code x0 op x1 op ... op
   * x(P-1)}, as MPI defines it (for reduce, the tree is then rooted at rank 0, which sends the
   * result on to root); the function runs on the rank that combines, in its JVM. Before their
   * calls complete, the ranks agree on the outcome (ceil(log2 P) more rounds of small messages), so
   * that an exception thrown by the function, at any rank, fails the call at every rank with
   * {@link ErrorClass#OP} naming the rank and the exception (the rank where it was thrown keeps it
   * as the cause); a rank's call then never completes before every rank has done its part.
   *
   * @param sendBuf this rank's contribution; at root, {@link #IN_PLACE} takes root's
   *     contribution from {@code recvBuf}, which the result replaces
   * @param sendOffset where it starts in {@code sendBuf}
   * @param recvBuf the result at root; ignored elsewhere
   * @param recvOffset where the result goes in {@code recvBuf}
   * @param count the number of elements of {@code type}; the same at every rank, as MPI requires
   * @param type the datatype, committed; of one basic type for a predefined op, any for a
   *     user-defined one
   * @param op the operation: a predefined {@link Op} other than REPLACE and NO_OP, or a user-defined
   *     one ({@link Op#create}); the same at every rank
   * @param root the rank that receives the result
   * @return completes when this rank's part is done (at root: the result is in
   *     {@code recvBuf}). Fails with the argument errors listed in the class comment,
   *     {@link ErrorClass#BUFFER} for {@link #IN_PLACE} as the send buffer of a non-root rank or
   *     as root's receive buffer, {@link ErrorClass#OP} for a null op, one not defined on the
   *     datatype, REPLACE or NO_OP, or a user-defined op whose function threw (at every rank),
   *     {@link ErrorClass#TYPE} for a datatype that mixes basic types with a predefined op,
   *     {@link ErrorClass#TRUNCATE} when the ranks' count and datatype do not describe the same
   *     amount of data, TIMEOUT.
   */
  Future<Void> reduce(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op, int root);

  /**
   * MPI_Allreduce: as {@link #reduce}, with the result at every rank.
   *
   * @param sendBuf this rank's contribution, or {@link #IN_PLACE}: it is taken from
   *     {@code recvBuf}, which the result replaces
   * @param sendOffset where it starts in {@code sendBuf}
   * @param recvBuf the result (not IN_PLACE)
   * @param recvOffset where the result goes in {@code recvBuf}
   * @param count the number of elements of {@code type}; the same at every rank, as MPI requires
   * @param type the datatype, committed; of one basic type for a predefined op, any for a
   *     user-defined one
   * @param op the operation: a predefined {@link Op} other than REPLACE and NO_OP, or a user-defined
   *     one ({@link Op#create}); the same at every rank
   * @return completes when the result is in {@code recvBuf}. Fails as {@link #reduce}
   *     ({@link ErrorClass#BUFFER} for IN_PLACE as the receive buffer).
   */
  Future<Void> allreduce(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op);

  /**
   * MPI_Allreduce of one {@code double}.
   *
   * @param value this rank's contribution
   * @param op the operation, defined on DOUBLE (arithmetic, MAX, MIN), or a user-defined one
   *     (its function is called with count 1 and {@link Datatype#DOUBLE})
   * @return completes with the combined value. Fails with {@link ErrorClass#OP} for an op not
   *     defined on DOUBLE, TIMEOUT.
   */
  Future<Double> allreduce(double value, Reduction op);

  /**
   * MPI_Allreduce of one {@code long}.
   *
   * @param value this rank's contribution
   * @param op the operation, defined on LONG (all but MAXLOC, MINLOC, REPLACE, NO_OP), or a
   *     user-defined one (its function is called with count 1 and {@link Datatype#LONG})
   * @return completes with the combined value. Fails with {@link ErrorClass#OP} for an op not
   *     defined on LONG, TIMEOUT.
   */
  Future<Long> allreduce(long value, Reduction op);

  /**
   * MPI_Gather: rank {@code i}'s block lands at block {@code i} of root's receive buffer.
   *
   * @param sendBuf this rank's block; at root, {@link #IN_PLACE} says root's block is already at
   *     block {@code root} of {@code recvBuf} (sendCount and sendType are then ignored)
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
   *     {@link ErrorClass#BUFFER} for {@link #IN_PLACE} as the send buffer of a non-root rank or
   *     as root's receive buffer, {@link ErrorClass#TRUNCATE} when a block is not the size of a
   *     receive block, TIMEOUT.
   */
  Future<Void> gather(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root);

  /**
   * MPI_Allgather: as {@link #gather}, with the result at every rank.
   *
   * @param sendBuf this rank's block, or {@link #IN_PLACE}: it is already at block {@code rank()}
   *     of {@code recvBuf} (sendCount and sendType are then ignored)
   * @param sendOffset where it starts in {@code sendBuf}
   * @param sendCount the number of elements of {@code sendType} in it
   * @param sendType the send datatype, committed
   * @param recvBuf room for {@code size()} blocks
   * @param recvOffset where block 0 goes in {@code recvBuf}
   * @param recvCount the number of elements of {@code recvType} per block
   * @param recvType the receive datatype, committed
   * @return completes when every block is in {@code recvBuf}. Fails as {@link #gather}
   *     ({@link ErrorClass#BUFFER} for IN_PLACE as the receive buffer).
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
   * @param recvBuf this rank's block; at root, {@link #IN_PLACE} leaves root's block in
   *     {@code sendBuf} (recvCount and recvType are then ignored)
   * @param recvOffset where it goes in {@code recvBuf}
   * @param recvCount the number of elements of {@code recvType} in it
   * @param recvType the receive datatype, committed
   * @param root the rank that sends the blocks
   * @return completes when this rank's block is in {@code recvBuf}. Fails with the argument
   *     errors listed in the class comment ({@link ErrorClass#BUFFER} for {@link #IN_PLACE}
   *     anywhere but as root's receive buffer), {@link ErrorClass#TRUNCATE} when root's block is
   *     not the size of this rank's receive block, TIMEOUT.
   */
  Future<Void> scatter(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root);

  /**
   * MPI_Alltoall: block {@code j} of rank {@code i}'s send buffer lands at block {@code i} of
   * rank {@code j}.
   *
   * @param sendBuf {@code size()} blocks, one per destination, or {@link #IN_PLACE}: they are
   *     taken from {@code recvBuf} (with recvCount and recvType; sendCount and sendType are
   *     ignored) and replaced there by the blocks received
   * @param sendOffset where block 0 starts in {@code sendBuf}
   * @param sendCount the number of elements of {@code sendType} per block
   * @param sendType the send datatype, committed
   * @param recvBuf room for {@code size()} blocks, one per source
   * @param recvOffset where block 0 goes in {@code recvBuf}
   * @param recvCount the number of elements of {@code recvType} per block
   * @param recvType the receive datatype, committed
   * @return completes when every block is in {@code recvBuf}. Fails as {@link #gather}
   *     ({@link ErrorClass#BUFFER} for IN_PLACE as the receive buffer).
   */
  Future<Void> alltoall(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType);

  /**
   * MPI_Gatherv: as {@link #gather}, with a block size and place per rank: rank {@code i}'s block
   * lands at root as {@code recvCounts[i]} elements of {@code recvType}, starting
   * {@code displs[i]} extents of {@code recvType} from {@code recvBuf[recvOffset]}. Counts may be 0
   * and differ between ranks; displacements need not be in order or contiguous (the receive
   * blocks must not overlap, as MPI requires; this is not checked), and may be negative while the
   * block stays inside the buffer. Runs as the linear gather of {@link #gather}.
   *
   * @param sendBuf this rank's block ({@code null} with count 0); at root, {@link #IN_PLACE} says
   *     root's block is already in place ({@code recvCounts[root]} elements at
   *     {@code displs[root]}; sendCount and sendType are then ignored)
   * @param sendOffset where it starts in {@code sendBuf}
   * @param sendCount the number of elements of {@code sendType} in it; rank {@code i}'s must
   *     describe the same amount of data as root's {@code recvCounts[i]}
   * @param sendType the send datatype, committed
   * @param recvBuf at root, the receive buffer; ignored elsewhere
   * @param recvOffset where displacement 0 is in {@code recvBuf}: array elements, or bytes
   * @param recvCounts at root, the number of elements of {@code recvType} from each rank, one per
   *     rank (copied when the call is made); ignored elsewhere (may be {@code null})
   * @param displs at root, where each rank's block goes, in extents of {@code recvType}, one per
   *     rank (copied); ignored elsewhere (may be {@code null})
   * @param recvType the receive datatype, committed (at root)
   * @param root the rank that receives the blocks
   * @return completes when this rank's part is done (at root: every block is in {@code recvBuf}).
   *     Fails with the argument errors listed in the class comment ({@link ErrorClass#RANK} for a
   *     bad root, TYPE, BUFFER, COUNT for a negative send count); at root with
   *     {@link ErrorClass#ARG} when {@code recvCounts} or {@code displs} is null or not one entry
   *     per rank, {@link ErrorClass#COUNT} for a negative {@code recvCounts[i]},
   *     {@link ErrorClass#BUFFER} for a block that does not lie inside {@code recvBuf} (the
   *     message names the rank, its count and displacement) or for {@link #IN_PLACE} as the
   *     receive buffer, and {@link ErrorClass#TRUNCATE} when a rank's block is not the size of
   *     its receive block; {@link ErrorClass#BUFFER} for IN_PLACE as the send buffer of a
   *     non-root rank; TIMEOUT. An argument error at one rank leaves the others waiting (TIMEOUT),
   *     as with every collective.
   */
  Future<Void> gatherv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int[] recvCounts, int[] displs, Datatype recvType, int root);

  /**
   * MPI_Allgatherv: as {@link #gatherv}, with the result at every rank: every rank passes the same
   * {@code recvCounts} and {@code displs}, and rank {@code i}'s block lands at {@code displs[i]}
   * extents of {@code recvType} at every rank. Runs as {@link #allgather}.
   *
   * @param sendBuf this rank's block, or {@link #IN_PLACE}: it is already at block
   *     {@code rank()} of {@code recvBuf} ({@code recvCounts[rank()]} elements at
   *     {@code displs[rank()]}; sendCount and sendType are then ignored)
   * @param sendOffset where it starts in {@code sendBuf}
   * @param sendCount the number of elements of {@code sendType} in it
   * @param sendType the send datatype, committed
   * @param recvBuf the receive buffer (not IN_PLACE)
   * @param recvOffset where displacement 0 is in {@code recvBuf}
   * @param recvCounts the number of elements of {@code recvType} from each rank, one per rank
   *     (copied)
   * @param displs where each rank's block goes, in extents of {@code recvType}, one per rank
   *     (copied)
   * @param recvType the receive datatype, committed
   * @return completes when every block is in {@code recvBuf}. Fails as {@link #gatherv} (the
   *     receive side's errors at every rank).
   */
  Future<Void> allgatherv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int[] recvCounts, int[] displs, Datatype recvType);

  /**
   * MPI_Scatterv: as {@link #scatter}, with a block size and place per rank: rank {@code i} gets
   * the {@code sendCounts[i]} elements of {@code sendType} that start {@code displs[i]} extents of
   * {@code sendType} from root's {@code sendBuf[sendOffset]}. Counts may be 0 and differ;
   * displacements may be in any order, overlap (the send blocks are only read) or be negative
   * while the block stays inside the buffer. Runs as the linear scatter of {@link #scatter}.
   *
   * @param sendBuf at root, the send buffer; ignored elsewhere
   * @param sendOffset where displacement 0 is in {@code sendBuf}: array elements, or bytes
   * @param sendCounts at root, the number of elements of {@code sendType} for each rank, one per
   *     rank (copied); ignored elsewhere (may be {@code null})
   * @param displs at root, where each rank's block starts, in extents of {@code sendType}, one per
   *     rank (copied); ignored elsewhere (may be {@code null})
   * @param sendType the send datatype, committed (at root)
   * @param recvBuf this rank's block; at root, {@link #IN_PLACE} leaves root's block in
   *     {@code sendBuf} (recvCount and recvType are then ignored)
   * @param recvOffset where it goes in {@code recvBuf}
   * @param recvCount the number of elements of {@code recvType} in it; must describe the same
   *     amount of data as root's {@code sendCounts[rank()]}
   * @param recvType the receive datatype, committed
   * @param root the rank that sends the blocks
   * @return completes when this rank's block is in {@code recvBuf}. Fails with the argument
   *     errors listed in the class comment (RANK for a bad root, TYPE, BUFFER, COUNT for a
   *     negative receive count); at root with {@link ErrorClass#ARG} when {@code sendCounts} or
   *     {@code displs} is null or not one entry per rank, {@link ErrorClass#COUNT} for a negative
   *     {@code sendCounts[i]}, {@link ErrorClass#BUFFER} for a block that does not lie inside
   *     {@code sendBuf} (naming the rank, its count and displacement);
   *     {@link ErrorClass#TRUNCATE} when root's block is not the size of this rank's receive
   *     block; {@link ErrorClass#BUFFER} for IN_PLACE anywhere but as root's receive buffer;
   *     TIMEOUT.
   */
  Future<Void> scatterv(Buf sendBuf, int sendOffset, int[] sendCounts, int[] displs, Datatype sendType,
      Buf recvBuf, int recvOffset, int recvCount, Datatype recvType, int root);

  /**
   * MPI_Alltoallv: as {@link #alltoall}, with a block size and place per peer: the
   * {@code sendCounts[j]} elements of {@code sendType} at {@code sdispls[j]} extents of
   * {@code sendType} in rank {@code i}'s send buffer land at rank {@code j} as its
   * {@code recvCounts[i]} elements of {@code recvType} at {@code rdispls[i]} extents of
   * {@code recvType}. Counts may be 0 and differ; displacements may be in any order and
   * non-contiguous (receive blocks must not overlap; not checked). Runs as {@link #alltoall}.
   *
   * @param sendBuf the send buffer, or {@link #IN_PLACE}: the blocks to send are taken from
   *     {@code recvBuf} (with recvCounts, rdispls and recvType; sendCounts, sdispls and sendType
   *     are ignored) and replaced there by the blocks received
   * @param sendOffset where displacement 0 is in {@code sendBuf}
   * @param sendCounts the number of elements of {@code sendType} for each rank, one per rank
   *     (copied); rank {@code i}'s {@code sendCounts[j]} must describe the same amount of data as
   *     rank {@code j}'s {@code recvCounts[i]}
   * @param sdispls where each rank's block starts, in extents of {@code sendType} (copied)
   * @param sendType the send datatype, committed
   * @param recvBuf the receive buffer (not IN_PLACE)
   * @param recvOffset where displacement 0 is in {@code recvBuf}
   * @param recvCounts the number of elements of {@code recvType} from each rank (copied)
   * @param rdispls where each rank's block goes, in extents of {@code recvType} (copied)
   * @param recvType the receive datatype, committed
   * @return completes when every block is in {@code recvBuf}. Fails with
   *     {@link ErrorClass#ARG} when a counts or displacements array is null or not one entry per
   *     rank, {@link ErrorClass#COUNT} for a negative count, {@link ErrorClass#BUFFER} for a block
   *     outside its buffer (naming the rank, its count and displacement) or IN_PLACE as the
   *     receive buffer, {@link ErrorClass#TYPE}, {@link ErrorClass#TRUNCATE} when a block
   *     received is not the size of its receive block, TIMEOUT.
   */
  Future<Void> alltoallv(Buf sendBuf, int sendOffset, int[] sendCounts, int[] sdispls, Datatype sendType,
      Buf recvBuf, int recvOffset, int[] recvCounts, int[] rdispls, Datatype recvType);

  /**
   * MPI_Reduce_scatter: combines every rank's send buffer element-wise with {@code op}, as
   * {@link #reduce}, and scatters the result: rank {@code i} gets the {@code recvCounts[i]}
   * elements that follow the first {@code recvCounts[0] + ... + recvCounts[i-1]}. Runs as a
   * binomial reduce to rank 0, then a scatter from it.
   *
   * @param sendBuf this rank's contribution, {@code recvCounts[0] + ... + recvCounts[size()-1]}
   *     elements; or {@link #IN_PLACE}: the contribution is taken from {@code recvBuf}, which must
   *     hold all of it, and this rank's block of the result is written at its start
   * @param sendOffset where it starts in {@code sendBuf}
   * @param recvBuf this rank's block of the result, {@code recvCounts[rank()]} elements (not
   *     IN_PLACE; {@code null} if that count is 0)
   * @param recvOffset where the block goes in {@code recvBuf}
   * @param recvCounts the size of each rank's block in elements of {@code type}, one per rank,
   *     the same at every rank (copied when the call is made)
   * @param type the datatype, committed; of one basic type for a predefined op, any for a
   *     user-defined one
   * @param op the operation: a predefined {@link Op} other than REPLACE and NO_OP, or a user-defined
   *     one ({@link Op#create}); the same at every rank
   * @return completes when this rank's block is in {@code recvBuf}. Fails with
   *     {@link ErrorClass#ARG} when {@code recvCounts} is null or not one entry per rank,
   *     {@link ErrorClass#COUNT} for a negative entry or a total over {@code Integer.MAX_VALUE},
   *     {@link ErrorClass#BUFFER} for IN_PLACE as the receive buffer, and as {@link #reduce}
   *     (OP, TYPE, BUFFER, TRUNCATE when the ranks' counts disagree, TIMEOUT).
   */
  Future<Void> reduceScatter(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int[] recvCounts,
      Datatype type, Reduction op);

  /**
   * MPI_Reduce_scatter_block: {@link #reduceScatter} with the same block size for every rank.
   *
   * @param sendBuf this rank's contribution, {@code size() * recvCount} elements; or
   *     {@link #IN_PLACE}: taken from {@code recvBuf}, which must hold all of it, and this rank's
   *     block of the result is written at its start
   * @param sendOffset where it starts in {@code sendBuf}
   * @param recvBuf this rank's block of the result, {@code recvCount} elements (not IN_PLACE)
   * @param recvOffset where the block goes in {@code recvBuf}
   * @param recvCount the number of elements of {@code type} of each rank's block
   * @param type the datatype, committed; of one basic type for a predefined op, any for a
   *     user-defined one
   * @param op the operation: a predefined {@link Op} other than REPLACE and NO_OP, or a user-defined
   *     one ({@link Op#create}); the same at every rank
   * @return completes when this rank's block is in {@code recvBuf}. Fails with
   *     {@link ErrorClass#COUNT} for a negative count, and as {@link #reduceScatter}.
   */
  Future<Void> reduceScatterBlock(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int recvCount,
      Datatype type, Reduction op);

  /**
   * MPI_Scan: the inclusive prefix reduction; rank {@code i}'s receive buffer gets the
   * combination with {@code op} of the send buffers of ranks {@code 0..i}, in rank order
   * ({@code x0 op x1 op ... op xi}: a non-commutative user-defined op gets its operands in that
   * order). Runs by recursive doubling (ceil(log2 P) rounds, MPICH's algorithm); only the rounding
   * of floating-point sums and products can depend on how the operands are grouped.
   *
   * @param sendBuf this rank's contribution, or {@link #IN_PLACE}: taken from {@code recvBuf},
   *     which the result replaces
   * @param sendOffset where it starts in {@code sendBuf}
   * @param recvBuf the result (not IN_PLACE)
   * @param recvOffset where the result goes in {@code recvBuf}
   * @param count the number of elements of {@code type}; the same at every rank
   * @param type the datatype, committed; of one basic type for a predefined op, any for a
   *     user-defined one
   * @param op the operation: a predefined {@link Op} other than REPLACE and NO_OP, or a user-defined
   *     one ({@link Op#create}); the same at every rank
   * @return completes when this rank's result is in {@code recvBuf}. Fails as
   *     {@link #allreduce(Buf, int, Buf, int, int, Datatype, Reduction) allreduce}.
   */
  Future<Void> scan(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type, Reduction op);

  /**
   * MPI_Exscan: the exclusive prefix reduction; rank {@code i > 0}'s receive buffer gets the
   * combination with {@code op} of the send buffers of ranks {@code 0..i-1}. MPI leaves rank 0's
   * result undefined: here rank 0's receive buffer is left untouched (with IN_PLACE too, as MPI
   * requires). Same algorithm as {@link #scan}.
   *
   * @param sendBuf this rank's contribution, or {@link #IN_PLACE}: taken from {@code recvBuf},
   *     which the result replaces (at ranks other than 0)
   * @param sendOffset where it starts in {@code sendBuf}
   * @param recvBuf the result (not IN_PLACE); at rank 0 checked like any buffer but never written
   * @param recvOffset where the result goes in {@code recvBuf}
   * @param count the number of elements of {@code type}; the same at every rank
   * @param type the datatype, committed; of one basic type for a predefined op, any for a
   *     user-defined one
   * @param op the operation: a predefined {@link Op} other than REPLACE and NO_OP, or a user-defined
   *     one ({@link Op#create}); the same at every rank
   * @return completes when this rank's result is in {@code recvBuf} (at rank 0: when its
   *     contribution has been passed on). Fails as {@link #scan}.
   */
  Future<Void> exscan(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type, Reduction op);

  /**
   * MPI_Abort: ends the whole job, at once and without waiting (there is no future); every
   * rank's pending and later calls fail with {@link ErrorClass#COMM} naming this rank and
   * {@code reason}.
   *
   * @param reason why, for the error messages
   */
  void abort(String reason);

  /**
   * MPI_Comm_get_errhandler: the error handler of this communicator.
   *
   * @return the handler; {@link ErrorHandler#ERRORS_RETURN} until one is set
   */
  ErrorHandler getErrhandler();

  /**
   * MPI_Comm_set_errhandler: from now on, every call on this communicator that fails (its
   * point-to-point and collective calls, and the creation of windows over it) shows its
   * {@link RmaException} to {@code handler} on this rank's context, before its future fails.
   * Local to the calling rank. A lambda is MPI_Comm_create_errhandler.
   *
   * @param handler the handler, or {@link ErrorHandler#ERRORS_RETURN} / {@link ErrorHandler#ERRORS_ARE_FATAL}
   * @throws RmaException {@link ErrorClass#ARG} for {@code null}
   */
  void setErrhandler(ErrorHandler handler);

  /**
   * MPI_Comm_call_errhandler: calls this communicator's error handler with {@code error}, as
   * if a call had failed with it (with {@link ErrorHandler#ERRORS_ARE_FATAL}, aborts the job).
   *
   * @param error the error to report
   * @return completes once the handler has run on the rank's context
   */
  Future<Void> callErrhandler(RmaException error);

  // ------------------------------------------------------------------ fault tolerance (ULFM)

  /**
   * MPI_Comm_revoke (ULFM): marks this communicator revoked at every surviving member, so that
   * no rank keeps waiting on it for a rank that will not come. Any member may call it, alone. The
   * members' pending and later calls on it fail with {@link ErrorClass#REVOKED}, except
   * {@link #agree}, {@link #shrink}, {@link #getFailed}, {@link #ackFailed}, {@link #isRevoked}
   * and {@link #free}. A window created over it keeps its passive-target and post/start
   * epochs; its fences, collectives over the same members, fail with {@link ErrorClass#REVOKED},
   * and its {@code free} completes locally.
   *
   * @return completes when this rank has marked it revoked and passed the notice on (each rank
   *     passes it on once, so it reaches every survivor even if this rank dies now). Fails with
   *     {@link ErrorClass#COMM} after {@link #free()} or once the job has ended.
   */
  Future<Void> revoke();

  /**
   * MPIX_Comm_is_revoked: whether this rank knows the communicator revoked. Local.
   *
   * @return {@code true} once it was revoked (by any member)
   */
  boolean isRevoked();

  /**
   * MPI_Comm_get_failed (ULFM, MPI 5's name): the members this rank knows dead, in the order it
   * learned of them. Local. Only a job run with {@link FailurePolicy#CONTINUE} outlives a death.
   *
   * @return completes at once with the group of the failed members (job ranks, see
   *     {@link Group}); empty while none failed
   */
  Future<Group> getFailed();

  /**
   * MPI_Comm_ack_failed (ULFM): acknowledges the first {@code numToAck} failures of
   * {@link #getFailed()}: receives from {@link #ANY_SOURCE} on this communicator, which fail with
   * {@link ErrorClass#PROC_FAILED} while a failure is not acknowledged, wait again. Local.
   *
   * @param numToAck how many failures to acknowledge ({@code 0} only asks how many are)
   * @return completes with the number of failures acknowledged now. Fails with
   *     {@link ErrorClass#ARG} for a negative count.
   */
  Future<Integer> ackFailed(int numToAck);

  /**
   * MPI_Comm_agree (ULFM): a fault-tolerant agreement of every surviving member on the AND of
   * their {@code flag}s. Collective, also on a revoked communicator or one that lost members;
   * every survivor gets the same value even if members, the coordinator among them, die during
   * the call. The members that the agreement found dead are added to {@link #getFailed()} at
   * every survivor. Unlike MPI, the flag comes back even when there are unacknowledged failures
   * (MPI returns it with MPI_ERR_PROC_FAILED): ask {@link #getFailed()}.
   *
   * @param flag this rank's flag
   * @return completes with the AND of the survivors' flags. Fails with {@link ErrorClass#TIMEOUT}
   *     when a member neither contributes nor is found dead within the job's wait timeout, or with
   *     the job's failure.
   */
  Future<Integer> agree(int flag);

  /**
   * MPI_Comm_shrink (ULFM): a new communicator of the surviving members, in their order here.
   * Collective over the survivors (an agreement, as {@link #agree}): every survivor gets the same
   * communicator even when members die during the call; a member that dies after it is a failed
   * member of the new one. Works on a revoked communicator. Windows are made again over it.
   *
   * @return completes with the new communicator. Fails as {@link #agree}, and with
   *     {@link ErrorClass#COMM} when no communicator context ids are left.
   */
  Future<Comm> shrink();
}
