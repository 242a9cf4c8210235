package dev.vertxrma.p2p;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.DetachedBuffer;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.testing.AnyBuf;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Buffered mode (MPI_Bsend) with MPI_Buffer_attach / MPI_Buffer_detach: copy semantics, several
 * messages in flight, detach waiting for delivery, the BUFFER errors and reuse of the circular
 * buffer's space.
 */
class BufferedModeTest {

  private static final Future<Void> DONE = Future.succeededFuture();
  private static final int OVH = Comm.BSEND_OVERHEAD;

  /** Five 10-int messages from rank 0 to rank 1 through the attached buffer; detach; check. */
  private static Future<?> fiveMessagesThenDetach(Comm world, Object buffer, int size) {
    int n = 5;
    if (world.rank() == 0) {
      int[] data = new int[10];
      List<Future<Void>> sends = new ArrayList<>();
      Future<Void> attached = world.bufferAttach(AnyBuf.of(buffer), size);
      boolean attachedAtOnce = attached.succeeded();
      for (int m = 0; m < n; m++) {
        for (int i = 0; i < 10; i++) {
          data[i] = m * 1000 + i;
        }
        Future<Void> s = world.bsend(Buf.of(data), 0, 10, Datatype.INT, 1, m);
        sends.add(s);
        // the data was copied into the attached buffer: the user buffer may be reused at once
        Arrays.fill(data, -7);
      }
      boolean sendsCompleteAtOnce = sends.stream().allMatch(Future::succeeded);
      Future<DetachedBuffer> detached = world.bufferDetach();
      // nothing can have been delivered yet: this event loop has not let any acknowledgement in
      boolean detachPendingAtOnce = !detached.isComplete();
      return detached.map(d -> {
        assertEquals(size, d.size(), "detach returns the size that was attached");
        assertSame(buffer, d.buffer().memory());
        return d.memory();
      }).compose(buf -> {
        assertTrue(attachedAtOnce, "bufferAttach completes at once");
        assertTrue(sendsCompleteAtOnce, "bsend completes as soon as the data is copied");
        assertTrue(detachPendingAtOnce, "detach completed while 5 messages were still in flight");
        assertSame(buffer, buf, "detach returns the attached buffer object");
        // scribble over the detached buffer: the messages must not depend on it any more
        if (buf instanceof byte[]) {
          Arrays.fill((byte[]) buf, (byte) 0x5A);
        } else {
          BytesStore<?, ?> bs = (BytesStore<?, ?>) buf;
          for (long i = 0; i < size; i++) {
            bs.writeByte(i, (byte) 0x5A);
          }
        }
        // a bsend after detach has no buffer
        return expectError(world.bsend(Buf.of(new int[1]), 0, 1, Datatype.INT, 1, 99), ErrorClass.BUFFER,
            "no buffer attached");
      }).compose(v -> world.send(Buf.of(new int[0]), 0, 0, Datatype.INT, 1, 100));
    }
    int[][] in = new int[n][10];
    // receives are posted only after the sender detached (and scribbled on its buffer)
    return world.recv(Buf.of(new int[0]), 0, 0, Datatype.INT, 0, 100).compose(go -> {
      List<Future<Status>> recvs = new ArrayList<>();
      for (int m = n - 1; m >= 0; m--) {
        recvs.add(world.recv(Buf.of(in[m]), 0, 10, Datatype.INT, 0, m));
      }
      return Future.all(recvs);
    }).map(all -> {
      for (int m = 0; m < n; m++) {
        for (int i = 0; i < 10; i++) {
          assertEquals(m * 1000 + i, in[m][i], "message " + m + " element " + i);
        }
      }
      return null;
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void byteArrayBufferCarriesSeveralMessagesAndDetachWaitsForDelivery(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      int size = 5 * (40 + OVH);
      return fiveMessagesThenDetach(world, new byte[size + 13], size);
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void bytesStoreBufferCarriesSeveralMessagesAndDetachWaitsForDelivery(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      int size = 5 * (40 + OVH);
      BytesStore<?, Void> store = BytesStore.nativeStoreWithFixedCapacity(size);
      return fiveMessagesThenDetach(world, store, size).onComplete(ar -> store.releaseLast());
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void messagesToSeveralDestinationsAndToSelf(Mode mode) {
    Jobs.run(mode, 3, (world, args) -> {
      int me = world.rank();
      int n = world.size();
      byte[] buffer = new byte[n * 2 * (16 + OVH)];
      Future<Void> attach = world.bufferAttach(Buf.of(buffer), buffer.length);
      List<Future<Void>> sends = new ArrayList<>();
      for (int d = 0; d < n; d++) {
        for (int k = 0; k < 2; k++) {
          sends.add(world.bsend(Buf.of(new long[] {me * 100 + d * 10 + k, -me}), 0, 2, Datatype.LONG, d, k));
        }
      }
      long[][][] in = new long[n][2][2];
      List<Future<Status>> recvs = new ArrayList<>();
      for (int s = 0; s < n; s++) {
        for (int k = 1; k >= 0; k--) {
          recvs.add(world.recv(Buf.of(in[s][k]), 0, 2, Datatype.LONG, s, k));
        }
      }
      return Future.all(attach, Future.all(sends), Future.all(recvs)).compose(all -> {
        for (int s = 0; s < n; s++) {
          for (int k = 0; k < 2; k++) {
            assertArrayEquals(new long[] {s * 100 + me * 10 + k, -s}, in[s][k], "from rank " + s + " tag " + k);
          }
        }
        return world.bufferDetach().map(DetachedBuffer::memory);
      }).map(buf -> {
        assertSame(buffer, buf);
        return null;
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void attachingTwiceFailsWithBuffer(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      byte[] first = new byte[256];
      byte[] second = new byte[128];
      return world.bufferAttach(Buf.of(first), 256)
          .compose(v -> expectError(world.bufferAttach(Buf.of(second), 128), ErrorClass.BUFFER,
              "rank " + world.rank(), "already has a buffer attached"))
          // the first buffer is still the attached one
          .compose(v -> world.bufferDetach().map(DetachedBuffer::memory))
          .map(buf -> {
            assertSame(first, buf, "the failed second attach must not replace the first buffer");
            return null;
          });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void bsendWithoutBufferFailsWithBufferNamingTheSize(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      int peer = 1 - world.rank();
      // 6 doubles: 48 bytes + overhead
      return expectError(world.bsend(Buf.of(new double[6]), 0, 6, Datatype.DOUBLE, peer, 1), ErrorClass.BUFFER,
          "bsend of " + (48 + OVH) + " bytes", "(48 data + " + OVH + " overhead)", "to rank " + peer,
          "no buffer attached");
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void overflowFailsWithBufferNamingTheSizes(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 1) {
        int[] a = new int[10];
        int[] b = new int[10];
        return Future.all(world.recv(Buf.of(a), 0, 10, Datatype.INT, 0, 1), world.recv(Buf.of(b), 0, 10, Datatype.INT, 0, 2))
            .map(all -> {
              for (int i = 0; i < 10; i++) {
                assertEquals(100 + i, a[i]);
                assertEquals(200 + i, b[i]);
              }
              return null;
            });
      }
      int slot = 40 + OVH;
      byte[] buffer = new byte[2 * slot];
      int[] x = new int[10];
      int[] y = new int[10];
      int[] big = new int[100];
      for (int i = 0; i < 10; i++) {
        x[i] = 100 + i;
        y[i] = 200 + i;
      }
      world.bufferAttach(Buf.of(buffer), buffer.length);
      // larger than the whole buffer
      Future<Void> tooBig = expectError(world.bsend(Buf.of(big), 0, 100, Datatype.INT, 1, 0), ErrorClass.BUFFER,
          "bsend of " + (400 + OVH) + " bytes", "(400 data + " + OVH + " overhead)", "to rank 1",
          buffer.length + " bytes, 0 in use by 0 undelivered");
      Future<Void> s1 = world.bsend(Buf.of(x), 0, 10, Datatype.INT, 1, 1);
      Future<Void> s2 = world.bsend(Buf.of(y), 0, 10, Datatype.INT, 1, 2);
      // the buffer is now full with two undelivered messages (no acknowledgement can have come in)
      Future<Void> full = expectError(world.bsend(Buf.of(x), 0, 1, Datatype.INT, 1, 3), ErrorClass.BUFFER,
          "bsend of " + (4 + OVH) + " bytes", buffer.length + " bytes, " + 2 * slot + " in use by 2 undelivered");
      return Future.all(List.of(tooBig, s1, s2, full)).compose(all -> world.bufferDetach().map(DetachedBuffer::memory)).map(buf -> {
        assertSame(buffer, buf);
        return null;
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void spaceIsReusedAfterDeliveryInWaves(Mode mode) {
    int waves = 12;
    int perWave = 3;
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 0) {
        byte[] buffer = new byte[perWave * (64 + OVH)];
        return world.bufferAttach(Buf.of(buffer), buffer.length)
            .compose(v -> senderWave(world, 0, waves, perWave))
            .compose(v -> world.bufferDetach().map(DetachedBuffer::memory))
            .map(buf -> {
              assertSame(buffer, buf);
              return null;
            });
      }
      return receiverWave(world, 0, waves, perWave);
    });
  }

  private static Future<Void> senderWave(Comm world, int w, int waves, int perWave) {
    if (w == waves) {
      return DONE;
    }
    List<Future<Void>> sends = new ArrayList<>();
    for (int k = 0; k < perWave; k++) {
      int[] data = new int[16];
      Arrays.fill(data, w * 100 + k);
      sends.add(world.bsend(Buf.of(data), 0, 16, Datatype.INT, 1, k));
    }
    // the buffer holds exactly one wave: the next wave fits only once this one was delivered
    return Future.all(sends)
        .compose(v -> world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 1, 1000 + w))
        .compose(st -> senderWave(world, w + 1, waves, perWave));
  }

  private static Future<Void> receiverWave(Comm world, int w, int waves, int perWave) {
    if (w == waves) {
      return DONE;
    }
    int[][] in = new int[perWave][16];
    List<Future<Status>> recvs = new ArrayList<>();
    for (int k = 0; k < perWave; k++) {
      recvs.add(world.recv(Buf.of(in[k]), 0, 16, Datatype.INT, 0, k));
    }
    return Future.all(recvs).compose(all -> {
      for (int k = 0; k < perWave; k++) {
        for (int i = 0; i < 16; i++) {
          assertEquals(w * 100 + k, in[k][i], "wave " + w + " message " + k + " element " + i);
        }
      }
      return world.send(Buf.of(new int[] {w}), 0, 1, Datatype.INT, 0, 1000 + w);
    }).compose(v -> receiverWave(world, w + 1, waves, perWave));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void circularAllocationWrapsAroundWithASlidingWindow(Mode mode) {
    int total = 40;
    int window = 3;
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 0) {
        // room for 3.5 messages: with 3 in flight, allocation has to wrap around the end
        byte[] buffer = new byte[window * (64 + OVH) + (64 + OVH) / 2];
        world.bufferAttach(Buf.of(buffer), buffer.length);
        List<Future<Void>> first = new ArrayList<>();
        for (int m = 0; m < window; m++) {
          first.add(bsendNumbered(world, m));
        }
        return Future.all(first)
            .compose(v -> slide(world, 0, total, window))
            .compose(v -> world.bufferDetach().map(DetachedBuffer::memory))
            .map(buf -> {
              assertSame(buffer, buf);
              return null;
            });
      }
      return receiveNumbered(world, 0, total);
    });
  }

  private static Future<Void> bsendNumbered(Comm world, int m) {
    int[] data = new int[16];
    for (int i = 0; i < 16; i++) {
      data[i] = m * 16 + i;
    }
    return world.bsend(Buf.of(data), 0, 16, Datatype.INT, 1, 7);
  }

  /** On each acknowledgement of message {@code m} from rank 1, bsend message {@code m + window}. */
  private static Future<Void> slide(Comm world, int m, int total, int window) {
    if (m == total) {
      return DONE;
    }
    int[] ack = new int[1];
    return world.recv(Buf.of(ack), 0, 1, Datatype.INT, 1, 8).compose(st -> {
      assertEquals(m, ack[0], "acknowledgements come in order");
      return m + window < total ? bsendNumbered(world, m + window) : DONE;
    }).compose(v -> slide(world, m + 1, total, window));
  }

  private static Future<Void> receiveNumbered(Comm world, int m, int total) {
    if (m == total) {
      return DONE;
    }
    int[] in = new int[16];
    return world.recv(Buf.of(in), 0, 16, Datatype.INT, 0, 7).compose(st -> {
      for (int i = 0; i < 16; i++) {
        assertEquals(m * 16 + i, in[i], "message " + m + " element " + i);
      }
      return world.send(Buf.of(new int[] {m}), 0, 1, Datatype.INT, 0, 8);
    }).compose(v -> receiveNumbered(world, m + 1, total));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void detachWithoutAttachFailsWithBuffer(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> expectError(world.bufferDetach(), ErrorClass.BUFFER,
        "rank " + world.rank(), "no buffer attached")
        // and again after a full attach/detach cycle
        .compose(v -> world.bufferAttach(Buf.of(new byte[64]), 64))
        .compose(v -> world.bufferDetach())
        .compose(buf -> expectError(world.bufferDetach(), ErrorClass.BUFFER, "rank " + world.rank(),
            "no buffer attached")));
  }
}
