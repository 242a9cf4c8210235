package dev.vertxrma.impl.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The event-bus side of the codec: whatever arrives, decodeFromWire returns a frame and never throws. */
class FrameCodecWireTest {

  private final FrameCodec codec = new FrameCodec();

  @Test
  void validFrameRoundTripsThroughTheWireCodec() {
    Frame f = Frame.of(FrameType.PUT, 3, 7);
    f.disp = 42;
    f.count = 2;
    f.typeBytes = new byte[] {4};
    f.payload = new byte[] {1, 2, 3, 4, 5, 6, 7, 8};
    Buffer wire = Buffer.buffer().appendString("prefix");
    codec.encodeToWire(wire, f);
    Frame g = codec.decodeFromWire(6, wire);
    assertEquals(FrameType.PUT, g.type);
    assertEquals(3, g.src);
    assertEquals(7, g.ctx);
    assertEquals(42, g.disp);
    assertArrayEquals(f.payload, g.payload);
  }

  @Test
  void garbageBecomesAnInvalidFrameInsteadOfAnException() {
    Random random = new Random(20261122);
    for (int i = 0; i < 2000; i++) {
      byte[] junk = new byte[random.nextInt(120)];
      random.nextBytes(junk);
      Frame f = codec.decodeFromWire(0, Buffer.buffer(junk));
      if (f.type == FrameType.INVALID) {
        String why = new String(f.payload, StandardCharsets.UTF_8);
        assertTrue(why.contains("malformed frame"), why);
      } else {
        assertTrue(FrameType.isKnown(f.type), "decoded an unknown type " + f.type);
      }
    }
  }
}
