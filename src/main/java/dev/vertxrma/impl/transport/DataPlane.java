package dev.vertxrma.impl.transport;

import dev.vertxrma.Progress;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.ThreadingModel;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The direct data plane of one job in one Vert.x instance: every frame between ranks of different
 * JVMs travels on one TCP connection per pair of JVMs, made with Vert.x's own
 * {@link NetServer}/{@link NetClient}. The clustered event bus only carries the startup handshake,
 * which tells each JVM the others' data-plane addresses.
 *
 * <p>A connection is used only after both ends proved they hold the job's secret
 * ({@link DataLink}: HMAC-SHA256 challenge-response over fresh nonces); before that, nothing it
 * carries is applied, answered or delivered. Of two JVMs, the one with the smaller node id
 * connects; the other queues what it has to send until that connection is proven. A connection
 * that closes while the job runs makes every rank of its peer JVM unreachable: the job's pending
 * and later calls fail with PROC_FAILED at once, without waiting for Hazelcast.
 *
 * <p>Strangers who reach the port: an incoming connection holds a slot of {@link
 * UnprovenConnections} until it proves the secret or closes (at most {@value
 * UnprovenConnections#DEFAULT_MAX_PER_SOURCE} per source address, {@value
 * UnprovenConnections#DEFAULT_MAX_TOTAL} in all; one over either bound is closed at once,
 * unchallenged), its proof timer is cancelled when it closes, and each one's failure is counted
 * in the job's rate-limited rejected-input log ({@link Job#reject}). The listening socket's
 * backlog is {@value #ACCEPT_BACKLOG}. Vert.x accepts on its acceptor event loop and hands each
 * connection to the event loop of the plane's own context, which may be a rank's (see {@link
 * #home}): the bounds are what keep a flood from loading that loop with more than a few hundred
 * connections at a time.
 *
 * <p>Record on the wire after the proof: {@code i32 length | i32 destination rank | frame} (the
 * frame as {@link FrameCodec} writes it); a JVM whose part of the job ended sends {@code i32 4 |
 * i32 -2} (goodbye) before it closes, so its peer does not take the close for a failure.
 */
public final class DataPlane {

  /** What the data plane needs from its job. */
  public interface Job {
    /**
     * A record from proven peer JVM {@code node}: {@code i32 destination rank | frame}, still to be
     * decoded and checked (a bug or a corruption at the peer must not hurt this JVM). The callee
     * owns the record and releases it.
     */
    void receive(String node, io.netty.buffer.ByteBuf record);

    /**
     * {@link #receive(String, io.netty.buffer.ByteBuf)}, the record read from a connection whose
     * {@code budget} an operation that has to wait for its target's owner counts against.
     */
    default void receive(String node, io.netty.buffer.ByteBuf record, InboundBudget budget) {
      receive(node, record);
    }

    /** The connection to {@code node} is lost (closed or never made) while the job runs. */
    void unreachable(String node, String reason);

    /** Counts input rejected by the data plane (logged at a bounded rate). */
    void reject(String what);

    /**
     * Whether the job has failed here (every rank of this JVM failed): a connection that breaks
     * now, as the peers' JVMs end, is a consequence of that failure, not news.
     */
    default boolean failedHere() {
      return false;
    }
  }

  private static final System.Logger LOG = System.getLogger(DataPlane.class.getName());

  /** The bounds on what connections hand this JVM faster than its target owners apply it. */
  private final InboundBudget.Totals inbound = new InboundBudget.Totals();

  /** What this JVM's connections held of operations waiting for their targets ({@link InboundBudget}), for tests. */
  public InboundBudget.Totals inbound() {
    return inbound;
  }

  /** Whether connections use TLS. */
  public boolean isTls() {
    return tls != null;
  }

  /** How long a link whose connection is not yet proven stays to deliver what waits, once the job ended here. */
  static final long LINGER_MS = 2_000;
  /**
   * The listening socket's accept backlog: connections the kernel completes before the event loop
   * takes them (Linux caps it at {@code net.core.somaxconn}, 4096 by default).
   */
  static final int ACCEPT_BACKLOG = 1024;

  private final Vertx vertx;
  private final String jobName;
  private final JobSecret secret;
  private final String localNode;
  private final Job job;
  private final Map<String, DataLink> links = new ConcurrentHashMap<>();
  private final Map<String, String> addresses = new ConcurrentHashMap<>();
  /** Bounds on incoming connections not proven yet, and the proof timers armed. */
  private final UnprovenConnections unproven = new UnprovenConnections();
  /**
   * The context the server and client belong to, made when the plane starts to listen: one of the
   * data plane's own, not a rank's, so that Vert.x does not close them when a rank's verticle is
   * undeployed while its last frames still wait for a connection. It runs on the event loop of
   * the rank that asked for the plane's address when that rank's context is an event loop (see
   * {@link #listen(String, int, ContextInternal)}): the connections are then handled on that
   * rank's thread, and frames between it and the socket change no thread.
   */
  private volatile ContextInternal home;
  /** Set by the one {@link #listen} call (from a rank's handshake, on its event loop: no monitor). */
  private final java.util.concurrent.atomic.AtomicBoolean listening = new java.util.concurrent.atomic.AtomicBoolean();
  /** Mutual TLS settings, or {@code null} for plain TCP. */
  private final DataPlaneTls tls;
  private NetClient client;
  private NetServer server;
  private volatile boolean closing;
  private volatile boolean closed;

  public DataPlane(Vertx vertx, String jobName, JobSecret secret, String localNode, Job job) {
    this(vertx, jobName, secret, localNode, job, null);
  }

  /**
   * @param tls mutual TLS for every connection, or {@code null} for plain TCP (the secret's
   *     challenge-response authenticates either way)
   */
  public DataPlane(Vertx vertx, String jobName, JobSecret secret, String localNode, Job job, DataPlaneTls tls) {
    this.tls = tls;
    this.vertx = vertx;
    this.jobName = jobName;
    this.secret = secret;
    this.localNode = localNode;
    this.job = job;
  }

  /** As {@link #listen(String, int)} on any free port. */
  public Future<String> listen(String host) {
    return listen(host, 0);
  }

  /** As {@link #listen(String, int, ContextInternal)} on an event loop of the plane's choosing. */
  public Future<String> listen(String host, int port) {
    return listen(host, port, null);
  }

  /**
   * Starts listening on {@code host} and {@code port} (0: any free port); the result is this
   * plane's address {@code host:port}. Once only.
   *
   * @param near a context whose event loop the plane's own context shares if it is an event-loop
   *     context (a local rank's: accepted and connected sockets are then handled on that rank's
   *     thread); {@code null} or any other context (a virtual-thread rank's): an event loop of
   *     Vert.x's choosing
   */
  public Future<String> listen(String host, int port, ContextInternal near) {
    if (!listening.compareAndSet(false, true)) {
      throw new IllegalStateException("the data plane of job " + jobName + " already listens");
    }
    ContextInternal h = homeNear(near);
    home = h;
    Promise<String> address = Promise.promise();
    h.runOnContext(v -> {
      NetClientOptions clientOptions = new NetClientOptions().setTcpNoDelay(true).setConnectTimeout(5_000);
      NetServerOptions serverOptions = new NetServerOptions().setHost(host).setPort(port).setTcpNoDelay(true)
          .setAcceptBacklog(ACCEPT_BACKLOG);
      client = vertx.createNetClient(tls == null ? clientOptions : tls.apply(clientOptions));
      server = vertx.createNetServer(tls == null ? serverOptions : tls.apply(serverOptions));
      server.connectHandler(this::accepted);
      // a connection that fails before it is handed over (its TLS handshake) is counted, not logged alone
      server.exceptionHandler(e -> job.reject("a data-plane connection that failed before its challenge: " + e));
      Progress progress = PollingTransport.modeOf(vertx);
      boolean busy = progress == Progress.BUSY;
      server.listen().map(s -> {
        LOG.log(tls == null && !busy ? System.Logger.Level.DEBUG : System.Logger.Level.INFO, "data plane of job "
            + jobName + " listens on " + host + ":" + s.actualPort() + (tls == null ? " (plain TCP" : " (" + tls)
            + ", " + progress.name().toLowerCase(java.util.Locale.ROOT) + " progress)");
        return host + ":" + s.actualPort();
      }).onComplete(address);
    });
    return address.future();
  }

  /**
   * A context of the data plane's own (not tied to any deployment) on {@code near}'s event loop
   * if {@code near} is an event-loop context, else on Vert.x's acceptor event loop: no rank ever
   * runs there (ranks take the event loops of Vert.x's pool, round robin), so a rank whose program
   * holds its thread delays no frame of another rank. That loop otherwise only accepts
   * connections, and it polls as the others do ({@link PollingTransport}).
   */
  private ContextInternal homeNear(ContextInternal near) {
    VertxInternal vx = (VertxInternal) vertx;
    if (near == null || near.threadingModel() != ThreadingModel.EVENT_LOOP) {
      return vx.contextBuilder().withThreadingModel(ThreadingModel.EVENT_LOOP)
          .withEventLoop(vx.acceptorEventLoopGroup().next()).build();
    }
    return vx.contextBuilder().withThreadingModel(ThreadingModel.EVENT_LOOP).withEventLoop(near.nettyEventLoop())
        .withClassLoader(near.classLoader()).build();
  }

  /** Runs {@code task} on the data plane's own context (the plane listens). */
  void onHome(Runnable task) {
    home.runOnContext(v -> task.run());
  }

  /** The event loop of the data plane's own context, once it listens, else {@code null}. */
  io.netty.channel.EventLoop homeLoop() {
    ContextInternal h = home;
    return h == null ? null : h.nettyEventLoop();
  }

  /** The job's name (bound into every proof, so a secret shared by two jobs still keeps them apart). */
  String jobName() {
    return jobName;
  }

  JobSecret secret() {
    return secret;
  }

  String localNode() {
    return localNode;
  }

  Vertx vertx() {
    return vertx;
  }

  Job job() {
    return job;
  }

  boolean isClosed() {
    return closed;
  }

  /** The job ended here: lost connections are no longer news. */
  boolean isClosing() {
    return closing;
  }

  /**
   * Learns the data-plane address of JVM {@code node}; if this JVM is the one that connects (the
   * smaller node id), connects now, so that the link is ready when the first frame goes.
   */
  public void learn(String node, String address) {
    if (node.equals(localNode)) {
      return;
    }
    addresses.put(node, address);
    DataLink link = link(node);
    if (localNode.compareTo(node) < 0) {
      onHome(() -> link.connect(client, address));
    }
  }

  /**
   * Sends {@code frame} to rank {@code dst}, which lives in JVM {@code node}. Any thread. A frame
   * whose payload source is at least {@link PayloadSource#PACKED_LATER_FROM} long, or any frame
   * with a payload source while its link is {@linkplain DataLink#congested congested}, is packed
   * later, when the connection can take it; any other is encoded now.
   */
  public void send(String node, int dst, Frame frame) {
    DataLink link = link(node);
    int payload = frame.payloadLength();
    // a large payload, or any payload while the link is congested, waits unpacked for the socket:
    // the call that owns it completes when it is packed (back-pressure on a loop of small puts)
    if (frame.payloadSource != null && (payload >= PayloadSource.PACKED_LATER_FROM || link.congested())) {
      link.sendLater(dst, frame);
    } else {
      // a record someone waits on mostly leaves alone, at once: built in native memory, the socket
      // writes it as it is (a heap record would be copied to native memory first); small one-way
      // operations are coalesced into a native batch anyway
      boolean awaited = awaited(frame);
      if (link.trySendNow(dst, frame, awaited)) {
        return;
      }
      link.send(FrameCodec.recordBuf(dst, frame, awaited || payload >= DataLink.COALESCE_BELOW), awaited);
    }
  }

  /**
   * Whether the peer, or this rank, waits on {@code frame}: every frame but a one-way operation
   * (a put or accumulate that asks for no reply, whose completion a later flush asks for).
   */
  private static boolean awaited(Frame frame) {
    return !(FrameType.isOperation(frame.type) && frame.corr < 0);
  }

  private DataLink link(String node) {
    DataLink link = links.get(node); // no capturing lambda per frame sent
    return link != null ? link : links.computeIfAbsent(node, n -> new DataLink(this, n));
  }

  /**
   * An incoming connection: its peer must prove the secret before anything else. One over the
   * bounds of {@link UnprovenConnections} is closed at once, unchallenged, and counted.
   */
  private void accepted(NetSocket socket) {
    if (closed) {
      socket.exceptionHandler(e -> { });
      socket.close();
      return;
    }
    io.vertx.core.net.SocketAddress remote = socket.remoteAddress();
    String source = remote == null ? "?" : remote.hostAddress() != null ? remote.hostAddress() : remote.host();
    String over = unproven.admit(source);
    if (over != null) {
      socket.exceptionHandler(e -> { }); // a reset of a connection refused already is no news
      socket.close();
      job.reject("a data-plane connection from " + source + ", " + over);
      return;
    }
    SecretExchange.accept(this, socket, source);
  }

  UnprovenConnections unproven() {
    return unproven;
  }

  /** Incoming connections open now whose peer has not proved the job's secret yet (for tests and observation). */
  public int unprovenConnections() {
    return unproven.open();
  }

  /** The most unproven incoming connections ever open at a time (never above {@link #maxUnproven()}). */
  public int unprovenHighWater() {
    return unproven.highWater();
  }

  /** The most unproven incoming connections one source address ever held open at a time. */
  public int unprovenPerSourceHighWater() {
    return unproven.perSourceHighWater();
  }

  /** Proof timers armed and neither fired nor cancelled (a closed connection keeps none). */
  public int proofTimers() {
    return unproven.timers();
  }

  /** The bound on unproven incoming connections in all. */
  public int maxUnproven() {
    return unproven.maxTotal();
  }

  /** The bound on unproven incoming connections from one source address. */
  public int maxUnprovenPerSource() {
    return unproven.maxPerSource();
  }

  /** Bytes queued for JVM {@code node} and not yet written to its connection (tests). */
  long outboxBytes(String node) {
    DataLink l = links.get(node);
    return l == null ? 0 : l.outboxBytes();
  }

  /**
   * Bytes queued for every peer JVM and not yet given to its connection: what the links' outboxes
   * hold, at most about {@code 1 MiB} each past which a link is congested (tests and observation;
   * exact on the plane's event loop).
   */
  public long queuedBytes() {
    long sum = 0;
    for (DataLink l : links.values()) {
      sum += l.outboxBytes();
    }
    return sum;
  }

  /**
   * Records to JVM {@code node} written at once in the link's reused record, and how many of them
   * needed a new one: {@code {written, allocated}} (tests; read on the plane's event loop).
   */
  long[] sentNowCounts(String node) {
    DataLink l = links.get(node);
    return l == null ? new long[2] : l.sentNowCounts();
  }

  /** Peer JVM {@code node} said its part of the job ended normally. */
  void peerEnded(String node) {
    DataLink l = links.get(node);
    if (l != null) {
      l.peerEnded();
    }
  }

  /** Binds a proven incoming connection from {@code node} to its link. */
  void bindIncoming(String node, NetSocket socket) {
    if (localNode.compareTo(node) < 0) {
      // this side connects to that node: an incoming connection from it is not the protocol
      job.reject("a data-plane connection from JVM " + node + ", which this JVM connects to itself");
      socket.close();
      return;
    }
    link(node).open(socket);
  }

  /**
   * Closes every connection and the server (the job ended here); no loss is reported after this. A
   * link whose connection is not proven yet while records wait for it (a rank's last ABORT or
   * reply) gets {@link #LINGER_MS} to deliver them first.
   */
  public Future<Void> close() {
    closing = true;
    boolean lingering = false;
    List<Future<Void>> ended = new ArrayList<>();
    for (DataLink l : links.values()) {
      lingering |= l.close(LINGER_MS);
      ended.add(l.ended());
    }
    io.vertx.core.Promise<Void> done = io.vertx.core.Promise.promise();
    if (lingering) {
      vertx.setTimer(LINGER_MS, id -> finish().onComplete(done));
    } else {
      // the server and client close their connections at once, also on the loop the links write
      // from: each link's goodbye (queued there behind its last records) is written first, or
      // the peer, still running its part of the job, would see a connection lost
      io.vertx.core.Promise<Void> byes = io.vertx.core.Promise.promise();
      long timer = vertx.setTimer(LINGER_MS, id -> byes.tryComplete());
      Future.join(ended).onComplete(ar -> {
        vertx.cancelTimer(timer);
        byes.tryComplete();
      });
      byes.future().compose(v -> finish()).onComplete(done);
    }
    return done.future();
  }

  private Future<Void> finish() {
    closed = true;
    List<Future<?>> all = new ArrayList<>();
    if (server != null) {
      all.add(server.close());
    }
    if (client != null) {
      all.add(client.close());
    }
    return Future.join(all).mapEmpty();
  }
}
