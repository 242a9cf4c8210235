package dev.vertxrma.impl.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.vertxrma.Datatype;
import dev.vertxrma.Op;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameCodec;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.ReceivedPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A payload left in the socket buffers it arrived in, cut at arbitrary bytes (elements split
 * between buffers), is combined into a contiguous target element by element: replace, sum and
 * max give what the same payload in one piece gives, for longs and doubles; a strided target
 * takes the gathered path and gets the same.
 */
class SegmentedPayloadTest {

  @Test
  void aPayloadCutAnywhereCombinesLikeOnePiece() {
    Random rnd = new Random(42);
    int n = 10_000;
    long[] data = new long[n];
    for (int i = 0; i < n; i++) {
      data[i] = rnd.nextLong() >> 8;
    }
    for (Op op : new Op[] {Op.REPLACE, Op.SUM, Op.MAX}) {
      for (Datatype type : new Datatype[] {Datatype.LONG, Datatype.DOUBLE}) {
        TypeMap t = TypeMap.of(type);
        long[] expected = start(n);
        DatatypeEngine.unpack(bytesOf(data), Memory.ARRAY_BYTE_BASE_OFFSET, expected,
            Memory.arrayBaseOffset(long[].class), t, n, op);
        for (int[] cuts : new int[][] {{7, 13, 5}, {8}, {1, 3}, {4096, 17}}) {
          ReceivedPayload in = segmented(bytesOf(data), cuts);
          assertFalse(in.isOnePiece());
          long[] got = start(n);
          RmaTarget.unpack(in, got, Memory.arrayBaseOffset(long[].class), t, n, op);
          in.release();
          assertArrayEquals(expected, got, op + " of " + type + " cut every " + java.util.Arrays.toString(cuts));
        }
      }
    }
    // every other long of a strided target: gathered first, same result
    TypeMap everyOther = TypeMap.of(Datatype.vector(n, 1, 2, Datatype.LONG).commit());
    long[] expected = start(2 * n);
    DatatypeEngine.unpack(bytesOf(data), Memory.ARRAY_BYTE_BASE_OFFSET, expected, Memory.arrayBaseOffset(long[].class),
        everyOther, 1, Op.SUM);
    ReceivedPayload in = segmented(bytesOf(data), new int[] {11, 3});
    long[] got = start(2 * n);
    RmaTarget.unpack(in, got, Memory.arrayBaseOffset(long[].class), everyOther, 1, Op.SUM);
    in.release();
    assertArrayEquals(expected, got, "strided sum");
  }

  private static long[] start(int n) {
    long[] a = new long[n];
    for (int i = 0; i < n; i++) {
      a[i] = i * 3L - 7;
    }
    return a;
  }

  private static byte[] bytesOf(long[] data) {
    byte[] b = new byte[data.length * 8];
    Memory.copy(data, Memory.arrayBaseOffset(long[].class), b, Memory.ARRAY_BYTE_BASE_OFFSET, b.length);
    return b;
  }

  /** An ACC record of {@code payload}, received as buffers of the given sizes in turn, decoded in place. */
  private static ReceivedPayload segmented(byte[] payload, int[] cuts) {
    Frame f = Frame.of(FrameType.ACC, 1, 2);
    f.payload = payload;
    Buffer record = FrameCodec.record(0, f);
    ByteBuf whole = Unpooled.wrappedBuffer(record.getBytes());
    CompositeByteBuf arrived = Unpooled.compositeBuffer(Integer.MAX_VALUE);
    int k = 0;
    while (whole.isReadable()) {
      int n = Math.min(cuts[k++ % cuts.length], whole.readableBytes());
      ByteBuf piece = Unpooled.directBuffer(n);
      piece.writeBytes(whole, n);
      arrived.addComponent(true, piece);
    }
    Frame g = FrameCodec.decode(arrived, 8, arrived.writerIndex());
    arrived.release();
    return (ReceivedPayload) g.payloadSource;
  }
}
