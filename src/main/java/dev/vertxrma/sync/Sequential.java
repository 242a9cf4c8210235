package dev.vertxrma.sync;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.Set;

/**
 * Turns in rank order (mpi4py's {@code Sequential}): between {@link #begin()} and {@link #end()}
 * the ranks of a communicator run one at a time, rank 0 first, each after the rank before it
 * called {@code end()}. Rank {@code r}'s {@code begin()} completes when rank {@code r - 1}'s turn
 * message arrives (a message on a private duplicate of the communicator; no polling); a rank's
 * {@code end()} sends it to the next. Rounds may repeat, and do not overlap: the last rank's
 * {@code end()} passes the turn back to rank 0, whose k-th {@code begin()} waits for the last
 * rank's (k-1)-th {@code end()} (mpi4py lets rank 0 start the next round at once).
 *
 * <p>Errors: {@link ErrorClass#RMA_SYNC} for {@code end()} without {@code begin()} or a second
 * {@code begin()} before {@code end()}; {@link ErrorClass#PROC_FAILED} at a waiting rank whose
 * predecessor died before its turn ended.
 */
public final class Sequential {

  private static final int TURN = 1;

  private final SyncChannel channel;
  /** Turns the rank before this one has ended, not yet used by a begin(). */
  private int ended;
  private Promise<Void> waiting;
  private boolean inTurn;

  private Sequential(SyncChannel channel) {
    this.channel = channel;
    this.ended = channel.me == 0 ? 1 : 0; // rank 0's first turn needs nobody's end
  }

  private int before() {
    return (channel.me + channel.comm.size() - 1) % channel.comm.size();
  }

  /**
   * Creates the turns; collective over {@code comm} (a duplicate of it carries the messages).
   *
   * @param comm the ranks that take turns, in their rank order
   * @return completes at every rank once every rank has created it. Fails as {@code Comm.dup} fails
   */
  public static Future<Sequential> create(Comm comm) {
    return SyncChannel.open(comm, 0, 0, "Sequential.create", win -> { }).map(ch -> {
      Sequential s = new Sequential(ch);
      ch.listen(new SyncChannel.Listener() {
        @Override
        public void onMessage(int source, int tag, long[] message) {
          if (tag == TURN && source == s.before()) {
            s.ended++;
            s.admit();
          }
        }

        @Override
        public void onDeaths(Set<Integer> dead) {
          if (s.waiting != null && dead.contains(s.before())) {
            Promise<Void> p = s.waiting;
            s.waiting = null;
            p.fail(RmaException.of(ErrorClass.PROC_FAILED, "Sequential.begin at rank %d: rank %d, whose turn comes "
                + "before, died", ch.me, s.before()));
          }
        }
      });
      return s;
    });
  }

  /**
   * Waits for this rank's turn.
   *
   * @return completes when every lower rank has ended its turn of this round (at rank 0: at
   *     once the first time, then when the last rank ended the round before)
   */
  public Future<Void> begin() {
    return channel.onContext(() -> {
      if (inTurn || waiting != null) {
        return Future.failedFuture(RmaException.of(ErrorClass.RMA_SYNC, "Sequential.begin at rank %d: the turn "
            + "begun before has not ended", channel.me));
      }
      inTurn = true;
      waiting = Promise.promise();
      Future<Void> f = waiting.future();
      admit();
      return f;
    });
  }

  private void admit() {
    if (waiting != null && ended > 0) {
      ended--;
      Promise<Void> p = waiting;
      waiting = null;
      p.complete();
    }
  }

  /**
   * Ends this rank's turn: the next rank's {@link #begin()} may complete.
   *
   * @return completes once the turn is passed on. Fails with {@link ErrorClass#RMA_SYNC} when no
   *     turn was begun
   */
  public Future<Void> end() {
    return channel.onContext(() -> {
      if (!inTurn || waiting != null) {
        return Future.failedFuture(RmaException.of(ErrorClass.RMA_SYNC, "Sequential.end at rank %d: no turn was "
            + "begun (or it has not started yet)", channel.me));
      }
      inTurn = false;
      channel.send((channel.me + 1) % channel.comm.size(), TURN, 0, 0, 0);
      return Future.succeededFuture();
    });
  }

  /**
   * Frees it; collective.
   *
   * @return completes once every rank freed it
   */
  public Future<Void> free() {
    return channel.free();
  }
}
