package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Eight origins issue random operations — fetch-and-add, accumulate, compare-and-swap, put and
 * get — on shared targets, in rounds of a random synchronization mode (lock, lockAll, fence,
 * post/start/complete/wait), every call of a round issued without awaiting the previous one.
 * Every result is then checked against what MPI allows, whatever the interleaving:
 * <ul>
 *   <li>the values fetched from one counter, sorted, form a chain (each the previous plus its
 *       increment) ending at the counter's final value: every fetch-and-add was atomic;</li>
 *   <li>accumulated sums are exact;</li>
 *   <li>of the compare-and-swaps racing for one slot exactly one saw 0, every other saw the
 *       winner's value, and the slot holds it;</li>
 *   <li>a put, flushed, is what a get of the same origin then reads; the last put of each origin
 *       is in place at the end.</li>
 * </ul>
 * The ranks record what they saw in this JVM's memory (both modes run every node in the test
 * JVM) and the test thread checks it after the job.
 */
class RandomizedRmaTest {

  private static final int NP = 8;
  private static final int ROUNDS = 40;
  private static final int FOP = 0;
  private static final int ACC = 1;
  private static final int CLAIMS = 2;
  private static final int PUTS = CLAIMS + ROUNDS;
  private static final int SLOTS = PUTS + NP;

  private enum Sync { LOCK, LOCK_ALL, FENCE, PSCW }

  /** What the ranks saw: fetches (target, fetched, increment), claims (target, round, origin, seen). */
  private static final class Record {
    final ConcurrentLinkedQueue<long[]> fetches = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<long[]> claims = new ConcurrentLinkedQueue<>();
    final long[] accumulated = new long[NP];
    final long[][] lastPut = new long[NP][NP];
    final long[][] finalMemory = new long[NP][];
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void everyValueIsOneMpiAllows(Jobs.Mode mode) {
    long seed = System.nanoTime();
    Record rec = new Record();
    try {
      Jobs.run(mode, NP, (world, args) -> Win.allocate(world, 8L * SLOTS, 8, Info.NULL).compose(win -> {
        int me = world.rank();
        Random rng = new Random(seed * 31 + me);
        return Rma.repeat(ROUNDS, round -> {
          Sync sync = Sync.values()[new Random(seed + round).nextInt(Sync.values().length)];
          return round(win, me, round, sync, rng, rec);
        }).compose(v -> world.barrier()).map(v -> {
          long[] mem = new long[SLOTS];
          for (int i = 0; i < SLOTS; i++) {
            mem[i] = win.memory().readLong(8L * i);
          }
          rec.finalMemory[me] = mem;
          return null;
        }).compose(v -> world.barrier()).compose(v -> win.free());
      }));
    } catch (RuntimeException | AssertionError e) {
      throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
    }
    check(rec, seed);
  }

  /** One round: its epoch opened, random operations issued, the epoch closed — none awaited in between. */
  private static Future<Void> round(Win win, int me, int round, Sync sync, Random rng, Record rec) {
    List<Future<?>> calls = new ArrayList<>();
    Group others = win.group().excl(me);
    boolean self = sync != Sync.PSCW; // post/start groups here are the other ranks
    int n = 2 + rng.nextInt(6);
    Map<Integer, List<Runnable>> byTarget = new HashMap<>();
    boolean[] claimed = new boolean[NP];
    boolean[] put = new boolean[NP];
    for (int i = 0; i < n; i++) {
      int t = rng.nextInt(NP);
      if (!self && t == me) {
        t = (me + 1) % NP;
      }
      int target = t;
      int kind = rng.nextInt(4);
      long inc = 1 + rng.nextInt(100);
      Runnable op;
      if (kind == 0) {
        op = () -> calls.add(win.fetchAndOp(inc, target, FOP, Op.SUM)
            .onSuccess(old -> rec.fetches.add(new long[] {target, old, inc})));
      } else if (kind == 1) {
        synchronized (rec.accumulated) {
          rec.accumulated[target] += inc;
        }
        op = () -> calls.add(win.accumulate(Buf.of(new long[] {inc}), 0, 1, Datatype.LONG, target, ACC, 1, Datatype.LONG,
            Op.SUM));
      } else if (kind == 2 && !claimed[target]) {
        claimed[target] = true;
        op = () -> calls.add(win.compareAndSwap(0L, me + 1L, target, CLAIMS + round)
            .onSuccess(seen -> rec.claims.add(new long[] {target, round, me, seen})));
      } else if (!put[target]) {
        put[target] = true;
        long value = 1000L * (round + 1) + me;
        synchronized (rec.lastPut) {
          rec.lastPut[me][target] = value;
        }
        boolean passive = sync == Sync.LOCK || sync == Sync.LOCK_ALL;
        op = () -> {
          calls.add(win.put(Buf.of(new long[] {value}), 0, 1, Datatype.LONG, target, PUTS + me));
          if (passive) {
            // flushed, the put is what this origin's get of the same slot reads
            calls.add(win.flush(target));
            long[] back = new long[1];
            calls.add(win.get(Buf.of(back), 0, 1, Datatype.LONG, target, PUTS + me).map(v -> {
              assertEquals(value, back[0], "get after put and flush at rank " + target + ", round " + round);
              return null;
            }));
          }
        };
      } else {
        continue;
      }
      byTarget.computeIfAbsent(target, k -> new ArrayList<>()).add(op);
    }
    switch (sync) {
      case LOCK:
        for (Map.Entry<Integer, List<Runnable>> e : byTarget.entrySet()) {
          LockType type = rng.nextBoolean() ? LockType.SHARED : LockType.EXCLUSIVE;
          calls.add(win.lock(type, e.getKey()));
          e.getValue().forEach(Runnable::run);
          calls.add(win.unlock(e.getKey()));
        }
        break;
      case LOCK_ALL:
        calls.add(win.lockAll());
        byTarget.values().forEach(ops -> ops.forEach(Runnable::run));
        if (rng.nextBoolean()) {
          calls.add(win.flushAll());
        }
        calls.add(win.unlockAll());
        break;
      case FENCE:
        calls.add(win.fence());
        byTarget.values().forEach(ops -> ops.forEach(Runnable::run));
        calls.add(win.fence(Mode.NOSUCCEED));
        break;
      case PSCW:
        calls.add(win.post(others));
        calls.add(win.start(others));
        byTarget.values().forEach(ops -> ops.forEach(Runnable::run));
        calls.add(win.complete());
        calls.add(win.waitFor());
        break;
      default:
        throw new IllegalStateException();
    }
    return Future.all(calls).mapEmpty();
  }

  private static void check(Record rec, long seed) {
    String s = "seed " + seed + ": ";
    for (int t = 0; t < NP; t++) {
      long[] mem = rec.finalMemory[t];
      int target = t;
      List<long[]> chain = new ArrayList<>();
      rec.fetches.forEach(f -> {
        if (f[0] == target) {
          chain.add(f);
        }
      });
      chain.sort(Comparator.comparingLong(f -> f[1]));
      long expect = 0;
      for (long[] f : chain) {
        assertEquals(expect, f[1], s + "fetch-and-add chain at rank " + t + " (a fetch saw a value no "
            + "atomic order allows)");
        expect += f[2];
      }
      assertEquals(expect, mem[FOP], s + "final counter at rank " + t);
      assertEquals(rec.accumulated[t], mem[ACC], s + "accumulated sum at rank " + t);
      for (int r = 0; r < ROUNDS; r++) {
        int round = r;
        List<long[]> racers = new ArrayList<>();
        rec.claims.forEach(c -> {
          if (c[0] == target && c[1] == round) {
            racers.add(c);
          }
        });
        if (racers.isEmpty()) {
          assertEquals(0, mem[CLAIMS + r], s + "unclaimed slot at rank " + t + ", round " + r);
          continue;
        }
        long[] winner = null;
        for (long[] c : racers) {
          if (c[3] == 0) {
            assertTrue(winner == null, s + "two compare-and-swaps won slot " + r + " at rank " + t);
            winner = c;
          }
        }
        assertTrue(winner != null, s + "no compare-and-swap won slot " + r + " at rank " + t);
        for (long[] c : racers) {
          if (c != winner) {
            assertEquals(winner[2] + 1, c[3], s + "a losing compare-and-swap at rank " + t + " saw another value");
          }
        }
        assertEquals(winner[2] + 1, mem[CLAIMS + r], s + "claimed slot at rank " + t + ", round " + r);
      }
      for (int o = 0; o < NP; o++) {
        assertEquals(rec.lastPut[o][t], mem[PUTS + o], s + "last put of rank " + o + " at rank " + t);
      }
    }
  }
}
