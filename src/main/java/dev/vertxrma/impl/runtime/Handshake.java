package dev.vertxrma.impl.runtime;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
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
 *     every {@value #REPUBLISH_MS} ms.</li>
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
final class Handshake {

  static final long REPUBLISH_MS = 100;
  private static final String NO_RANK = "~";

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
  private final List<MessageConsumer<JsonObject>> consumers = new ArrayList<>();
  private IntFunction<Future<Void>> onRank;
  private int myRank = -1;
  private boolean readyPhase;
  private long ticker = -1;
  private long deadline = -1;

  /**
   * @param requestedRank the rank this instance asks for, or {@code -1} to take one by order of
   *     arrival (Vert.x launcher, {@code -instances K})
   */
  Handshake(JobRuntime job, ContextInternal context, int requestedRank) {
    this.job = job;
    this.context = context;
    this.bus = job.vertx().eventBus();
    String id = UUID.randomUUID().toString();
    this.key = (requestedRank >= 0 ? String.format("%010d", requestedRank) : NO_RANK) + "/" + id;
    this.privateAddress = "rma." + job.jobName() + ".i." + id;
    this.helloAddress = "rma." + job.jobName() + ".hello";
    this.done = context.promise();
  }

  /**
   * Runs the handshake. {@code onRank} is called once with this instance's rank and must complete
   * when the rank's own address is registered. The result is the rank.
   */
  Future<Integer> run(IntFunction<Future<Void>> onRank) {
    this.onRank = onRank;
    MessageConsumer<JsonObject> hello = bus.consumer(helloAddress, m -> learn(m.body()));
    MessageConsumer<JsonObject> direct = bus.consumer(privateAddress, m -> {
      JsonObject body = m.body();
      learn(body);
      readyFrom.add(body.getString("key"));
      m.reply(new JsonObject().put("ok", true));
      checkDone();
    });
    consumers.add(hello);
    consumers.add(direct);
    Future.all(hello.completion(), direct.completion()).onComplete(ar -> {
      if (ar.failed()) {
        finish(new RmaException(ErrorClass.INTERN, "cannot register job addresses: " + ar.cause(), ar.cause()));
        return;
      }
      deadline = System.currentTimeMillis() + job.startupTimeoutMs();
      ticker = job.vertx().setPeriodic(0, REPUBLISH_MS, id -> context.runOnContext(v -> tick()));
    });
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
    bus.publish(helloAddress, hello());
    if (readyPhase) {
      sendReadies();
    }
  }

  private JsonObject hello() {
    return new JsonObject().put("key", key).put("addr", privateAddress).put("np", job.np()).put("node", job.nodeId());
  }

  private void learn(JsonObject m) {
    if (done.future().isComplete()) {
      return;
    }
    String k = m.getString("key");
    String addr = m.getString("addr");
    Integer np = m.getInteger("np");
    if (k == null || addr == null || np == null) {
      return;
    }
    if (np != job.np()) {
      finish(RmaException.of(ErrorClass.ARG, "job %s: an instance joined with np=%d, this one has np=%d",
          job.jobName(), np, job.np()));
      return;
    }
    members.put(k, addr);
    nodes.put(k, m.getString("node", "?"));
    if (members.size() > job.np()) {
      finish(RmaException.of(ErrorClass.RANK, "job %s has np=%d but %d rank instances joined",
          job.jobName(), job.np(), members.size()));
      return;
    }
    if (members.size() == job.np() && myRank < 0) {
      assignRanks();
    }
  }

  private void assignRanks() {
    List<String> keys = new ArrayList<>(members.keySet());
    for (int r = 0; r < keys.size(); r++) {
      String k = keys.get(r);
      if (!k.startsWith(NO_RANK)) {
        int requested = Integer.parseInt(k.substring(0, k.indexOf('/')));
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
        present.add(Integer.parseInt(k.substring(0, k.indexOf('/'))));
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
    for (MessageConsumer<JsonObject> c : consumers) {
      c.unregister();
    }
    if (failure == null) {
      String[] rankNodes = new String[job.np()];
      int r = 0;
      for (String k : members.keySet()) {
        rankNodes[r++] = nodes.get(k);
      }
      job.learnNodes(rankNodes);
      done.complete(myRank);
    } else {
      done.fail(failure);
    }
  }
}
