package dev.vertxrma.impl.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A record someone waits on, sent from the data plane's own event loop as the first of its piece
 * of work, is packed into the link's one reused native record and written at once: no buffer is
 * allocated per request or reply while the socket takes each at once, and a record the socket
 * still holds (a peer that does not read) is never packed over — the next one gets a buffer of its
 * own, and every record arrives whole and in order.
 */
class ReusedRecordTest {

  private Vertx vertx;
  /** The receiving peer's Vert.x: one test stops its event loop on purpose (a peer that does not read). */
  private Vertx peerVertx;

  /**
   * A first data-plane connection in a fresh JVM loads and links classes for longer than the
   * blocked-thread guard's 50 ms (as in {@code DataPlaneHomeTest}): made once on an unguarded
   * Vert.x first, so that the guard judges the tests, not that start-up.
   */
  @BeforeAll
  static void warmUp() {
    Vertx cold = Vertx.vertx();
    JobSecret secret = JobSecret.random();
    Peer a = new Peer(cold, "a", secret, 0);
    Peer b = new Peer(cold, "b", secret, 1 + 10);
    connect(a, b);
    Jobs.await(sendEach(a, "b", 10, 100), 30);
    assertArrivedInOrder(b, 10, 100);
    Jobs.await(a.plane.close(), 30);
    Jobs.await(b.plane.close(), 30);
    Jobs.await(cold.close(), 30);
  }

  @BeforeEach
  void start() {
    vertx = BlockedThreadGuard.watch(Vertx.vertx(BlockedThreadGuard.options()));
    peerVertx = Vertx.vertx(new VertxOptions().setBlockedThreadCheckInterval(60_000));
  }

  @AfterEach
  void close() {
    Jobs.await(vertx.close(), 30);
    Jobs.await(peerVertx.close(), 30);
  }

  /** A plane that keeps the payloads it receives, in order. */
  private static final class Peer implements DataPlane.Job {
    final DataPlane plane;
    final ContextInternal near;
    final List<byte[]> payloads = Collections.synchronizedList(new ArrayList<>());
    final CompletableFuture<Void> all = new CompletableFuture<>();
    final int expected;
    final String address;

    Peer(Vertx vertx, String node, JobSecret secret, int expected) {
      this.expected = expected;
      this.near = ((VertxInternal) vertx).createEventLoopContext();
      plane = new DataPlane(vertx, "reusejob", secret, node, this);
      address = Jobs.await(plane.listen("127.0.0.1", 0, near), 30);
    }

    @Override
    public void receive(String node, io.netty.buffer.ByteBuf owned) {
      byte[] record = io.netty.buffer.ByteBufUtil.getBytes(owned);
      owned.release();
      payloads.add(FrameCodec.decode(io.vertx.core.buffer.Buffer.buffer(record), 4, record.length).payload);
      if (payloads.size() == expected) {
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

  /** Payload {@code i}: {@code n} bytes that differ from record to record. */
  private static byte[] payload(int i, int n) {
    byte[] b = new byte[n];
    for (int j = 0; j < n; j++) {
      b[j] = (byte) (i * 31 + j);
    }
    return b;
  }

  /**
   * Sends records {@code [i, n)} from {@code from}'s event loop, each in a task of its own (a piece
   * of work each); {@code pairs}: two per task, a one-way operation's record (which waits in the
   * reused record) and then one someone waits on (which leaves with it in one write), as an
   * accumulate and its flush's acknowledgement request do.
   */
  private static void sendEach(Peer from, String to, int i, int n, int bytes, boolean pairs, Promise<Void> sent) {
    if (i >= n) {
      sent.complete();
      return;
    }
    int next = i;
    if (pairs) {
      Frame oneWay = Frame.of(FrameType.PUT, 0, 0);
      oneWay.corr = -1; // a one-way operation: nobody waits on it alone
      oneWay.payload = payload(next++, bytes);
      from.plane.send(to, 0, oneWay);
    }
    Frame f = Frame.of(FrameType.SEND, 0, 0);
    f.payload = payload(next++, bytes);
    from.plane.send(to, 0, f);
    int after = next;
    from.near.runOnContext(v -> sendEach(from, to, after, n, bytes, pairs, sent));
  }

  private static Future<Void> sendEach(Peer from, String to, int n, int bytes) {
    return sendEach(from, to, n, bytes, false);
  }

  private static Future<Void> sendEach(Peer from, String to, int n, int bytes, boolean pairs) {
    Promise<Void> sent = Promise.promise();
    from.near.runOnContext(v -> sendEach(from, to, 0, n, bytes, pairs, sent));
    return sent.future();
  }

  private static long[] countsOn(Peer p, String to) {
    CompletableFuture<long[]> c = new CompletableFuture<>();
    p.near.runOnContext(v -> c.complete(p.plane.sentNowCounts(to)));
    return c.orTimeout(30, TimeUnit.SECONDS).join();
  }

  private static void assertArrivedInOrder(Peer p, int n, int bytes) {
    p.all.orTimeout(60, TimeUnit.SECONDS).join();
    for (int i = 0; i < n; i++) {
      assertArrayEquals(payload(i, bytes), p.payloads.get(i + 1), "record " + i);
    }
  }

  /** Connects a and b; b has a first record from a (the connection is proven). */
  private static void connect(Peer a, Peer b) {
    a.plane.learn("b", b.address);
    b.plane.learn("a", a.address);
    Frame first = Frame.of(FrameType.SEND, 0, 0);
    first.payload = new byte[] {1};
    a.plane.send("b", 0, first);
    Jobs.await(Future.fromCompletionStage(CompletableFuture.runAsync(() -> {
      while (b.payloads.isEmpty()) {
        Thread.onSpinWait();
      }
    })), 30);
  }

  /**
   * Sends {@code n} records of {@code bytes} from a to b, a piece of work each ({@code pairs}: a
   * one-way and an awaited one per piece), checks they all arrived whole and in order, and returns
   * how many a packed into its reused record and how many buffers that took.
   */
  private long[] sendAndCount(int n, int bytes, boolean pairs) {
    JobSecret secret = JobSecret.random();
    Peer a = new Peer(vertx, "a", secret, 0);
    Peer b = new Peer(vertx, "b", secret, 1 + n);
    connect(a, b);
    long[] before = countsOn(a, "b");
    Jobs.await(sendEach(a, "b", n, bytes, pairs), 30);
    assertArrivedInOrder(b, n, bytes);
    long[] after = countsOn(a, "b");
    Jobs.await(a.plane.close(), 30);
    Jobs.await(b.plane.close(), 30);
    return new long[] {after[0] - before[0], after[1] - before[1]};
  }

  @Test
  void requestsAndRepliesTheSocketTakesAtOnceShareOneBuffer() {
    long[] d = sendAndCount(500, 100, false);
    assertTrue(d[0] >= 450, "records written at once: " + d[0] + " of 500");
    assertTrue(d[1] <= 5, "buffers allocated for them: " + d[1]);
  }

  /** A one-way record and the awaited one after it, in one piece of work: one buffer, in order. */
  @Test
  void aOneWayRecordLeavesWithTheAwaitedOneAfterItInTheSameBuffer() {
    long[] d = sendAndCount(1000, 100, true);
    assertTrue(d[0] >= 900, "records packed into the reused one: " + d[0] + " of 1000");
    assertTrue(d[1] <= 5, "buffers allocated for them: " + d[1]);
  }

  /** An awaited record too large to join the one-way record waiting in the reused one leaves after it. */
  @Test
  void aRecordThatDoesNotFitLeavesAfterThePendingOne() {
    sendAndCount(1000, 600, true);
  }

  /**
   * A frame that cannot be packed (one that references origin memory, which never leaves its JVM)
   * fails its sender and leaves nothing in the reused record: the one-way record waiting there and
   * the awaited one after it arrive whole.
   */
  @Test
  void aFrameThatCannotBePackedLeavesNothingBehind() {
    JobSecret secret = JobSecret.random();
    Peer a = new Peer(vertx, "a", secret, 0);
    Peer b = new Peer(vertx, "b", secret, 1 + 2);
    connect(a, b);
    CompletableFuture<Throwable> refused = new CompletableFuture<>();
    a.near.runOnContext(v -> {
      Frame oneWay = Frame.of(FrameType.PUT, 0, 0);
      oneWay.corr = -1;
      oneWay.payload = payload(0, 100);
      a.plane.send("b", 0, oneWay);
      Frame local = Frame.of(FrameType.SEND, 0, 0);
      local.payload = payload(7, 100);
      local.local = new Frame.LocalBytes(null, 0);
      try {
        a.plane.send("b", 0, local);
        refused.complete(null);
      } catch (RuntimeException e) {
        refused.complete(e);
      }
      Frame f = Frame.of(FrameType.SEND, 0, 0);
      f.payload = payload(1, 100);
      a.plane.send("b", 0, f);
    });
    assertTrue(refused.orTimeout(30, TimeUnit.SECONDS).join() instanceof IllegalStateException,
        "a frame that references origin memory was sent");
    assertArrivedInOrder(b, 2, 100);
    Jobs.await(a.plane.close(), 30);
    Jobs.await(b.plane.close(), 30);
  }

  @Test
  void aRecordTheSocketStillHoldsIsNeverPackedOver() throws InterruptedException {
    toAPeerThatStopsReading(20_000, 900, false);
  }

  /** The same with a one-way record and an awaited one in each piece of work, packed together. */
  @Test
  void aBatchTheSocketStillHoldsIsNeverPackedOver() throws InterruptedException {
    toAPeerThatStopsReading(20_000, 400, true);
  }

  private void toAPeerThatStopsReading(int n, int bytes, boolean pairs) throws InterruptedException {
    JobSecret secret = JobSecret.random();
    Peer a = new Peer(vertx, "a", secret, 0);
    Peer b = new Peer(peerVertx, "b", secret, 1 + n);
    connect(a, b);
    CountDownLatch stopped = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    b.near.runOnContext(v -> { // b reads nothing until resumed: the sockets' buffers fill up
      stopped.countDown();
      try {
        resume.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    assertTrue(stopped.await(30, TimeUnit.SECONDS));
    try {
      Jobs.await(sendEach(a, "b", n, bytes, pairs), 60);
    } finally {
      resume.countDown();
    }
    assertArrivedInOrder(b, n, bytes);
    long[] counts = countsOn(a, "b");
    assertTrue(counts[1] >= 2, "the socket kept a record it was given at once, so the next one had a buffer of its own: "
        + counts[0] + " written at once, " + counts[1] + " buffers");
    Jobs.await(a.plane.close(), 30);
    Jobs.await(b.plane.close(), 30);
  }
}
