package dev.vertxrma.impl.runtime;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.transport.RejectedInput;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.IntFunction;

/**
 * The startup handshake of one rank instance: discovers the other instances of the job, agrees
 * on rank numbers and waits until every rank is reachable, with no coordinator.
 *
 * <ol>
 * <li>Each instance registers a consumer on the job's hello address and on a private address,
 *     waits for both registrations to be visible, then publishes HELLO(key, private address)
 *     until it knows every instance: first at once, then after {@value #REPUBLISH_MS} ms, each
 *     wait twice the one before, up to {@value #MAX_REPUBLISH_MS} ms.</li>
 * <li>Once an instance knows {@code np} keys, ranks are the sorted order of the keys (a key is the
 *     requested rank, zero padded, or a random id for launcher-started instances). It registers
 *     its rank address (via the {@code onRank} callback) and then sends READY, with reply, to
 *     every other instance's private address, retrying until each is acknowledged.</li>
 * <li>It is done when it has received READY from every other instance and every one of its own
 *     READYs was acknowledged: then every rank address of the job is registered.</li>
 * </ol>
 *
 * Too many instances fail at once with {@link ErrorClass#RANK}; missing ones fail after the
 * startup timeout with {@link ErrorClass#TIMEOUT}, naming the ranks that never joined.
 */
public final class Handshake {

  static final long REPUBLISH_MS = 100;
  /** The longest wait between two HELLOs of an instance. */
  static final long MAX_REPUBLISH_MS = 1_600;
  private long helloInterval = REPUBLISH_MS / 2;
  private long nextHello;
  private static final String NO_RANK = "~";
  /** An instance key: a requested rank (10 digits) or the no-rank mark, a slash, a UUID. */
  private static final java.util.regex.Pattern KEY =
      java.util.regex.Pattern.compile("(\\d{10}|~)/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private final JobRuntime job;
  private final ContextInternal context;
  private final EventBus bus;
  private final String key;
  private final String privateAddress;
  private final String helloAddress;
  private final TreeMap<String, String> members = new TreeMap<>();
  private final java.util.Map<String, String> nodes = new java.util.HashMap<>();
  private final Set<String> readyFrom = new HashSet<>();
  private final Set<String> readyAcked = new HashSet<>();
  private final Set<String> readyInFlight = new HashSet<>();
  private final Promise<Integer> done;
  private final List<MessageConsumer<Object>> consumers = new ArrayList<>();
  private final RejectedInput rejected;
  /** Data-plane address of each node that hosts instances of the job. */
  private final java.util.Map<String, String> dataPlanes = new java.util.HashMap<>();
  /** The process mark ({@code HolderMark}) of each node that hosts instances of the job. */
  private final java.util.Map<String, Long> marks = new java.util.HashMap<>();
  /** This node's data-plane address, once listening. */
  private String dataPlane;
  private final java.util.function.Consumer<String> nodeLeftListener = this::nodeLeft;
  private IntFunction<Future<Void>> onRank;
  private int myRank = -1;
  private boolean readyPhase;
  private long ticker = -1;
  private long deadline = -1;

  /**
   * @param requestedRank the rank this instance asks for, or {@code -1} to take one by order of
   *     arrival (Vert.x launcher, {@code -instances K})
   */
  public Handshake(JobRuntime job, ContextInternal context, int requestedRank) {
    this.job = job;
    this.context = context;
    this.bus = job.vertx().eventBus();
    String id = UUID.randomUUID().toString();
    this.key = (requestedRank >= 0 ? String.format("%010d", requestedRank) : NO_RANK) + "/" + id;
    this.privateAddress = "rma." + job.jobName() + ".i." + id;
    this.helloAddress = "rma." + job.jobName() + ".hello";
    this.done = context.promise();
    this.rejected = new RejectedInput("the startup handshake of job " + job.jobName(),
        (ms, task) -> job.vertx().setTimer(ms, tid -> task.run()), RejectedInput.DEFAULT_INTERVAL_MS);
  }

  /**
   * Runs the handshake. {@code onRank} is called once with this instance's rank and must complete
   * when the rank's own address is registered. The result is the rank.
   */
  public Future<Integer> run(IntFunction<Future<Void>> onRank) {
    this.onRank = onRank;
    MessageConsumer<Object> hello = bus.consumer(helloAddress, m -> {
      if (repeated(m.body())) {
        return; // a HELLO this instance has learned already: nothing to check, nothing changes
      }
      JsonObject body = valid(m.body());
      if (body != null) {
        learn(body);
      }
    });
    MessageConsumer<Object> direct = bus.consumer(privateAddress, m -> {
      JsonObject body = valid(m.body());
      if (body == null || !learn(body)) {
        return;
      }
      readyFrom.add(body.getString("key"));
      m.reply(new JsonObject().put("ok", true));
      checkDone();
    });
    job.onNodeLeft(nodeLeftListener);
    consumers.add(hello);
    consumers.add(direct);
    Future<String> dataPlaneAddress = job.dataPlaneAddress(context);
    // (the data plane's future completes on the data plane's context: continue on this rank's)
    Future.all(hello.completion(), direct.completion(), dataPlaneAddress).onComplete(ar -> context.runOnContext(x -> {
      if (ar.failed()) {
        finish(new RmaException(ErrorClass.INTERN, "cannot register the job's addresses or start its data plane: "
            + ar.cause(), ar.cause()));
        return;
      }
      dataPlane = dataPlaneAddress.result();
      deadline = System.currentTimeMillis() + job.startupTimeoutMs();
      ticker = job.vertx().setPeriodic(0, REPUBLISH_MS, id -> context.runOnContext(v -> tick()));
      StartupProgress.started(job.jobName());
    }));
    return done.future();
  }

  private void tick() {
    if (done.future().isComplete()) {
      return;
    }
    if (System.currentTimeMillis() > deadline) {
      finish(timeoutError());
      return;
    }
    long now = System.currentTimeMillis();
    if (members.size() < job.np() && now >= nextHello) {
      // until this instance knows every instance; a later one learns of it by its READY. Each
      // HELLO reaches every instance (np^2 messages, each checked for the job's proof): every
      // round waits twice as long as the one before, up to MAX_REPUBLISH_MS
      bus.publish(helloAddress, hello());
      helloInterval = Math.min(2 * helloInterval, MAX_REPUBLISH_MS);
      nextHello = now + helloInterval;
    }
    if (readyPhase) {
      sendReadies();
    }
  }

  /**
   * HELLO and READY: this instance's key and private address, the job size, its node and that
   * node's data-plane address, with the proof that it holds the job's secret.
   */
  private JsonObject hello() {
    String np = String.valueOf(job.np());
    String mark = Long.toString(dev.vertxrma.impl.memory.HolderMark.SELF);
    byte[] mac = job.secret().mac(job.jobName(), key, privateAddress, np, job.nodeId(), dataPlane, mark);
    return new JsonObject().put("key", key).put("addr", privateAddress).put("np", job.np()).put("node", job.nodeId())
        .put("dp", dataPlane).put("mark", mark).put("mac", java.util.Base64.getEncoder().encodeToString(mac));
  }

  private boolean proven(JsonObject m) {
    try {
      byte[] mac = java.util.Base64.getDecoder().decode(m.getString("mac"));
      return job.secret().verify(mac, bytes(job.jobName()), bytes(m.getString("key")), bytes(m.getString("addr")),
          bytes(String.valueOf(m.getInteger("np"))), bytes(m.getString("node")), bytes(m.getString("dp")),
          bytes(m.getString("mark")));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * The body of a handshake message if it is one: a JSON object with a well-formed key, a private
   * address of this job, the job size and a node id. Anything else on the job's addresses is
   * untrusted junk, dropped (and counted in the log at a bounded rate).
   */
  private JsonObject valid(Object body) {
    if (body instanceof JsonObject) {
      JsonObject m = (JsonObject) body;
      Object k = m.getValue("key");
      Object addr = m.getValue("addr");
      Object np = m.getValue("np");
      Object node = m.getValue("node");
      Object dp = m.getValue("dp");
      Object mac = m.getValue("mac");
      Object mark = m.getValue("mark");
      if (mark instanceof String && ((String) mark).matches("-?\\d{1,19}") && k instanceof String && KEY.matcher((String) k).matches() && addr instanceof String
          && ((String) addr).startsWith("rma." + job.jobName() + ".i.") && np instanceof Integer
          && node instanceof String && dp instanceof String && mac instanceof String) {
        if (proven(m)) {
          return m;
        }
        rejected.reject("a handshake message without the job's proof (a stranger, or a JVM with another secret): key "
            + k + " from node " + node);
        return null;
      }
    }
    rejected.reject("a handshake message that is not one: " + (body == null ? "null" : body.getClass().getSimpleName()));
    return null;
  }

  /**
   * Whether {@code body} repeats a HELLO this instance has learned from already (same key,
   * address, node and data-plane address): learning it again changes nothing, so its proof need
   * not be checked again (np^2 proofs a round otherwise). Anything else is checked in full.
   */
  private boolean repeated(Object body) {
    if (!(body instanceof JsonObject)) {
      return false;
    }
    JsonObject m = (JsonObject) body;
    Object k = m.getValue("key");
    Object node = m.getValue("node");
    return k instanceof String && node instanceof String && m.getValue("addr") != null
        && m.getValue("addr").equals(members.get(k)) && node.equals(nodes.get(k))
        && m.getValue("dp") != null && m.getValue("dp").equals(dataPlanes.get(node))
        && Integer.valueOf(job.np()).equals(m.getValue("np"));
  }

  /** Learns an instance from a valid HELLO or READY; false once the handshake is over. */
  private boolean learn(JsonObject m) {
    if (done.future().isComplete()) {
      return false;
    }
    String k = m.getString("key");
    String addr = m.getString("addr");
    int np = m.getInteger("np");
    if (np != job.np()) {
      finish(RmaException.of(ErrorClass.ARG, "job %s: an instance joined with np=%d, this one has np=%d",
          job.jobName(), np, job.np()));
      return false;
    }
    if (members.put(k, addr) == null) {
      StartupProgress.heard(job.jobName(), members.size());
    }
    nodes.put(k, m.getString("node"));
    dataPlanes.put(m.getString("node"), m.getString("dp"));
    try {
      marks.put(m.getString("node"), Long.parseLong(m.getString("mark")));
    } catch (NumberFormatException e) {
      marks.remove(m.getString("node")); // proven, but not a mark: no word is ever taken back from it
    }
    if (members.size() > job.np()) {
      finish(RmaException.of(ErrorClass.RANK, "job %s has np=%d but %d rank instances joined",
          job.jobName(), job.np(), members.size()));
      return false;
    }
    if (members.size() == job.np() && myRank < 0) {
      assignRanks();
    }
    return true;
  }

  /**
   * A cluster node left while the job starts: if it hosted instances this one has heard of, the
   * job cannot start; fails at once with PROC_FAILED naming their ranks (no wait for the timeout).
   */
  private void nodeLeft(String node) {
    context.runOnContext(v -> {
      if (done.future().isComplete()) {
        return;
      }
      List<String> lost = new ArrayList<>();
      for (var e : nodes.entrySet()) {
        if (node.equals(e.getValue())) {
          lost.add(e.getKey().startsWith(NO_RANK) ? "an instance" : String.valueOf(rankOf(e.getKey())));
        }
      }
      if (!lost.isEmpty()) {
        finish(RmaException.of(ErrorClass.PROC_FAILED, "rank(s) %s of job %s left during startup: their cluster node %s "
            + "is gone", lost, job.jobName(), node));
      }
    });
  }

  private static long rankOf(String key) {
    return Long.parseLong(key.substring(0, key.indexOf('/')));
  }

  private void assignRanks() {
    List<String> keys = new ArrayList<>(members.keySet());
    for (int r = 0; r < keys.size(); r++) {
      String k = keys.get(r);
      if (!k.startsWith(NO_RANK)) {
        long requested = rankOf(k);
        if (requested != r) {
          finish(RmaException.of(ErrorClass.RANK, "job %s: rank %d was requested by %s, but np=%d ranks must be "
              + "0..%d each requested once", job.jobName(), requested, k, job.np(), job.np() - 1));
          return;
        }
      }
      if (k.equals(key)) {
        myRank = r;
      }
    }
    onRank.apply(myRank).onComplete(ar -> {
      if (ar.failed()) {
        finish(ar.cause() instanceof RmaException ? (RmaException) ar.cause()
            : new RmaException(ErrorClass.INTERN, "rank " + myRank + " could not start: " + ar.cause(), ar.cause()));
        return;
      }
      readyPhase = true;
      sendReadies();
      checkDone(); // a job of one rank has nobody to exchange READY with
    });
  }

  private void sendReadies() {
    DeliveryOptions opts = new DeliveryOptions().setSendTimeout(2 * REPUBLISH_MS * 10);
    for (var e : members.entrySet()) {
      String k = e.getKey();
      if (k.equals(key) || readyAcked.contains(k) || !readyInFlight.add(k)) {
        continue;
      }
      bus.request(e.getValue(), hello(), opts).onComplete(ar -> {
        readyInFlight.remove(k);
        if (ar.succeeded()) {
          readyAcked.add(k);
          checkDone();
        }
      });
    }
  }

  private void checkDone() {
    int others = job.np() - 1;
    if (readyPhase && readyFrom.size() >= others && readyAcked.size() >= others) {
      finish(null);
    }
  }

  private RmaException timeoutError() {
    List<Integer> missing = new ArrayList<>();
    Set<Integer> present = new HashSet<>();
    int anonymous = 0;
    for (String k : members.keySet()) {
      if (k.startsWith(NO_RANK)) {
        anonymous++;
      } else {
        present.add((int) Math.min(Integer.MAX_VALUE, rankOf(k)));
      }
    }
    for (int r = 0; r < job.np(); r++) {
      if (!present.contains(r)) {
        missing.add(r);
      }
    }
    String detail = anonymous == 0 ? "missing ranks " + missing
        : members.size() + " of " + job.np() + " rank instances joined";
    return RmaException.of(ErrorClass.TIMEOUT, "job %s did not start within %d ms: %s (are all JVMs of the job "
        + "running and in the same cluster?)", job.jobName(), job.startupTimeoutMs(), detail);
  }

  private void finish(RmaException failure) {
    if (done.future().isComplete()) {
      return;
    }
    if (ticker >= 0) {
      job.vertx().cancelTimer(ticker);
    }
    job.removeNodeLeft(nodeLeftListener);
    for (MessageConsumer<Object> c : consumers) {
      c.unregister();
    }
    if (failure == null) {
      String[] rankNodes = new String[job.np()];
      int r = 0;
      for (String k : members.keySet()) {
        rankNodes[r++] = nodes.get(k);
      }
      job.learnNodes(rankNodes, dataPlanes, marks);
      done.complete(myRank);
      StartupProgress.joined(job.jobName(), myRank);
    } else {
      done.fail(failure);
    }
  }
}
