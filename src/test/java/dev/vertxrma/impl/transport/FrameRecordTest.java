package dev.vertxrma.impl.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.impl.memory.Memory;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

/**
 * The data-plane record ({@link FrameCodec#record}): a payload source is packed straight into it,
 * and decoding a record the receiver owns leaves a put's payload in place, byte for byte.
 */
class FrameRecordTest {

  /** A payload source over an array, packed in reverse so a copy of the wrong bytes shows. */
  private static PayloadSource reversed(byte[] data) {
    return new PayloadSource() {
      @Override
      public int length() {
        return data.length;
      }

      @Override
      public void packInto(Object base, long address) {
        for (int i = 0; i < data.length; i++) {
          Memory.putByte(base, address + i, data[data.length - 1 - i]);
        }
      }
    };
  }

  private static byte[] bytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + 7);
    }
    return b;
  }

  private static byte[] reverse(byte[] b) {
    byte[] r = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      r[i] = b[b.length - 1 - i];
    }
    return r;
  }

  @Test
  void aPayloadSourceIsPackedIntoTheRecordAndLeftInPlaceByTheOwner() {
    for (int n : new int[] {1, 8, 1000, 65536, 200_000}) {
      byte[] data = bytes(n);
      Frame f = Frame.of(FrameType.PUT, 3, 7);
      f.disp = 42;
      f.count = n;
      f.typeBytes = new byte[300]; // more datatype than a small record's first guess
      f.payloadSource = reversed(data);
      Buffer record = FrameCodec.record(5, f);
      assertEquals(record.length() - 4, record.getInt(0), "record length");
      assertEquals(5, record.getInt(4), "destination");

      Frame owned = FrameCodec.decode(record, 8, record.length(), true);
      assertNull(owned.payload);
      assertTrue(owned.payloadSource instanceof ReceivedPayload, "left in the record");
      assertArrayEquals(reverse(data), owned.payloadSource.toBytes(), "n=" + n);
      assertEquals(42, owned.disp);

      Frame copied = FrameCodec.decode(record, 8, record.length(), false);
      assertNull(copied.payloadSource);
      assertArrayEquals(reverse(data), copied.payload, "n=" + n);
    }
  }

  @Test
  void onlyPutAccumulateGetAccumulateAndRepliesStayInPlace() {
    for (byte type : new byte[] {FrameType.ACC, FrameType.GET_ACC, FrameType.REPLY}) {
      Frame f = Frame.of(type, 1, 2);
      f.payload = bytes(16);
      Buffer record = FrameCodec.record(0, f);
      Frame g = FrameCodec.decode(record, 8, record.length(), true);
      assertNull(g.payload, FrameType.name(type));
      assertArrayEquals(f.payload, g.payloadBytes(), FrameType.name(type));
    }
    for (byte type : new byte[] {FrameType.CAS, FrameType.GET, FrameType.POST}) {
      Frame f = Frame.of(type, 1, 2);
      f.payload = bytes(16);
      Buffer record = FrameCodec.record(0, f);
      Frame g = FrameCodec.decode(record, 8, record.length(), true);
      assertNull(g.payloadSource, FrameType.name(type));
      assertArrayEquals(f.payload, g.payload, FrameType.name(type));
    }
  }

  /**
   * A payload packed ahead in native memory is written after a native header as it is (one
   * record of two buffers), and a record that arrives in many buffers is decoded with its payload
   * left in them: read back byte for byte, and every buffer given back once released.
   */
  @Test
  void aPackedPayloadAndASegmentedRecordAreNotCopied() {
    byte[] data = bytes(300_000);
    PackedPayload packed = PackedPayload.allocate(data.length);
    Memory.copy(data, Memory.ARRAY_BYTE_BASE_OFFSET, packed.base(), packed.address(), data.length);
    Frame f = Frame.of(FrameType.REPLY, 3, 7);
    f.corr = 11;
    f.payloadSource = packed;
    io.netty.buffer.ByteBuf record = FrameCodec.recordBuf(5, f, true);
    assertTrue(record instanceof io.netty.buffer.CompositeByteBuf, "a header and the payload as it is");
    assertEquals(record.readableBytes() - 4, record.getInt(0), "record length");

    // the record as a reader keeps it: slices of the 64 KiB buffers it arrived in
    io.netty.buffer.CompositeByteBuf arrived = io.netty.buffer.Unpooled.compositeBuffer(Integer.MAX_VALUE);
    java.util.List<io.netty.buffer.ByteBuf> reads = new java.util.ArrayList<>();
    while (record.isReadable()) {
      io.netty.buffer.ByteBuf read = io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(65536);
      read.writeBytes(record, Math.min(65536, record.readableBytes()));
      reads.add(read);
      arrived.addComponent(true, read.readRetainedSlice(read.readableBytes()));
      read.release(); // the socket's reference: the slice keeps it
    }
    record.release();
    Frame g = FrameCodec.decode(arrived, 8, arrived.writerIndex());
    arrived.release(); // the receiver's reference: the payload holds one of its own
    assertEquals(11, g.corr);
    ReceivedPayload in = (ReceivedPayload) g.payloadSource;
    assertTrue(!in.isOnePiece(), "left in the buffers it arrived in");
    byte[] back = new byte[data.length];
    in.packInto(back, Memory.ARRAY_BYTE_BASE_OFFSET);
    assertArrayEquals(data, back);
    in.release();
    for (io.netty.buffer.ByteBuf read : reads) {
      assertEquals(0, read.refCnt(), "every buffer given back");
    }
  }
}
