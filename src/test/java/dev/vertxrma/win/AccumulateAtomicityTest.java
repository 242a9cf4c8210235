package dev.vertxrma.win;

import static dev.vertxrma.win.RmaOpsTest.all;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Accumulates from many origins racing on the same target elements are element-wise atomic, and
 * accumulates of one origin to one target are applied in issue order. 8 ranks: embedded, all
 * origins share the target's JVM; clustered, ranks 0-3 and 4-7 are on different Vert.x nodes.
 */
class AccumulateAtomicityTest {

  static final int NP = 8;
  static final int ELEMS = 16;
  static final int REPS = 200;

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void compareAndSwapHasExactlyOneWinner(Jobs.Mode mode) {
    // every rank tries 0 -> (rank + 1) on the same long of rank 0, 20 rounds on 20 different longs
    int rounds = 20;
    Jobs.run(mode, NP, (world, args) -> Win.allocate(world, world.rank() == 0 ? 8L * rounds : 0, 8, Info.NULL)
        .compose(win -> {
          int r = world.rank();
          int n = world.size();
          long[] old = new long[rounds];
          long[] all = new long[n * rounds];
          return win.fence(Mode.NOPRECEDE)
              .compose(v -> {
                List<Future<?>> ops = new ArrayList<>();
                for (int k = 0; k < rounds; k++) {
                  int at = k;
                  ops.add(win.compareAndSwap(0, r + 1, 0, k).map(o -> {
                    old[at] = o;
                    return null;
                  }));
                }
                return all(ops);
              })
              .compose(v -> win.fence(Mode.NOSUCCEED))
              .compose(v -> world.gather(Buf.of(old), 0, rounds, Datatype.LONG, Buf.of(all), 0, rounds, Datatype.LONG, 0))
              .map(v -> {
                if (r == 0) {
                  for (int k = 0; k < rounds; k++) {
                    long winner = win.memory().readLong(8L * k);
                    int zeros = 0;
                    for (int o = 0; o < n; o++) {
                      long seen = all[o * rounds + k];
                      if (seen == 0) {
                        zeros++;
                        assertEquals(o + 1, winner, "round " + k + ": rank " + o + " saw 0, so its value must be there");
                      } else {
                        assertEquals(winner, seen, "round " + k + ": rank " + o + " lost and must have seen the winner");
                      }
                    }
                    assertEquals(1, zeros, "round " + k + ": exactly one compare-and-swap succeeds");
                  }
                }
                return null;
              })
              .compose(v -> win.free());
        }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void concurrentAccumulatesAreAtomicAndSameOriginOrderIsKept(Jobs.Mode mode) {
    // rank 0's window (unit 8): longs [0, 16) SUM target, doubles [16, 32) SUM target, [32, 40) one REPLACE
    // element per origin, [40] fetch-and-op ticket counter, [48, 48 + 8 * 100) results of ordered fetches
    Jobs.run(mode, NP, (world, args) -> Win.allocate(world, world.rank() == 0 ? 8 * 64 : 8, 8, Info.NULL)
        .compose(win -> {
          int r = world.rank();
          int n = world.size();
          int tickets = 50;
          long[] myTickets = new long[tickets];
          long[] allTickets = new long[n * tickets];
          long[] fetched = new long[100];
          Future<Void> epoch = win.fence(Mode.NOPRECEDE).compose(v -> {
            List<Future<?>> ops = new ArrayList<>();
            long[] ones = new long[ELEMS];
            Arrays.fill(ones, 1);
            double[] mine = new double[ELEMS];
            for (int i = 0; i < ELEMS; i++) {
              mine[i] = (r + 1) * (i + 1);
            }
            for (int k = 0; k < REPS; k++) {
              ops.add(win.accumulate(Buf.of(ones), 0, ELEMS, Datatype.LONG, 0, 0, Op.SUM));
              ops.add(win.accumulate(Buf.of(mine), 0, ELEMS, Datatype.DOUBLE, 0, ELEMS, Op.SUM));
            }
            // same-origin ordering: REPLACE 1..100, each from its own buffer, nothing awaited in between
            for (int i = 1; i <= 100; i++) {
              ops.add(win.accumulate(Buf.of(new long[] {i}), 0, 1, Datatype.LONG, 0, 32 + r, Op.REPLACE));
            }
            // tickets: fetch-and-op SUM 1 on one counter from every origin at once
            for (int k = 0; k < tickets; k++) {
              long[] out = myTickets;
              int at = k;
              ops.add(win.fetchAndOp(Buf.of(new long[] {1}), 0, Buf.of(out), at, Datatype.LONG, 0, 40, Op.SUM));
            }
            return all(ops);
          });
          return epoch
              // ordered fetches: rank 1 alone increments its own element 100 times; results come back in order
              .compose(v -> win.fence())
              .compose(v -> {
                if (r != 1) {
                  return Future.succeededFuture();
                }
                List<Future<?>> ops = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                  ops.add(win.getAccumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, Buf.of(fetched), i, 1, Datatype.LONG, 0, 48,
                      1, Datatype.LONG, Op.SUM));
                }
                return all(ops);
              })
              .compose(v -> win.fence(Mode.NOSUCCEED))
              .compose(v -> world.gather(Buf.of(myTickets), 0, tickets, Datatype.LONG, Buf.of(allTickets), 0, tickets, Datatype.LONG,
                  0))
              .map(v -> {
                if (r == 1) {
                  for (int i = 0; i < 100; i++) {
                    assertEquals(i, fetched[i], "the " + i + "th fetch-and-add of rank 1 (in issue order)");
                  }
                }
                if (r == 0) {
                  for (int i = 0; i < ELEMS; i++) {
                    assertEquals((long) n * REPS, win.memory().readLong(8L * i), "LONG SUM total of element " + i);
                    double expected = 0;
                    for (int o = 0; o < n; o++) {
                      expected += (double) REPS * (o + 1) * (i + 1);
                    }
                    assertEquals(expected, win.memory().readDouble(8L * (ELEMS + i)), "DOUBLE SUM total of element "
                        + i);
                  }
                  for (int o = 0; o < n; o++) {
                    assertEquals(100L, win.memory().readLong(8L * (32 + o)), "last REPLACE of rank " + o + " wins");
                  }
                  assertEquals((long) n * tickets, win.memory().readLong(8L * 40), "ticket counter");
                  long[] sorted = allTickets.clone();
                  Arrays.sort(sorted);
                  for (int i = 0; i < sorted.length; i++) {
                    assertEquals(i, sorted[i], "tickets handed out by fetch-and-op are 0.." + (sorted.length - 1)
                        + " without duplicates");
                  }
                  for (int o = 0; o < n; o++) {
                    for (int k = 1; k < tickets; k++) {
                      long prev = allTickets[o * tickets + k - 1];
                      long cur = allTickets[o * tickets + k];
                      if (cur <= prev) {
                        throw new AssertionError("rank " + o + "'s tickets are not increasing in issue order: "
                            + prev + " then " + cur);
                      }
                    }
                  }
                  assertEquals(100L, win.memory().readLong(8L * 48), "rank 1's 100 ordered fetch-and-adds");
                }
                return null;
              })
              .compose(v -> win.free());
        }));
    assertEquals(0, WindowMemory.live());
  }
}
