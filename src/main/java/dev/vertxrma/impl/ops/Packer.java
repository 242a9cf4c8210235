package dev.vertxrma.impl.ops;

import dev.vertxrma.impl.memory.Memory;

/**
 * MPI_Pack / MPI_Unpack: moves {@code count} instances of a type map between their layout in
 * memory and a contiguous packed stream, one {@link Memory#copy} per segment (one in all for a
 * contiguous type). Callers range-check both sides first.
 */
public final class Packer {

  private Packer() {
  }

  /** Packs {@code count} instances at {@code (base, addr)} into {@code (outBase, outAddr)}; returns bytes written. */
  public static long pack(Object base, long addr, TypeMap type, int count, Object outBase, long outAddr) {
    return move(base, addr, type, count, outBase, outAddr, Long.MAX_VALUE, true);
  }

  /** Packs into a new byte array of exactly {@code type.size() * count} bytes. */
  public static byte[] pack(Object base, long addr, TypeMap type, int count) {
    byte[] out = new byte[Math.toIntExact(Math.multiplyExact(type.size(), (long) count))];
    pack(base, addr, type, count, out, Memory.ARRAY_BYTE_BASE_OFFSET);
    return out;
  }

  /**
   * Unpacks at most {@code limitBytes} bytes of the stream at {@code (inBase, inAddr)} into
   * {@code count} instances at {@code (base, addr)}; returns the bytes consumed.
   */
  public static long unpack(Object inBase, long inAddr, long limitBytes, Object base, long addr, TypeMap type,
      int count) {
    return move(base, addr, type, count, inBase, inAddr, limitBytes, false);
  }

  private static long move(Object base, long addr, TypeMap type, int count, Object streamBase, long streamAddr,
      long limit, boolean toStream) {
    if (type.isContiguous()) {
      long n = Math.min(limit, type.size() * (long) count);
      copy(base, addr + type.trueLb(), streamBase, streamAddr, n, toStream);
      return n;
    }
    long done = 0;
    int segments = type.segmentCount();
    long extent = type.extent();
    for (int i = 0; i < count && done < limit; i++) {
      long instance = addr + i * extent;
      for (int s = 0; s < segments && done < limit; s++) {
        long bytes = Math.min(limit - done, (long) type.segmentLength(s) * type.segmentType(s).size());
        copy(base, instance + type.segmentDisp(s), streamBase, streamAddr + done, bytes, toStream);
        done += bytes;
      }
    }
    return done;
  }

  private static void copy(Object base, long addr, Object streamBase, long streamAddr, long bytes, boolean toStream) {
    if (bytes <= 0) {
      return;
    }
    if (toStream) {
      Memory.copy(base, addr, streamBase, streamAddr, bytes);
    } else {
      Memory.copy(streamBase, streamAddr, base, addr, bytes);
    }
  }
}
