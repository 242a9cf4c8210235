package dev.vertxrma.impl.comm;

import static dev.vertxrma.Comm.IN_PLACE;
import static dev.vertxrma.impl.comm.Blocks.refuseInPlaceReceive;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Reduction;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.coll.CollectiveKind;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.ops.BufferArguments;
import dev.vertxrma.impl.ops.Combiner;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.TypeMap;
import io.vertx.core.Future;
import java.util.Arrays;

/**
 * The global reduction operations of one communicator, as the MPI standard calls them:
 * MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter, MPI_Reduce_scatter_block, MPI_Scan and
 * MPI_Exscan, with MPI's {@code IN_PLACE} rules. Each call checks its op (a {@link Combiner} for
 * its datatype and count), its root and its buffers at this rank before it sends anything, packs
 * its input, runs the communicator's {@link Collectives} over the packed bytes and unpacks the
 * result. Every call runs through {@link CommImpl#call}.
 */
final class GlobalReductions {

  private final CommImpl comm;
  private final Collectives coll;

  GlobalReductions(CommImpl comm, Collectives coll) {
    this.comm = comm;
    this.coll = coll;
  }

  private int rank() {
    return comm.rank();
  }

  private int size() {
    return comm.size();
  }

  private void unpackExactly(byte[] block, MemoryRef mem, TypeMap t, int count, String what) {
    Blocks.unpackExactly(block, mem, t, count, what, rank());
  }


  /**
   * The packed input of a reduction: {@code count} elements of {@code type} from the send buffer,
   * or from {@code inPlace} (the receive buffer) when the send buffer is {@link Comm#IN_PLACE}.
   */
  private static byte[] reductionInput(Buf sendBuf, int sendOffset, MemoryRef inPlace, int count, TypeMap t,
      String what) {
    MemoryRef in = sendBuf == IN_PLACE ? inPlace
        : BufferArguments.buffer(sendBuf, sendOffset, count, t, what + " send");
    return DatatypeEngine.pack(in.base(), in.address(), t, count);
  }

  /** MPI_Reduce; at root, {@code IN_PLACE} as the send buffer takes the input from the receive buffer. */
  Future<Void> reduce(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count,
      Datatype type, Reduction op, int root) {
    return comm.call(() -> coll.checked(CollectiveKind.REDUCE, null, () -> {
      TypeMap t = BufferArguments.typeMap(type, "reduce");
      Combiner combiner = Combiner.of(op, type, count, "reduce", rank());
      comm.checkRoot(root, "reduce");
      MemoryRef out = null;
      if (rank() == root) {
        refuseInPlaceReceive(recvBuf, "reduce", "pass IN_PLACE as the send buffer at root to reduce in place");
        out = BufferArguments.buffer(recvBuf, recvOffset, count, t, "reduce receive");
      } else if (sendBuf == IN_PLACE) {
        throw RmaException.of(ErrorClass.BUFFER, "reduce: Comm.IN_PLACE is the send buffer of root %d only; rank %d "
            + "must pass its contribution", root, rank());
      }
      byte[] data = reductionInput(sendBuf, sendOffset, out, count, t, "reduce");
      MemoryRef result = out;
      return coll.reduce(data, combiner, root).map(r -> {
        if (result != null) {
          unpackExactly(r, result, t, count, "reduce");
        }
        return null;
      });
    }));
  }

  /** MPI_Allreduce. */
  Future<Void> allreduce(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count,
      Datatype type, Reduction op) {
    return comm.call(() -> coll.checked(CollectiveKind.ALLREDUCE, () -> DatatypeEngine.packedSize(BufferArguments.typeMap(type, "allreduce"), count), () -> {
      TypeMap t = BufferArguments.typeMap(type, "allreduce");
      Combiner combiner = Combiner.of(op, type, count, "allreduce", rank());
      refuseInPlaceReceive(recvBuf, "allreduce", "pass IN_PLACE as the send buffer to reduce in place");
      MemoryRef out = BufferArguments.buffer(recvBuf, recvOffset, count, t, "allreduce receive");
      byte[] data = reductionInput(sendBuf, sendOffset, out, count, t, "allreduce");
      return coll.allreduce(data, combiner).map(result -> {
        unpackExactly(result, out, t, count, "allreduce");
        return null;
      });
    }));
  }

  /** MPI_Reduce_scatter. */
  Future<Void> reduceScatter(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int[] recvCounts,
      Datatype type, Reduction op) {
    return comm.call(() -> coll.checked(CollectiveKind.REDUCE_SCATTER, null, () -> {
      if (recvCounts == null || recvCounts.length != size()) {
        throw RmaException.of(ErrorClass.ARG, "reduceScatter: recvCounts has %s entries; it needs one per rank (%d)",
            recvCounts == null ? "no (null)" : String.valueOf(recvCounts.length), size());
      }
      return reduceScatter(sendBuf, sendOffset, recvBuf, recvOffset, recvCounts.clone(), type, op, "reduceScatter");
    }));
  }

  /** MPI_Reduce_scatter_block. */
  Future<Void> reduceScatterBlock(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int recvCount,
      Datatype type, Reduction op) {
    return comm.call(() -> coll.checked(CollectiveKind.REDUCE_SCATTER, null, () -> {
      if (recvCount < 0) {
        throw RmaException.of(ErrorClass.COUNT, "reduceScatterBlock: count %d is negative", recvCount);
      }
      int[] counts = new int[size()];
      Arrays.fill(counts, recvCount);
      return reduceScatter(sendBuf, sendOffset, recvBuf, recvOffset, counts, type, op, "reduceScatterBlock");
    }));
  }

  /** MPI_Reduce_scatter with {@code counts} (one per rank, already of the right length). */
  private Future<Void> reduceScatter(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int[] counts,
      Datatype type, Reduction op, String what) {
    TypeMap t = BufferArguments.typeMap(type, what);
    if (op == null) {
      throw RmaException.of(ErrorClass.OP, "%s: op is null", what);
    }
    long total = 0;
    int[] blockBytes = new int[counts.length];
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] < 0) {
        throw RmaException.of(ErrorClass.COUNT, "%s: the count of rank %d is %d, negative", what, i, counts[i]);
      }
      total += counts[i];
      blockBytes[i] = DatatypeEngine.packedBlockSize(t, counts[i]);
    }
    if (total > Integer.MAX_VALUE) {
      throw RmaException.of(ErrorClass.COUNT, "%s: the counts add up to %d elements, more than a call can take",
          what, total);
    }
    int all = (int) total;
    Combiner combiner = Combiner.of(op, type, all, what, rank());
    int mine = counts[rank()];
    refuseInPlaceReceive(recvBuf, what, "pass IN_PLACE as the send buffer to take the input from the receive "
        + "buffer");
    MemoryRef out;
    byte[] data;
    if (sendBuf == IN_PLACE) {
      // the whole input is in the receive buffer; this rank's block of the result goes to its start
      out = BufferArguments.buffer(recvBuf, recvOffset, all, t,
          what + " receive (IN_PLACE: holds the input of every rank's block)");
      data = DatatypeEngine.pack(out.base(), out.address(), t, all);
    } else {
      data = reductionInput(sendBuf, sendOffset, null, all, t, what);
      out = BufferArguments.buffer(recvBuf, recvOffset, mine, t, what + " receive");
    }
    return coll.reduceScatter(data, combiner, blockBytes).map(block -> {
      unpackExactly(block, out, t, mine, what);
      return null;
    });
  }

  /** MPI_Scan. */
  Future<Void> scan(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op) {
    return scan(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op, false);
  }

  /** MPI_Exscan: rank 0 receives nothing, its receive buffer left as it was. */
  Future<Void> exscan(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op) {
    return scan(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op, true);
  }

  private Future<Void> scan(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op, boolean exclusive) {
    String what = exclusive ? "exscan" : "scan";
    return comm.call(() -> coll.checked(CollectiveKind.SCAN, null, () -> {
      TypeMap t = BufferArguments.typeMap(type, what);
      Combiner combiner = Combiner.of(op, type, count, what, rank());
      refuseInPlaceReceive(recvBuf, what, "pass IN_PLACE as the send buffer to scan in place");
      MemoryRef out = BufferArguments.buffer(recvBuf, recvOffset, count, t, what + " receive");
      byte[] data = reductionInput(sendBuf, sendOffset, out, count, t, what);
      return coll.scan(data, combiner, exclusive).map(result -> {
        if (result != null) { // exscan at rank 0: no result, the buffer is left as it was
          unpackExactly(result, out, t, count, what);
        }
        return null;
      });
    }));
  }

  /** MPI_Allreduce of one double. */
  Future<Double> allreduce(double value, Reduction op) {
    double[] in = {value};
    double[] out = new double[1];
    return allreduce(Buf.of(in), 0, Buf.of(out), 0, 1, Datatype.DOUBLE, op).map(v -> out[0]);
  }

  /** MPI_Allreduce of one long. */
  Future<Long> allreduce(long value, Reduction op) {
    long[] in = {value};
    long[] out = new long[1];
    return allreduce(Buf.of(in), 0, Buf.of(out), 0, 1, Datatype.LONG, op).map(v -> out[0]);
  }
}
