package dev.vertxrma.impl.comm;

import static dev.vertxrma.Comm.IN_PLACE;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.ops.BufferArguments;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.TypeMap;

/**
 * The buffer of a collective call as equal blocks, one per rank (MPI's layout of gather,
 * scatter and all-to-all buffers): block {@code i} is {@code count} elements of the type, {@code
 * i * count} extents of the type from {@code buf[offset]}; checked when it is made, before
 * anything is sent. Also the two rules every collective's receive buffer follows: it is never
 * {@link Comm#IN_PLACE}, and a block received into it is exactly as long as its place.
 */
final class Blocks {
  final TypeMap type;
  final MemoryRef mem;
  final int count;
  final int ranks;

  /** {@code ranks} blocks of {@code count} elements of {@code type} from {@code buf[offset]}, checked now. */
  Blocks(Buf buf, int offset, int count, Datatype type, int ranks, String what) {
    this.type = BufferArguments.typeMap(type, what);
    this.count = count;
    this.ranks = ranks;
    if (count < 0) {
      throw RmaException.of(ErrorClass.COUNT, "%s: count %d is negative", what, count);
    }
    long all = (long) count * ranks;
    if (all > Integer.MAX_VALUE) {
      throw RmaException.of(ErrorClass.COUNT, "%s: count %d for each of %d ranks is %d elements, more than one "
          + "buffer takes (%d): move the data in parts", what, count, ranks, all, Integer.MAX_VALUE);
    }
    this.mem = BufferArguments.buffer(buf, offset, (int) all, this.type, what);
    DatatypeEngine.packedBlockSize(this.type, count); // each block is one message: checked where it is received too
  }

  /** The address of rank {@code i}'s block. */
  long blockAddress(int i) {
    return mem.address() + i * (long) count * type.extent();
  }

  /** Rank {@code i}'s block, packed. */
  byte[] pack(int i) {
    return DatatypeEngine.pack(mem.base(), blockAddress(i), type, count);
  }

  /** Unpacks {@code block}, received from rank {@code i}, into its block; TRUNCATE unless it is one block long. */
  void unpack(int i, byte[] block, String what, int rank) {
    long expected = type.size() * (long) count;
    if (block.length != expected) {
      throw RmaException.of(ErrorClass.TRUNCATE, "%s: block from rank %d has %d bytes, the receive block takes %d "
          + "x %s = %d bytes", what, i, block.length, count, type.name(), expected);
    }
    DatatypeEngine.unpack(block, mem.base(), blockAddress(i), type, count);
  }

  /**
   * Unpacks a collective's whole result {@code block} into {@code count} elements of {@code t} at
   * {@code mem}; TRUNCATE, naming this {@code rank}, if the block is not exactly that long.
   */
  static void unpackExactly(byte[] block, MemoryRef mem, TypeMap t, int count, String what, int rank) {
    long expected = t.size() * (long) count;
    if (block.length != expected) {
      throw RmaException.of(ErrorClass.TRUNCATE, "%s: received %d bytes, the buffer takes %d x %s = %d bytes at rank %d",
          what, block.length, count, t.name(), expected, rank);
    }
    DatatypeEngine.unpack(block, mem.base(), mem.address(), t, count);
  }

  /** BUFFER if a collective's receive buffer is {@link Comm#IN_PLACE}; {@code hint} says what to pass instead. */
  static void refuseInPlaceReceive(Buf recvBuf, String what, String hint) {
    if (recvBuf == IN_PLACE) {
      throw RmaException.of(ErrorClass.BUFFER, "%s: the receive buffer cannot be Comm.IN_PLACE; %s", what, hint);
    }
  }
}
