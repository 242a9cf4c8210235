package dev.vertxrma.sync;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.lang.System.Logger.Level;
import java.util.Set;

/**
 * One rank's node of a Mellor-Crummey/Scott queue lock over RMA atomics and messages.
 *
 * <p>At the home rank: {@code TAIL}, a word holding the last rank of the queue and the rank
 * before it ({@link #word}; 0 = free); {@code TOKEN}, the last fencing token; {@code PRED[r]},
 * the rank before {@code r} in the queue (encoded +2: 1 = none, 0 = not known yet).
 *
 * <p>To join, a rank swaps itself into the tail with compare-and-swap (retried with the value it
 * found, so it never polls a waiting state); finding the lock free, it holds it; otherwise it
 * records its predecessor in {@code PRED} and sends it LINK, and waits for a GRANT message. A
 * holder that releases sends GRANT to its successor, or swaps the tail back to free if it has
 * none; if a successor swapped in but has not linked yet, the holder waits for its LINK. Nothing
 * loops on a remote word.
 *
 * <p>A death (under {@code FailurePolicy.CONTINUE}): a waiter whose predecessor is dead walks
 * {@code PRED} up past the dead ranks. If it reaches a live rank, it sends it ADOPT naming the
 * dead rank next to it, and that rank takes it as its successor in the dead one's place, or, if
 * it had already granted the dead one, grants it at once saying the holder died. If it reaches
 * the head of the queue (a dead rank that found the lock free), the lock was held by a dead rank:
 * it takes it, saying so. A holder whose successor is dead lets the dead one's successor come to
 * it (and frees the tail if the dead one was last). A waiter that timed out stays in the queue as
 * a ghost and passes the grant on when it comes ({@link Mutex}).
 */
final class McsQueue implements SyncChannel.Listener {

  /** What the node tells its {@link Mutex}; all on the rank's context. */
  interface Owner {
    void onHeld(long token, boolean previousHolderDied);

    /** This node's swap into the tail is done: its place in the FIFO order is fixed. */
    void onQueued();

    void onIdle();

    void onFailure(Throwable cause);
  }

  private enum Node { NONE, ENQUEUING, WAITING, TOKEN, HOLDING, RELEASING }

  static final long TAIL = 0;
  static final long TOKEN = 1;
  static final long PRED = 2;
  static final int NIL = -1;
  static final long FREE = 0;
  private static final int LINK = 1;
  private static final int GRANT = 2;
  private static final int ADOPT = 3;
  private static final System.Logger LOG = System.getLogger(McsQueue.class.getName());

  private final SyncChannel ch;
  private final Win win;
  private final int home;
  private final int me;
  private Owner owner;
  private Node node = Node.NONE;
  private long myWord;
  private int pred = NIL;
  /** PRED of {@link #pred}, encoded (+2; 0 = not known). */
  private long predPredCode;
  private int succ = NIL;
  /** The dead rank whose place {@link #succ} took (its late LINK is ignored). */
  private int replaced = NIL;
  private int grantedTo = NIL;
  private boolean grantedToKnownDead;
  private boolean carryDeath;
  private boolean casPending;
  private boolean resolving;
  private boolean resolveAgain;
  /**
   * What this rank last wrote to its own {@code PRED} word (initially 0, as the window starts). A
   * successor writes the same value there (the predecessor field of the tail word it swapped
   * against is this rank's record for the turn), so this rank's own writes decide the word, and
   * one that would not change it is not sent: a lock + unlock loop of one rank then records its
   * place once, not once per turn.
   */
  private long recordedPlace;
  /** A join issued behind this node's release, in the same ordered stream to home ({@link #speculate}). */
  private Speculation speculation;

  /** {@code old}: the tail the swap found, completed after the flush that completes both operations. */
  private record Speculation(Future<Long> old, Future<Long> token) {
  }

  McsQueue(SyncChannel ch) {
    this.ch = ch;
    this.win = ch.win;
    this.home = ch.home;
    this.me = ch.me;
  }

  void owner(Owner o) {
    this.owner = o;
  }

  static long word(int tail, int pred) {
    return ((long) (pred + 1) << 32) | (tail + 1);
  }

  static int tailOf(long word) {
    return (int) (word & 0xffffffffL) - 1;
  }

  static int predOf(long word) {
    return (int) (word >>> 32) - 1;
  }

  // ------------------------------------------------------------------ joining

  /** Joins the queue; {@link Owner#onHeld} once this node holds the lock. */
  void enqueue() {
    node = Node.ENQUEUING;
    succ = NIL;
    replaced = NIL;
    recordPlace(0); // not known until the swap says, ordered before it
    attempt(FREE);
  }

  private void attempt(long guess) {
    long mine = word(me, tailOf(guess));
    Future<Long> old = win.compareAndSwap(guess, mine, home, TAIL);
    Future<Long> token = guess == FREE ? win.fetchAndOp(1, home, TOKEN, Op.SUM) : null;
    win.flush(home).compose(v -> old).onComplete(ar -> {
      if (ar.failed()) {
        fail(ar.cause());
      } else if (ar.result() != guess) {
        attempt(ar.result()); // the tail moved: swap with what it is now
      } else {
        myWord = mine;
        pred = tailOf(guess);
        predPredCode = predOf(guess) + 2L;
        owner.onQueued();
        if (pred == NIL) {
          recordPlace(1); // completed by the next flush to home
          node = Node.HOLDING;
          owner.onHeld(token.result(), false);
        } else {
          link();
        }
      }
    });
  }

  /** Records the queue's links at home for the survivors of a death, then tells the predecessor. */
  private void link() {
    recordPlace(pred + 2L);
    store(PRED + pred, predPredCode);
    win.flush(home).onComplete(ar -> {
      if (ar.failed()) {
        fail(ar.cause());
        return;
      }
      node = Node.WAITING;
      if (ch.isDead(pred)) {
        resolve();
      } else {
        ch.send(pred, LINK, 0, 0, 0);
      }
    });
  }

  /**
   * Takes the lock from free, or not at all.
   *
   * @return the fencing token, or -1 when the lock was not free
   */
  Future<Long> tryAcquire() {
    node = Node.ENQUEUING;
    long mine = word(me, NIL);
    Future<Long> old = win.compareAndSwap(FREE, mine, home, TAIL);
    Future<Long> token = win.fetchAndOp(1, home, TOKEN, Op.SUM);
    return win.flush(home).compose(v -> old).transform(ar -> {
      if (ar.failed()) {
        node = Node.NONE;
        return Future.failedFuture(ar.cause());
      }
      if (ar.result() != FREE) {
        node = Node.NONE;
        return Future.succeededFuture(-1L);
      }
      myWord = mine;
      pred = NIL;
      succ = NIL;
      replaced = NIL;
      recordPlace(1);
      node = Node.HOLDING;
      return Future.succeededFuture(token.result());
    });
  }

  private void granted(boolean previousHolderDied) {
    node = Node.TOKEN;
    Future<Long> token = win.fetchAndOp(1, home, TOKEN, Op.SUM);
    win.flush(home).compose(v -> token).onComplete(ar -> {
      if (ar.failed()) {
        fail(ar.cause());
      } else {
        node = Node.HOLDING;
        owner.onHeld(ar.result(), previousHolderDied);
      }
    });
  }

  // ------------------------------------------------------------------ releasing

  /**
   * Passes the lock on, or frees it: a GRANT to the successor, or a compare-and-swap of the tail
   * back to free, issued now; if a successor swapped in but has not linked yet, this node grants
   * it when its LINK comes. {@link Owner#onIdle} once the node is done.
   */
  void release(boolean previousHolderDied) {
    node = Node.RELEASING;
    carryDeath = previousHolderDied;
    handOver();
  }

  /** Whether {@link #speculate} may join now: this node's release swap to free is in flight. */
  boolean canSpeculate() {
    return node == Node.RELEASING && casPending && speculation == null;
  }

  /**
   * Joins again right behind this node's release (one rank, one target: applied in that order at
   * home), expecting it to free the lock: a lock + unlock loop then costs one round trip, not two.
   * The result is looked at once this node is done ({@link #finish}); if the lock was not free,
   * the join goes the ordinary way.
   */
  void speculate() {
    Future<Long> old = win.compareAndSwap(FREE, word(me, NIL), home, TAIL);
    Future<Long> token = win.fetchAndOp(1, home, TOKEN, Op.SUM);
    // both results are in place once the flush completes (the CAS's reply may come first)
    speculation = new Speculation(win.flush(home).compose(v -> old), token);
  }

  private void handOver() {
    if (node != Node.RELEASING || casPending) {
      return;
    }
    if (succ != NIL) {
      if (ch.isDead(succ)) {
        grantedTo = succ;
        grantedToKnownDead = true;
        casFree(word(succ, me)); // a dead last waiter: nobody will come after it
      } else {
        ch.send(succ, GRANT, carryDeath ? 1 : 0, 0, 0);
        grantedTo = succ;
        grantedToKnownDead = false;
        finish();
      }
      return;
    }
    casPending = true;
    Future<Long> old = win.compareAndSwap(myWord, FREE, home, TAIL);
    win.flush(home).compose(v -> old).onComplete(ar -> {
      casPending = false;
      if (ar.failed()) {
        fail(ar.cause());
      } else if (ar.result() == myWord) {
        grantedTo = NIL;
        finish();
      } else if (succ != NIL) {
        handOver(); // its LINK came meanwhile
      } else if (predOf(ar.result()) == me && ch.isDead(tailOf(ar.result()))) {
        grantedTo = tailOf(ar.result()); // swapped in after us and died before it linked
        grantedToKnownDead = true;
        casFree(ar.result());
      }
      // else: a successor swapped in and will LINK (or its successor ADOPT); deaths look again
    });
  }

  private void casFree(long expected) {
    Future<Long> old = win.compareAndSwap(expected, FREE, home, TAIL);
    win.flush(home).compose(v -> old).onComplete(ar -> {
      if (ar.failed()) {
        fail(ar.cause());
      } else {
        finish();
      }
    });
  }

  private void finish() {
    node = Node.NONE;
    succ = NIL;
    replaced = NIL;
    Speculation spec = speculation;
    if (spec == null) {
      owner.onIdle();
      return;
    }
    speculation = null;
    node = Node.ENQUEUING;
    spec.old().onComplete(ar -> {
      if (ar.failed()) {
        fail(ar.cause());
      } else if (ar.result() == FREE) {
        myWord = word(me, NIL);
        pred = NIL;
        predPredCode = 1;
        owner.onQueued();
        recordPlace(1);
        node = Node.HOLDING;
        owner.onHeld(spec.token().result(), false);
      } else {
        recordPlace(0);
        attempt(ar.result()); // not free: join the ordinary way, from the tail it saw
      }
    });
  }

  private void fail(Throwable cause) {
    node = Node.NONE;
    speculation = null;
    owner.onFailure(cause);
  }

  // ------------------------------------------------------------------ messages and deaths

  @Override
  public void onMessage(int source, int tag, long[] m) {
    switch (tag) {
      case LINK -> {
        if (ch.isDead(source) || source == replaced || node == Node.NONE) {
          LOG.log(Level.DEBUG, "rank {0}: LINK from {1} ignored in state {2}", me, source, node);
          return;
        }
        succ = source;
        handOver();
      }
      case GRANT -> {
        if (node == Node.WAITING) {
          granted(m[0] != 0);
        } else {
          LOG.log(Level.DEBUG, "rank {0}: GRANT from {1} ignored in state {2}", me, source, node);
        }
      }
      case ADOPT -> adopt(source, (int) m[0]);
      default -> LOG.log(Level.WARNING, "rank {0}: message with unknown tag {1} from {2} ignored", me, tag, source);
    }
  }

  /** {@code adopter} says: the rank after you, {@code deadRank}, is dead, and I come after it. */
  private void adopt(int adopter, int deadRank) {
    if (grantedTo == deadRank) {
      // the lock went to the dead rank: it held it unless we knew it dead when we passed it on
      ch.send(adopter, GRANT, grantedToKnownDead ? 0 : 1, 0, 0);
      grantedToKnownDead = false; // a second adopter through it: the first one died holding it
    } else if (node != Node.NONE && (succ == NIL || succ == deadRank)) {
      succ = adopter;
      replaced = deadRank;
      handOver();
    } else {
      LOG.log(Level.WARNING, "rank {0}: ADOPT from {1} for dead rank {2} does not match this node (state {3}, "
          + "successor {4}, last granted {5})", me, adopter, deadRank, node, succ, grantedTo);
    }
  }

  @Override
  public void onDeaths(Set<Integer> dead) {
    if (node == Node.WAITING && dead.contains(pred)) {
      resolve();
    } else if (node == Node.RELEASING) {
      handOver();
    }
  }

  /** The predecessor is dead: walks PRED up past the dead ranks (see the class comment). */
  private void resolve() {
    if (resolving) {
      resolveAgain = true;
      return;
    }
    resolving = true;
    walk(pred, me, predPredCode);
  }

  private void walk(int deadRank, int child, long predCode) {
    Future<Long> code = predCode != 0 ? Future.succeededFuture(predCode) : readPred(deadRank);
    code.onComplete(ar -> {
      if (node != Node.WAITING) {
        resolving = false; // granted meanwhile
        return;
      }
      if (ar.failed()) {
        resolving = false;
        fail(ar.cause());
        return;
      }
      long c = ar.result();
      if (c == 0) {
        resolving = false;
        fail(RmaException.of(ErrorClass.PROC_FAILED, "mutex at rank %d: ranks %d and %d before it in the queue died "
            + "before either recorded its place; the queue cannot be repaired", me, child, deadRank));
        return;
      }
      int q = (int) (c - 2);
      if (q != NIL && ch.isDead(q)) {
        walk(q, deadRank, 0);
        return;
      }
      resolving = false;
      if (q == NIL) {
        pred = NIL;
        granted(true); // the head of the queue was dead: a dead rank held the lock
        return;
      }
      pred = q;
      predPredCode = 0;
      ch.send(q, ADOPT, deadRank, 0, 0);
      if (resolveAgain) {
        resolveAgain = false;
        if (ch.isDead(q)) {
          resolve();
        }
      }
    });
  }

  private Future<Long> readPred(int rank) {
    Future<Long> v = win.fetchAndOp(0, home, PRED + rank, Op.NO_OP);
    return win.flush(home).compose(x -> v);
  }

  /** Writes this rank's {@code PRED} word, unless it holds {@code code} already ({@link #recordedPlace}). */
  private void recordPlace(long code) {
    if (code != recordedPlace) {
      recordedPlace = code;
      store(PRED + me, code);
    }
  }

  private void store(long disp, long value) {
    win.accumulate(Buf.of(new long[] {value}), 0, 1, Datatype.LONG, home, disp, Op.REPLACE);
  }
}
