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
}
