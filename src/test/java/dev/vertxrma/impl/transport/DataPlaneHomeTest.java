package dev.vertxrma.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The data plane's own context shares the event loop of the context it is started near (a local
 * rank's): records arrive on that thread, on the accepting and on the connecting side, and records
 * sent from that thread and from any other leave in each sender's order. Without such a context
 * it runs on an event loop of its own.
 */
class DataPlaneHomeTest {

  private static final int RECORDS = 5_000;
  static Vertx vertx;

  /**
   * A first data-plane connection in a fresh JVM loads and links classes (the proof's, Netty's
   * allocator) for longer than the blocked-thread guard's 50 ms: made once on an unguarded Vert.x
   * first, so that the guard judges this class's tests, run alone or first, and not that start-up.
   */
  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    JobSecret secret = JobSecret.random();
    exchangeOneRecordEach(new Peer("a", secret, null, 1), new Peer("b", secret, null, 1));
    Jobs.await(vertx.close(), 30);
    vertx = BlockedThreadGuard.watch(Vertx.vertx(BlockedThreadGuard.options()));
  }

  /** Connects {@code a} and {@code b}, sends 7 from a and 8 from b, checks both arrived, closes both. */
  private static void exchangeOneRecordEach(Peer a, Peer b) {
    a.plane.learn("b", b.address);
    b.plane.learn("a", a.address);
    a.plane.send("b", 0, frame(7));
    b.plane.send("a", 0, frame(8));
    a.all.orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join();
    b.all.orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join();
    assertEquals(List.of(8L), a.values);
    assertEquals(List.of(7L), b.values);
    Jobs.await(a.plane.close(), 30);
    Jobs.await(b.plane.close(), 30);
  }

  @AfterAll
  static void close() {
    Jobs.await(vertx.close(), 30);
  }

  /** A plane that records what it receives and on which thread. */
  private static final class Peer implements DataPlane.Job {
    final DataPlane plane;
    final ContextInternal near;
    /** Touched on the plane's own event loop only (read once all arrived). */
    final List<Long> values = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    final List<String> wrongThread = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> all = new CompletableFuture<>();
    final String address;
    final int expected;

    Peer(String node, JobSecret secret, ContextInternal near, int expected) {
      this.near = near;
      this.expected = expected;
      plane = new DataPlane(vertx, "homejob", secret, node, this);
      address = Jobs.await(plane.listen("127.0.0.1", 0, near), 30);
    }

    @Override
    public void receive(String node, io.netty.buffer.ByteBuf owned) {
      Buffer record = Buffer.buffer(io.netty.buffer.ByteBufUtil.getBytes(owned));
      owned.release();
      if (near != null && near.isEventLoopContext() && !near.nettyEventLoop().inEventLoop()) {
        wrongThread.add(Thread.currentThread().getName());
      }
      if (!plane.homeLoop().inEventLoop()) {
        wrongThread.add("not the plane's own loop: " + Thread.currentThread().getName());
      }
      values.add(Buffer.buffer(FrameCodec.decode(record, 4, record.length()).payload).getLong(0));
      if (values.size() == expected) {
        all.complete(null);
      }
    }

    @Override
    public void unreachable(String node, String reason) {
      all.completeExceptionally(new AssertionError(reason));
    }

    @Override
    public void reject(String what) {
      all.completeExceptionally(new AssertionError(what));
    }
  }

  private static Frame frame(long value) {
    Frame f = Frame.of(FrameType.SEND, 0, 0);
    f.payload = Buffer.buffer(8).appendLong(value).getBytes();
    return f;
  }

  /** Sends records {@code [from, from + 200)} on the peer's near context, then the rest in later tasks. */
  private static void sendChunk(Peer p, String to, long from) {
    long end = Math.min(RECORDS, from + 200);
    for (long i = from; i < end; i++) {
      p.plane.send(to, 0, frame(i));
    }
    if (end < RECORDS) {
      p.near.runOnContext(v -> sendChunk(p, to, end));
    }
  }

  @Test
  void recordsArriveOnTheNearContextsEventLoopInEachSendersOrder() {
    JobSecret secret = JobSecret.random();
    ContextInternal ca = ((VertxInternal) vertx).createEventLoopContext();
    ContextInternal cb = ((VertxInternal) vertx).createEventLoopContext();
    // "a" < "b": a connects, b accepts
    Peer a = new Peer("a", secret, ca, 2 * RECORDS);
    Peer b = new Peer("b", secret, cb, 2 * RECORDS);
    assertTrue(a.plane.homeLoop() == ca.nettyEventLoop() && b.plane.homeLoop() == cb.nettyEventLoop());
    a.plane.learn("b", b.address);
    b.plane.learn("a", a.address);
    // from each side: one sender on the plane's own event loop, one on another thread
    for (Peer p : List.of(a, b)) {
      String to = p == a ? "b" : "a";
      p.near.runOnContext(v -> sendChunk(p, to, 0));
      vertx.executeBlocking(() -> {
        for (long i = 0; i < RECORDS; i++) {
          p.plane.send(to, 0, frame(-1 - i));
        }
        return null;
      });
    }
    for (Peer p : List.of(a, b)) {
      p.all.orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join();
      assertEquals(List.of(), p.wrongThread);
      long nextUp = 0;
      long nextDown = -1;
      for (long v : p.values) {
        if (v >= 0) {
          assertEquals(nextUp++, v, "the event-loop sender's order");
        } else {
          assertEquals(nextDown--, v, "the other sender's order");
        }
      }
      assertEquals(RECORDS, nextUp);
      assertEquals(-1 - RECORDS, nextDown);
    }
    Jobs.await(a.plane.close(), 30);
    Jobs.await(b.plane.close(), 30);
  }

  /**
   * On the plane's own event loop, a record someone waits on (a request, a reply, a message) goes
   * out at once, flushed, with the records queued before it; a one-way operation waits for the
   * drain task at the end of the current piece of work, and so does a second awaited record of the
   * same piece of work (a burst leaves coalesced). Everything arrives in the sender's order.
   * (Held to the end of the work, a barrier's message kept two ranks a crossing out of step.)
   */
  @Test
  void anAwaitedRecordLeavesAtOnceAndTheRestOfABurstWithTheDrain() {
    JobSecret secret = JobSecret.random();
    ContextInternal ca = ((VertxInternal) vertx).createEventLoopContext();
    ContextInternal cb = ((VertxInternal) vertx).createEventLoopContext();
    Peer a = new Peer("a", secret, ca, 1);
    Peer b = new Peer("b", secret, cb, 4);
    a.plane.learn("b", b.address);
    b.plane.learn("a", a.address);
    b.plane.send("a", 0, frame(1)); // the connection is proven once a has this
    a.all.orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join();
    CompletableFuture<long[]> queued = new CompletableFuture<>();
    ca.runOnContext(v -> {
      Frame oneWay = frame(40);
      oneWay.type = FrameType.PUT;
      oneWay.corr = -1; // a one-way operation: nobody waits on it alone
      a.plane.send("b", 0, oneWay);
      long afterOneWay = a.plane.outboxBytes("b");
      a.plane.send("b", 0, frame(41));
      long afterAwaited = a.plane.outboxBytes("b");
      a.plane.send("b", 0, frame(42));
      long afterSecond = a.plane.outboxBytes("b");
      a.plane.send("b", 0, frame(43));
      queued.complete(new long[] {afterOneWay, afterAwaited, afterSecond});
    });
    long[] q = queued.orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join();
    assertTrue(q[0] > 0, "a one-way operation was written before the work that sent it ended");
    assertEquals(0L, q[1], "an awaited record (and the one-way record before it) waited for the drain task");
    assertTrue(q[2] > 0, "a second awaited record of the same work was written at once, not with the drain");
    b.all.orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join();
    assertEquals(List.of(), b.wrongThread);
    assertEquals(List.of(41L, 42L, 43L), b.values.subList(1, 4), "the sender's order (the put first): " + b.values);
    Jobs.await(a.plane.close(), 30);
    Jobs.await(b.plane.close(), 30);
  }

  @Test
  void withoutAnEventLoopContextThePlaneHasALoopOfItsOwn() {
    JobSecret secret = JobSecret.random();
    ContextInternal worker = ((VertxInternal) vertx).createWorkerContext();
    Peer a = new Peer("a", secret, null, 1);
    Peer b = new Peer("b", secret, worker, 1);
    assertFalse(a.plane.homeLoop() == null || b.plane.homeLoop() == null);
    exchangeOneRecordEach(a, b);
  }
}
