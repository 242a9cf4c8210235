package dev.vertxrma.impl.comm;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.DetachedBuffer;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.ErrorHandler;
import dev.vertxrma.Group;
import dev.vertxrma.Message;
import dev.vertxrma.Reduction;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.impl.coll.AgreedIds;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.ops.BufferArguments;
import dev.vertxrma.impl.ops.Combiner;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.p2p.Channel;
import dev.vertxrma.impl.p2p.PointToPoint;
import dev.vertxrma.impl.p2p.PointToPoint.SendMode;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import dev.vertxrma.impl.runtime.RankProcess;
import dev.vertxrma.impl.runtime.RankFuture;
import dev.vertxrma.impl.runtime.ErrorHandling;

/**
 * A communicator of one rank — the world, COMM_SELF, or one made by split, dup or create:
 * validates every call's arguments in the communicator's rank numbering (so a bad call fails its
 * future with the right error class and never reaches the wire), moves calls onto the rank's
 * context, and delegates to the rank's point-to-point engine (through this communicator's
 * {@link Channel}: its context id and numbering) and to collectives of its own.
 * Its {@link #endpoint()} is where its ranks become job ranks.
 */
public final class CommImpl implements Comm {

  /** Point-to-point context of the world; its collectives use the next id. */
  static final int WORLD_CTX = 0;
  static final int WORLD_COLL_CTX = 1;
  /** COMM_SELF's contexts: fixed, since a communicator of one rank needs no agreement. */
  static final int SELF_CTX = 2;
  /** The first context id agreed for a new communicator; each takes two (point-to-point, collectives). */
  static final int FIRST_CTX = 4;
  /** Communicator contexts stay below the contexts of windows' own traffic (WinImpl: 2^20 + window id). */
  static final int CTX_LIMIT = 1 << 20;

  /** What kind of communicator: the world and COMM_SELF cannot be freed. */
  enum Kind { WORLD, SELF, DERIVED }

  /** What all communicators of one rank share. */
  static final class RankComms {
    final RankProcess rp;
    final PointToPoint p2p;
    /** Context ids of new communicators, agreed over their parents. */
    final AgreedIds contexts;
    CommImpl self;

    RankComms(RankProcess rp, PointToPoint p2p) {
      this.rp = rp;
      this.p2p = p2p;
      this.contexts = new AgreedIds(rp.context(), FIRST_CTX, 2, CTX_LIMIT, "communicator context ids");
    }
  }

  private final RankComms comms;
  private final RankProcess rp;
  /** This communicator's view of the rank: its numbering; the rank process itself for the world. */
  private final Endpoint view;
  private final PointToPoint p2p;
  private final Channel ch;
  private final Collectives coll;
  private final Group group;
  private final Kind kind;
  private final String name;
  /** Handed out for every call that succeeds at once with no value: it never changes. */
  private final RankFuture<?> succeeded;
  private final ErrorHandling errors;
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
    this.ch = p2p.channel(ctx, view);
    this.coll = new Collectives(view, p2p, ctx + 1, rp.job().sharedBarriers());
    int[] members = new int[view.size()];
    for (int i = 0; i < members.length; i++) {
      members[i] = view.jobRank(i);
    }
    this.group = Group.of(rp.rank(), members);
  }

  /** The world communicator of a rank, with its point-to-point engine. */
  public static CommImpl world(RankProcess rp, PointToPoint p2p) {
    return new CommImpl(new RankComms(rp, p2p), rp, WORLD_CTX, Kind.WORLD, "the world communicator");
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
  public Collectives collectives() {
    return coll;
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

  private void checkPeer(int peer, boolean allowAny, String what) {
    if (peer == PROC_NULL || (allowAny && peer == ANY_SOURCE)) {
      return;
    }
    if (peer < 0 || peer >= size()) {
      throw RmaException.of(ErrorClass.RANK, "%s: rank %d is not in [0, %d)%s", what, peer, size(), where());
    }
  }

  private void checkRoot(int root, String what) {
    if (root < 0 || root >= size()) {
      throw RmaException.of(ErrorClass.RANK, "%s: root %d is not in [0, %d)%s", what, root, size(), where());
    }
  }

  /** Names this communicator in a message about its ranks (nothing for the world, whose ranks are the job's). */
  private String where() {
    return kind == Kind.WORLD ? "" : ", the ranks of " + name;
  }

  private static void checkTag(int tag, boolean allowAny, String what) {
    if (tag < 0 && !(allowAny && tag == ANY_TAG)) {
      throw RmaException.of(ErrorClass.TAG, "%s: tag %d is negative", what, tag);
    }
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
        comms.self = new CommImpl(comms, new CommEndpoint(rp, new int[] {rp.rank()}, "COMM_SELF"), SELF_CTX,
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
      return rp.context().succeededFuture();
    });
  }

  // ------------------------------------------------------------------ point-to-point

  private Future<Void> send(Buf buf, int offset, int count, Datatype type, int dest, int tag, SendMode mode,
      String what) {
    return call(() -> {
      TypeMap t = BufferArguments.typeMap(type, what);
      MemoryRef mem = BufferArguments.buffer(buf, offset, count, t, what);
      checkPeer(dest, false, what);
      checkTag(tag, false, what);
      return ch.send(mem, t, count, dest, tag, mode);
    });
  }

  @Override
  public Future<Void> send(Buf buf, int offset, int count, Datatype type, int dest, int tag) {
    return send(buf, offset, count, type, dest, tag, SendMode.STANDARD, "send");
  }

  @Override
  public Future<Void> isend(Buf buf, int offset, int count, Datatype type, int dest, int tag) {
    return send(buf, offset, count, type, dest, tag, SendMode.STANDARD, "isend");
  }

  @Override
  public Future<Void> ssend(Buf buf, int offset, int count, Datatype type, int dest, int tag) {
    return send(buf, offset, count, type, dest, tag, SendMode.SYNCHRONOUS, "ssend");
  }

  @Override
  public Future<Void> bsend(Buf buf, int offset, int count, Datatype type, int dest, int tag) {
    return send(buf, offset, count, type, dest, tag, SendMode.BUFFERED, "bsend");
  }

  @Override
  public Future<Status> recv(Buf buf, int offset, int count, Datatype type, int source, int tag) {
    return recv(buf, offset, count, type, source, tag, "recv");
  }

  @Override
  public Future<Status> irecv(Buf buf, int offset, int count, Datatype type, int source, int tag) {
    return recv(buf, offset, count, type, source, tag, "irecv");
  }

  private Future<Status> recv(Buf buf, int offset, int count, Datatype type, int source, int tag, String what) {
    return call(() -> {
      TypeMap t = BufferArguments.typeMap(type, what);
      MemoryRef mem = BufferArguments.buffer(buf, offset, count, t, what);
      checkPeer(source, true, what);
      checkTag(tag, true, what);
      return ch.recv(mem, t, count, source, tag);
    });
  }

  @Override
  public Future<Status> probe(int source, int tag) {
    return call(() -> {
      checkPeer(source, true, "probe");
      checkTag(tag, true, "probe");
      return ch.probe(source, tag);
    });
  }

  @Override
  public Future<Optional<Status>> iprobe(int source, int tag) {
    return call(() -> {
      checkPeer(source, true, "iprobe");
      checkTag(tag, true, "iprobe");
      return rp.context().succeededFuture(Optional.ofNullable(ch.iprobe(source, tag)));
    });
  }

  @Override
  public Future<Message> mprobe(int source, int tag) {
    return call(() -> {
      checkPeer(source, true, "mprobe");
      checkTag(tag, true, "mprobe");
      return ch.mprobe(source, tag);
    });
  }

  @Override
  public Future<Optional<Message>> improbe(int source, int tag) {
    return call(() -> {
      checkPeer(source, true, "improbe");
      checkTag(tag, true, "improbe");
      return rp.context().succeededFuture(Optional.ofNullable(ch.improbe(source, tag)));
    });
  }

  @Override
  public Future<Status> mrecv(Buf buf, int offset, int count, Datatype type, Message message) {
    return mrecv(buf, offset, count, type, message, "mrecv");
  }

  @Override
  public Future<Status> imrecv(Buf buf, int offset, int count, Datatype type, Message message) {
    return mrecv(buf, offset, count, type, message, "imrecv");
  }

  private Future<Status> mrecv(Buf buf, int offset, int count, Datatype type, Message message, String what) {
    return call(() -> {
      TypeMap t = BufferArguments.typeMap(type, what);
      MemoryRef mem = BufferArguments.buffer(buf, offset, count, t, what);
      return ch.mrecv(mem, t, count, message, what);
    });
  }

  @Override
  public Future<Status> sendrecv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, int dest,
      int sendTag, Buf recvBuf, int recvOffset, int recvCount, Datatype recvType, int source, int recvTag) {
    return call(() -> {
      TypeMap st = BufferArguments.typeMap(sendType, "sendrecv send");
      MemoryRef in = BufferArguments.buffer(sendBuf, sendOffset, sendCount, st, "sendrecv send");
      checkPeer(dest, false, "sendrecv dest");
      checkTag(sendTag, false, "sendrecv send");
      TypeMap rt = BufferArguments.typeMap(recvType, "sendrecv receive");
      MemoryRef out = BufferArguments.buffer(recvBuf, recvOffset, recvCount, rt, "sendrecv receive");
      checkPeer(source, true, "sendrecv source");
      checkTag(recvTag, true, "sendrecv receive");
      // the standard send packs the data and completes at once: it can never wait for the receive
      Future<Void> sent = ch.send(in, st, sendCount, dest, sendTag, SendMode.STANDARD);
      Future<Status> received = ch.recv(out, rt, recvCount, source, recvTag);
      return Future.all(sent, received).map(all -> received.result());
    });
  }

  @Override
  public Future<Status> sendrecvReplace(Buf buf, int offset, int count, Datatype type, int dest, int sendTag,
      int source, int recvTag) {
    return call(() -> {
      TypeMap t = BufferArguments.typeMap(type, "sendrecvReplace");
      MemoryRef mem = BufferArguments.buffer(buf, offset, count, t, "sendrecvReplace");
      checkPeer(dest, false, "sendrecvReplace dest");
      checkTag(sendTag, false, "sendrecvReplace send");
      checkPeer(source, true, "sendrecvReplace source");
      checkTag(recvTag, true, "sendrecvReplace receive");
      // packed (copied out) before the receive is posted, which may fill the buffer at once
      Future<Void> sent = ch.send(mem, t, count, dest, sendTag, SendMode.STANDARD);
      Future<Status> received = ch.recv(mem, t, count, source, recvTag);
      return Future.all(sent, received).map(all -> received.result());
    });
  }

  @Override
  public Future<Void> bufferAttach(Buf buffer, int sizeBytes) {
    return call(() -> ch.bufferAttach(buffer, sizeBytes));
  }

  @Override
  public Future<DetachedBuffer> bufferDetach() {
    return call(ch::bufferDetach);
  }

  // ------------------------------------------------------------------ collectives

  @Override
  public Future<Void> barrier() {
    return call(coll::barrier);
  }

  @Override
  public Future<Void> bcast(Buf buf, int offset, int count, Datatype type, int root) {
    return call(() -> {
      TypeMap t = BufferArguments.typeMap(type, "bcast");
      MemoryRef mem = BufferArguments.buffer(buf, offset, count, t, "bcast");
      checkRoot(root, "bcast");
      byte[] data = rank() == root ? DatatypeEngine.pack(mem.base(), mem.address(), t, count) : null;
      return coll.bcast(data, root).map(block -> {
        if (rank() != root) {
          unpackExactly(block, mem, t, count, "bcast from root " + root);
        }
        return null;
      });
    });
  }

  private void unpackExactly(byte[] block, MemoryRef mem, TypeMap t, int count, String what) {
    long expected = t.size() * (long) count;
    if (block.length != expected) {
      throw RmaException.of(ErrorClass.TRUNCATE, "%s: received %d bytes, the buffer takes %d x %s = %d bytes at rank %d",
          what, block.length, count, t.name(), expected, rank());
    }
    DatatypeEngine.unpack(block, mem.base(), mem.address(), t, count);
  }

  /**
   * The packed input of a reduction: {@code count} elements of {@code type} from the send buffer,
   * or from {@code inPlace} (the receive buffer) when the send buffer is {@link Comm#IN_PLACE}.
   */
  private static byte[] reductionInput(Buf sendBuf, int sendOffset, MemoryRef inPlace, int count, TypeMap t,
      String what) {
    MemoryRef in = sendBuf == IN_PLACE ? inPlace
        : BufferArguments.buffer(sendBuf, sendOffset, count, t, what + " send");
    return DatatypeEngine.pack(in.base(), in.address(), t, count);
  }

  private static void refuseInPlaceReceive(Buf recvBuf, String what, String hint) {
    if (recvBuf == IN_PLACE) {
      throw RmaException.of(ErrorClass.BUFFER, "%s: the receive buffer cannot be Comm.IN_PLACE; %s", what, hint);
    }
  }

  @Override
  public Future<Void> reduce(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count,
      Datatype type, Reduction op, int root) {
    return call(() -> {
      TypeMap t = BufferArguments.typeMap(type, "reduce");
      Combiner combiner = Combiner.of(op, type, count, "reduce", rank());
      checkRoot(root, "reduce");
      MemoryRef out = null;
      if (rank() == root) {
        refuseInPlaceReceive(recvBuf, "reduce", "pass IN_PLACE as the send buffer at root to reduce in place");
        out = BufferArguments.buffer(recvBuf, recvOffset, count, t, "reduce receive");
      } else if (sendBuf == IN_PLACE) {
        throw RmaException.of(ErrorClass.BUFFER, "reduce: Comm.IN_PLACE is the send buffer of root %d only; rank %d "
            + "must pass its contribution", root, rank());
      }
      byte[] data = reductionInput(sendBuf, sendOffset, out, count, t, "reduce");
      MemoryRef result = out;
      return coll.reduce(data, combiner, root).map(r -> {
        if (result != null) {
          unpackExactly(r, result, t, count, "reduce");
        }
        return null;
      });
    });
  }

  @Override
  public Future<Void> allreduce(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count,
      Datatype type, Reduction op) {
    return call(() -> {
      TypeMap t = BufferArguments.typeMap(type, "allreduce");
      Combiner combiner = Combiner.of(op, type, count, "allreduce", rank());
      refuseInPlaceReceive(recvBuf, "allreduce", "pass IN_PLACE as the send buffer to reduce in place");
      MemoryRef out = BufferArguments.buffer(recvBuf, recvOffset, count, t, "allreduce receive");
      byte[] data = reductionInput(sendBuf, sendOffset, out, count, t, "allreduce");
      return coll.allreduce(data, combiner).map(result -> {
        unpackExactly(result, out, t, count, "allreduce");
        return null;
      });
    });
  }

  @Override
  public Future<Void> reduceScatter(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int[] recvCounts,
      Datatype type, Reduction op) {
    return call(() -> {
      if (recvCounts == null || recvCounts.length != size()) {
        throw RmaException.of(ErrorClass.ARG, "reduceScatter: recvCounts has %s entries; it needs one per rank (%d)",
            recvCounts == null ? "no (null)" : String.valueOf(recvCounts.length), size());
      }
      return reduceScatter(sendBuf, sendOffset, recvBuf, recvOffset, recvCounts.clone(), type, op, "reduceScatter");
    });
  }

  @Override
  public Future<Void> reduceScatterBlock(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int recvCount,
      Datatype type, Reduction op) {
    return call(() -> {
      if (recvCount < 0) {
        throw RmaException.of(ErrorClass.COUNT, "reduceScatterBlock: count %d is negative", recvCount);
      }
      int[] counts = new int[size()];
      Arrays.fill(counts, recvCount);
      return reduceScatter(sendBuf, sendOffset, recvBuf, recvOffset, counts, type, op, "reduceScatterBlock");
    });
  }

  /** MPI_Reduce_scatter with {@code counts} (one per rank, already of the right length). */
  private Future<Void> reduceScatter(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int[] counts,
      Datatype type, Reduction op, String what) {
    TypeMap t = BufferArguments.typeMap(type, what);
    if (op == null) {
      throw RmaException.of(ErrorClass.OP, "%s: op is null", what);
    }
    long total = 0;
    int[] blockBytes = new int[counts.length];
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] < 0) {
        throw RmaException.of(ErrorClass.COUNT, "%s: the count of rank %d is %d, negative", what, i, counts[i]);
      }
      total += counts[i];
      blockBytes[i] = Math.toIntExact(t.size() * counts[i]);
    }
    if (total > Integer.MAX_VALUE) {
      throw RmaException.of(ErrorClass.COUNT, "%s: the counts add up to %d elements, more than a call can take",
          what, total);
    }
    int all = (int) total;
    Combiner combiner = Combiner.of(op, type, all, what, rank());
    int mine = counts[rank()];
    refuseInPlaceReceive(recvBuf, what, "pass IN_PLACE as the send buffer to take the input from the receive "
        + "buffer");
    MemoryRef out;
    byte[] data;
    if (sendBuf == IN_PLACE) {
      // the whole input is in the receive buffer; this rank's block of the result goes to its start
      out = BufferArguments.buffer(recvBuf, recvOffset, all, t,
          what + " receive (IN_PLACE: holds the input of every rank's block)");
      data = DatatypeEngine.pack(out.base(), out.address(), t, all);
    } else {
      data = reductionInput(sendBuf, sendOffset, null, all, t, what);
      out = BufferArguments.buffer(recvBuf, recvOffset, mine, t, what + " receive");
    }
    return coll.reduceScatter(data, combiner, blockBytes).map(block -> {
      unpackExactly(block, out, t, mine, what);
      return null;
    });
  }

  @Override
  public Future<Void> scan(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op) {
    return scan(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op, false);
  }

  @Override
  public Future<Void> exscan(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op) {
    return scan(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op, true);
  }

  private Future<Void> scan(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op, boolean exclusive) {
    String what = exclusive ? "exscan" : "scan";
    return call(() -> {
      TypeMap t = BufferArguments.typeMap(type, what);
      Combiner combiner = Combiner.of(op, type, count, what, rank());
      refuseInPlaceReceive(recvBuf, what, "pass IN_PLACE as the send buffer to scan in place");
      MemoryRef out = BufferArguments.buffer(recvBuf, recvOffset, count, t, what + " receive");
      byte[] data = reductionInput(sendBuf, sendOffset, out, count, t, what);
      return coll.scan(data, combiner, exclusive).map(result -> {
        if (result != null) { // exscan at rank 0: no result, the buffer is left as it was
          unpackExactly(result, out, t, count, what);
        }
        return null;
      });
    });
  }

  @Override
  public Future<Double> allreduce(double value, Reduction op) {
    double[] in = {value};
    double[] out = new double[1];
    return allreduce(Buf.of(in), 0, Buf.of(out), 0, 1, Datatype.DOUBLE, op).map(v -> out[0]);
  }

  @Override
  public Future<Long> allreduce(long value, Reduction op) {
    long[] in = {value};
    long[] out = new long[1];
    return allreduce(Buf.of(in), 0, Buf.of(out), 0, 1, Datatype.LONG, op).map(v -> out[0]);
  }

  private static final class Blocks {
    final TypeMap type;
    final MemoryRef mem;
    final int count;
    final int ranks;

    Blocks(Buf buf, int offset, int count, Datatype type, int ranks, String what) {
      this.type = BufferArguments.typeMap(type, what);
      this.count = count;
      this.ranks = ranks;
      if (count < 0) {
        throw RmaException.of(ErrorClass.COUNT, "%s: count %d is negative", what, count);
      }
      this.mem = BufferArguments.buffer(buf, offset, Math.multiplyExact(count, ranks), this.type, what);
    }

    long blockAddress(int i) {
      return mem.address() + i * (long) count * type.extent();
    }

    byte[] pack(int i) {
      return DatatypeEngine.pack(mem.base(), blockAddress(i), type, count);
    }

    void unpack(int i, byte[] block, String what, int rank) {
      long expected = type.size() * (long) count;
      if (block.length != expected) {
        throw RmaException.of(ErrorClass.TRUNCATE, "%s: block from rank %d has %d bytes, the receive block takes %d "
            + "x %s = %d bytes", what, i, block.length, count, type.name(), expected);
      }
      DatatypeEngine.unpack(block, mem.base(), blockAddress(i), type, count);
    }
  }

  @Override
  public Future<Void> gather(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root) {
    return call(() -> {
      checkRoot(root, "gather");
      boolean inPlace = sendBuf == IN_PLACE;
      Blocks out = null;
      byte[] mine;
      if (rank() == root) {
        refuseInPlaceReceive(recvBuf, "gather", "pass IN_PLACE as the send buffer at root, its block being in place");
        out = new Blocks(recvBuf, recvOffset, recvCount, recvType, size(), "gather receive");
        // IN_PLACE: root's block is already at block root of the receive buffer; send count and type are ignored
        mine = inPlace ? out.pack(root) : new Blocks(sendBuf, sendOffset, sendCount, sendType, 1, "gather send").pack(0);
      } else if (inPlace) {
        throw RmaException.of(ErrorClass.BUFFER, "gather: Comm.IN_PLACE is the send buffer of root %d only; rank %d "
            + "must pass its block", root, rank());
      } else {
        mine = new Blocks(sendBuf, sendOffset, sendCount, sendType, 1, "gather send").pack(0);
      }
      Blocks received = out;
      return coll.gather(mine, root).map(parts -> {
        if (received != null) {
          unpackAll(received, parts, inPlace, "gather");
        }
        return null;
      });
    });
  }

  /** Unpacks block {@code i} of {@code parts} into block {@code i} of {@code out}; in place, this rank's own is there already. */
  private void unpackAll(Blocks out, List<byte[]> parts, boolean inPlace, String what) {
    for (int i = 0; i < parts.size(); i++) {
      if (!(inPlace && i == rank())) {
        out.unpack(i, parts.get(i), what, rank());
      }
    }
  }

  @Override
  public Future<Void> allgather(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType) {
    return call(() -> {
      refuseInPlaceReceive(recvBuf, "allgather", "pass IN_PLACE as the send buffer, this rank's block being in place");
      boolean inPlace = sendBuf == IN_PLACE;
      Blocks out = new Blocks(recvBuf, recvOffset, recvCount, recvType, size(), "allgather receive");
      byte[] mine = inPlace ? out.pack(rank())
          : new Blocks(sendBuf, sendOffset, sendCount, sendType, 1, "allgather send").pack(0);
      return coll.allgather(mine).map(parts -> {
        unpackAll(out, parts, inPlace, "allgather");
        return null;
      });
    });
  }

  @Override
  public Future<Void> scatter(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root) {
    return call(() -> {
      checkRoot(root, "scatter");
      boolean inPlace = rank() == root && recvBuf == IN_PLACE;
      // IN_PLACE at root: its block stays in the send buffer; receive count and type are ignored
      Blocks out = inPlace ? null : new Blocks(recvBuf, recvOffset, recvCount, recvType, 1, "scatter receive");
      List<byte[]> blocks = null;
      if (rank() == root) {
        Blocks in = new Blocks(sendBuf, sendOffset, sendCount, sendType, size(), "scatter send");
        blocks = new ArrayList<>();
        for (int i = 0; i < size(); i++) {
          blocks.add(inPlace && i == root ? new byte[0] : in.pack(i));
        }
      }
      return coll.scatter(blocks, root).map(block -> {
        if (out != null) {
          out.unpack(0, block, "scatter", rank());
        }
        return null;
      });
    });
  }

  @Override
  public Future<Void> alltoall(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType) {
    return call(() -> {
      refuseInPlaceReceive(recvBuf, "alltoall", "pass IN_PLACE as the send buffer to exchange in place");
      boolean inPlace = sendBuf == IN_PLACE;
      Blocks out = new Blocks(recvBuf, recvOffset, recvCount, recvType, size(), "alltoall receive");
      // IN_PLACE: the blocks to send are read (packed) from the receive buffer before any is replaced
      Blocks in = inPlace ? out : new Blocks(sendBuf, sendOffset, sendCount, sendType, size(), "alltoall send");
      List<byte[]> blocks = new ArrayList<>();
      for (int i = 0; i < size(); i++) {
        blocks.add(inPlace && i == rank() ? null : in.pack(i));
      }
      return coll.alltoall(blocks).map(parts -> {
        unpackAll(out, parts, inPlace, "alltoall");
        return null;
      });
    });
  }

  // ------------------------------------------------------------------ vector collectives

  /**
   * The buffer of a vector collective: block {@code i} is {@code counts[i]} elements of the type
   * at {@code displs[i]} extents of the type from {@code buf[offset]} (MPI's displacements; a
   * negative one is fine while its block stays inside the buffer). Everything is checked when it
   * is made, before anything is sent; the arrays are copied.
   */
  private static final class VBlocks {
    final TypeMap type;
    final MemoryRef mem;
    final int[] counts;
    final long[] addresses;
    final String countsName;

    VBlocks(Buf buf, int offset, int[] counts, int[] displs, Datatype type, int ranks, String what,
        String countsName, String displsName) {
      this.type = BufferArguments.typeMap(type, what);
      this.countsName = countsName;
      this.counts = perRank(counts, ranks, what, countsName);
      int[] d = perRank(displs, ranks, what, displsName);
      long total = 0;
      for (int i = 0; i < ranks; i++) {
        if (this.counts[i] < 0) {
          throw RmaException.of(ErrorClass.COUNT, "%s: %s[%d] is %d, negative", what, countsName, i, this.counts[i]);
        }
        total += this.counts[i];
      }
      if (buf == null && total > 0) {
        throw RmaException.of(ErrorClass.BUFFER, "%s: buffer is null but %s add up to %d elements (only a call "
            + "whose counts are all 0 may pass no buffer)", what, countsName, total);
      }
      this.mem = BufferArguments.buffer(buf, offset, 0, this.type, what); // IN_PLACE refused, element type checked
      this.addresses = new long[ranks];
      long before = mem.bytesBefore();
      long end = before + mem.bytesAvailable();
      for (int i = 0; i < ranks; i++) {
        int c = this.counts[i];
        long disp;
        try {
          disp = Math.multiplyExact((long) d[i], this.type.extent());
        } catch (ArithmeticException e) {
          throw RmaException.of(ErrorClass.BUFFER, "%s: %s[%d] = %d extents of %s (extent %d) overflows 64-bit "
              + "addressing", what, displsName, i, d[i], this.type.name(), this.type.extent());
        }
        addresses[i] = mem.address() + disp;
        if (c == 0) {
          continue;
        }
        if (buf == BOTTOM) {
          BufferArguments.checkAbsolute(disp, c, this.type, block(what, i, c, d[i], displsName));
        } else if (!DatatypeEngine.fits(this.type, c, before + disp, end)) {
          DatatypeEngine.checkAccess(this.type, c, before + disp, end, block(what, i, c, d[i], displsName),
              ErrorClass.BUFFER); // throws, with the message
        }
      }
    }

    private String block(String what, int i, int count, int displ, String displsName) {
      return String.format("%s block %d (%s[%d] = %d at %s[%d] = %d)", what, i, countsName, i, count, displsName, i,
          displ);
    }

    byte[] pack(int i) {
      return DatatypeEngine.pack(mem.base(), addresses[i], type, counts[i]);
    }

    void unpack(int i, byte[] block, String what) {
      long expected = type.size() * (long) counts[i];
      if (block.length != expected) {
        throw RmaException.of(ErrorClass.TRUNCATE, "%s: the block from rank %d has %d bytes; %s[%d] = %d x %s takes "
            + "%d bytes", what, i, block.length, countsName, i, counts[i], type.name(), expected);
      }
      DatatypeEngine.unpack(block, mem.base(), addresses[i], type, counts[i]);
    }

    /** Unpacks block {@code i} of {@code parts} into block {@code i}; in place, {@code skip}'s is there already. */
    void unpackAll(List<byte[]> parts, int skip, String what) {
      for (int i = 0; i < parts.size(); i++) {
        if (i != skip) {
          unpack(i, parts.get(i), what);
        }
      }
    }
  }

  /** A copy of a counts or displacements array; ARG if it is null or not one entry per rank. */
  private static int[] perRank(int[] values, int ranks, String what, String name) {
    if (values == null || values.length != ranks) {
      throw RmaException.of(ErrorClass.ARG, "%s: %s has %s entries; it needs one per rank (%d)", what, name,
          values == null ? "no (null)" : String.valueOf(values.length), ranks);
    }
    return values.clone();
  }

  @Override
  public Future<Void> gatherv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int[] recvCounts, int[] displs, Datatype recvType, int root) {
    return call(() -> {
      checkRoot(root, "gatherv");
      boolean inPlace = sendBuf == IN_PLACE;
      VBlocks out = null;
      byte[] mine;
      if (rank() == root) {
        refuseInPlaceReceive(recvBuf, "gatherv", "pass IN_PLACE as the send buffer at root, its block being in place");
        out = new VBlocks(recvBuf, recvOffset, recvCounts, displs, recvType, size(), "gatherv receive", "recvCounts",
            "displs");
        // IN_PLACE: root's block is already at displs[root] of the receive buffer; send count and type are ignored
        mine = inPlace ? out.pack(root)
            : new Blocks(sendBuf, sendOffset, sendCount, sendType, 1, "gatherv send").pack(0);
      } else if (inPlace) {
        throw RmaException.of(ErrorClass.BUFFER, "gatherv: Comm.IN_PLACE is the send buffer of root %d only; rank %d "
            + "must pass its block", root, rank());
      } else {
        mine = new Blocks(sendBuf, sendOffset, sendCount, sendType, 1, "gatherv send").pack(0);
      }
      VBlocks received = out;
      return coll.gather(mine, root).map(parts -> {
        if (received != null) {
          received.unpackAll(parts, inPlace ? root : -1, "gatherv");
        }
        return null;
      });
    });
  }

  @Override
  public Future<Void> allgatherv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int[] recvCounts, int[] displs, Datatype recvType) {
    return call(() -> {
      refuseInPlaceReceive(recvBuf, "allgatherv", "pass IN_PLACE as the send buffer, this rank's block being in place");
      boolean inPlace = sendBuf == IN_PLACE;
      VBlocks out = new VBlocks(recvBuf, recvOffset, recvCounts, displs, recvType, size(), "allgatherv receive",
          "recvCounts", "displs");
      byte[] mine = inPlace ? out.pack(rank())
          : new Blocks(sendBuf, sendOffset, sendCount, sendType, 1, "allgatherv send").pack(0);
      return coll.allgather(mine).map(parts -> {
        out.unpackAll(parts, inPlace ? rank() : -1, "allgatherv");
        return null;
      });
    });
  }

  @Override
  public Future<Void> scatterv(Buf sendBuf, int sendOffset, int[] sendCounts, int[] displs, Datatype sendType,
      Buf recvBuf, int recvOffset, int recvCount, Datatype recvType, int root) {
    return call(() -> {
      checkRoot(root, "scatterv");
      boolean inPlace = rank() == root && recvBuf == IN_PLACE;
      // IN_PLACE at root: its block stays in the send buffer; receive count and type are ignored
      Blocks out = inPlace ? null : new Blocks(recvBuf, recvOffset, recvCount, recvType, 1, "scatterv receive");
      List<byte[]> blocks = null;
      if (rank() == root) {
        VBlocks in = new VBlocks(sendBuf, sendOffset, sendCounts, displs, sendType, size(), "scatterv send",
            "sendCounts", "displs");
        blocks = new ArrayList<>();
        for (int i = 0; i < size(); i++) {
          blocks.add(inPlace && i == root ? new byte[0] : in.pack(i));
        }
      }
      return coll.scatter(blocks, root).map(block -> {
        if (out != null) {
          unpackExactly(block, out.mem, out.type, out.count, "scatterv from root " + root);
        }
        return null;
      });
    });
  }

  @Override
  public Future<Void> alltoallv(Buf sendBuf, int sendOffset, int[] sendCounts, int[] sdispls, Datatype sendType,
      Buf recvBuf, int recvOffset, int[] recvCounts, int[] rdispls, Datatype recvType) {
    return call(() -> {
      refuseInPlaceReceive(recvBuf, "alltoallv", "pass IN_PLACE as the send buffer to exchange in place");
      boolean inPlace = sendBuf == IN_PLACE;
      VBlocks out = new VBlocks(recvBuf, recvOffset, recvCounts, rdispls, recvType, size(), "alltoallv receive",
          "recvCounts", "rdispls");
      // IN_PLACE: the blocks to send are read (packed) from the receive buffer before any is replaced
      VBlocks in = inPlace ? out : new VBlocks(sendBuf, sendOffset, sendCounts, sdispls, sendType, size(),
          "alltoallv send", "sendCounts", "sdispls");
      List<byte[]> blocks = new ArrayList<>();
      for (int i = 0; i < size(); i++) {
        blocks.add(inPlace && i == rank() ? null : in.pack(i));
      }
      return coll.alltoall(blocks).map(parts -> {
        out.unpackAll(parts, inPlace ? rank() : -1, "alltoallv");
        return null;
      });
    });
  }

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
}
