package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.opentest4j.AssertionFailedError;

/**
 * Request-based RMA (MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate): the returned
 * future is the request, composed with {@code Future.all} (MPI_Waitall) and {@code Future.any}
 * (MPI_Waitany); outside a passive-target epoch each fails with RMA_SYNC.
 */
class RequestOpsTest {

  private static final int SLOTS = 8;

  private static long pattern(int rank, int slot) {
    return 1000L * rank + slot;
  }

  private static void fill(Win win, int rank) {
    for (int i = 0; i < SLOTS; i++) {
      win.memory().writeLong(8L * i, pattern(rank, i));
    }
  }

  private static void checkPattern(Win win, int rank, String when) {
    for (int i = 0; i < SLOTS; i++) {
      assertEquals(pattern(rank, i), win.memory().readLong(8L * i), "rank " + rank + " slot " + i + " " + when);
    }
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void rputAndRgetWithWaitallAndWaitany(Jobs.Mode mode) {
    Jobs.run(mode, 4, (world, args) -> Win.allocate(world, 8 * SLOTS, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      long[][] out = new long[n][];
      long[][] in = new long[n][];
      return win.lockAll()
          .compose(v -> {
            List<Future<Void>> reqs = new ArrayList<>();
            for (int t = 0; t < n; t++) {
              out[t] = new long[] {100L * r + t};
              reqs.add(win.rput(Buf.of(out[t]), 0, 1, Datatype.LONG, t, r));
            }
            reqs.add(win.rput(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, Comm.PROC_NULL, 0)); // a no-op request
            return Future.all(reqs); // MPI_Waitall
          })
          .compose(v -> {
            // local completion: the origin buffers may be reused at once
            for (long[] o : out) {
              o[0] = -1;
            }
            return win.flushAll();
          })
          .compose(v -> world.barrier())
          .compose(v -> {
            List<Future<Void>> reqs = new ArrayList<>();
            for (int t = 0; t < n; t++) {
              in[t] = new long[n];
              reqs.add(win.rget(Buf.of(in[t]), 0, n, Datatype.LONG, t, 0));
            }
            // MPI_Waitany: the first request to complete, then the rest
            return Future.any(reqs).compose(first -> {
              int done = -1;
              for (int t = 0; t < n; t++) {
                if (reqs.get(t).isComplete() && reqs.get(t).succeeded()) {
                  done = t;
                  break;
                }
              }
              assertTrue(done >= 0, "Future.any completed although no rget had");
              checkRow(in[done], done, n);
              return Future.all(reqs);
            });
          })
          .map(v -> {
            for (int t = 0; t < n; t++) {
              checkRow(in[t], t, n);
            }
            return null;
          })
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  private static void checkRow(long[] row, int target, int n) {
    long[] expected = new long[n];
    for (int o = 0; o < n; o++) {
      expected[o] = 100L * o + target;
    }
    assertArrayEquals(expected, row, "what every origin rput at rank " + target);
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void raccumulateAndRgetAccumulate(Jobs.Mode mode) {
    int rounds = 5;
    Jobs.run(mode, 4, (world, args) -> Win.allocate(world, 8 * SLOTS, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      int last = n - 1;
      long[] fetched = new long[rounds];
      long[] allFetched = new long[rounds * n];
      long[] max = new long[1];
      long[] finalValues = new long[3];
      return win.lockAll()
          .compose(v -> {
            List<Future<Void>> reqs = new ArrayList<>();
            for (int k = 0; k < rounds; k++) {
              reqs.add(win.raccumulate(Buf.of(new long[] {r + 1, 10L * (r + 1)}), 0, 2, Datatype.LONG, 0, 0, 2,
                  Datatype.LONG, Op.SUM));
              reqs.add(win.rgetAccumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, Buf.of(fetched), k, 1, Datatype.LONG, last,
                  2, 1, Datatype.LONG, Op.SUM));
            }
            reqs.add(win.rgetAccumulate(Buf.of(new long[] {100L + r}), 0, 1, Datatype.LONG, Buf.of(max), 0, 1, Datatype.LONG, 1, 3, 1,
                Datatype.LONG, Op.MAX));
            return Future.all(reqs);
          })
          .compose(v -> win.flushAll())
          .compose(v -> world.gather(Buf.of(fetched), 0, rounds, Datatype.LONG, Buf.of(allFetched), 0, rounds, Datatype.LONG, 0))
          .compose(v -> world.barrier())
          .compose(v -> Future.all(
              win.rgetAccumulate(null, 0, 0, Datatype.LONG, Buf.of(finalValues), 0, 2, Datatype.LONG, 0, 0, 2, Datatype.LONG,
                  Op.NO_OP),
              win.rgetAccumulate(null, 0, 0, Datatype.LONG, Buf.of(finalValues), 2, 1, Datatype.LONG, 1, 3, 1, Datatype.LONG,
                  Op.NO_OP)))
          .map(v -> {
            long ranks = (long) n * (n + 1) / 2;
            assertEquals(rounds * ranks, finalValues[0], "raccumulated slot 0 at rank 0");
            assertEquals(rounds * ranks * 10, finalValues[1], "raccumulated slot 1 at rank 0");
            assertEquals(100L + n - 1, finalValues[2], "MAX of every rank's 100+r at rank 1");
            for (int k = 1; k < rounds; k++) {
              assertTrue(fetched[k] > fetched[k - 1], "rank " + r + " fetched " + Arrays.toString(fetched));
            }
            if (r == 0) {
              long[] sorted = allFetched.clone();
              Arrays.sort(sorted);
              for (int i = 0; i < sorted.length; i++) {
                assertEquals(i, sorted[i], "prior values of fetch-and-add at rank " + last);
              }
            }
            return null;
          })
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void requestOpsOutsideAPassiveEpochFailWithRmaSync(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, 8 * SLOTS, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      int right = (r + 1) % n;
      int left = (r + n - 1) % n;
      fill(win, r);
      long[] getBuf = {-5, -5};
      long[] result = {-6};
      return world.barrier()
          // no epoch at all
          .compose(v -> expectError(win.rput(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, right, 0), ErrorClass.RMA_SYNC,
              "rput", "rank " + right))
          // inside a fence epoch: request-based operations need a passive-target epoch
          .compose(v -> win.fence(Mode.NOPRECEDE))
          .compose(v -> expectError(win.rput(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, right, 0), ErrorClass.RMA_SYNC,
              "rput", "rank " + right, "passive"))
          .compose(v -> expectError(win.rget(Buf.of(getBuf), 0, 2, Datatype.LONG, right, 0), ErrorClass.RMA_SYNC,
              "rget", "rank " + right, "passive"))
          .compose(v -> expectError(win.raccumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, right, 1, 1, Datatype.LONG,
              Op.SUM), ErrorClass.RMA_SYNC, "raccumulate", "rank " + right, "passive"))
          .compose(v -> expectError(win.rgetAccumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, Buf.of(result), 0, 1,
              Datatype.LONG, right, 2, 1, Datatype.LONG, Op.SUM), ErrorClass.RMA_SYNC, "rgetAccumulate",
              "rank " + right, "passive"))
          .compose(v -> win.fence())
          .map(v -> {
            assertArrayEquals(new long[] {-5, -5}, getBuf, "a rejected rget leaves the origin buffer alone");
            assertEquals(-6, result[0], "a rejected rgetAccumulate leaves the result buffer alone");
            checkPattern(win, r, "after rejected request-based operations");
            return null;
          })
          .compose(v -> world.barrier()) // every rank checked before the neighbours write
          // the fence epoch itself still works
          .compose(v -> win.put(Buf.of(new long[] {5000L + r}), 0, 1, Datatype.LONG, right, 4))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .map(v -> {
            assertEquals(5000L + left, win.memory().readLong(4 * 8), "put in the fence epoch");
            win.memory().writeLong(4 * 8, pattern(r, 4));
            return null;
          })
          .compose(v -> world.barrier())
          // inside a post/start epoch (access to the left neighbour, exposure to the right)
          .compose(v -> win.post(world.group().incl(right)))
          .compose(v -> win.start(world.group().incl(left)))
          .compose(v -> expectError(win.rput(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, left, 0), ErrorClass.RMA_SYNC,
              "rput", "rank " + left))
          .compose(v -> win.complete())
          .compose(v -> win.waitFor())
          // a lock on one target does not cover another
          .compose(v -> win.lock(LockType.SHARED, right))
          .compose(v -> expectError(win.rput(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, left, 0), ErrorClass.RMA_SYNC,
              "rput", "rank " + left))
          .compose(v -> win.unlock(right))
          .compose(v -> world.barrier())
          .map(v -> {
            checkPattern(win, r, "after rejected request-based operations");
            return null;
          })
          .compose(v -> world.barrier())
          // and the request-based operations work once in a passive epoch
          .compose(v -> win.lockAll())
          .compose(v -> win.rput(Buf.of(new long[] {7000L + r}), 0, 1, Datatype.LONG, right, 5))
          .compose(v -> win.flush(right))
          .compose(v -> world.barrier())
          .compose(v -> win.sync())
          .map(v -> {
            assertEquals(7000L + left, win.memory().readLong(5 * 8), "rput after the rejected ones");
            return null;
          })
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }
}
