// A soak test: not one of the standard's examples, but the way to find out whether a long run of
// every kind of RMA traffic at once stays exact. Each round, every rank works on three windows at
// the same time, issuing its calls without waiting for each one:
//
//   fence window   fence; puts of K longs into its own slots at every rank and an accumulate(SUM)
//                  into every rank's tally; fence; gets of those slots back; fence. After the
//                  first fence each rank checks its own window (every rank's puts of this round,
//                  the tally of every round so far); after the second, every value it got back.
//   counter window one lock_all epoch for the whole run: random accumulates(SUM) to random ranks
//                  and slots, fetch-and-op(SUM, 1) tickets from a counter at rank 0, flush_all.
//   lock window    lock(EXCLUSIVE) on a random rank, get, flush, put(value + 1), unlock: a
//                  non-atomic increment that only mutual exclusion keeps exact.
//
// The random choices come from a generator seeded by (rank, round), so every rank can replay
// every other rank's rounds: at the end each rank compares its counters and its lock-window value
// with that sequential computation, and rank 0 checks that the tickets are exactly {0..T-1}.
// The ranks agree on when to stop (an allreduce of "time is up" at the start of each round).
//
// Usage: rmarun -np N [--jvms K] soak [--seconds S]      (default 10 s; any N >= 1)
package dev.vertxrma.samples.stress;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.samples.RankChecks;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Every kind of RMA traffic at once, over several windows, for a given time, checked value by value. */
public final class Soak extends RankVerticle {

  /** Longs each rank puts into each target's fence window per round. */
  static final int K = 4;
  /** Counter slots per rank in the counter window (plus one ticket slot, used at rank 0). */
  static final int C = 16;
  /** Accumulates per rank and round in the counter window. */
  static final int ACCS = 8;
  /** Fetch-and-op tickets per rank and round. */
  static final int TICKETS = 2;

  private int np;
  private int rank;
  private RankChecks checks;
  private Win fenceWin;
  private Win counterWin;
  private Win lockWin;
  private final List<Long> tickets = new ArrayList<>();
  private long ops;
  private long lockEpochs;
  private long fences;

  /** The values rank {@code src} puts into its slot {@code k} at {@code target} in {@code round}. */
  static long putValue(int src, int target, int round, int k) {
    return ((long) round << 32) | ((long) src << 20) | ((long) target << 4) | k;
  }

  /** Which window a stream of random choices is for. */
  private static final int COUNTER_CHOICES = 0;
  private static final int LOCK_CHOICES = 1;

  /** The random choices of rank {@code src} in {@code round} for one window: the same on every rank. */
  static SplittableRandom choices(int src, int round, int window) {
    return new SplittableRandom(0x9E3779B97F4A7C15L * (src + 1) + 0xBF58476D1CE4E5B9L * (round + 1)
        + 0x94D049BB133111EBL * window);
  }

  @Override
  public Future<?> run(Comm world, List<String> args) {
    np = world.size();
    rank = world.rank();
    checks = new RankChecks(rank);
    long seconds = 10;
    try {
      for (int i = 0; i < args.size(); i++) {
        if (!args.get(i).equals("--seconds")) {
          throw new IllegalArgumentException("unknown argument " + args.get(i));
        }
        seconds = Long.parseLong(args.get(++i));
      }
      if (seconds < 0) {
        throw new IllegalArgumentException("bad value");
      }
    } catch (RuntimeException e) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "soak: usage soak [--seconds S] with S >= 0; got %s "
          + "(%s)", args, e.getMessage()));
    }
    long startNs = System.nanoTime();
    long endNs = startNs + seconds * 1_000_000_000L;
    return Win.allocate(world, (long) (np * K + 1) * Long.BYTES, Long.BYTES, Info.NULL)
        .compose(w -> {
          fenceWin = w;
          return Win.allocate(world, (long) (C + 1) * Long.BYTES, Long.BYTES, Info.NULL);
        })
        .compose(w -> {
          counterWin = w;
          return Win.allocate(world, Long.BYTES, Long.BYTES, Info.NULL);
        })
        .compose(w -> {
          lockWin = w;
          fences++;
          return Future.all(fenceWin.fence(Mode.NOPRECEDE), counterWin.lockAll());
        })
        .compose(v -> rounds(world, 0, endNs))
        .compose(rounds -> finish(world, rounds, startNs));
  }

  /** Runs rounds from {@code round} on until the ranks agree that the time is up; the result is the round count. */
  private Future<Integer> rounds(Comm world, int round, long endNs) {
    return world.allreduce(System.nanoTime() >= endNs ? 1L : 0L, Op.MAX).compose(stop -> {
      if (stop == 1 && round > 0) {
        return Future.succeededFuture(round);
      }
      return Future.all(fenceRound(round), counterRound(round), lockRound(round))
          .compose(v -> rounds(world, round + 1, endNs));
    });
  }

  private Future<Void> fenceRound(int round) {
    long[] out = new long[np * K];
    long[] back = new long[np * K];
    for (int t = 0; t < np; t++) {
      for (int k = 0; k < K; k++) {
        out[t * K + k] = putValue(rank, t, round, k);
      }
    }
    long[] mine = {rank + 1L};
    for (int t = 0; t < np; t++) {
      fenceWin.put(Buf.of(out), t * K, K, Datatype.LONG, t, (long) rank * K);
      fenceWin.accumulate(Buf.of(mine), 0, 1, Datatype.LONG, t, (long) np * K, Op.SUM);
      ops += 2;
    }
    fences += 2;
    return fenceWin.fence().compose(v -> {
      checkOwnFenceWindow(round);
      for (int t = 0; t < np; t++) {
        fenceWin.get(Buf.of(back), t * K, K, Datatype.LONG, t, (long) rank * K);
        ops++;
      }
      return fenceWin.fence(Mode.NOSTORE);
    }).map(v -> {
      for (int i = 0; i < back.length; i++) {
        if (back[i] != out[i]) {
          checks.fail("round %d: got %d back from rank %d's fence-window slot %d, put %d", round, back[i], i / K,
              rank * K + i % K, out[i]);
          break;
        }
      }
      return null;
    });
  }

  /** After the round's first fence: every rank's puts of this round, and the tally of every round so far. */
  private void checkOwnFenceWindow(int round) {
    for (int s = 0; s < np; s++) {
      for (int k = 0; k < K; k++) {
        long v = fenceWin.memory().readLong((long) (s * K + k) * Long.BYTES);
        if (v != putValue(s, rank, round, k)) {
          checks.fail("round %d: fence-window slot %d holds %d, rank %d put %d there", round, s * K + k, v, s,
              putValue(s, rank, round, k));
          return;
        }
      }
    }
    long tally = fenceWin.memory().readLong((long) np * K * Long.BYTES);
    long expected = (round + 1L) * np * (np + 1) / 2;
    if (tally != expected) {
      checks.fail("round %d: fence-window tally is %d, expected %d", round, tally, expected);
    }
  }

  private Future<Void> counterRound(int round) {
    SplittableRandom rnd = choices(rank, round, COUNTER_CHOICES);
    for (int i = 0; i < ACCS; i++) {
      int t = rnd.nextInt(np);
      int slot = rnd.nextInt(C);
      long[] value = {rnd.nextInt(1000) + 1};
      counterWin.accumulate(Buf.of(value), 0, 1, Datatype.LONG, t, slot, Op.SUM);
      ops++;
    }
    List<Future<Long>> mine = new ArrayList<>(TICKETS);
    for (int i = 0; i < TICKETS; i++) {
      mine.add(counterWin.fetchAndOp(1L, 0, C, Op.SUM));
      ops++;
    }
    return counterWin.flushAll().compose(v -> Future.all(mine)).map(v -> {
      mine.forEach(f -> tickets.add(f.result()));
      return null;
    });
  }

  private Future<Void> lockRound(int round) {
    int t = choices(rank, round, LOCK_CHOICES).nextInt(np);
    long[] value = new long[1];
    lockEpochs++;
    ops += 2;
    return lockWin.lock(LockType.EXCLUSIVE, t)
        .compose(v -> {
          lockWin.get(Buf.of(value), 0, 1, Datatype.LONG, t, 0);
          return lockWin.flush(t);
        })
        .compose(v -> {
          value[0]++;
          lockWin.put(Buf.of(value), 0, 1, Datatype.LONG, t, 0);
          return lockWin.unlock(t);
        });
  }

  private Future<Void> finish(Comm world, int rounds, long startNs) {
    long[] all = rank == 0 ? new long[np * rounds * TICKETS] : null;
    long[] mine = tickets.stream().mapToLong(Long::longValue).toArray();
    fences++;
    return Future.all(fenceWin.fence(Mode.NOSUCCEED), counterWin.unlockAll())
        .compose(v -> world.barrier()) // every operation of every rank is complete
        .compose(v -> {
          checkReplay(rounds);
          return world.gather(Buf.of(mine), 0, mine.length, Datatype.LONG, Buf.of(all), 0, mine.length, Datatype.LONG, 0);
        })
        .compose(v -> {
          if (rank == 0) {
            checkTickets(all);
          }
          return Future.all(fenceWin.free(), counterWin.free(), lockWin.free());
        })
        .compose(v -> checks.verdict(world, "soak"))
        .compose(v -> world.allreduce(ops, Op.SUM))
        .compose(total -> world.allreduce(lockEpochs, Op.SUM).map(locks -> {
          if (rank == 0) {
            double s = (System.nanoTime() - startNs) / 1e9;
            System.out.printf("soak: verified %d operations (%d lock epochs, %d fences per rank) in %d rounds on %d "
                + "ranks over %.1f s: every value got back, every counter and every ticket exact%n", total, locks,
                fences, rounds, np, s);
          }
          return null;
        }));
  }

  /** Replays every rank's rounds: the counters and the lock-window value this rank must hold. */
  private void checkReplay(int rounds) {
    long[] counters = new long[C];
    long increments = 0;
    for (int round = 0; round < rounds; round++) {
      for (int s = 0; s < np; s++) {
        SplittableRandom rnd = choices(s, round, COUNTER_CHOICES);
        for (int i = 0; i < ACCS; i++) {
          int t = rnd.nextInt(np);
          int slot = rnd.nextInt(C);
          long value = rnd.nextInt(1000) + 1;
          if (t == rank) {
            counters[slot] += value;
          }
        }
        if (choices(s, round, LOCK_CHOICES).nextInt(np) == rank) {
          increments++;
        }
      }
    }
    for (int i = 0; i < C; i++) {
      long v = counterWin.memory().readLong((long) i * Long.BYTES);
      if (v != counters[i]) {
        checks.fail("counter slot %d holds %d, the replay of %d rounds gives %d", i, v, rounds, counters[i]);
        break;
      }
    }
    long v = lockWin.memory().readLong(0);
    if (v != increments) {
      checks.fail("lock-window value is %d after %d exclusive increments (lost updates: mutual exclusion broken)",
          v, increments);
    }
  }

  private void checkTickets(long[] all) {
    long total = all.length;
    long last = counterWin.memory().readLong((long) C * Long.BYTES);
    if (last != total) {
      checks.fail("ticket counter is %d, expected %d", last, total);
    }
    boolean[] seen = new boolean[all.length];
    for (long t : all) {
      if (t < 0 || t >= total || seen[(int) t]) {
        checks.fail("ticket %d is out of [0, %d) or was handed out twice: fetch-and-op not atomic", t, total);
        return;
      }
      seen[(int) t] = true;
    }
  }
}
