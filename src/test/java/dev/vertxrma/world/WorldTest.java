package dev.vertxrma.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.World;
import dev.vertxrma.impl.runtime.JobRuntime;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A long-lived world used the way a service uses it: windows created at start-up, one
 * {@code lockAll} held by the world, and many threads issuing atomic operations on every rank at
 * once without awaiting each other; every fetched value and every final value checked.
 */
class WorldTest {

  private static final int NP = 4;
  private static final int CALLERS = 8;
  private static final int CALLS_PER_CALLER = 400;

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void concurrentCallersOnEveryRankGetExactAtomicResults(Jobs.Mode mode) throws Exception {
    List<World> parts = Jobs.worlds(mode, Jobs.options(NP));
    Map<Integer, Comm> ranks = new TreeMap<>();
    for (World w : parts) {
      assertEquals(NP, w.size());
      for (int r : w.localRanks()) {
        ranks.put(r, w.rank(r));
      }
    }
    assertEquals(NP, ranks.size());

    // start-up: collective window creation and the world's passive epoch, issued from this thread
    List<Future<Win>> created = new ArrayList<>();
    for (Comm c : ranks.values()) {
      created.add(Win.allocate(c, 8L * (NP + 1), 8, Info.NULL));
    }
    Win[] wins = new Win[NP];
    for (int r = 0; r < NP; r++) {
      wins[r] = Jobs.await(created.get(r), 60);
      Jobs.await(wins[r].lockAll(), 30);
    }

    // CALLERS threads, each using every rank as origin, pipelined: no call awaits the previous one
    Map<Integer, List<Long>> fetchedPerTarget = new ConcurrentHashMap<>();
    CountDownLatch done = new CountDownLatch(CALLERS);
    List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int t = 0; t < CALLERS; t++) {
      int caller = t;
      new Thread(() -> {
        List<Future<Long>> fops = new ArrayList<>();
        List<Integer> targets = new ArrayList<>();
        for (int i = 0; i < CALLS_PER_CALLER; i++) {
          int origin = (caller + i) % NP;
          int target = (caller * 7 + i * 3) % NP;
          fops.add(wins[origin].fetchAndOp(1, target, 0, Op.SUM));
          targets.add(target);
          // and a per-origin slot counted with accumulate
          wins[origin].accumulate(Buf.of(new long[] {1}), 0, 1, dev.vertxrma.Datatype.LONG, target, 1 + origin, Op.SUM)
              .onFailure(errors::add);
        }
        Future.join(new ArrayList<>(fops)).onComplete(ar -> {
          for (int i = 0; i < fops.size(); i++) {
            if (fops.get(i).failed()) {
              errors.add(fops.get(i).cause());
            } else {
              fetchedPerTarget.computeIfAbsent(targets.get(i), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                  .add(fops.get(i).result());
            }
          }
          done.countDown();
        });
      }, "caller-" + t).start();
    }
    assertEquals(true, done.await(120, TimeUnit.SECONDS), "callers did not finish");
    assertEquals(List.of(), errors);
    for (int r = 0; r < NP; r++) {
      Jobs.await(wins[r].flushAll(), 30);
    }

    // every increment seen exactly once: the fetched values at each target are 0..n-1
    int[] expectedPerTarget = new int[NP];
    long[][] expectedSlots = new long[NP][NP];
    for (int caller = 0; caller < CALLERS; caller++) {
      for (int i = 0; i < CALLS_PER_CALLER; i++) {
        int target = (caller * 7 + i * 3) % NP;
        expectedPerTarget[target]++;
        expectedSlots[target][(caller + i) % NP]++;
      }
    }
    for (int target = 0; target < NP; target++) {
      List<Long> seen = new ArrayList<>(fetchedPerTarget.getOrDefault(target, List.of()));
      seen.sort(null);
      List<Long> expected = new ArrayList<>();
      for (long v = 0; v < expectedPerTarget[target]; v++) {
        expected.add(v);
      }
      assertEquals(expected, seen, "values fetched at target " + target);
      long[] counter = new long[NP + 1];
      Jobs.await(wins[(target + 1) % NP].get(Buf.of(counter), 0, NP + 1, dev.vertxrma.Datatype.LONG, target, 0), 30);
      Jobs.await(wins[(target + 1) % NP].flush(target), 30);
      assertEquals(expectedPerTarget[target], counter[0], "counter at " + target);
      for (int origin = 0; origin < NP; origin++) {
        assertEquals(expectedSlots[target][origin], counter[1 + origin], "slot of origin " + origin + " at " + target);
      }
    }

    // shutdown: epoch and windows are collective, then MPI_Finalize
    List<Future<Void>> freed = new ArrayList<>();
    for (Win w : wins) {
      freed.add(w.unlockAll().compose(v -> w.free()));
    }
    Jobs.await(Future.all(freed), 60);
    List<Future<Void>> closed = new ArrayList<>();
    for (World w : parts) {
      closed.add(w.close());
    }
    Jobs.await(Future.all(closed), 60);
    for (World w : parts) {
      RmaException e = assertThrows(RmaException.class, () -> w.rank(w.localRanks().get(0)));
      assertEquals(ErrorClass.ARG, e.errorClass());
    }
    assertEquals(0, JobRuntime.activeJobs(Jobs.embedded()));
  }

  @Test
  void aRankNotHostedHereIsARankError() {
    World w = Jobs.worlds(Jobs.Mode.EMBEDDED, Jobs.options(2)).get(0);
    try {
      RmaException e = assertThrows(RmaException.class, () -> w.rank(2));
      assertEquals(ErrorClass.RANK, e.errorClass());
      assertEquals(true, e.getMessage().contains("not hosted"), e.getMessage());
    } finally {
      Jobs.await(w.close(), 60);
    }
    assertEquals(w.close(), w.close(), "close is idempotent");
  }
}
