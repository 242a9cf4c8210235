package dev.vertxrma.impl.observe;

import io.vertx.core.Future;

/**
 * The one observation point of the library: what a rank's windows do, told as it happens, to the
 * trace recorder ({@link TraceRecorder}) and the metrics ({@code dev.vertxrma.metrics.RmaMetrics}).
 * Every call is made on the rank's context (the thread that runs the window's origin side), in
 * program order.
 *
 * <p>Off by default: a window gets {@link #NOOP}, whose methods do nothing and return their
 * argument, so that the JIT inlines them away (no clock read, no allocation). The hooks that call
 * these methods are one line each, where the events happen: {@code WinImpl} (operations, every
 * synchronization call, failed calls), {@code CompletionTracker} (an operation completes) and
 * {@code WindowFactory} (a window is created).
 */
public interface RankObserver {

  /** Observes nothing, at no cost. */
  RankObserver NOOP = new RankObserver() {
  };

  /**
   * Window {@code win} was created here (collectively agreed).
   *
   * @param flavor its create flavor (create, allocate, dynamic, shared)
   * @param size its size at this rank in bytes (0 for a dynamic window)
   */
  default void windowCreated(int win, String flavor, long size) {
  }

  /** Window {@code win} was freed, or released when its rank ended. */
  default void windowFreed(int win) {
  }

  /**
   * An RMA operation leaves for {@code target} (held ones when their epoch lets them go).
   *
   * @param kind its frame type: {@code FrameType.PUT}, {@code GET}, {@code ACC}, {@code GET_ACC}
   *     (also fetch-and-op) or {@code CAS}
   * @param bytes the bytes it moves at the target (the target datatype's size times the count)
   * @param seq its issue number at that target, which {@link #opCompleted} repeats
   */
  default void opIssued(int win, byte kind, int target, long bytes, long seq) {
  }

  /** Issued operation {@code seq} to {@code target} is complete (its target answered, if it had to). */
  default void opCompleted(int win, int target, long seq, boolean failed) {
  }

  /**
   * A synchronization call was made now; {@code done} completes when it does (a lock when it is
   * granted: the wait for a lock is the time to {@code done}).
   *
   * @param peer the target of lock, unlock and flush; -1 for the others
   * @return {@code done} itself
   */
  default <T> Future<T> sync(int win, Sync kind, int peer, Future<T> done) {
    return done;
  }

  /**
   * A point-to-point message leaves for job rank {@code dst} (MPI_Send in any mode, MPI_Isend...).
   *
   * @param bytes its packed size
   * @param seq its number among this rank's messages, which travels with it and which
   *     {@link #messageReceived} repeats at {@code dst}
   */
  default void messageSent(int dst, int tag, long bytes, long seq) {
  }

  /**
   * A message from job rank {@code src} was received here: it matched a receive (MPI_Recv,
   * MPI_Irecv, MPI_Mrecv...) and its data is in the receive buffer.
   *
   * @param seq the number {@link #messageSent} gave it at {@code src}
   */
  default void messageReceived(int src, int tag, long bytes, long seq) {
  }

  /**
   * A collective call of a communicator was made now; {@code done} completes when it does.
   *
   * @param name the call's MPI name in lower case without the prefix ({@code allreduce},
   *     {@code bcast}, ...; {@link RankTimeline#COLLECTIVE_NAMES})
   * @param root its root in the communicator's ranks, or -1
   * @return {@code done} itself
   */
  default <T> Future<T> collective(String name, int root, Future<T> done) {
    return done;
  }

  /**
   * A call of window {@code win} was made now; observes its failure (the error class).
   *
   * @return {@code call} itself
   */
  default <T> Future<T> failures(int win, Future<T> call) {
    return call;
  }

  /**
   * {@code o} told of job ranks where a window on a communicator other than the world names its
   * targets and lock peers in the communicator's ranks: {@code toJobRank} maps them (the trace's
   * lanes and the metrics' tags are job ranks).
   *
   * @return an observer that maps the ranks, or {@code o} itself if it is {@link #NOOP}
   */
  static RankObserver inJobRanks(RankObserver o, java.util.function.IntUnaryOperator toJobRank) {
    if (o == NOOP) {
      return o;
    }
    return new RankObserver() {
      @Override
      public void windowCreated(int win, String flavor, long size) {
        o.windowCreated(win, flavor, size);
      }

      @Override
      public void windowFreed(int win) {
        o.windowFreed(win);
      }

      @Override
      public void opIssued(int win, byte kind, int target, long bytes, long seq) {
        o.opIssued(win, kind, toJobRank.applyAsInt(target), bytes, seq);
      }

      @Override
      public void opCompleted(int win, int target, long seq, boolean failed) {
        o.opCompleted(win, toJobRank.applyAsInt(target), seq, failed);
      }

      @Override
      public <T> Future<T> sync(int win, Sync kind, int peer, Future<T> done) {
        return o.sync(win, kind, peer < 0 ? peer : toJobRank.applyAsInt(peer), done);
      }

      @Override
      public <T> Future<T> failures(int win, Future<T> call) {
        return o.failures(win, call);
      }
    };
  }

  /**
   * Both observers, {@code a} told first; NOOP ones left out.
   *
   * @return an observer that tells both
   */
  static RankObserver both(RankObserver a, RankObserver b) {
    if (a == NOOP) {
      return b;
    }
    if (b == NOOP) {
      return a;
    }
    return new RankObserver() {
      @Override
      public void windowCreated(int win, String flavor, long size) {
        a.windowCreated(win, flavor, size);
        b.windowCreated(win, flavor, size);
      }

      @Override
      public void windowFreed(int win) {
        a.windowFreed(win);
        b.windowFreed(win);
      }

      @Override
      public void opIssued(int win, byte kind, int target, long bytes, long seq) {
        a.opIssued(win, kind, target, bytes, seq);
        b.opIssued(win, kind, target, bytes, seq);
      }

      @Override
      public void opCompleted(int win, int target, long seq, boolean failed) {
        a.opCompleted(win, target, seq, failed);
        b.opCompleted(win, target, seq, failed);
      }

      @Override
      public <T> Future<T> sync(int win, Sync kind, int peer, Future<T> done) {
        return b.sync(win, kind, peer, a.sync(win, kind, peer, done));
      }

      @Override
      public <T> Future<T> failures(int win, Future<T> call) {
        return b.failures(win, a.failures(win, call));
      }

      @Override
      public void messageSent(int dst, int tag, long bytes, long seq) {
        a.messageSent(dst, tag, bytes, seq);
        b.messageSent(dst, tag, bytes, seq);
      }

      @Override
      public void messageReceived(int src, int tag, long bytes, long seq) {
        a.messageReceived(src, tag, bytes, seq);
        b.messageReceived(src, tag, bytes, seq);
      }

      @Override
      public <T> Future<T> collective(String name, int root, Future<T> done) {
        return b.collective(name, root, a.collective(name, root, done));
      }
    };
  }
}
