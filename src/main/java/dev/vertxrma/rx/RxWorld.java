package dev.vertxrma.rx;

import dev.vertxrma.World;
import io.reactivex.rxjava3.core.Completable;
import java.util.List;

/**
 * RxJava 3 view of a {@link World}: a long-lived job whose local ranks are {@link RxComm}s. The
 * {@link World} concurrency contract applies unchanged: calls may be subscribed to from any
 * thread, and their results are emitted on the rank's event loop.
 */
public final class RxWorld {

  private final World world;

  private RxWorld(World world) {
    RxJava.require();
    this.world = world;
  }

  /**
   * The RxJava view of a world.
   *
   * @param world the world to wrap
   * @return a view whose calls go to {@code world}
   */
  public static RxWorld of(World world) {
    return new RxWorld(world);
  }

  /**
   * The underlying world.
   *
   * @return the wrapped {@link World}
   */
  public World delegate() {
    return world;
  }

  /**
   * The job's name ({@link World#jobName}).
   *
   * @return the name, the same in every JVM of the job
   */
  public String jobName() {
    return world.jobName();
  }

  /**
   * MPI_Comm_size of the world ({@link World#size}).
   *
   * @return the number of ranks of the whole job
   */
  public int size() {
    return world.size();
  }

  /**
   * The ranks this JVM hosts ({@link World#localRanks}).
   *
   * @return the local ranks, in rank order
   */
  public List<Integer> localRanks() {
    return world.localRanks();
  }

  /**
   * MPI_COMM_WORLD as seen by one local rank ({@link World#rank}). Throws, at once, RANK when
   * {@code rank} is not hosted here and ARG after {@link #close()}.
   *
   * @param rank a rank hosted by this JVM
   * @return the rank's communicator, open until {@link #close()}
   */
  public RxComm rank(int rank) {
    return RxComm.of(world.rank(rank));
  }

  /**
   * MPI_Finalize of every local rank ({@link World#close}): a barrier of the whole job, then the
   * ranks are undeployed. Subscribing again waits for the same close. Fails with the barrier's
   * error (e.g. PROC_FAILED), after releasing everything all the same.
   *
   * @return completes when this JVM's ranks are gone
   */
  public Completable close() {
    return Deferred.completable(world::close);
  }
}
