package dev.vertxrma.impl.runtime;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.PendingReplies;
import dev.vertxrma.impl.transport.RejectedInput;
import dev.vertxrma.impl.transport.Transport;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One rank of a job in this Vert.x instance: its address on the event bus, its event-loop
 * context, the dispatch of incoming frames to the protocol engines, and the request/reply
 * bookkeeping. Everything runs on the rank's context.
 */
public final class RankProcess implements Endpoint {

  private static final System.Logger LOG = System.getLogger(RankProcess.class.getName());

  private final JobRuntime job;
  private final int rank;
  private final ContextInternal context;
  private final Transport transport;
  private final PendingReplies pending = new PendingReplies();
  @SuppressWarnings("unchecked")
  private final Consumer<Frame>[] handlers = new Consumer[128];
  private final List<Consumer<RmaException>> failureListeners = new ArrayList<>();
  private final List<Runnable> closeHooks = new ArrayList<>();
  private final List<java.util.function.Supplier<String>> finalizeChecks = new ArrayList<>();
  private final Consumer<Frame> sink;
  private final Consumer<Frame> inlineSink = this::deliver;
  private final io.vertx.core.Handler<Frame> deliverHandler = this::deliver;
  /**
   * Frames handed to {@link #sink} whose delivery task has not run yet: a frame from the network
   * is delivered inline only when none waits, so it never overtakes an earlier one.
   */
  private final java.util.concurrent.atomic.AtomicInteger queued = new java.util.concurrent.atomic.AtomicInteger();
  /** Frames from the network delivered inline by {@link #fromNetwork}; touched only on the rank's thread. */
  private long inlineFromNetwork;
  /** The rank's event loop if its context is an event-loop context, else {@code null} (virtual threads). */
  private final io.netty.channel.EventLoop eventLoop;
  private final java.util.Map<Class<?>, Object> services = new java.util.concurrent.ConcurrentHashMap<>();
  private final RejectedInput rejected;
  private volatile RmaException failure;
  /** Job ranks known dead while the job goes on (FailurePolicy.CONTINUE), in the order learned. */
  private int[] deathOrder = new int[0];
  /** The failure of each job rank known dead, else {@code null}; made at the first death. */
  private RmaException[] deaths;
  private final List<PeerFailureListener> peerFailureListeners = new ArrayList<>();
  /** What the world communicator knows of its members' failures. */
  private final GroupFaults worldFaults;
  /** Whether this rank's event loop is thread {@code t} (any thread). */
  public boolean runsOn(Thread t) {
    return eventLoop != null && eventLoop.inEventLoop(t);
  }

  /** This rank's trace recorder, {@link RankObserver#NOOP} when the job is not traced. */
  private final RankObserver trace;
  /** The deadlines of the waits begun on the rank's context. */
  private final WaitDeadlines deadlines;

  public RankProcess(JobRuntime job, int rank, ContextInternal context) {
    this.job = job;
    this.rank = rank;
    this.context = context;
    this.transport = job.transport();
    this.trace = job.traceRecorder(rank);
    this.deadlines = new WaitDeadlines(context, rank, job.waitTimeoutMs());
    this.worldFaults = new GroupFaults(this, null, "the world communicator");
    this.eventLoop = context.threadingModel() == io.vertx.core.ThreadingModel.EVENT_LOOP ? context.nettyEventLoop() : null;
    this.sink = frame -> {
      queued.incrementAndGet();
      context.runOnContext(v -> {
        queued.decrementAndGet();
        deliver(frame);
      });
    };
    this.rejected = new RejectedInput("rank " + rank + " of job " + job.jobName(),
        (ms, task) -> job.vertx().setTimer(ms, id -> task.run()), RejectedInput.DEFAULT_INTERVAL_MS);
    handle(FrameType.REPLY, f -> {
      if (!pending.onReply(f)) {
        rejected.reject("a reply nobody waits for: " + f);
      }
    });
    handle(FrameType.ABORT, f -> fail(new RmaException(ErrorClass.ofCode(f.code) == null ? ErrorClass.OTHER
        : ErrorClass.ofCode(f.code),
        f.payload == null ? "job aborted by rank " + f.src : new String(f.payload, StandardCharsets.UTF_8))));
  }

  /** Told of ranks that died while the job goes on ({@code FailurePolicy.CONTINUE}). */
  public interface PeerFailureListener {
    /**
     * @param jobRanks the job ranks newly known dead
     * @param cause the {@code PROC_FAILED} failure naming them
     */
    void peersFailed(int[] jobRanks, RmaException cause);
  }

  /**
   * Registers a listener told, on the rank's context, whenever ranks of the job die while the
   * job goes on; {@link #removePeerFailureListener} when its engine ends.
   */
  public void onPeersFailed(PeerFailureListener listener) {
    peerFailureListeners.add(listener);
  }

  /** Stops telling {@code listener}. */
  public void removePeerFailureListener(PeerFailureListener listener) {
    peerFailureListeners.remove(listener);
  }

  /**
   * Ranks of the job died and the job goes on: every request to them fails with {@code cause},
   * frames still arriving from them are dropped, and the engines are told. On the rank's
   * context; ranks already known dead are skipped.
   */
  public void peersFailed(int[] jobRanks, RmaException cause) {
    if (failure != null) {
      return;
    }
    if (deaths == null) {
      deaths = new RmaException[job.np()];
    }
    int[] fresh = new int[jobRanks.length];
    int n = 0;
    for (int r : jobRanks) {
      if (r >= 0 && r < deaths.length && r != rank && deaths[r] == null) {
        deaths[r] = cause;
        fresh[n++] = r;
      }
    }
    if (n == 0) {
      return;
    }
    int[] news = java.util.Arrays.copyOf(fresh, n);
    int[] order = java.util.Arrays.copyOf(deathOrder, deathOrder.length + n);
    System.arraycopy(news, 0, order, deathOrder.length, n);
    deathOrder = order;
    RmaException[] byRank = deaths;
    pending.failAll(t -> t >= 0 && t < byRank.length && byRank[t] != null, cause);
    for (PeerFailureListener l : new ArrayList<>(peerFailureListeners)) {
      try {
        l.peersFailed(news, cause);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "rank " + rank + ": a peer-failure listener threw", e);
      }
    }
  }

  /** The failure of job rank {@code r} if it died while the job goes on, else {@code null}. */
  @Override
  public RmaException peerFailure(int r) {
    RmaException[] d = deaths;
    return d == null || r < 0 || r >= d.length ? null : d[r];
  }

  private final List<Runnable> revocationListeners = new ArrayList<>();

  /** Registers a listener told, on the rank's context, when one of the rank's communicators is revoked. */
  public void onRevocation(Runnable listener) {
    revocationListeners.add(listener);
  }

  /**
   * One of this rank's communicators was revoked: engines with collectives over it (windows)
   * fail what waits in them. On the rank's context.
   */
  public void revoked() {
    for (Runnable l : new ArrayList<>(revocationListeners)) {
      try {
        l.run();
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "rank " + rank + ": a revocation listener threw", e);
      }
    }
  }

  /** How many ranks of the job this rank knows dead. */
  public int deathCount() {
    return deathOrder.length;
  }

  /** The job ranks known dead, in the order this rank learned of them (a copy). */
  public int[] deathOrder() {
    return deathOrder.clone();
  }

  /** What the world communicator knows of its members' failures. */
  public GroupFaults worldFaults() {
    return worldFaults;
  }

  @Override
  public RmaException groupFailure() {
    return worldFaults.groupFailure();
  }

  @Override
  public RmaException revocation() {
    return worldFaults.revocation();
  }

  @Override
  public RmaException anySourceFailure() {
    return worldFaults.anySourceFailure();
  }

  /** Registers the engine that handles frames of {@code type}. */
  public void handle(byte type, Consumer<Frame> handler) {
    handlers[type] = handler;
  }

  /** Registers a listener told once when this rank's job fails (abort, shutdown). */
  public void onFailure(Consumer<RmaException> listener) {
    failureListeners.add(listener);
  }

  /**
   * The per-rank instance of an engine, created by {@code factory} on first use (e.g. the window
   * registry, which installs its frame handlers then).
   */
  public <T> T service(Class<T> key, java.util.function.Function<RankProcess, T> factory) {
    Object s = services.get(key);
    if (s == null) {
      s = factory.apply(this);
      services.put(key, s);
    }
    return key.cast(s);
  }

  /** The per-rank instance of an engine if it was created, else {@code null}; any thread. */
  public <T> T existingService(Class<T> key) {
    return key.cast(services.get(key));
  }

  /** Registers a hook run once when the rank shuts down (releases windows, buffers). */
  public void onClose(Runnable hook) {
    closeHooks.add(hook);
  }

  /**
   * Registers a check of what this rank still holds when it finalizes: it returns a description
   * of what was left unreleased (e.g. windows never freed), or {@code null} if nothing was.
   */
  public void onFinalizeCheck(java.util.function.Supplier<String> check) {
    finalizeChecks.add(check);
  }

  /** What this rank still holds that it should have released, per {@link #onFinalizeCheck}; {@code null} if nothing. */
  public String unreleased() {
    List<String> found = new ArrayList<>();
    for (java.util.function.Supplier<String> check : finalizeChecks) {
      String s = check.get();
      if (s != null) {
        found.add(s);
      }
    }
    return found.isEmpty() ? null : String.join("; ", found);
  }

  /**
   * Joins the job's local registry: from now on frames for this rank, from this JVM or from the
   * data plane, reach it. (No event-bus address: frames never travel on the event bus.)
   */
  public Future<Void> listen() {
    job.register(this);
    return Future.succeededFuture();
  }

  /** Stops listening and leaves the job's local registry. */
  public Future<Void> close() {
    job.unregister(this);
    for (Runnable hook : closeHooks) {
      try {
        hook.run();
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "rank " + rank + " close hook failed", e);
      }
    }
    closeHooks.clear();
    if (failure == null) {
      failure = new RmaException(ErrorClass.COMM, "rank " + rank + " of job " + job.jobName() + " has finished");
    }
    return Future.succeededFuture();
  }

  Consumer<Frame> sink() {
    return sink;
  }

  /**
   * A frame from the network that is not an RMA operation (the data plane's thread, already
   * decoded and checked as coming from a rank of the peer JVM that sent it). When that thread is
   * this rank's event loop (the data plane's context shares it) and no frame waits in this rank's
   * queue, it is delivered right here, on the rank's context; otherwise it is queued like a local
   * frame. Frames from one source keep their order (all of a peer JVM's frames come on its one
   * connection's thread, and once one of them waits in the queue the next ones queue behind it),
   * and a frame from the network never overtakes one already queued for this rank (by a local
   * rank, say, before it sent the message that caused this one), as with the queue alone.
   */
  void fromNetwork(Frame f) {
    if (eventLoop != null && queued.get() == 0 && eventLoop.inEventLoop()) {
      inlineFromNetwork++;
      context.dispatch(f, deliverHandler);
    } else {
      sink.accept(f);
    }
  }

  /**
   * How many requests (frames answered by a reply) this rank has sent so far; read it on the
   * rank's context (tests, diagnostics).
   */
  public long requestsSent() {
    return pending.registered();
  }

  /**
   * How many frames from the network (other than RMA operations) this rank got without a change
   * of thread so far; read it on the rank's context (tests, diagnostics).
   */
  public long inlineFromNetwork() {
    return inlineFromNetwork;
  }

  /**
   * Handles an RMA operation frame on the caller's thread. Only the window engines receive frames
   * this way; a window's single owner (TargetWindow) queues what it cannot run at once.
   */
  Consumer<Frame> inlineSink() {
    return inlineSink;
  }

  /**
   * Handles one incoming frame: on the rank's context, or — for an RMA operation from a rank of the
   * same Vert.x instance — on the origin's thread. Frames from the network are untrusted.
   */
  void deliver(Frame f) {
    if (f.type == FrameType.INVALID) {
      rejected.reject("a malformed frame from the network: " + new String(f.payload, StandardCharsets.UTF_8));
      return;
    }
    if (f.src < 0 || f.src >= job.np() || f.type < 0 || f.type >= handlers.length) {
      rejected.reject("a frame with an invalid source or type: " + f);
      return;
    }
    if (deaths != null && deaths[f.src] != null) {
      return; // sent before its rank died, arrived after this rank learned of the death: as if lost
    }
    if (handlers[f.type] == null) {
      if (f.corr > 0 && f.type != FrameType.REPLY) {
        reply(f, ErrorClass.WIN, "rank " + rank + " has no window " + f.ctx + " (never created here, or freed)");
      } else {
        rejected.reject("a frame nothing here handles: " + f);
      }
      return;
    }
    try {
      handlers[f.type].accept(f);
    } catch (RmaException e) {
      if (f.corr > 0 && f.type != FrameType.REPLY) {
        replyError(f, e);
      } else {
        rejected.reject(f + ": " + e.getMessage());
      }
    } catch (RuntimeException e) {
      rejected.reject(f.toString(), e);
      if (f.corr > 0 && f.type != FrameType.REPLY) {
        reply(f, ErrorClass.INTERN, "internal error at rank " + rank + ": " + e);
      }
    }
  }

  /** Fails everything pending on this rank and every later call, once. */
  public void fail(RmaException cause) {
    if (failure != null) {
      return;
    }
    failure = cause;
    pending.failAll(t -> true, cause);
    for (Consumer<RmaException> l : new ArrayList<>(failureListeners)) {
      try {
        l.accept(cause);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "rank " + rank + ": a failure listener threw", e);
      }
    }
    if (job.sharedBarriers() != null) {
      job.sharedBarriers().failRank(rank, cause);
    }
  }

  /** Aborts the job: tells every rank (this one included) to fail with {@code cause}. */
  public void abortJob(RmaException cause) {
    for (int r = 0; r < job.np(); r++) {
      if (r == rank) {
        continue;
      }
      Frame f = Frame.of(FrameType.ABORT, rank, 0);
      f.code = cause.errorClass().code();
      // the message without its class's prefix: the receiver makes an exception of that class again
      String prefix = cause.errorClass() + ": ";
      String message = String.valueOf(cause.getMessage());
      f.payload = (message.startsWith(prefix) ? message.substring(prefix.length()) : message)
          .getBytes(StandardCharsets.UTF_8);
      transport.send(r, f);
    }
    fail(cause);
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return job.np();
  }

  @Override
  public ContextInternal context() {
    return context;
  }

  /** This rank's trace recorder ({@link RankObserver#NOOP} when the job is not traced). */
  public RankObserver trace() {
    return trace;
  }

  /** The job this rank belongs to. */
  public JobRuntime job() {
    return job;
  }

  @Override
  public boolean isLocal(int r) {
    return transport.isLocal(r);
  }

  @Override
  public void send(int dst, Frame frame) {
    if (deaths != null && dst >= 0 && dst < deaths.length && deaths[dst] != null) {
      return; // a dead rank receives nothing; what waits for its answer fails by peersFailed
    }
    transport.send(dst, frame);
  }

  @Override
  public Future<Frame> request(int dst, Frame frame) {
    if (failure != null) {
      return context.failedFuture(failure);
    }
    RmaException dead = peerFailure(dst);
    if (dead != null) {
      return context.failedFuture(dead);
    }
    // a rank future: the operators the caller chains on it, and its adoption as the call's
    // future, add no layer of another future kind
    RankFuture<Frame> p = RankFuture.promise(context);
    frame.corr = pending.register(dst, p);
    transport.send(dst, frame);
    return p;
  }

  @Override
  public void withdraw(long corr) {
    pending.withdraw(corr);
  }

  /** Requests of this rank waiting for their answer (tests check none is left behind). */
  public int pendingRequests() {
    return pending.pendingCount();
  }

  @Override
  public void reply(Frame request, ErrorClass error, String message) {
    transport.send(request.src, PendingReplies.replyTo(request, rank, error, message));
  }

  @Override
  public void replyWith(Frame request, byte[] payload) {
    Frame r = PendingReplies.replyTo(request, rank, null, null);
    r.payload = payload;
    transport.send(request.src, r);
  }

  @Override
  public void replyWith(Frame request, dev.vertxrma.impl.transport.PayloadSource payload) {
    Frame r = PendingReplies.replyTo(request, rank, null, null);
    r.payloadSource = payload;
    transport.send(request.src, r);
  }

  @Override
  public void replyError(Frame request, RmaException e) {
    reply(request, e.errorClass(), PendingReplies.messageOf(e));
  }

  @Override
  public void rejectInput(String what) {
    rejected.reject(what);
  }

  @Override
  public void rejectInput(String what, Throwable bug) {
    rejected.reject(what, bug);
  }

  /** The count of input this rank rejected. */
  public RejectedInput rejectedInput() {
    return rejected;
  }

  @Override
  public long waitTimeoutMs() {
    return job.waitTimeoutMs();
  }

  @Override
  public RmaException failure() {
    return failure;
  }

  @Override
  public <T> void failAtDeadline(io.vertx.core.Promise<T> p, java.util.function.Supplier<String> what) {
    deadlines.failAtDeadline(p, what);
  }

  @Override
  public void atDeadline(java.util.function.BooleanSupplier ended, Runnable onExpiry) {
    deadlines.atDeadline(ended, onExpiry);
  }

  @Override
  public <T> Future<T> withTimeout(Future<T> f, String what) {
    return f.isComplete() ? f : deadlines.bound(f, what);
  }

  @Override
  public <T> Future<T> withTimeout(Future<T> f, java.util.function.Supplier<String> what) {
    return f.isComplete() ? f : deadlines.bound(f, what);
  }
}
