package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * Notified RMA across JVMs ({@link NotifiedRmaJvmsTest}): every rank sends {@value #K} notified
 * puts and as many notified accumulates to every rank, pipelined; each target's counters end
 * exact and every waiter finds the data of what it counted. Then the first and the last rank
 * (in different JVMs) play {@value #ROUNDS} rounds of ping-pong with notified puts and
 * {@code awaitNotify}, checking each value carried.
 */
public class NotifiedRmaProgram implements RankProgram {

  static final int K = 50;
  static final int ROUNDS = 100;

  static long value(int origin, int k) {
    return 1 + 1000L * origin + k;
  }

  @Override
  public Future<Void> run(Comm world, List<String> args) {
    int n = world.size();
    return Win.allocate(world, 8L * (n * K + 2), 8, Info.NULL).compose(win -> win.setNumNotify(3)
        .compose(v -> pipelined(world, win))
        .compose(v -> pingPong(world, win))
        .compose(v -> world.barrier())
        .compose(v -> win.free()));
  }

  /** Put slots of the window (K per origin) that hold their value. */
  static int filled(Win win, int n) {
    int f = 0;
    for (int o = 0; o < n; o++) {
      for (int k = 0; k < K; k++) {
        f += win.memory().readLong(8L * (o * K + k)) == value(o, k) ? 1 : 0;
      }
    }
    return f;
  }

  private static Future<Void> pipelined(Comm world, Win win) {
    int r = world.rank();
    int n = world.size();
    long total = (long) n * K;
    List<Future<Long>> waits = new ArrayList<>();
    for (long threshold : new long[] {1, total / 3, total}) {
      waits.add(win.awaitNotify(0, threshold).map(seen -> {
        int f = filled(win, n);
        assertTrue(f >= seen, "rank " + r + ": counter 0 at " + seen + " but " + f + " puts landed");
        return seen;
      }));
    }
    return world.barrier().compose(v -> win.lockAll()).compose(v -> issueNotified(win, r, n))
        .compose(v -> win.unlockAll())
        .compose(v -> Future.all(waits))
        .compose(v -> win.awaitNotify(1, total))
        .compose(v -> {
          assertEquals(total, win.memory().readLong(8L * n * K), "accumulated ones at rank " + r);
          return world.barrier();
        })
        .compose(v -> Future.all(win.notifyValue(0), win.notifyValue(1)))
        .map(values -> {
          assertEquals(total, (long) values.<Long>resultAt(0), "counter 0 at rank " + r);
          assertEquals(total, (long) values.<Long>resultAt(1), "counter 1 at rank " + r);
          assertEquals(total, filled(win, n), "puts landed at rank " + r);
          return null;
        });
  }

  /**
   * Rank {@code r}'s K notified puts (counter 0) of its values to its slots at every rank and K
   * notified accumulates of 1 (counter 1) onto the word after the slots, issued without awaiting
   * one by one; completes when every one has.
   */
  static Future<Void> issueNotified(Win win, int r, int n) {
    List<Future<Void>> ops = new ArrayList<>();
    for (int k = 0; k < K; k++) {
      for (int i = 0; i < n; i++) {
        int t = (r + i) % n;
        ops.add(win.putNotify(Buf.of(new long[] {value(r, k)}), 0, 1, Datatype.LONG, t, (long) r * K + k, 0));
        ops.add(win.accumulateNotify(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, t, (long) n * K, 1,
            Datatype.LONG, Op.SUM, 1));
      }
    }
    return Future.all(ops).mapEmpty();
  }

  /** Rank 0 and rank n-1 take turns: a notified put of the round's number, awaited by the other. */
  private static Future<Void> pingPong(Comm world, Win win) {
    int r = world.rank();
    int last = world.size() - 1;
    if (r != 0 && r != last) {
      return Future.succeededFuture();
    }
    int peer = r == 0 ? last : 0;
    long slot = (long) world.size() * K + 1;
    return win.lock(LockType.SHARED, peer).compose(v -> round(win, r == 0, peer, slot, 1)).compose(v -> win.unlock(peer));
  }

  private static Future<Void> round(Win win, boolean serves, int peer, long slot, int i) {
    if (i > ROUNDS) {
      return Future.succeededFuture();
    }
    Future<Void> turn = serves
        ? send(win, peer, slot, i).compose(v -> receive(win, slot, i))
        : receive(win, slot, i).compose(v -> send(win, peer, slot, i));
    return turn.compose(v -> round(win, serves, peer, slot, i + 1));
  }

  private static Future<Void> send(Win win, int peer, long slot, int i) {
    return win.putNotify(Buf.of(new long[] {i}), 0, 1, Datatype.LONG, peer, slot, 2);
  }

  private static Future<Void> receive(Win win, long slot, int i) {
    return win.awaitNotify(2, i).map(seen -> {
      assertEquals(i, (long) seen, "ping-pong counter");
      assertEquals(i, win.memory().readLong(8 * slot), "the value of round " + i);
      return null;
    });
  }
}
