package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
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
 * The load test of the issue: 8 ranks each do 10,000 {@code fetchAndOp(1, 0, 0, SUM)} on one
 * long at rank 0 inside lockAll, pipelined in batches of {@value #BATCH} outstanding operations
 * with a flush per batch. The counter must end at exactly 80,000 and the prior values returned
 * must be exactly {0, ..., 79,999}: every fetch-and-op atomic, none lost or applied twice.
 */
class FetchAndOpLoadTest {

  private static final int RANKS = 8;
  private static final int PER_RANK = 10_000;
  private static final int BATCH = 500;

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void eightRanksTimesTenThousandFetchAndOps(Jobs.Mode mode) {
    long t0 = System.nanoTime();
    long[] opsNanos = new long[1];
    Jobs.run(mode, RANKS, (world, args) -> Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      long[] prior = new long[PER_RANK];
      long[] all = r == 0 ? new long[RANKS * PER_RANK] : new long[0];
      long[] start = new long[1];
      Future<Void> f = world.barrier().compose(v -> win.lockAll()).map(v -> {
        start[0] = System.nanoTime();
        return null;
      });
      for (int b = 0; b < PER_RANK / BATCH; b++) {
        int first = b * BATCH;
        f = f.compose(v -> {
          List<Future<Long>> batch = new ArrayList<>(BATCH);
          for (int i = 0; i < BATCH; i++) {
            int at = first + i;
            batch.add(win.fetchAndOp(1, 0, 0, Op.SUM).map(old -> {
              prior[at] = old;
              return old;
            }));
          }
          return win.flush(0).compose(x -> Future.all(batch)).mapEmpty();
        });
      }
      return f
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .map(v -> {
            if (r == 0) {
              opsNanos[0] = System.nanoTime() - start[0];
              assertEquals((long) RANKS * PER_RANK, win.memory().readLong(0), "final counter at rank 0");
            }
            for (int i = 1; i < PER_RANK; i++) {
              if (prior[i] <= prior[i - 1]) {
                assertEquals(-1, i, "rank " + r + ": prior values of its own fetch-and-ops must increase, got "
                    + prior[i - 1] + " then " + prior[i] + " at op " + i);
              }
            }
            return null;
          })
          .compose(v -> world.gather(Buf.of(prior), 0, PER_RANK, Datatype.LONG, Buf.of(all), 0, PER_RANK, Datatype.LONG, 0))
          .map(v -> {
            if (r == 0) {
              long[] sorted = all.clone();
              Arrays.sort(sorted);
              for (int i = 0; i < sorted.length; i++) {
                if (sorted[i] != i) {
                  assertEquals(i, sorted[i], "the multiset of prior values is not {0 .. " + (sorted.length - 1)
                      + "}: first difference at sorted index " + i);
                }
              }
            }
            return null;
          })
          .compose(v -> win.free());
    }));
    long total = System.nanoTime() - t0;
    System.out.printf("FetchAndOpLoadTest %s: %d fetch-and-ops in %.2f s (lockAll..unlockAll, %.0f ops/s), "
        + "whole job %.2f s%n", mode, RANKS * PER_RANK, opsNanos[0] / 1e9, RANKS * PER_RANK / (opsNanos[0] / 1e9),
        total / 1e9);
    assertEquals(0, WindowMemory.live());
  }
}
