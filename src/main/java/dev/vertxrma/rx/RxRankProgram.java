package dev.vertxrma.rx;

import io.reactivex.rxjava3.core.Completable;
import java.util.List;

/**
 * The code one rank runs, written with RxJava: the Rx twin of {@link dev.vertxrma.RankProgram}.
 * Turn it into a {@link dev.vertxrma.RankProgram} with {@link RxRma#program} to run it with
 * {@link RxRma#run(dev.vertxrma.JobOptions, dev.vertxrma.RankProgram)}, {@code Rma.run} or the
 * launcher. It is called on the rank's event loop and must not block there.
 */
@FunctionalInterface
public interface RxRankProgram {

  /**
   * This rank's part of the job, as a cold Completable (it is subscribed to once, on the rank's
   * event loop).
   *
   * @param world the communicator of all ranks of the job (MPI_COMM_WORLD)
   * @param args the program arguments
   * @return completes when the rank has finished; an error fails the job
   */
  Completable run(RxComm world, List<String> args);
}
