package dev.vertxrma;

import io.vertx.core.Future;
import java.util.List;

/**
 * The code one rank runs, MPI-style: it is given the job's world communicator and the program
 * arguments, and returns a future that completes when the rank is done. It runs on the rank's
 * event loop: it must never block; it composes futures instead.
 */
@FunctionalInterface
public interface RankProgram {

  /**
   * Runs this rank's part of the job.
   *
   * @param world the communicator of all ranks of the job (MPI_COMM_WORLD)
   * @param args the program arguments given to the launcher after the program name
   * @return a future completing when the rank has finished; a failure fails the job
   */
  Future<?> run(Comm world, List<String> args);
}
