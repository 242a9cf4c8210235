package dev.vertxrma.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS on the data plane with material from {@code bin/rmatls}: two planes of the same job
 * CA link and carry records; a plane whose certificate comes from another CA is refused (never
 * trust-all) and reported unreachable, its record never delivered; a plain-TCP plane cannot talk
 * to a TLS one; half-made TLS directories are an ARG error naming the missing file.
 */
class DataPlaneTlsTest {

  @TempDir
  static Path dir;
  static Vertx vertx;

  @BeforeAll
  static void material() throws Exception {
    vertx = BlockedThreadGuard.watch(Vertx.vertx(BlockedThreadGuard.options()));
    rmatls(dir.resolve("job"));
    rmatls(dir.resolve("other"));
  }

  @AfterAll
  static void close() {
    Jobs.await(vertx.close(), 30);
  }

  private static void rmatls(Path conf) throws Exception {
    File home = new File(System.getProperty("rma.home", System.getProperty("user.dir")));
    Process p = new ProcessBuilder(new File(home, "bin/rmatls").getAbsolutePath(), conf.toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
  }

  /** A plane whose received records and losses complete futures. */
  private static final class Peer implements DataPlane.Job {
    final CompletableFuture<Buffer> received = new CompletableFuture<>();
    final CompletableFuture<String> lost = new CompletableFuture<>();
    final DataPlane plane;
    final String address;

    Peer(String node, JobSecret secret, DataPlaneTls tls) {
      plane = new DataPlane(vertx, "tlsjob", secret, node, this, tls);
      address = Jobs.await(plane.listen("127.0.0.1"), 30);
    }

    @Override
    public void receive(String node, io.netty.buffer.ByteBuf record) {
      received.complete(Buffer.buffer(io.netty.buffer.ByteBufUtil.getBytes(record)));
      record.release();
    }

    @Override
    public void unreachable(String node, String reason) {
      lost.complete(reason);
    }

    @Override
    public void reject(String what) {
    }
  }

  private static Frame frame() {
    Frame f = Frame.of(FrameType.SEND, 0, 7);
    f.tag = 42;
    f.payload = new byte[] {1, 2, 3};
    return f;
  }

  @Test
  void planesOfOneJobCaLinkOverTls() throws Exception {
    JobSecret secret = JobSecret.random();
    DataPlaneTls tls = DataPlaneTls.of(dir.resolve("job/tls"), true);
    Peer a = new Peer("node-a", secret, tls);
    Peer b = new Peer("node-b", secret, tls);
    assertTrue(a.plane.isTls() && b.plane.isTls());
    a.plane.learn("node-b", b.address);
    b.plane.learn("node-a", a.address);
    a.plane.send("node-b", 1, frame());
    Buffer record = b.received.get(30, TimeUnit.SECONDS);
    assertEquals(1, record.getInt(0), "destination rank");
    assertFalse(a.lost.isDone() || b.lost.isDone());
    Jobs.await(a.plane.close(), 30);
    Jobs.await(b.plane.close(), 30);
  }

  @Test
  void aCertificateOfAnotherCaOrNoTlsIsRefused() throws Exception {
    JobSecret secret = JobSecret.random();
    for (DataPlaneTls stranger : new DataPlaneTls[] {DataPlaneTls.of(dir.resolve("other/tls"), true), null}) {
      Peer a = new Peer("node-a", secret, stranger); // connects: the smaller node id
      Peer b = new Peer("node-b", secret, DataPlaneTls.of(dir.resolve("job/tls"), true));
      a.plane.learn("node-b", b.address);
      b.plane.learn("node-a", a.address);
      a.plane.send("node-b", 1, frame());
      String reason = a.lost.get(60, TimeUnit.SECONDS);
      assertTrue(reason != null && !reason.isEmpty());
      assertFalse(b.received.isDone(), "nothing was delivered to the job's plane");
      Jobs.await(a.plane.close(), 30);
      Jobs.await(b.plane.close(), 30);
    }
  }

  @Test
  void aHalfMadeTlsDirectoryIsAnError() throws Exception {
    Path half = dir.resolve("half/tls");
    Files.createDirectories(half);
    Files.copy(dir.resolve("job/tls/ca.pem"), half.resolve("ca.pem"));
    RmaException e = org.junit.jupiter.api.Assertions.assertThrows(RmaException.class,
        () -> DataPlaneTls.of(half, false));
    assertEquals(ErrorClass.ARG, e.errorClass());
    assertTrue(e.getMessage().contains("node.p12") && e.getMessage().contains("bin/rmatls"), e.getMessage());
    assertEquals(null, DataPlaneTls.of(dir.resolve("nothing-here"), false));
  }
}
