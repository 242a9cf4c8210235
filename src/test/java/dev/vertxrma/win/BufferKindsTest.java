package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The buffers a Vert.x user holds — a Vert.x {@link Buffer}, a direct or heap {@link ByteBuffer}
 * — as origin and result buffers of RMA calls (offset in bytes, elements in native byte order),
 * every value checked; misuse fails with BUFFER and leaves the window as it was.
 */
class BufferKindsTest {

  private static final boolean LE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  private static long longAt(Buffer b, int pos) {
    return LE ? b.getLongLE(pos) : b.getLong(pos);
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void vertxBuffersAndByteBuffersCarryRmaData(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 8 * 8, 8, Info.NULL).compose(win -> {
      int peer = 1 - world.rank();
      long base = 100L * (world.rank() + 1);
      // origin: a Vert.x Buffer of 3 longs (puts two from byte offset 8), a direct ByteBuffer, a heap one
      Buffer vx = Buffer.buffer(new byte[24]);
      for (int i = 0; i < 3; i++) {
        if (LE) {
          vx.setLongLE(8 * i, base + i);
        } else {
          vx.setLong(8 * i, base + i);
        }
      }
      ByteBuffer direct = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
      direct.putLong(0, base + 10).putLong(8, base + 11);
      ByteBuffer heap = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
      heap.putLong(0, 5);
      Buffer fetched = Buffer.buffer(new byte[8]);
      ByteBuffer got = ByteBuffer.allocateDirect(6 * 8).order(ByteOrder.nativeOrder());
      Buffer gotVx = Buffer.buffer(new byte[6 * 8]);
      return win.fence()
          .compose(v -> win.put(Buf.of(vx), 8, 2, Datatype.LONG, peer, 0))            // slots 0,1 = base+1, base+2
          .compose(v -> win.put(Buf.of(direct), 0, 2, Datatype.LONG, peer, 2))        // slots 2,3 = base+10, base+11
          .compose(v -> win.accumulate(Buf.of(heap), 0, 1, Datatype.LONG, peer, 4, Op.SUM)) // slot 4 += 5
          .compose(v -> win.fence())
          .compose(v -> win.lock(LockType.EXCLUSIVE, peer))
          .compose(v -> win.fetchAndOp(Buf.of(heap), 0, Buf.of(fetched), 0, Datatype.LONG, peer, 5, Op.SUM)) // slot 5: 0 -> 5
          .compose(v -> win.unlock(peer))
          .compose(v -> world.barrier())
          .compose(v -> win.lock(LockType.SHARED, peer))
          .compose(v -> win.get(Buf.of(got), 0, 6, Datatype.LONG, peer, 0))
          .compose(v -> win.get(Buf.of(gotVx), 0, 6, Datatype.LONG, peer, 0))
          .compose(v -> win.unlock(peer))
          .compose(v -> {
            long pb = base; // what this rank wrote into its peer
            long[] expected = {pb + 1, pb + 2, pb + 10, pb + 11, 5, 5};
            long[] viaDirect = new long[6];
            long[] viaVertx = new long[6];
            for (int i = 0; i < 6; i++) {
              viaDirect[i] = got.getLong(8 * i);
              viaVertx[i] = longAt(gotVx, 8 * i);
            }
            assertArrayEquals(expected, viaDirect, "got into a direct ByteBuffer");
            assertArrayEquals(expected, viaVertx, "got into a Vert.x Buffer");
            assertEquals(0L, longAt(fetched, 0), "fetch-and-op's result in a Vert.x Buffer");
            return world.barrier();
          })
          .compose(v -> win.free());
    }));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void misusedBuffersFailWithBufferAndLeaveTheWindowAlone(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 4 * 8, 8, Info.NULL).compose(win -> {
      int peer = 1 - world.rank();
      ByteBuffer readOnly = ByteBuffer.allocateDirect(8).asReadOnlyBuffer();
      Buffer small = Buffer.buffer(new byte[8]);
      Buffer empty = Buffer.buffer(64); // capacity 64, length 0: nothing to address
      ByteBuffer direct = ByteBuffer.allocateDirect(16);
      return win.lock(LockType.EXCLUSIVE, peer)
          .compose(v -> expect(win.put(Buf.of(readOnly), 0, 1, Datatype.LONG, peer, 0), "read-only"))
          .compose(v -> expect(win.put(Buf.of(small), 0, 2, Datatype.LONG, peer, 0), ""))
          .compose(v -> expect(win.put(Buf.of(small), 9, 0, Datatype.LONG, peer, 0), "outside the Buffer of length 8"))
          .compose(v -> expect(win.get(Buf.of(empty), 0, 1, Datatype.LONG, peer, 0), ""))
          .compose(v -> expect(win.put(Buf.of(direct), 17, 0, Datatype.LONG, peer, 0), "outside the ByteBuffer's limit 16"))
          .compose(v -> win.unlock(peer))
          .compose(v -> world.barrier())
          .compose(v -> {
            for (int i = 0; i < 4; i++) {
              assertEquals(0L, win.memory().readLong(8L * i), "window untouched at slot " + i);
            }
            return world.barrier();
          })
          .compose(v -> win.free());
    }));
  }

  private static Future<Void> expect(Future<Void> call, String fragment) {
    return call.transform(ar -> {
      if (ar.succeeded()) {
        return Future.failedFuture(new AssertionError("the call should have failed with BUFFER"));
      }
      assertError(ar.cause(), ErrorClass.BUFFER, fragment);
      return Future.succeededFuture();
    });
  }
}
