package dev.vertxrma.impl.comm;

import static dev.vertxrma.Comm.IN_PLACE;
import static dev.vertxrma.impl.comm.Blocks.refuseInPlaceReceive;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.coll.CollectiveKind;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.memory.MemoryRef;
import dev.vertxrma.impl.ops.BufferArguments;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.TypeMap;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * The collective move functions of one communicator, as the MPI standard calls them: MPI_Bcast,
 * MPI_Gather, MPI_Allgather, MPI_Scatter, MPI_Alltoall and the vector variants (MPI_Gatherv,
 * MPI_Allgatherv, MPI_Scatterv, MPI_Alltoallv), with MPI's {@code IN_PLACE} rules. Each call
 * checks its root and its buffers at this rank ({@link Blocks}, {@link VectorBlocks}) before it
 * sends anything, packs its blocks, runs the communicator's {@link Collectives} over the packed
 * bytes and unpacks what it receives. Every call runs through {@link CommImpl#call}.
 */
final class CollectiveMoves {

  private final CommImpl comm;
  private final Collectives coll;

  CollectiveMoves(CommImpl comm, Collectives coll) {
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

  /** MPI_Bcast. */
  Future<Void> bcast(Buf buf, int offset, int count, Datatype type, int root) {
    return comm.call(() -> coll.checked(CollectiveKind.BCAST, () -> DatatypeEngine.packedSize(BufferArguments.typeMap(type, "bcast"), count), () -> {
      TypeMap t = BufferArguments.typeMap(type, "bcast");
      MemoryRef mem = BufferArguments.buffer(buf, offset, count, t, "bcast");
      comm.checkRoot(root, "bcast");
      int bytes = DatatypeEngine.packedBlockSize(t, count); // checked at every rank: the root's block must be one
      byte[] data = rank() == root ? DatatypeEngine.pack(mem.base(), mem.address(), t, count) : null;
      return coll.bcast(data, root, bytes).map(block -> {
        if (rank() != root) {
          unpackExactly(block, mem, t, count, "bcast from root " + root);
        }
        return null;
      });
    }));
  }

  /** MPI_Gather; at root, {@code IN_PLACE} as the send buffer leaves its block in place. */
  Future<Void> gather(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root) {
    return comm.call(() -> coll.checked(CollectiveKind.GATHER, null, () -> {
      comm.checkRoot(root, "gather");
      boolean inPlace = sendBuf == IN_PLACE;
      Blocks out = null;
      byte[] mine;
      if (rank() == root) {
        refuseInPlaceReceive(recvBuf, "gather", "pass IN_PLACE as the send buffer at root, its block being in place");
        out = new Blocks(recvBuf, recvOffset, recvCount, recvType, size(), "gather receive");
        // IN_PLACE: root's block is already at block root of the receive buffer; send count and type are ignored
        mine = inPlace ? out.pack(root) : new Blocks(sendBuf, sendOffset, sendCount, sendType, 1, "gather send").pack(0);
      } else if (inPlace) {
        throw RmaException.of(ErrorClass.BUFFER, "gather: Comm.IN_PLACE is the send buffer of root %d only; rank %d "
            + "must pass its block", root, rank());
      } else {
        mine = new Blocks(sendBuf, sendOffset, sendCount, sendType, 1, "gather send").pack(0);
      }
      Blocks received = out;
      return coll.gather(mine, root).map(parts -> {
        if (received != null) {
          unpackAll(received, parts, inPlace, "gather");
        }
        return null;
      });
    }));
  }

  /** Unpacks block {@code i} of {@code parts} into block {@code i} of {@code out}; in place, this rank's own is there already. */
  private void unpackAll(Blocks out, List<byte[]> parts, boolean inPlace, String what) {
    for (int i = 0; i < parts.size(); i++) {
      if (!(inPlace && i == rank())) {
        out.unpack(i, parts.get(i), what, rank());
      }
    }
  }

  /** MPI_Allgather. */
  Future<Void> allgather(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType) {
    return comm.call(() -> coll.checked(CollectiveKind.ALLGATHER, null, () -> {
      refuseInPlaceReceive(recvBuf, "allgather", "pass IN_PLACE as the send buffer, this rank's block being in place");
      boolean inPlace = sendBuf == IN_PLACE;
      Blocks out = new Blocks(recvBuf, recvOffset, recvCount, recvType, size(), "allgather receive");
      byte[] mine = inPlace ? out.pack(rank())
          : new Blocks(sendBuf, sendOffset, sendCount, sendType, 1, "allgather send").pack(0);
      return coll.allgather(mine).map(parts -> {
        unpackAll(out, parts, inPlace, "allgather");
        return null;
      });
    }));
  }

  /** MPI_Scatter; at root, {@code IN_PLACE} as the receive buffer leaves its block in place. */
  Future<Void> scatter(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root) {
    return comm.call(() -> coll.checked(CollectiveKind.SCATTER, null, () -> {
      comm.checkRoot(root, "scatter");
      boolean inPlace = rank() == root && recvBuf == IN_PLACE;
      // IN_PLACE at root: its block stays in the send buffer; receive count and type are ignored
      Blocks out = inPlace ? null : new Blocks(recvBuf, recvOffset, recvCount, recvType, 1, "scatter receive");
      List<byte[]> blocks = null;
      if (rank() == root) {
        Blocks in = new Blocks(sendBuf, sendOffset, sendCount, sendType, size(), "scatter send");
        blocks = new ArrayList<>();
        for (int i = 0; i < size(); i++) {
          blocks.add(inPlace && i == root ? new byte[0] : in.pack(i));
        }
      }
      return coll.scatter(blocks, root).map(block -> {
        if (out != null) {
          out.unpack(0, block, "scatter", rank());
        }
        return null;
      });
    }));
  }

  /** MPI_Alltoall. */
  Future<Void> alltoall(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType) {
    return comm.call(() -> coll.checked(CollectiveKind.ALLTOALL, null, () -> {
      refuseInPlaceReceive(recvBuf, "alltoall", "pass IN_PLACE as the send buffer to exchange in place");
      boolean inPlace = sendBuf == IN_PLACE;
      Blocks out = new Blocks(recvBuf, recvOffset, recvCount, recvType, size(), "alltoall receive");
      // IN_PLACE: the blocks to send are read (packed) from the receive buffer before any is replaced
      Blocks in = inPlace ? out : new Blocks(sendBuf, sendOffset, sendCount, sendType, size(), "alltoall send");
      List<byte[]> blocks = new ArrayList<>();
      for (int i = 0; i < size(); i++) {
        blocks.add(inPlace && i == rank() ? null : in.pack(i));
      }
      return coll.alltoall(blocks).map(parts -> {
        unpackAll(out, parts, inPlace, "alltoall");
        return null;
      });
    }));
  }

  /** MPI_Gatherv. */
  Future<Void> gatherv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int[] recvCounts, int[] displs, Datatype recvType, int root) {
    return comm.call(() -> coll.checked(CollectiveKind.GATHER, null, () -> {
      comm.checkRoot(root, "gatherv");
      boolean inPlace = sendBuf == IN_PLACE;
      VectorBlocks out = null;
      byte[] mine;
      if (rank() == root) {
        refuseInPlaceReceive(recvBuf, "gatherv", "pass IN_PLACE as the send buffer at root, its block being in place");
        out = new VectorBlocks(recvBuf, recvOffset, recvCounts, displs, recvType, size(), "gatherv receive",
            "recvCounts", "displs");
        // IN_PLACE: root's block is already at displs[root] of the receive buffer; send count and type are ignored
        mine = inPlace ? out.pack(root)
            : new Blocks(sendBuf, sendOffset, sendCount, sendType, 1, "gatherv send").pack(0);
      } else if (inPlace) {
        throw RmaException.of(ErrorClass.BUFFER, "gatherv: Comm.IN_PLACE is the send buffer of root %d only; rank %d "
            + "must pass its block", root, rank());
      } else {
        mine = new Blocks(sendBuf, sendOffset, sendCount, sendType, 1, "gatherv send").pack(0);
      }
      VectorBlocks received = out;
      return coll.gather(mine, root).map(parts -> {
        if (received != null) {
          received.unpackAll(parts, inPlace ? root : -1, "gatherv");
        }
        return null;
      });
    }));
  }

  /** MPI_Allgatherv. */
  Future<Void> allgatherv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int[] recvCounts, int[] displs, Datatype recvType) {
    return comm.call(() -> coll.checked(CollectiveKind.ALLGATHER, null, () -> {
      refuseInPlaceReceive(recvBuf, "allgatherv", "pass IN_PLACE as the send buffer, this rank's block being in place");
      boolean inPlace = sendBuf == IN_PLACE;
      VectorBlocks out = new VectorBlocks(recvBuf, recvOffset, recvCounts, displs, recvType, size(),
          "allgatherv receive", "recvCounts", "displs");
      byte[] mine = inPlace ? out.pack(rank())
          : new Blocks(sendBuf, sendOffset, sendCount, sendType, 1, "allgatherv send").pack(0);
      return coll.allgather(mine).map(parts -> {
        out.unpackAll(parts, inPlace ? rank() : -1, "allgatherv");
        return null;
      });
    }));
  }

  /** MPI_Scatterv. */
  Future<Void> scatterv(Buf sendBuf, int sendOffset, int[] sendCounts, int[] displs, Datatype sendType,
      Buf recvBuf, int recvOffset, int recvCount, Datatype recvType, int root) {
    return comm.call(() -> coll.checked(CollectiveKind.SCATTER, null, () -> {
      comm.checkRoot(root, "scatterv");
      boolean inPlace = rank() == root && recvBuf == IN_PLACE;
      // IN_PLACE at root: its block stays in the send buffer; receive count and type are ignored
      Blocks out = inPlace ? null : new Blocks(recvBuf, recvOffset, recvCount, recvType, 1, "scatterv receive");
      List<byte[]> blocks = null;
      if (rank() == root) {
        VectorBlocks in = new VectorBlocks(sendBuf, sendOffset, sendCounts, displs, sendType, size(), "scatterv send",
            "sendCounts", "displs");
        blocks = new ArrayList<>();
        for (int i = 0; i < size(); i++) {
          blocks.add(inPlace && i == root ? new byte[0] : in.pack(i));
        }
      }
      return coll.scatter(blocks, root).map(block -> {
        if (out != null) {
          unpackExactly(block, out.mem, out.type, out.count, "scatterv from root " + root);
        }
        return null;
      });
    }));
  }

  /** MPI_Alltoallv. */
  Future<Void> alltoallv(Buf sendBuf, int sendOffset, int[] sendCounts, int[] sdispls, Datatype sendType,
      Buf recvBuf, int recvOffset, int[] recvCounts, int[] rdispls, Datatype recvType) {
    return comm.call(() -> coll.checked(CollectiveKind.ALLTOALL, null, () -> {
      refuseInPlaceReceive(recvBuf, "alltoallv", "pass IN_PLACE as the send buffer to exchange in place");
      boolean inPlace = sendBuf == IN_PLACE;
      VectorBlocks out = new VectorBlocks(recvBuf, recvOffset, recvCounts, rdispls, recvType, size(),
          "alltoallv receive", "recvCounts", "rdispls");
      // IN_PLACE: the blocks to send are read (packed) from the receive buffer before any is replaced
      VectorBlocks in = inPlace ? out : new VectorBlocks(sendBuf, sendOffset, sendCounts, sdispls, sendType, size(),
          "alltoallv send", "sendCounts", "sdispls");
      List<byte[]> blocks = new ArrayList<>();
      for (int i = 0; i < size(); i++) {
        blocks.add(inPlace && i == rank() ? null : in.pack(i));
      }
      return coll.alltoall(blocks).map(parts -> {
        out.unpackAll(parts, inPlace ? rank() : -1, "alltoallv");
        return null;
      });
    }));
  }
}
