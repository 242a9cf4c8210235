package dev.vertxrma.impl.win;

import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.transport.PayloadSource;

/**
 * An origin buffer to another JVM, packed when its frame is encoded into the data-plane record:
 * within the call that sends it, or, {@link PayloadSource#PACKED_LATER_FROM} bytes or more or
 * while the link is congested, when the connection can take it ({@link #packed} completes then).
 * No array in between.
 */
final class PackedOrigin implements PayloadSource {
  private final Object base; // an array origin stays reachable through it; a native one is the caller's
  private final long address;
  private final TypeMap type;
  private final int count;
  private final int length;
  /** Completes once packed, for a caller that wants to be told (a put or accumulate); else {@code null}. */
  final io.vertx.core.Promise<Void> packed;

  /** {@code context} null: nobody waits for the packing (the call completes with its reply). */
  PackedOrigin(Object base, long address, TypeMap type, int count, io.vertx.core.internal.ContextInternal context) {
    this.base = base;
    this.address = address;
    this.type = type;
    this.count = count;
    this.length = DatatypeEngine.packedBlockSize(type, count);
    // a small payload is packed later too while the link is congested: the put's future waits
    this.packed = context != null ? context.promise() : null;
  }

  @Override
  public int length() {
    return length;
  }

  @Override
  public void packInto(Object dstBase, long dstAddress) {
    DatatypeEngine.pack(base, address, type, count, dstBase, dstAddress);
    if (packed != null) {
      packed.tryComplete();
    }
  }

  @Override
  public void dropped() {
    if (packed != null) {
      packed.tryComplete(); // never to be read: the buffer is the caller's again
    }
  }
}
