package dev.vertxrma.win;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Random epochs of every synchronization mode — lock, lockAll (with flushes), fence and
 * post/start/complete/wait — over two windows and every rank as a target, each round's calls
 * issued without awaiting one another, as a reactive user writes them. Checked by the ranks
 * themselves, so the program runs embedded, on clustered nodes and across JVMs alike:
 * <ul>
 *   <li><b>order:</b> when a synchronization completes, the future of every operation it covers
 *       has completed, successfully, and that future's listeners have run (ARCHITECTURE decision 14);</li>
 *   <li><b>values:</b> at every rank's windows, the fetch-and-adds seen form one atomic chain
 *       ending at the counter, accumulated sums are exact, of the compare-and-swaps racing for a
 *       slot exactly one won and the others saw the winner, each origin's last put is in place,
 *       and a get after a put and a flush reads the put.</li>
 * </ul>
 * Arguments: {@code seed [rounds]}. The log of what each rank saw is gathered to every rank
 * ({@code allgather}), and each rank checks its own windows.
 */
public class RandomEpochsProgram implements RankProgram {

  private static final int WINDOWS = 2;
  private static final int FOP = 0;
  private static final int ACC = 1;
  private static final int CLAIMS = 2;
  /** Log entry kinds: (kind, window, target, a, b). */
  private static final int FETCHED = 1;
  private static final int CLAIMED = 2;
  private static final int PUT = 3;
  private static final int ADDED = 4;
  private static final int ENTRY = 5;

  private enum Sync { LOCK, LOCK_ALL, FENCE, PSCW }

  /** One rank's run: its windows, its random source, the log of what it saw. */
  private static final class Run {
    final Comm world;
    final Win[] wins;
    final int me;
    final int np;
    final int rounds;
    final Random rng;
    final long[] log;
    int logged;
    /** Operations issued in the current epoch and not covered by a completed synchronization yet. */
    final List<Issued> open = new ArrayList<>();

    Run(Comm world, Win[] wins, long seed, int rounds) {
      this.world = world;
      this.wins = wins;
      this.me = world.rank();
      this.np = world.size();
      this.rounds = rounds;
      this.rng = new Random(seed * 31 + me);
      this.log = new long[ENTRY * rounds * (5 * np + 1)]; // at most 5 entries per target and round, and a 0 after
    }

    int puts() {
      return CLAIMS + rounds;
    }

    int slots() {
      return puts() + np;
    }

    void log(int kind, int win, int target, long a, long b) {
      int at = ENTRY * logged++;
      log[at] = kind;
      log[at + 1] = win;
      log[at + 2] = target;
      log[at + 3] = a;
      log[at + 4] = b;
    }
  }

  /** An operation's future, whether its listener ran, and what it was (for messages). */
  private static final class Issued {
    final Future<?> future;
    final int target;
    final String what;
    boolean ran;

    Issued(Future<?> future, int target, String what) {
      this.future = future;
      this.target = target;
      this.what = what;
      future.onComplete(ar -> ran = true);
    }
  }

  @Override
  public Future<Void> run(Comm world, List<String> args) {
    long seed = Long.parseLong(args.get(0));
    int rounds = args.size() > 1 ? Integer.parseInt(args.get(1)) : 30;
    Win[] wins = new Win[WINDOWS];
    Future<Void> made = Future.succeededFuture();
    for (int w = 0; w < WINDOWS; w++) {
      int at = w;
      made = made.compose(v -> Win.allocate(world, 8L * (CLAIMS + rounds + world.size()), 8, Info.NULL)
          .map(win -> {
            wins[at] = win;
            return null;
          }));
    }
    return made.compose(v -> {
      Run run = new Run(world, wins, seed, rounds);
      return Rma.repeat(rounds, round -> {
        Random shared = new Random(seed * 7919 + round); // every rank picks the same mode and window
        Sync sync = Sync.values()[shared.nextInt(Sync.values().length)];
        int w = shared.nextInt(WINDOWS);
        return round(run, wins[w], w, round, sync);
      }).compose(x -> world.barrier()).compose(x -> check(run, seed));
    }).compose(v -> {
      Future<Void> freed = Future.succeededFuture();
      for (Win w : wins) {
        freed = freed.compose(x -> w.free());
      }
      return freed;
    });
  }

  /** Fails unless every operation issued before {@code sync} to one of {@code targets} (-1: any) is complete. */
  private static Future<Void> covering(Run run, Future<Void> sync, int target, String what, int round) {
    List<Issued> covered = new ArrayList<>();
    run.open.removeIf(op -> {
      if (target < 0 || op.target == target) {
        covered.add(op);
        return true;
      }
      return false;
    });
    return sync.map(v -> {
      for (Issued op : covered) {
        if (!op.future.isComplete() || !op.ran) {
          throw new AssertionError("rank " + run.me + ", round " + round + ": " + what + " completed before "
              + op.what + " to rank " + op.target + (op.future.isComplete() ? " ran its listeners" : " completed"));
        }
        if (op.future.failed()) {
          throw new AssertionError("rank " + run.me + ", round " + round + ": " + op.what + " failed: "
              + op.future.cause());
        }
      }
      return null;
    });
  }

  private static Future<Void> round(Run run, Win win, int w, int round, Sync sync) {
    List<Future<?>> calls = new ArrayList<>();
    int me = run.me;
    boolean passive = sync == Sync.LOCK || sync == Sync.LOCK_ALL;
    Group others = win.group().excl(me);
    List<Integer> targets = new ArrayList<>();
    for (int t = 0; t < run.np; t++) {
      if ((sync != Sync.PSCW || t != me) && run.rng.nextInt(3) > 0) {
        targets.add(t);
      }
    }
    switch (sync) {
      case LOCK:
        for (int t : targets) {
          calls.add(win.lock(run.rng.nextBoolean() ? LockType.SHARED : LockType.EXCLUSIVE, t));
          issueSome(run, win, w, t, round, passive, calls);
          calls.add(covering(run, win.unlock(t), t, "unlock", round));
        }
        break;
      case LOCK_ALL:
        calls.add(win.lockAll());
        for (int t : targets) {
          issueSome(run, win, w, t, round, passive, calls);
          if (run.rng.nextInt(3) == 0) {
            calls.add(covering(run, win.flush(t), t, "flush", round));
          }
        }
        if (run.rng.nextBoolean()) {
          calls.add(covering(run, win.flushAll(), -1, "flushAll", round));
        }
        calls.add(covering(run, win.unlockAll(), -1, "unlockAll", round));
        break;
      case FENCE:
        calls.add(win.fence());
        for (int t : targets) {
          issueSome(run, win, w, t, round, passive, calls);
        }
        calls.add(covering(run, win.fence(Mode.NOSUCCEED), -1, "fence", round));
        break;
      case PSCW:
        calls.add(win.post(others));
        calls.add(win.start(others));
        for (int t : targets) {
          issueSome(run, win, w, t, round, passive, calls);
        }
        calls.add(covering(run, win.complete(), -1, "complete", round));
        calls.add(win.waitFor());
        break;
      default:
        throw new IllegalStateException();
    }
    return Future.all(calls).mapEmpty();
  }

  /** One to four random operations to {@code target}, none awaited. */
  private static void issueSome(Run run, Win win, int w, int target, int round, boolean passive,
      List<Future<?>> calls) {
    int n = 1 + run.rng.nextInt(4);
    boolean claimed = false;
    boolean put = false;
    for (int i = 0; i < n; i++) {
      int kind = run.rng.nextInt(4);
      long inc = 1 + run.rng.nextInt(100);
      Future<?> f;
      String what;
      if (kind == 0) {
        what = "fetchAndOp";
        f = win.fetchAndOp(inc, target, FOP, Op.SUM).map(old -> {
          run.log(FETCHED, w, target, old, inc);
          return old;
        });
      } else if (kind == 1) {
        what = "accumulate";
        run.log(ADDED, w, target, inc, 0);
        f = win.accumulate(Buf.of(new long[] {inc}), 0, 1, Datatype.LONG, target, ACC, 1, Datatype.LONG, Op.SUM);
      } else if (kind == 2 && !claimed) {
        claimed = true;
        what = "compareAndSwap";
        f = win.compareAndSwap(0L, run.me + 1L, target, CLAIMS + round).map(seen -> {
          run.log(CLAIMED, w, target, round, seen);
          return seen;
        });
      } else if (!put) {
        put = true;
        long value = 1000L * (round + 1) + run.me;
        run.log(PUT, w, target, value, 0);
        what = "put";
        f = win.put(Buf.of(new long[] {value}), 0, 1, Datatype.LONG, target, run.puts() + run.me);
        if (passive && run.rng.nextBoolean()) {
          run.open.add(new Issued(f, target, what));
          calls.add(f);
          calls.add(covering(run, win.flush(target), target, "flush", round));
          long[] back = new long[1];
          what = "get after flush";
          f = win.get(Buf.of(back), 0, 1, Datatype.LONG, target, run.puts() + run.me).map(v -> {
            if (back[0] != value) {
              throw new AssertionError("rank " + run.me + ", round " + round + ": get after put and flush at rank "
                  + target + " read " + back[0] + ", expected " + value);
            }
            return null;
          });
        }
      } else {
        continue;
      }
      run.open.add(new Issued(f, target, what));
      calls.add(f);
    }
  }

  /** Gathers every rank's log and checks this rank's windows against it. */
  private static Future<Void> check(Run run, long seed) {
    int np = run.np;
    long[] all = new long[run.log.length * np];
    long[] memory = new long[WINDOWS * run.slots()];
    for (int w = 0; w < WINDOWS; w++) {
      for (int i = 0; i < run.slots(); i++) {
        memory[w * run.slots() + i] = run.wins[w].memory().readLong(8L * i);
      }
    }
    return run.world.allgather(Buf.of(run.log), 0, run.log.length, Datatype.LONG, Buf.of(all), 0, run.log.length,
        Datatype.LONG).map(v -> {
          for (int w = 0; w < WINDOWS; w++) {
            checkWindow(run, w, all, Arrays.copyOfRange(memory, w * run.slots(), (w + 1) * run.slots()),
                "seed " + seed + ", rank " + run.me + ", window " + w + ": ");
          }
          return null;
        });
  }

  private static void checkWindow(Run run, int w, long[] all, long[] mem, String s) {
    int per = run.log.length;
    List<long[]> fetches = new ArrayList<>();
    long added = 0;
    long[][] claims = new long[run.rounds][];
    long[] claimWinners = new long[run.rounds];
    int[] racers = new int[run.rounds];
    long[] lastPut = new long[run.np];
    for (int o = 0; o < run.np; o++) {
      for (int at = o * per; at < (o + 1) * per && all[at] != 0; at += ENTRY) {
        if (all[at + 1] != w || all[at + 2] != run.me) {
          continue;
        }
        long a = all[at + 3];
        long b = all[at + 4];
        switch ((int) all[at]) {
          case FETCHED:
            fetches.add(new long[] {a, b});
            break;
          case ADDED:
            added += a;
            break;
          case CLAIMED:
            racers[(int) a]++;
            if (b == 0) {
              if (!(claims[(int) a] == null)) {
                throw new AssertionError(s + "two compare-and-swaps won slot " + a);
              }
              claims[(int) a] = new long[] {o};
              claimWinners[(int) a] = o + 1L;
            }
            break;
          case PUT:
            lastPut[o] = a;
            break;
          default:
            throw new AssertionError(s + "bad log entry " + all[at]);
        }
      }
    }
    fetches.sort(Comparator.comparingLong(f -> f[0]));
    long expect = 0;
    for (long[] f : fetches) {
      if (!(f[0] == expect)) {
        throw new AssertionError(s + "fetch-and-add saw " + f[0] + " where the atomic chain is at " + expect);
      }
      expect += f[1];
    }
    if (!(mem[FOP] == expect)) {
      throw new AssertionError(s + "counter " + mem[FOP] + ", the fetch-and-adds add up to " + expect);
    }
    if (!(mem[ACC] == added)) {
      throw new AssertionError(s + "accumulated " + mem[ACC] + ", expected " + added);
    }
    for (int r = 0; r < run.rounds; r++) {
      if (racers[r] == 0) {
        if (!(mem[CLAIMS + r] == 0)) {
          throw new AssertionError(s + "unclaimed slot " + r + " holds " + mem[CLAIMS + r]);
        }
        continue;
      }
      if (!(claims[r] != null)) {
        throw new AssertionError(s + "no compare-and-swap won slot " + r);
      }
      if (!(mem[CLAIMS + r] == claimWinners[r])) {
        throw new AssertionError(s + "slot " + r + " holds " + mem[CLAIMS + r] + ", won by "
            + claimWinners[r]);
      }
    }
    for (int o = 0; o < run.np; o++) {
      if (!(mem[run.puts() + o] == lastPut[o])) {
        throw new AssertionError(s + "last put of rank " + o + " is " + lastPut[o] + ", the slot holds "
            + mem[run.puts() + o]);
      }
    }
    // losers saw the winner: checked through the log of every origin
    for (int o = 0; o < run.np; o++) {
      for (int at = o * per; at < (o + 1) * per && all[at] != 0; at += ENTRY) {
        if (all[at] == CLAIMED && all[at + 1] == w && all[at + 2] == run.me && all[at + 4] != 0) {
          int r = (int) all[at + 3];
          if (!(all[at + 4] == claimWinners[r])) {
            throw new AssertionError(s + "a losing compare-and-swap of rank " + o + " saw "
                + all[at + 4] + ", the winner wrote " + claimWinners[r]);
          }
        }
      }
    }
  }

}
