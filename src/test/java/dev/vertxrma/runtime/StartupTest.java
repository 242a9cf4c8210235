package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.runtime.JobRuntime;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameCodec;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Job startup and teardown (the startup timeout names the missing ranks; nothing stays
 * registered or deployed after a job, whatever its outcome) and the wire codec of frames.
 */
class StartupTest {

  /** Every frame type code this version knows. */
  private static final byte[] KNOWN_TYPES = knownTypes();

  private static byte[] knownTypes() {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (int t = Byte.MIN_VALUE; t <= Byte.MAX_VALUE; t++) {
      if (FrameType.isKnown((byte) t)) {
        out.write(t);
      }
    }
    byte[] known = out.toByteArray();
    assertTrue(known.length >= 4, "frame types known: " + java.util.Arrays.toString(known));
    return known;
  }

  /** Every Vert.x instance the jobs of this class ran on: the embedded one and the two nodes. */
  private static Vertx[] instances() {
    Vertx[] nodes = Jobs.clusterNodes();
    return new Vertx[] {Jobs.embedded(), nodes[0], nodes[1]};
  }

  @AfterEach
  void nothingIsLeftRegisteredOrDeployed() {
    String[] names = {"embedded", "cluster node 0", "cluster node 1"};
    Vertx[] all = instances();
    for (int i = 0; i < all.length; i++) {
      assertEquals(0, JobRuntime.activeJobs(all[i]), "jobs still registered on the " + names[i] + " instance");
      assertTrue(all[i].deploymentIDs().isEmpty(),
          "verticles still deployed on the " + names[i] + " instance: " + all[i].deploymentIDs());
    }
  }

  private static Vertx instanceFor(Mode mode) {
    return mode == Mode.EMBEDDED ? Jobs.embedded() : Jobs.clusterNodes()[0];
  }

  // ------------------------------------------------------------------ startup and teardown

  @ParameterizedTest
  @EnumSource(Mode.class)
  void missingRanksFailTheStartupWithTimeoutNamingThem(Mode mode) {
    AtomicInteger programsRun = new AtomicInteger();
    long start = System.nanoTime();
    Future<Void> job = Rma.run(instanceFor(mode), Jobs.options(4).setLocalRanks(0, 2).setStartupTimeoutMs(1500),
        (world, args) -> {
          programsRun.incrementAndGet();
          return Future.succeededFuture();
        });
    Throwable t = failureOf(job, 30);
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    RmaException e = assertInstanceOf(RmaException.class, t);
    assertEquals(ErrorClass.TIMEOUT, e.errorClass(), e.getMessage());
    assertTrue(e.getMessage().contains("missing ranks [2, 3]"), e.getMessage());
    assertTrue(e.getMessage().contains("1500 ms"), e.getMessage());
    assertEquals(0, programsRun.get(), "no rank program may run in a job that did not start");
    // not before its time: the startup timer is armed after `start` and a Vert.x timer never
    // fires early (100 ms for rounding), which load cannot break. No upper bound: that the
    // startup timeout ended it is the TIMEOUT naming 1500 ms and the missing ranks above, and a
    // hang is failureOf's 30 s; the former "< 15 s" measured the loaded machine
    assertTrue(ms >= 1400, "startup failed after " + ms + " ms, timeout was 1500 ms");
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aSuccessfulJobLeavesNothingBehind(Mode mode) {
    AtomicInteger done = new AtomicInteger();
    Jobs.run(mode, 3, (world, args) -> world.allreduce((long) world.rank() + 1, dev.vertxrma.Op.SUM).map(s -> {
      assertEquals(6L, s);
      done.incrementAndGet();
      return null;
    }));
    assertEquals(3, done.get());
    // checked by nothingIsLeftRegisteredOrDeployed
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aFailedJobLeavesNothingBehind(Mode mode) {
    Throwable t = Jobs.runExpectingFailure(mode, Jobs.options(3), (world, args) -> {
      if (world.rank() == 0) {
        return Future.failedFuture(new RmaException(ErrorClass.INTERN, "teardown probe 5"));
      }
      return world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 0, 1);
    });
    RmaException e = assertInstanceOf(RmaException.class, t);
    assertEquals(ErrorClass.INTERN, e.errorClass());
    assertTrue(e.getMessage().contains("teardown probe 5"), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void anAbortedJobLeavesNothingBehind(Mode mode) {
    Throwable t = Jobs.runExpectingFailure(mode, Jobs.options(2), (world, args) -> {
      if (world.rank() == 1) {
        world.abort("teardown probe 6");
        return Future.succeededFuture();
      }
      return world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 1, 1);
    });
    RmaException e = assertInstanceOf(RmaException.class, t);
    assertEquals(ErrorClass.COMM, e.errorClass());
    assertTrue(e.getMessage().contains("teardown probe 6"), e.getMessage());
  }

  /**
   * Hazelcast members of other jobs or test runs on the same host (here: single-member clusters
   * of their own, started until the first three ports of the range in conf/cluster.xml are taken)
   * must not keep the nodes of a new job from finding each other: the TCP-IP join on 127.0.0.1
   * has to look beyond the first few ports.
   */
  @Test
  void clusteredNodesFindEachOtherWhenTheFirstPortsAreTaken() throws Exception {
    java.util.List<com.hazelcast.core.HazelcastInstance> others = new java.util.ArrayList<>();
    java.util.List<Vertx> nodes = new java.util.ArrayList<>();
    try {
      for (int port = 5701; port <= 5703; port++) {
        if (isFree(port)) {
          com.hazelcast.config.Config config = io.vertx.spi.cluster.hazelcast.ConfigUtil.loadConfig();
          config.setClusterName("rma-other-" + java.util.UUID.randomUUID().toString().substring(0, 8));
          others.add(com.hazelcast.core.Hazelcast.newHazelcastInstance(config));
        }
      }
      for (int port = 5701; port <= 5703; port++) {
        assertFalse(isFree(port), "port " + port + " should be held by another cluster's member");
      }
      String cluster = "rma-ports-" + java.util.UUID.randomUUID().toString().substring(0, 8);
      nodes.add(BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(cluster, BlockedThreadGuard.options()), 120)));
      nodes.add(BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(cluster, BlockedThreadGuard.options()), 120)));
      dev.vertxrma.JobOptions options = Jobs.options(2).setStartupTimeoutMs(15_000);
      int[] got = new int[2];
      dev.vertxrma.RankProgram program = (world, args) -> {
        int me = world.rank();
        int[] in = new int[1];
        world.send(Buf.of(new int[] {me + 70}), 0, 1, Datatype.INT, 1 - me, 1);
        return world.recv(Buf.of(in), 0, 1, Datatype.INT, 1 - me, 1).map(st -> {
          got[me] = in[0];
          return null;
        });
      };
      Future<Void> a = Rma.run(nodes.get(0), copy(options).setLocalRanks(0, 1), program);
      Future<Void> b = Rma.run(nodes.get(1), copy(options).setLocalRanks(1, 1), program);
      Jobs.await(Future.join(a, b).transform(ar -> a.failed() ? a : b), 60);
      assertArrayEquals(new int[] {71, 70}, got);
    } finally {
      for (Vertx v : nodes) {
        v.close().toCompletionStage().toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> null)
            .join();
      }
      for (com.hazelcast.core.HazelcastInstance h : others) {
        h.shutdown();
      }
    }
  }

  private static boolean isFree(int port) {
    try (java.net.ServerSocket s = new java.net.ServerSocket(port, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      return true;
    } catch (java.io.IOException taken) {
      return false;
    }
  }

  private static dev.vertxrma.JobOptions copy(dev.vertxrma.JobOptions o) {
    return new dev.vertxrma.JobOptions().setNp(o.getNp()).setJobName(o.getJobName())
        .setWaitTimeoutMs(o.getWaitTimeoutMs()).setStartupTimeoutMs(o.getStartupTimeoutMs()).setArgs(o.getArgs())
        .setSecret(o.getSecret());
  }

  private static Throwable failureOf(Future<?> f, int seconds) {
    try {
      Object v = f.toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
      return fail("expected a failure, got " + v);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      return fail("no outcome within " + seconds + " s: " + e);
    }
  }

  // ------------------------------------------------------------------ frame codec

  private static Frame randomFrame(Random rnd) {
    Frame f = Frame.of(KNOWN_TYPES[rnd.nextInt(KNOWN_TYPES.length)], rnd.nextInt(), rnd.nextInt());
    f.tag = rnd.nextInt();
    f.corr = rnd.nextLong();
    f.disp = rnd.nextLong();
    f.count = rnd.nextInt();
    f.code = rnd.nextInt();
    f.epoch = rnd.nextLong();
    int typeKind = rnd.nextInt(3);
    f.typeBytes = typeKind == 0 ? null : randomBytes(rnd, typeKind == 1 ? 1 + rnd.nextInt(3) : rnd.nextInt(64));
    int payloadKind = rnd.nextInt(4);
    f.payload = payloadKind == 0 ? null : randomBytes(rnd, payloadKind == 3 ? 1 + rnd.nextInt(5000) : rnd.nextInt(40));
    return f;
  }

  private static byte[] randomBytes(Random rnd, int n) {
    byte[] b = new byte[n];
    rnd.nextBytes(b);
    return b;
  }

  /** An absent and an empty byte sequence are the same on the wire. */
  private static byte[] norm(byte[] b) {
    return b == null ? new byte[0] : b;
  }

  private static void assertSameFrame(Frame expected, Frame actual, String what) {
    assertEquals(expected.type, actual.type, what + " type");
    assertEquals(expected.src, actual.src, what + " src");
    assertEquals(expected.ctx, actual.ctx, what + " ctx");
    assertEquals(expected.tag, actual.tag, what + " tag");
    assertEquals(expected.corr, actual.corr, what + " corr");
    assertEquals(expected.disp, actual.disp, what + " disp");
    assertEquals(expected.count, actual.count, what + " count");
    assertEquals(expected.code, actual.code, what + " code");
    assertEquals(expected.epoch, actual.epoch, what + " epoch");
    assertArrayEquals(norm(expected.typeBytes), norm(actual.typeBytes), what + " typeBytes");
    assertArrayEquals(norm(expected.payload), norm(actual.payload), what + " payload");
    assertFalse(actual.isLocalTransfer(), what + " decoded frame references local memory");
  }

  @Test
  void encodeDecodeRoundTripsEveryField() {
    Random rnd = new Random(20240611L);
    for (int i = 0; i < 2000; i++) {
      Frame f = randomFrame(rnd);
      Buffer buf = Buffer.buffer();
      FrameCodec.encode(buf, f);
      int total = 4 + FrameCodec.HEADER_BYTES + 4 + norm(f.typeBytes).length + 4 + norm(f.payload).length;
      assertEquals(total, buf.length(), "encoded length of frame " + i);
      assertSameFrame(f, FrameCodec.decode(buf, 0, buf.length()), "frame " + i);

      // at an offset inside a larger buffer, through the event-bus codec entry points
      Buffer framed = Buffer.buffer().appendBytes(randomBytes(rnd, 1 + rnd.nextInt(9)));
      int pos = framed.length();
      FrameCodec codec = new FrameCodec();
      codec.encodeToWire(framed, f);
      assertSameFrame(f, codec.decodeFromWire(pos, framed), "frame " + i + " at offset " + pos);
      // trailing bytes after the frame are not part of it
      framed.appendBytes(randomBytes(rnd, 1 + rnd.nextInt(9)));
      assertSameFrame(f, FrameCodec.decode(framed, pos, framed.length()), "frame " + i + " with trailing bytes");
    }
    // extreme header values
    Frame f = Frame.of(KNOWN_TYPES[KNOWN_TYPES.length - 1], Integer.MAX_VALUE, Integer.MIN_VALUE);
    f.tag = -1;
    f.corr = Long.MIN_VALUE;
    f.disp = Long.MAX_VALUE;
    f.count = Integer.MIN_VALUE;
    f.code = -1;
    f.epoch = -1L;
    Buffer buf = Buffer.buffer();
    FrameCodec.encode(buf, f);
    assertSameFrame(f, FrameCodec.decode(buf, 0, buf.length()), "extreme frame");
    // the local codec passes the object through
    assertTrue(new FrameCodec().transform(f) == f);
  }

  @Test
  void encodingAFrameThatReferencesLocalMemoryIsRefused() {
    Frame f = Frame.of(FrameType.SEND, 0, 0);
    f.local = new Frame.LocalBytes(new byte[8], 16);
    assertThrows(IllegalStateException.class, () -> FrameCodec.encode(Buffer.buffer(), f));
  }

  private static Buffer validFrame(int payloadBytes, int typeBytes) {
    Frame f = Frame.of(FrameType.SEND, 1, 0);
    f.tag = 7;
    f.corr = 99;
    f.count = payloadBytes;
    f.typeBytes = typeBytes == 0 ? null : new byte[typeBytes];
    f.payload = new byte[payloadBytes];
    for (int i = 0; i < payloadBytes; i++) {
      f.payload[i] = (byte) i;
    }
    Buffer buf = Buffer.buffer();
    FrameCodec.encode(buf, f);
    return buf;
  }

  private static RmaException assertMalformed(Buffer buf, int pos, int limit, String what) {
    try {
      Frame f = FrameCodec.decode(buf, pos, limit);
      return fail(what + ": decoded " + f + " instead of rejecting it");
    } catch (RmaException e) {
      assertEquals(ErrorClass.OTHER, e.errorClass(), what + ": " + e.getMessage());
      assertTrue(e.getMessage().contains("malformed frame"), what + ": " + e.getMessage());
      return e;
    } catch (RuntimeException e) {
      throw new AssertionError(what + ": " + e + " escaped instead of RmaException(OTHER)", e);
    }
  }

  @Test
  void everyTruncationIsRejected() {
    Buffer full = validFrame(50, 6);
    for (int len = 0; len < full.length(); len++) {
      Buffer cut = full.getBuffer(0, len);
      assertMalformed(cut, 0, len, "frame cut to " + len + " of " + full.length() + " bytes");
    }
    // a limit before the end of the buffer truncates just the same
    assertMalformed(full, 0, full.length() - 1, "limit one byte short");
    // bad positions and limits
    assertMalformed(full, -1, full.length(), "negative position");
    assertMalformed(full, 0, full.length() + 1, "limit past the buffer");
    assertMalformed(full, full.length(), full.length(), "position at the end");
    assertMalformed(full, Integer.MAX_VALUE, full.length(), "huge position");
  }

  @Test
  void oversizedAndInconsistentLengthsAreRejectedNamingThem() {
    Buffer full = validFrame(20, 4);
    int n = full.length();
    int typeLenAt = 4 + FrameCodec.HEADER_BYTES;
    int payloadLenAt = typeLenAt + 4 + 4;

    Buffer total = full.copy().setInt(0, Integer.MAX_VALUE);
    assertTrue(assertMalformed(total, 0, n, "total length MAX").getMessage().contains(String.valueOf(Integer.MAX_VALUE)));
    assertMalformed(full.copy().setInt(0, -1), 0, n, "negative total length");
    assertMalformed(full.copy().setInt(0, Integer.MIN_VALUE), 0, n, "total length MIN");
    assertMalformed(full.copy().setInt(0, n - 4 + 1), 0, n, "total length one too many");
    assertMalformed(full.copy().setInt(0, 10), 0, n, "total length shorter than the header");

    Buffer typeLen = full.copy().setInt(typeLenAt, Integer.MAX_VALUE);
    assertTrue(assertMalformed(typeLen, 0, n, "type length MAX").getMessage().contains(String.valueOf(Integer.MAX_VALUE)));
    assertMalformed(full.copy().setInt(typeLenAt, -4), 0, n, "negative type length");
    assertMalformed(full.copy().setInt(typeLenAt, 5), 0, n, "type length off by one");

    Buffer payloadLen = full.copy().setInt(payloadLenAt, Integer.MAX_VALUE);
    assertTrue(assertMalformed(payloadLen, 0, n, "payload length MAX").getMessage()
        .contains(String.valueOf(Integer.MAX_VALUE)));
    assertMalformed(full.copy().setInt(payloadLenAt, -20), 0, n, "negative payload length");
    assertMalformed(full.copy().setInt(payloadLenAt, 19), 0, n, "payload length one short");
    assertMalformed(full.copy().setInt(payloadLenAt, 21), 0, n, "payload length one over");

    assertTrue(assertMalformed(full.copy().setUnsignedShort(4, 0x4142), 0, n, "bad magic").getMessage()
        .contains("0x4142"));
    assertMalformed(full.copy().setByte(6, (byte) 2), 0, n, "bad version");
    assertTrue(assertMalformed(full.copy().setByte(7, (byte) 99), 0, n, "unknown type").getMessage()
        .contains("99"));
    assertMalformed(full.copy().setByte(7, (byte) -3), 0, n, "negative type");
  }

  @Test
  void randomMutationsNeverEscapeAsAnythingButOther() {
    Random rnd = new Random(0x5EEDL);
    Buffer[] seeds = {validFrame(0, 0), validFrame(33, 0), validFrame(7, 12), validFrame(300, 3)};
    int decoded = 0;
    int rejected = 0;
    for (int i = 0; i < 20_000; i++) {
      Buffer seed = seeds[i % seeds.length];
      byte[] b = seed.getBytes();
      int mutations = 1 + rnd.nextInt(4);
      for (int m = 0; m < mutations; m++) {
        switch (rnd.nextInt(6)) {
          case 0: // flip a bit
            if (b.length > 0) {
              int at = rnd.nextInt(b.length);
              b[at] ^= (byte) (1 << rnd.nextInt(8));
            }
            break;
          case 1: // overwrite a byte
            if (b.length > 0) {
              b[rnd.nextInt(b.length)] = (byte) rnd.nextInt();
            }
            break;
          case 2: // overwrite one of the length fields with an arbitrary int
            int[] lenAt = {0, 4 + FrameCodec.HEADER_BYTES, 4 + FrameCodec.HEADER_BYTES + 4};
            int at = lenAt[rnd.nextInt(lenAt.length)];
            if (at + 4 <= b.length) {
              int v = rnd.nextBoolean() ? rnd.nextInt() : rnd.nextInt(64) - 8;
              b[at] = (byte) (v >>> 24);
              b[at + 1] = (byte) (v >>> 16);
              b[at + 2] = (byte) (v >>> 8);
              b[at + 3] = (byte) v;
            }
            break;
          case 3: // truncate
            b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length + 1));
            break;
          case 4: // append garbage
            byte[] longer = java.util.Arrays.copyOf(b, b.length + 1 + rnd.nextInt(16));
            for (int k = b.length; k < longer.length; k++) {
              longer[k] = (byte) rnd.nextInt();
            }
            b = longer;
            break;
          default: // remove a byte from the middle
            if (b.length > 1) {
              int cut = rnd.nextInt(b.length);
              byte[] shorter = new byte[b.length - 1];
              System.arraycopy(b, 0, shorter, 0, cut);
              System.arraycopy(b, cut + 1, shorter, cut, b.length - cut - 1);
              b = shorter;
            }
        }
      }
      Buffer buf = Buffer.buffer(b);
      try {
        Frame f = FrameCodec.decode(buf, 0, buf.length());
        decoded++;
        // whatever was accepted is internally consistent and within the input
        assertNotNull(f);
        assertTrue(FrameType.isKnown(f.type), "mutation " + i + " decoded an unknown type " + f.type);
        int carried = norm(f.typeBytes).length + norm(f.payload).length;
        assertTrue(carried <= b.length, "mutation " + i + " decoded more bytes than it was given");
      } catch (RmaException e) {
        rejected++;
        assertEquals(ErrorClass.OTHER, e.errorClass(), "mutation " + i + ": " + e.getMessage());
      } catch (RuntimeException e) {
        throw new AssertionError("mutation " + i + " of a valid frame: " + e + " escaped from decode", e);
      }
    }
    // both outcomes are well represented, so the fuzzing reaches deep into the decoder
    assertTrue(rejected > 5_000, "only " + rejected + " of 20000 mutations were rejected");
    assertTrue(decoded > 1_000, "only " + decoded + " of 20000 mutations (e.g. of header values) decoded");
  }

  @Test
  void randomGarbageIsRejected() {
    Random rnd = new Random(77L);
    for (int i = 0; i < 5000; i++) {
      byte[] b = randomBytes(rnd, rnd.nextInt(200));
      if (i % 2 == 0 && b.length >= 4) {
        // a plausible total length in front of garbage
        int v = b.length - 4;
        b[0] = (byte) (v >>> 24);
        b[1] = (byte) (v >>> 16);
        b[2] = (byte) (v >>> 8);
        b[3] = (byte) v;
      }
      Buffer buf = Buffer.buffer(b);
      assertMalformed(buf, 0, buf.length(), "garbage " + i + " of " + b.length + " bytes");
    }
  }
}
