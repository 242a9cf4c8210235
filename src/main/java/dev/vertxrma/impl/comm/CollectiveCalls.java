package dev.vertxrma.impl.comm;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Reduction;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.observe.RankObserver;
import io.vertx.core.Future;
import java.util.function.Supplier;

/**
 * The collective calls of the {@link Comm} facade: MPI_Barrier; the data movements MPI_Bcast,
 * MPI_Gather, MPI_Allgather, MPI_Scatter, MPI_Alltoall and their vector variants, handed to
 * {@link CollectiveMoves}; the global reductions MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter,
 * MPI_Reduce_scatter_block, MPI_Scan and MPI_Exscan, handed to {@link GlobalReductions}. Each runs
 * through the communicator's {@link CommImpl#call}. {@link CommImpl}, the facade, extends it and
 * names those parts.
 */
abstract class CollectiveCalls implements Comm {

  /** The communicator's collectives, where the calls of every rank match in call order. */
  abstract Collectives collectives();

  /** The part that runs this communicator's data movements. */
  abstract CollectiveMoves moves();

  /** The part that runs this communicator's global reductions. */
  abstract GlobalReductions reductions();

  /** This rank's trace ({@link RankObserver#NOOP} when the job is not traced). */
  abstract RankObserver trace();

  /** {@code done}, the collective call {@code name} made now, told to the rank's trace: a slice from call to end. */
  private <T> Future<T> traced(String name, int root, Future<T> done) {
    return trace().collective(name, root, done);
  }

  /** {@link CommImpl#call(Supplier)}: on the rank's context, its failure shown to the communicator's error handler. */
  abstract <T> Future<T> call(Supplier<Future<T>> body);

  @Override
  public Future<Void> barrier() {
    return traced("barrier", -1, call(collectives()::barrier));
  }

  /** MPI_Finalize's barrier: {@link #barrier} as the trace names it ({@code finalize}). */
  public Future<Void> finalizeBarrier() {
    return traced("finalize", -1, call(collectives()::barrier));
  }

  @Override
  public Future<Void> bcast(Buf buf, int offset, int count, Datatype type, int root) {
    return traced("bcast", root, moves().bcast(buf, offset, count, type, root));
  }

  @Override
  public Future<Void> gather(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root) {
    return traced("gather", root,
        moves().gather(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, recvCount, recvType, root));
  }

  @Override
  public Future<Void> allgather(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType) {
    return traced("allgather", -1,
        moves().allgather(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, recvCount, recvType));
  }

  @Override
  public Future<Void> scatter(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType, int root) {
    return traced("scatter", root,
        moves().scatter(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, recvCount, recvType, root));
  }

  @Override
  public Future<Void> alltoall(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int recvCount, Datatype recvType) {
    return traced("alltoall", -1,
        moves().alltoall(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, recvCount, recvType));
  }

  @Override
  public Future<Void> gatherv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int[] recvCounts, int[] displs, Datatype recvType, int root) {
    return traced("gatherv", root,
        moves().gatherv(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, recvCounts, displs, recvType,
        root));
  }

  @Override
  public Future<Void> allgatherv(Buf sendBuf, int sendOffset, int sendCount, Datatype sendType, Buf recvBuf,
      int recvOffset, int[] recvCounts, int[] displs, Datatype recvType) {
    return traced("allgatherv", -1,
        moves().allgatherv(sendBuf, sendOffset, sendCount, sendType, recvBuf, recvOffset, recvCounts, displs,
        recvType));
  }

  @Override
  public Future<Void> scatterv(Buf sendBuf, int sendOffset, int[] sendCounts, int[] displs, Datatype sendType,
      Buf recvBuf, int recvOffset, int recvCount, Datatype recvType, int root) {
    return traced("scatterv", root,
        moves().scatterv(sendBuf, sendOffset, sendCounts, displs, sendType, recvBuf, recvOffset, recvCount, recvType,
        root));
  }

  @Override
  public Future<Void> alltoallv(Buf sendBuf, int sendOffset, int[] sendCounts, int[] sdispls, Datatype sendType,
      Buf recvBuf, int recvOffset, int[] recvCounts, int[] rdispls, Datatype recvType) {
    return traced("alltoallv", -1,
        moves().alltoallv(sendBuf, sendOffset, sendCounts, sdispls, sendType, recvBuf, recvOffset, recvCounts,
        rdispls, recvType));
  }

  @Override
  public Future<Void> reduce(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count,
      Datatype type, Reduction op, int root) {
    return traced("reduce", root, reductions().reduce(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op, root));
  }

  @Override
  public Future<Void> allreduce(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count,
      Datatype type, Reduction op) {
    return traced("allreduce", -1, reductions().allreduce(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op));
  }

  @Override
  public Future<Double> allreduce(double value, Reduction op) {
    return traced("allreduce", -1, reductions().allreduce(value, op));
  }

  @Override
  public Future<Long> allreduce(long value, Reduction op) {
    return traced("allreduce", -1, reductions().allreduce(value, op));
  }

  @Override
  public Future<Void> reduceScatter(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int[] recvCounts,
      Datatype type, Reduction op) {
    return traced("reduce_scatter", -1,
        reductions().reduceScatter(sendBuf, sendOffset, recvBuf, recvOffset, recvCounts, type, op));
  }

  @Override
  public Future<Void> reduceScatterBlock(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int recvCount,
      Datatype type, Reduction op) {
    return traced("reduce_scatter_block", -1,
        reductions().reduceScatterBlock(sendBuf, sendOffset, recvBuf, recvOffset, recvCount, type, op));
  }

  @Override
  public Future<Void> scan(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op) {
    return traced("scan", -1, reductions().scan(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op));
  }

  @Override
  public Future<Void> exscan(Buf sendBuf, int sendOffset, Buf recvBuf, int recvOffset, int count, Datatype type,
      Reduction op) {
    return traced("exscan", -1, reductions().exscan(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op));
  }
}
