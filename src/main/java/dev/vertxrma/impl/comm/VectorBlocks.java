package dev.vertxrma.impl.comm;

import static dev.vertxrma.Comm.BOTTOM;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.ops.BufferArguments;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.TypeMap;
import java.util.List;

/**
 * The buffer of a vector collective (MPI_Gatherv, MPI_Allgatherv, MPI_Scatterv, MPI_Alltoallv):
 * block {@code i} is {@code counts[i]} elements of the type at {@code displs[i]} extents of the
 * type from {@code buf[offset]} (MPI's displacements; a negative one is fine while its block
 * stays inside the buffer). Everything is checked when it is made, before anything is sent; the
 * arrays are copied.
 */
final class VectorBlocks {
  final TypeMap type;
  final MemoryRef mem;
  final int[] counts;
  final long[] addresses;
  final String countsName;

  /**
   * The blocks of {@code counts} and {@code displs} (one per rank of {@code ranks}) of {@code type}
   * at {@code buf[offset]}; {@code countsName} and {@code displsName} name the arrays in errors.
   */
  VectorBlocks(Buf buf, int offset, int[] counts, int[] displs, Datatype type, int ranks, String what,
      String countsName, String displsName) {
    this.type = BufferArguments.typeMap(type, what);
    this.countsName = countsName;
    this.counts = perRank(counts, ranks, what, countsName);
    int[] d = perRank(displs, ranks, what, displsName);
    long total = 0;
    for (int i = 0; i < ranks; i++) {
      if (this.counts[i] < 0) {
        throw RmaException.of(ErrorClass.COUNT, "%s: %s[%d] is %d, negative", what, countsName, i, this.counts[i]);
      }
      total += this.counts[i];
      DatatypeEngine.packedBlockSize(this.type, this.counts[i]); // each block is one message, sent or received
    }
    if (buf == null && total > 0) {
      throw RmaException.of(ErrorClass.BUFFER, "%s: buffer is null but %s add up to %d elements (only a call "
          + "whose counts are all 0 may pass no buffer)", what, countsName, total);
    }
    this.mem = BufferArguments.buffer(buf, offset, 0, this.type, what); // IN_PLACE refused, element type checked
    this.addresses = new long[ranks];
    long before = mem.bytesBefore();
    long end = before + mem.bytesAvailable();
    for (int i = 0; i < ranks; i++) {
      int c = this.counts[i];
      long disp;
      try {
        disp = Math.multiplyExact((long) d[i], this.type.extent());
      } catch (ArithmeticException e) {
        throw RmaException.of(ErrorClass.BUFFER, "%s: %s[%d] = %d extents of %s (extent %d) overflows 64-bit "
            + "addressing", what, displsName, i, d[i], this.type.name(), this.type.extent());
      }
      addresses[i] = mem.address() + disp;
      if (c == 0) {
        continue;
      }
      if (buf == BOTTOM) {
        BufferArguments.checkAbsolute(disp, c, this.type, block(what, i, c, d[i], displsName));
      } else if (!DatatypeEngine.fits(this.type, c, before + disp, end)) {
        DatatypeEngine.checkAccess(this.type, c, before + disp, end, block(what, i, c, d[i], displsName),
            ErrorClass.BUFFER); // throws, with the message
      }
    }
  }

  private String block(String what, int i, int count, int displ, String displsName) {
    return String.format("%s block %d (%s[%d] = %d at %s[%d] = %d)", what, i, countsName, i, count, displsName, i,
        displ);
  }

  /** Rank {@code i}'s block, packed. */
  byte[] pack(int i) {
    return DatatypeEngine.pack(mem.base(), addresses[i], type, counts[i]);
  }

  /** Unpacks {@code block}, received from rank {@code i}, into its block; TRUNCATE unless it fills it exactly. */
  void unpack(int i, byte[] block, String what) {
    long expected = type.size() * (long) counts[i];
    if (block.length != expected) {
      throw RmaException.of(ErrorClass.TRUNCATE, "%s: the block from rank %d has %d bytes; %s[%d] = %d x %s takes "
          + "%d bytes", what, i, block.length, countsName, i, counts[i], type.name(), expected);
    }
    DatatypeEngine.unpack(block, mem.base(), addresses[i], type, counts[i]);
  }

  /** Unpacks block {@code i} of {@code parts} into block {@code i}; in place, {@code skip}'s is there already. */
  void unpackAll(List<byte[]> parts, int skip, String what) {
    for (int i = 0; i < parts.size(); i++) {
      if (i != skip) {
        unpack(i, parts.get(i), what);
      }
    }
  }

  /** A copy of a counts or displacements array; ARG if it is null or not one entry per rank. */
  private static int[] perRank(int[] values, int ranks, String what, String name) {
    if (values == null || values.length != ranks) {
      throw RmaException.of(ErrorClass.ARG, "%s: %s has %s entries; it needs one per rank (%d)", what, name,
          values == null ? "no (null)" : String.valueOf(values.length), ranks);
    }
    return values.clone();
  }
}
