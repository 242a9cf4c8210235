package dev.vertxrma.sync;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.lang.System.Logger.Level;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What every primitive of this package stands on: a private duplicate of the caller's
 * communicator (its messages never meet the application's), a window of longs over it whose
 * memory lives at one home rank, a passive-target epoch ({@code lockAll}, NOCHECK: nobody takes
 * an exclusive lock) kept open from creation to {@link #free}, and a receive from
 * {@link Comm#ANY_SOURCE} kept posted on the duplicate that hands each message to the
 * primitive's {@link Listener} and, under {@code FailurePolicy.CONTINUE}, tells it which ranks
 * died (ULFM: such a receive fails with {@code PROC_FAILED} at a death until it is acknowledged).
 * All state of a primitive is touched on the rank's context, where this class delivers.
 */
final class SyncChannel {

  private static final System.Logger LOG = System.getLogger(SyncChannel.class.getName());
  /** Words of a message: a kind-specific payload. */
  static final int MESSAGE_LONGS = 3;
  /** Tag of the message a rank sends itself to end its listener before {@link #free}. */
  private static final int STOP = 0;

  /** What a primitive does with a message and with deaths; both run on the rank's context. */
  interface Listener {
    void onMessage(int source, int tag, long[] message);

    /** {@code dead}: every rank of the duplicate known dead so far (never shrinks). */
    void onDeaths(Set<Integer> dead);
  }

  final Comm comm;
  final Win win;
  final int home;
  final int me;
  /** The primitive, for log lines and errors. */
  final String what;
  private final Context context;
  private final Set<Integer> dead = new HashSet<>();
  private final java.util.Map<Integer, Promise<Void>> deathWatch = new java.util.HashMap<>();
  private final Promise<Void> stopped = Promise.promise();
  private Listener listener;
  private boolean freed;

  private SyncChannel(Comm comm, Win win, int home, Context context, String what) {
    this.what = what;
    this.comm = comm;
    this.win = win;
    this.home = home;
    this.me = comm.rank();
    this.context = context;
  }

  /**
   * Collective over {@code parent}: duplicates it, allocates {@code homeLongs} longs at
   * {@code home} (zero elsewhere), lets {@code init} write the home's initial words, opens the
   * epoch and meets the other ranks, so that no operation can find the words uninitialised.
   */
  static Future<SyncChannel> open(Comm parent, int home, int homeLongs, String what,
      java.util.function.Consumer<Win> init) {
    if (parent == null) {
      return Future.failedFuture(RmaException.of(ErrorClass.COMM, "%s: the communicator is null", what));
    }
    if (home < 0 || home >= parent.size()) {
      return Future.failedFuture(RmaException.of(ErrorClass.RANK,
          "%s: home rank %d is outside the communicator's ranks [0, %d)", what, home, parent.size()));
    }
    return parent.dup().compose(dup -> Win.allocate(dup, dup.rank() == home ? 8L * homeLongs : 0, Long.BYTES, Info.NULL)
        .compose(win -> {
          if (dup.rank() == home) {
            init.accept(win);
          }
          // the futures of the rank's calls complete on its context: this is it, whoever called create
          SyncChannel ch = new SyncChannel(dup, win, home, Vertx.currentContext(), what.substring(0, what.indexOf('.')));
          return win.lockAll(Mode.NOCHECK).compose(v -> dup.barrier()).map(v -> ch);
        }));
  }

  /** Starts delivering messages and deaths to {@code l}. */
  void listen(Listener l) {
    this.listener = l;
    onContext(() -> {
      post();
      return Future.succeededFuture();
    });
  }

  private void post() {
    long[] message = new long[MESSAGE_LONGS];
    comm.irecv(Buf.of(message), 0, MESSAGE_LONGS, Datatype.LONG, Comm.ANY_SOURCE, Comm.ANY_TAG).onComplete(ar -> {
      if (ar.succeeded()) {
        if (ar.result().tag() == STOP && ar.result().source() == me) {
          stopped.tryComplete();
          return;
        }
        try {
          listener.onMessage(ar.result().source(), ar.result().tag(), message);
        } finally {
          post();
        }
        return;
      }
      ErrorClass c = ar.cause() instanceof RmaException e ? e.errorClass() : ErrorClass.OTHER;
      if (c == ErrorClass.TIMEOUT) {
        post(); // nothing arrived within the job's wait timeout: keep listening
      } else if (c == ErrorClass.PROC_FAILED) {
        comm.getFailed().compose(failed -> comm.ackFailed(failed.size()).map(failed)).onComplete(g -> {
          if (g.succeeded()) {
            noteDeaths(g.result());
          }
          post();
        });
      } else {
        // after free, or once the rank or job ended (COMM), or a revoke: nothing more will come
        LOG.log(freed || c == ErrorClass.COMM ? Level.DEBUG : Level.WARNING, "rank {0}: {1} stopped listening: {2}",
            me, what, ar.cause());
        stopped.tryComplete();
      }
    });
  }

  private void noteDeaths(Group failed) {
    Group mine = comm.group();
    boolean added = false;
    for (int jobRank : failed.ranks()) {
      int r = mine.indexOf(jobRank);
      if (r >= 0) {
        added |= dead.add(r);
      }
    }
    if (added) {
      listener.onDeaths(Set.copyOf(dead));
      deathWatch.keySet().removeIf(r -> {
        if (dead.contains(r)) {
          deathWatch.get(r).complete();
          return true;
        }
        return false;
      });
    }
  }

  /** Completes once this primitive knows {@code rank} dead (tests order their steps after it). Rank's context only. */
  Future<Void> whenKnownDead(int rank) {
    return dead.contains(rank) ? Future.succeededFuture()
        : deathWatch.computeIfAbsent(rank, r -> Promise.promise()).future();
  }

  boolean isDead(int rank) {
    return dead.contains(rank);
  }

  /** Sends a message; a send to a dead rank is dropped (the death path deals with it). */
  void send(int dest, int tag, long a, long b, long c) {
    comm.send(Buf.of(new long[] {a, b, c}), 0, MESSAGE_LONGS, Datatype.LONG, dest, tag).onFailure(e ->
        LOG.log(Level.DEBUG, "rank {0}: {1} message {2} to rank {3} not delivered: {4}", me, what, tag, dest, e));
  }

  /** Runs {@code call} on the rank's context (at once when already there). */
  <T> Future<T> onContext(Supplier<Future<T>> call) {
    if (Vertx.currentContext() == context) {
      return call.get();
    }
    Promise<T> p = Promise.promise();
    context.runOnContext(v -> call.get().onComplete(p));
    return p.future();
  }

  Context context() {
    return context;
  }

  /** Collective: ends the listener, closes the epoch, frees the window and the duplicate. */
  Future<Void> free() {
    return onContext(() -> {
      if (freed) {
        return Future.failedFuture(RmaException.of(ErrorClass.ARG, "%s.free at rank %d: freed already", what, me));
      }
      freed = true;
      Future<Void> quiet = Future.succeededFuture();
      if (listener != null) {
        comm.send(Buf.of(new long[MESSAGE_LONGS]), 0, MESSAGE_LONGS, Datatype.LONG, me, STOP);
        quiet = stopped.future();
      }
      return quiet.compose(v -> win.unlockAll()).compose(v -> win.free()).compose(v -> comm.free());
    });
  }
}
