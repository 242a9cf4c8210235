package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.RmaTarget;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.ReceivedPayload;

/**
 * The reply of a get, getAccumulate or compareAndSwap to another JVM, written into the origin's
 * result buffer: its length checked against the result type first (OTHER), and dropped (BUFFER)
 * if the program released the buffer after the call's synchronization failed.
 */
final class FetchedReply {

  private FetchedReply() {
  }

  /** Unpacks {@code reply}'s data, {@code count} of {@code t}, into {@code m}. */
  static void unpack(Frame reply, MemoryRef m, TypeMap t, int count) {
    long expected = t.size() * (long) count;
    long got = reply.payloadLength();
    if (got != expected) {
      throw RmaException.of(ErrorClass.OTHER, "reply carries %d bytes, expected %d", got, expected);
    }
    if (got > 0 && m.released()) {
      // the program released the store after the call's synchronization failed (a TIMEOUT):
      // the late reply is dropped, never written into memory the store no longer owns
      throw RmaException.of(ErrorClass.BUFFER, "the result buffer was released before the reply to this call came; "
          + "its %d bytes are dropped", got);
    }
    if (got > 0) {
      if (reply.payloadSource instanceof ReceivedPayload) { // left where it arrived
        RmaTarget.unpack((ReceivedPayload) reply.payloadSource, m.base(), m.address(), t, count, Op.REPLACE);
      } else {
        DatatypeEngine.unpack(reply.payloadBytes(), m.base(), m.address(), t, count);
      }
    }
  }
}
