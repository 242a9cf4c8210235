package dev.vertxrma.impl.comm;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.DetachedBuffer;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.ErrorHandler;
import dev.vertxrma.Group;
import dev.vertxrma.Message;
import dev.vertxrma.RmaException;
import dev.vertxrma.SplitType;
import dev.vertxrma.Status;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.p2p.Channel;
import dev.vertxrma.impl.p2p.PointToPoint;
import dev.vertxrma.impl.p2p.PointToPoint.SendMode;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import dev.vertxrma.impl.runtime.RankProcess;
import dev.vertxrma.impl.runtime.RankFuture;
import dev.vertxrma.impl.runtime.ErrorHandling;

/**
 * A communicator of one rank — the world, COMM_SELF, or one made by split, dup or create: the
 * {@link Comm} facade. Every call's arguments are checked in the communicator's rank numbering
 * (so a bad call fails its future with the right error class and never reaches the wire) and
 * every call runs on the rank's context ({@link #call}). It keeps the communicator's identity,
 * name and error handler, and hands the calls to its parts: {@link PointToPointCalls} to the
 * rank's point-to-point engine (through this communicator's {@link Channel}: its context id and
 * numbering), {@link CollectiveMoves} and {@link GlobalReductions} to collectives of its own (the
 * calls from {@link CollectiveCalls});
 * {@link CommFactory} makes new communicators, {@link RankComms} is what a rank's communicators
 * share. Its {@link #endpoint()} is where its ranks become job ranks.
 */
public final class CommImpl extends CollectiveCalls implements Comm {

  /** What kind of communicator: the world and COMM_SELF cannot be freed. */
  enum Kind { WORLD, SELF, DERIVED }

  private final RankComms comms;
  private final RankProcess rp;
  /** This communicator's view of the rank: its numbering; the rank process itself for the world. */
  private final Endpoint view;
  private final PointToPoint p2p;
  private final Collectives coll;
  private final PointToPointCalls pointToPoint;
  private final CollectiveMoves moves;
  private final GlobalReductions reductions;
  private final Group group;
  private final Kind kind;
  private final String name;
  /** Handed out for every call that succeeds at once with no value: it never changes. */
  private final RankFuture<?> succeeded;
  private final ErrorHandling errors;
  /** ULFM: revoke, the failed members, agree, shrink. */
  private final CommRecovery recovery;
  private final int ctx;
  private volatile boolean freed;
  /** MPI_Comm_set_name's name, local to this rank; the default is MPI's (see {@link Comm#getName}). */
  private volatile String userName;

  private CommImpl(RankComms comms, Endpoint view, int ctx, Kind kind, String name) {
    this.comms = comms;
    this.rp = comms.rp;
    this.view = view;
    this.kind = kind;
    this.name = name;
    this.userName = kind == Kind.WORLD ? "MPI_COMM_WORLD" : kind == Kind.SELF ? "MPI_COMM_SELF" : "";
    this.errors = new ErrorHandling(name + " of rank " + rp.rank(),
        e -> abort("ERRORS_ARE_FATAL: " + e.getMessage()));
    this.succeeded = RankFuture.succeeded(rp.context());
    this.p2p = comms.p2p;
    this.coll = new Collectives(view, p2p, ctx + 1, rp.job().sharedBarriers(), rp.job().sharedMemory(),
        rp.job().jobName());
    this.pointToPoint = new PointToPointCalls(this, p2p.channel(ctx, view));
    this.moves = new CollectiveMoves(this, coll);
    this.reductions = new GlobalReductions(this, coll);
    int[] members = new int[view.size()];
    for (int i = 0; i < members.length; i++) {
      members[i] = view.jobRank(i);
    }
    this.group = Group.of(rp.rank(), members);
    this.ctx = ctx;
    this.recovery = new CommRecovery(this, view,
        view instanceof CommEndpoint ? ((CommEndpoint) view).faults() : rp.worldFaults(), ctx);
    comms.register(ctx, recovery);
  }

  /** The world communicator of a rank, with its point-to-point engine. */
  public static CommImpl world(RankProcess rp, PointToPoint p2p) {
    return new CommImpl(new RankComms(rp, p2p), rp, RankComms.WORLD_CTX, Kind.WORLD, "the world communicator");
  }

  /**
   * A new communicator of this rank over the job ranks {@code members} (in its rank order; this
   * rank among them), with the agreed context id {@code ctx}.
   */
  CommImpl derive(int[] members, int ctx, String name) {
    return new CommImpl(comms, new CommEndpoint(rp, members, name), ctx, Kind.DERIVED, name);
  }

  /** The rank's communicators' shared state (the context ids). */
  RankComms comms() {
    return comms;
  }

  /** The collectives of this communicator: collective calls of every rank match in call order. */
  @Override
  public Collectives collectives() {
    return coll;
  }

  @Override
  CollectiveMoves moves() {
    return moves;
  }

  @Override
  GlobalReductions reductions() {
    return reductions;
  }

  /** The point-to-point engine of this rank. */
  public PointToPoint p2p() {
    return p2p;
  }

  /**
   * This communicator's view of the rank, in its rank numbering: engines built over a
   * communicator (windows, their collectives) send and reply through it.
   */
  public Endpoint endpoint() {
    return view;
  }

  @Override
  dev.vertxrma.impl.observe.RankObserver trace() {
    return rp.trace();
  }

  /** The rank process behind this communicator (for windows). */
  public RankProcess process() {
    return rp;
  }

  /** The communicator's name, for messages: "the world communicator", "COMM_SELF", "split(color 1) of ...". */
  public String name() {
    return name;
  }

  /**
   * Runs {@code body} on the rank's context (hopping there if needed) and turns a thrown
   * {@link RmaException} into a failed future; fails with COMM once the job has ended. The
   * result is a {@link RankFuture}: a loop of calls runs in bounded stack. A failure is shown
   * to the communicator's error handler first.
   */
  @Override
  public <T> Future<T> call(Supplier<Future<T>> body) {
    return errors.apply(callRaw(freed ? this::freedFailure : body));
  }

  private <T> Future<T> freedFailure() {
    throw RmaException.of(ErrorClass.COMM, "%s was freed at rank %d; it takes no more calls", name, rank());
  }

  /** {@link #call(Supplier)} for a call on a window: its failure goes to the window's handler. */
  public <T> Future<T> call(ErrorHandling handling, Supplier<Future<T>> body) {
    return handling.apply(callRaw(body));
  }

  /**
   * {@link #call(ErrorHandling, Supplier)} for a body that takes one argument: a body kept in a
   * field and a reused argument make a call that completes at once allocate nothing here.
   */
  public <A, T> Future<T> call(ErrorHandling handling, Function<A, Future<T>> body, A arg) {
    return handling.apply(callRaw(body, arg));
  }

  /** {@link #call(Supplier)} without an error handler (the library's own calls: running the program, finalizing). */
  public <T> Future<T> callRaw(Supplier<Future<T>> body) {
    return callRaw(Supplier::get, body);
  }

  private <A, T> Future<T> callRaw(Function<A, Future<T>> body, A arg) {
    // on the rank's own thread (its event loop, or its virtual thread): no hop
    if (rp.context().isRunningOnContext()) {
      return adopt(invoke(body, arg));
    }
    RankFuture<T> p = RankFuture.promise(rp.context());
    rp.context().runOnContext(v -> invoke(body, arg).onComplete(p));
    return p;
  }

  @SuppressWarnings("unchecked")
  private <T> Future<T> adopt(Future<T> f) {
    if (f instanceof RankFuture) {
      return f;
    }
    if (f.succeeded() && f.result() == null) {
      return (Future<T>) succeeded;
    }
    return RankFuture.of(rp.context(), f);
  }

  private <A, T> Future<T> invoke(Function<A, Future<T>> body, A arg) {
    RmaException failure = rp.failure();
    if (failure != null) {
      return rp.context().failedFuture(failure.errorClass() == ErrorClass.COMM ? failure
          : new RmaException(ErrorClass.COMM, "the job has ended: " + failure.getMessage(), failure));
    }
    try {
      return body.apply(arg);
    } catch (RmaException e) {
      return rp.context().failedFuture(e);
    } catch (RuntimeException | OutOfMemoryError e) {
      return rp.context().failedFuture(new RmaException(ErrorClass.INTERN, "internal error at rank " + rp.rank()
          + ": " + e, e));
    }
  }

  // ------------------------------------------------------------------ argument checks

  /** RANK unless {@code root} is a rank of this communicator ({@code what} names the call). */
  void checkRoot(int root, String what) {
    if (root < 0 || root >= size()) {
      throw RmaException.of(ErrorClass.RANK, "%s: root %d is not in [0, %d)%s", what, root, size(), where());
    }
  }

  /** Names this communicator in a message about its ranks (nothing for the world, whose ranks are the job's). */
  String where() {
    return kind == Kind.WORLD ? "" : ", the ranks of " + name;
  }

  // ------------------------------------------------------------------ identity

  @Override
  public int rank() {
    return view.rank();
  }

  @Override
  public int size() {
    return view.size();
  }

  @Override
  public Group group() {
    return group;
  }

  @Override
  public String getName() {
    return userName;
  }

  @Override
  public void setName(String newName) {
    if (newName == null) {
      throw RmaException.of(ErrorClass.ARG, "setName of %s at rank %d: the name is null", name, rank());
    }
    if (freed) {
      throw RmaException.of(ErrorClass.COMM, "setName of %s at rank %d: it was freed", name, rank());
    }
    userName = newName;
  }

  @Override
  public Vertx vertx() {
    return rp.job().vertx();
  }

  @Override
  public String jobName() {
    return rp.job().jobName();
  }

  // ------------------------------------------------------------------ communicators

  @Override
  public Future<Optional<Comm>> split(int color, int key) {
    return call(() -> CommFactory.split(this, color, key));
  }

  @Override
  public Future<Comm> splitType(SplitType type, int key) {
    return call(() -> {
      if (type == null) {
        throw new RmaException(ErrorClass.ARG, "splitType: the split type is null (SplitType.SHARED is the one there is)");
      }
      return SharedMemoryDomain.split(this, key);
    });
  }

  @Override
  public Future<Comm> dup() {
    return call(() -> CommFactory.dup(this));
  }

  @Override
  public Future<Optional<Comm>> create(Group group) {
    return call(() -> CommFactory.create(this, group));
  }

  @Override
  public Comm self() {
    synchronized (comms) {
      if (comms.self == null) {
        comms.self = new CommImpl(comms, new CommEndpoint(rp, new int[] {rp.rank()}, "COMM_SELF"), RankComms.SELF_CTX,
            Kind.SELF, "COMM_SELF");
      }
      return comms.self;
    }
  }

  @Override
  public Future<Void> free() {
    return call(() -> {
      if (kind != Kind.DERIVED) {
        throw RmaException.of(ErrorClass.COMM, "free of %s at rank %d: the world communicator and COMM_SELF cannot "
            + "be freed", name, rank());
      }
      freed = true;
      coll.close();
      comms.unregister(ctx);
      return rp.context().succeededFuture();
    });
  }

  // ------------------------------------------------------------------ point-to-point (PointToPointCalls)

  @Override
  public Future<Void> send(Buf buf, int offset, int count, Datatype type, int dest, int tag) {
    return pointToPoint.send(buf, offset, count, type, dest, tag, SendMode.STANDARD, "send");
  }

  @Override
  public Future<Void> isend(Buf buf, int offset, int count, Datatype type, int dest, int tag) {
    return pointToPoint.send(buf, offset, count, type, dest, tag, SendMode.STANDARD, "isend");
  }

  @Override
  public Future<Void> ssend(Buf buf, int offset, int count, Datatype type, int dest, int tag) {
    return pointToPoint.send(buf, offset, count, type, dest, tag, SendMode.SYNCHRONOUS, "ssend");
  }

  @Override
  public Future<Void> bsend(Buf buf, int offset, int count, Datatype type, int dest, int tag) {
    return pointToPoint.send(buf, offset, count, type, dest, tag, SendMode.BUFFERED, "bsend");
  }

  @Override
  public Future<Status> recv(Buf buf, int offset, int count, Datatype type, int source, int tag) {
    return pointToPoint.recv(buf, offset, count, type, source, tag, "recv");
  }

  @Override
  public Future<Status> irecv(Buf buf, int offset, int count, Datatype type, int source, int tag) {
    return pointToPoint.recv(buf, offset, count, type, source, tag, "irecv");
  }

  @Override
  public Future<Status> probe(int source, int tag) {
    return pointToPoint.probe(source, tag);
  }

  @Override
  public Future<Optional<Status>> iprobe(int source, int tag) {
    return pointToPoint.iprobe(source, tag);
  }

  @Override
  public Future<Message> mprobe(int source, int tag) {
    return pointToPoint.mprobe(source, tag);
  }

  @Override
  public Future<Optional<Message>> improbe(int source, int tag) {
    return pointToPoint.improbe(source, tag);
  }

  @Override
  public Future<Status> mrecv(Buf buf, int offset, int count, Datatype type, Message message) {
    return pointToPoint.mrecv(buf, offset, count, type, message, "mrecv");
  }

  @Override
  public Future<Status> imrecv(Buf buf, int offset, int count, Datatype type, Message message) {
    return pointToPoint.mrecv(buf, offset, count, type, message, "imrecv");
  }

  @Override
  public Future<Status> sendrecv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, int dest,
      int sendTag, Buf recvBuf, int recvOffset, int recvCount, Datatype recvType, int source, int recvTag) {
    return pointToPoint.sendrecv(sendBuf, sendOffset, sendCount, sendType, dest, sendTag, recvBuf, recvOffset,
        recvCount, recvType, source, recvTag);
  }

  @Override
  public Future<Status> sendrecvReplace(Buf buf, int offset, int count, Datatype type, int dest, int sendTag,
      int source, int recvTag) {
    return pointToPoint.sendrecvReplace(buf, offset, count, type, dest, sendTag, source, recvTag);
  }

  @Override
  public Future<Void> bufferAttach(Buf buffer, int sizeBytes) {
    return pointToPoint.bufferAttach(buffer, sizeBytes);
  }

  @Override
  public Future<DetachedBuffer> bufferDetach() {
    return pointToPoint.bufferDetach();
  }

  // ------------------------------------------------------------------ errors


  @Override
  public ErrorHandler getErrhandler() {
    return errors.get();
  }

  @Override
  public void setErrhandler(ErrorHandler handler) {
    errors.set(handler);
  }

  @Override
  public Future<Void> callErrhandler(RmaException error) {
    return callRaw(() -> {
      errors.call(error);
      return rp.context().succeededFuture();
    });
  }

  @Override
  public void abort(String reason) {
    RmaException cause = RmaException.of(ErrorClass.COMM, "job %s aborted by rank %d: %s", jobName(), rp.rank(), reason);
    if (Vertx.currentContext() == rp.context()) {
      rp.abortJob(cause);
    } else {
      rp.context().runOnContext(v -> rp.abortJob(cause));
    }
  }

  // ------------------------------------------------------------------ fault tolerance (CommRecovery)

  @Override
  public Future<Void> revoke() {
    return call(recovery::revoke);
  }

  @Override
  public boolean isRevoked() {
    return recovery.isRevoked();
  }

  @Override
  public Future<Group> getFailed() {
    return call(() -> rp.context().succeededFuture(recovery.failed()));
  }

  @Override
  public Future<Integer> ackFailed(int numToAck) {
    return call(() -> rp.context().succeededFuture(recovery.ackFailed(numToAck)));
  }

  @Override
  public Future<Integer> agree(int flag) {
    return call(() -> recovery.agree(flag));
  }

  @Override
  public Future<Comm> shrink() {
    return call(recovery::shrink);
  }
}
