package dev.vertxrma.rx;

import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Op;
import dev.vertxrma.Status;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;

/**
 * RxJava 3 view of a {@link Comm}: the same calls, as cold {@link Completable}s and
 * {@link Single}s (the call is made on subscription). See {@link Comm} for each call's meaning
 * and errors.
 */
public final class RxComm {

  private final Comm comm;

  private RxComm(Comm comm) {
    this.comm = comm;
  }

  /** The RxJava view of {@code comm}. */
  public static RxComm of(Comm comm) {
    return new RxComm(comm);
  }

  /** The underlying communicator. */
  public Comm delegate() {
    return comm;
  }

  /** MPI_Comm_rank. */
  public int rank() {
    return comm.rank();
  }

  /** MPI_Comm_size. */
  public int size() {
    return comm.size();
  }

  /** MPI_Send ({@link Comm#send}). */
  public Completable send(Object buf, int offset, int count, Datatype type, int dest, int tag) {
    return Deferred.completable(() -> comm.send(buf, offset, count, type, dest, tag));
  }

  /** MPI_Ssend ({@link Comm#ssend}). */
  public Completable ssend(Object buf, int offset, int count, Datatype type, int dest, int tag) {
    return Deferred.completable(() -> comm.ssend(buf, offset, count, type, dest, tag));
  }

  /** MPI_Bsend ({@link Comm#bsend}). */
  public Completable bsend(Object buf, int offset, int count, Datatype type, int dest, int tag) {
    return Deferred.completable(() -> comm.bsend(buf, offset, count, type, dest, tag));
  }

  /** MPI_Recv ({@link Comm#recv}): the status of the received message. */
  public Single<Status> recv(Object buf, int offset, int count, Datatype type, int source, int tag) {
    return Deferred.single(() -> comm.recv(buf, offset, count, type, source, tag));
  }

  /** MPI_Barrier. */
  public Completable barrier() {
    return Deferred.completable(comm::barrier);
  }

  /** MPI_Bcast. */
  public Completable bcast(Object buf, int offset, int count, Datatype type, int root) {
    return Deferred.completable(() -> comm.bcast(buf, offset, count, type, root));
  }

  /** MPI_Allreduce of one double. */
  public Single<Double> allreduce(double value, Op op) {
    return Deferred.single(() -> comm.allreduce(value, op));
  }

  /** MPI_Allreduce of one long. */
  public Single<Long> allreduce(long value, Op op) {
    return Deferred.single(() -> comm.allreduce(value, op));
  }

  /** MPI_Allreduce. */
  public Completable allreduce(Object sendBuf, int sendOffset, Object recvBuf, int recvOffset, int count,
      Datatype type, Op op) {
    return Deferred.completable(() -> comm.allreduce(sendBuf, sendOffset, recvBuf, recvOffset, count, type, op));
  }
}
