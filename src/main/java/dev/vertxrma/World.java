package dev.vertxrma;

import io.vertx.core.Future;
import java.util.List;

/**
 * A long-lived job for services: the ranks this JVM hosts, started by
 * {@link Rma#world(io.vertx.core.Vertx, JobOptions)} and open until {@link #close()} — the
 * {@code MPI_Init} … {@code MPI_Finalize} bracket of a process that serves requests instead of
 * running one program to completion.
 *
 * <h2>Concurrency contract</h2>
 *
 * Every call of a {@link Comm} or {@link Win} may be made from any thread (an HTTP request
 * handler on another event loop, a worker, a virtual thread): it is handed to the rank's own
 * context, in the order of the calls from that thread, and its future completes there. Many
 * requests may use one rank at once with these rules, which are MPI's:
 * <ul>
 *   <li><b>Passive target: open the epoch once, share it.</b> MPI lets a rank hold one lock per
 *       target window at a time, so a {@code lock} per request fails with
 *       {@link ErrorClass#RMA_SYNC} when another request of the same rank holds it. A service
 *       opens {@link Win#lockAll(Mode...)} once after creating the window (it belongs to the
 *       world, not to a request) and every request issues its operations and completes them
 *       with {@link Win#flush(int)}: a flush completes every operation the rank issued to that
 *       target before it, the request's own included. {@code unlockAll} and {@code free} at
 *       shutdown.</li>
 *   <li><b>Atomicity</b> comes from the operations, not from the epoch: {@code fetchAndOp},
 *       {@code compareAndSwap}, {@code accumulate} and {@code getAccumulate} on the same
 *       location are atomic with respect to each other, from any rank and any request.</li>
 *   <li><b>Collectives</b> (barrier, allreduce, window creation, fence) are calls of every rank
 *       of the communicator, matched in the order each rank makes them: issue them from one
 *       place per rank (the service's start-up or shutdown), never from concurrent requests.</li>
 * </ul>
 */
public interface World {

  /**
   * The job's name.
   *
   * @return {@link JobOptions#getJobName()}, the same in every JVM of the job
   */
  String jobName();

  /**
   * MPI_Comm_size of the world: the number of ranks of the whole job, in every JVM.
   *
   * @return {@link JobOptions#getNp()}
   */
  int size();

  /**
   * The ranks this JVM hosts.
   *
   * @return their rank numbers, in rank order (a new list)
   */
  List<Integer> localRanks();

  /**
   * The world communicator ({@code MPI_COMM_WORLD}) as seen by rank {@code rank}.
   *
   * @param rank a rank hosted by this JVM
   * @return the rank's communicator, open until {@link #close()}
   * @throws RmaException {@link ErrorClass#RANK} when {@code rank} is not hosted here;
   *     {@link ErrorClass#ARG} after {@link #close()}
   */
  Comm rank(int rank);

  /**
   * {@code MPI_Finalize} of every local rank: a barrier of all ranks of the job (so no rank goes
   * away while another may still access its windows), or, when the job goes on after a rank's
   * death ({@link FailurePolicy#CONTINUE}), an agreement of the surviving ranks
   * ({@link Comm#agree}); then the ranks are undeployed and their memory released (windows not
   * freed by then are released too). Every JVM of the job must close its part (every surviving
   * one, under {@link FailurePolicy#CONTINUE}). Calling it again returns the same future.
   *
   * @return completes when this JVM's ranks are gone; fails with the barrier's error
   *     ({@link ErrorClass#PROC_FAILED} when a rank died under {@link FailurePolicy#ABORT},
   *     {@link ErrorClass#TIMEOUT} when a rank in another JVM does not close within the wait
   *     timeout) after releasing everything all the same
   */
  Future<Void> close();
}
