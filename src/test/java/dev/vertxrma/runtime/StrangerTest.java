package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.LockType;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.runtime.JobRuntime;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameCodec;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.JobSecret;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetSocket;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A stranger: a Vert.x node that joins the job's Hazelcast cluster (knowing the job's name) but
 * not its secret. It connects to a rank JVM's data plane and sends frames without proof, with a
 * wrong proof and with an oversized record; it sends frames, ABORTs and junk to the ranks' old
 * event-bus addresses, listens on them, and publishes forged handshake messages. None of it
 * changes a window byte, aborts the job, takes a rank or is delivered; the job completes with
 * exact results. A JVM with another secret cannot join a job.
 */
class StrangerTest {

  static final int WINDOW_LONGS = 16;
  private static Vertx stranger;

  @AfterAll
  static void closeStranger() {
    if (stranger != null) {
      stranger.close();
    }
  }

  /** Not watched by the blocked-thread guard: it stands for someone else's process. */
  private static synchronized Vertx stranger() {
    if (stranger == null) {
      stranger = Jobs.await(Rma.clusteredVertx(clusterName()), 120);
    }
    return stranger;
  }

  private static String clusterName() {
    return ((HazelcastClusterManager) ((io.vertx.core.internal.VertxInternal) Jobs.clusterNodes()[0]).clusterManager())
        .getHazelcastInstance().getConfig().getClusterName();
  }

  @Test
  void aStrangerInTheClusterChangesNothingAbortsNothingAndReceivesNothing() throws Exception {
    Vertx[] nodes = Jobs.clusterNodes();
    JobOptions options = Jobs.options(2);
    String job = options.getJobName();
    CompletableFuture<Void> windowReady = new CompletableFuture<>();
    CompletableFuture<Void> attackOver = new CompletableFuture<>();
    byte[][] pattern = new byte[1][];
    Future<Void> run = Jobs.start(Jobs.Mode.CLUSTERED, options, (world, args) ->
        Win.allocate(world, WINDOW_LONGS * 8L, 8, Info.NULL).compose(win -> {
          if (world.rank() == 1) {
            for (int i = 0; i < WINDOW_LONGS; i++) {
              win.memory().writeLong(i * 8L, 1000 + i);
            }
            pattern[0] = bytes(win);
          }
          return world.barrier()
              .compose(v -> {
                windowReady.complete(null);
                return Future.fromCompletionStage(attackOver, world.vertx().getOrCreateContext());
              })
              .compose(v -> world.barrier())
              .compose(v -> {
                if (world.rank() != 0) {
                  return Future.succeededFuture();
                }
                long[] put = {42};
                long[] got = new long[1];
                win.lock(LockType.EXCLUSIVE, 1);
                win.put(Buf.of(put), 0, 1, Datatype.LONG, 1, 3);
                win.get(Buf.of(got), 0, 1, Datatype.LONG, 1, 3);
                return win.unlock(1).map(x -> {
                  assertEquals(42L, got[0]);
                  return null;
                });
              })
              .compose(v -> world.barrier())
              .compose(v -> {
                if (world.rank() == 1) {
                  byte[] expected = pattern[0].clone();
                  for (int b = 0; b < 8; b++) {
                    expected[3 * 8 + b] = (byte) (42L >>> (8 * b));
                  }
                  assertArrayEquals(expected, bytes(win), "only the job's own put changed the window");
                }
                return win.free();
              });
        }));
    windowReady.get(120, TimeUnit.SECONDS);
    Vertx s = stranger();
    JobRuntime target = JobRuntime.find(nodes[1], job);
    long rejectedBefore = target.rejectedInput().total();
    String address = Jobs.await(target.dataPlaneAddress(), 30);
    String host = address.substring(0, address.lastIndexOf(':'));
    int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));

    // 1. frames straight away, without the proof
    Buffer forged = Buffer.buffer().appendInt(0).appendInt(1);
    FrameCodec.encode(forged, forgedPut());
    forged.setInt(0, forged.length() - 4);
    expectClosed(s, host, port, forged, "frames without a proof");
    // 2. a proof with a made-up code
    Buffer wrongProof = proofRecord("stranger-node".getBytes(), new byte[32], new byte[32]);
    expectClosed(s, host, port, wrongProof, "a wrong proof");
    // 3. a record far larger than a proof may be
    expectClosed(s, host, port, Buffer.buffer().appendInt(64 * 1024 * 1024).appendBytes(new byte[64]),
        "an oversized record");
    Jobs.eventually(() -> target.rejectedInput().total() >= rejectedBefore + 3, 30,
        "the data plane counting three refused connections");

    // 4. the event bus: the ranks' old addresses, the handshake address
    AtomicInteger overheard = new AtomicInteger();
    var spy = s.eventBus().consumer("rma." + job + ".r0", m -> overheard.incrementAndGet());
    Jobs.await(spy.completion(), 30);
    // (rank 0's old address has only the stranger's spy on it; rank 1's has nobody)
    s.eventBus().send("rma." + job + ".r1", "junk");
    s.eventBus().send("rma." + job + ".r1", Buffer.buffer().appendInt(7));
    s.eventBus().publish("rma." + job + ".hello", new JsonObject().put("key", "0000000001/"
        + java.util.UUID.randomUUID()).put("addr", "rma." + job + ".i.x").put("np", 2).put("node", "n").put("dp", "x:1")
        .put("mac", java.util.Base64.getEncoder().encodeToString(new byte[32])));

    attackOver.complete(null);
    Jobs.await(run, 120);
    spy.unregister();
    assertEquals(0, overheard.get(), "nothing of the job travels on the ranks' event-bus addresses");
  }

  @Test
  void aJvmWithAnotherSecretCannotJoinTheJob() {
    Vertx[] nodes = Jobs.clusterNodes();
    JobOptions options = Jobs.options(2).setStartupTimeoutMs(3_000);
    JobOptions other = new JobOptions().setNp(2).setJobName(options.getJobName()).setStartupTimeoutMs(3_000)
        .setSecret(JobSecret.random().text());
    Future<Void> a = Rma.run(nodes[0], options.setLocalRanks(0, 1), (world, args) -> Future.succeededFuture());
    Future<Void> b = Rma.run(nodes[1], other.setLocalRanks(1, 1), (world, args) -> Future.succeededFuture());
    for (Future<Void> f : java.util.List.of(a, b)) {
      Throwable t = null;
      try {
        Jobs.await(f, 60);
      } catch (RuntimeException e) {
        t = e.getCause().getCause();
      }
      RmaException e = assertInstanceOf(RmaException.class, t, "a job with two secrets must not start");
      assertEquals(ErrorClass.TIMEOUT, e.errorClass(), e.getMessage());
      assertTrue(e.getMessage().contains("missing ranks"), e.getMessage());
    }
  }

  private static Frame forgedPut() {
    Frame f = Frame.of(FrameType.PUT, 0, 1);
    f.tag = 3;
    f.disp = 0;
    f.count = 1;
    f.code = 1; // NOCHECK, as if the origin had promised it
    f.typeBytes = TypeMap.of(Datatype.LONG).wireBytes();
    f.payload = new byte[8];
    java.util.Arrays.fill(f.payload, (byte) 0x66);
    return f;
  }

  /** A record of the proof phase: parts of {@code u16 length | bytes}. */
  private static Buffer proofRecord(byte[]... parts) {
    Buffer b = Buffer.buffer().appendInt(0);
    for (byte[] p : parts) {
      b.appendUnsignedShort(p.length).appendBytes(p);
    }
    return b.setInt(0, b.length() - 4);
  }

  /** Connects to a data plane, reads its challenge, sends {@code attack}, and expects the connection closed. */
  private static void expectClosed(Vertx s, String host, int port, Buffer attack, String what) {
    CompletableFuture<Void> closed = new CompletableFuture<>();
    NetSocket socket = Jobs.await(s.createNetClient().connect(port, host), 30);
    socket.closeHandler(v -> closed.complete(null));
    socket.handler(b -> { });
    socket.write(attack);
    try {
      closed.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the data plane kept a connection that sent " + what, e);
    }
  }

  private static byte[] bytes(Win win) {
    byte[] b = new byte[WINDOW_LONGS * 8];
    for (int i = 0; i < b.length; i++) {
      b[i] = win.memory().readByte(i);
    }
    return b;
  }
}
