package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Calls issued the way a reactive user writes them: without awaiting each one. MPI allows it: an
 * operation issued after {@code lock} or {@code start} belongs to that epoch even if the lock is
 * not granted or the start not matched yet, and {@code unlock}, {@code flush}, {@code complete},
 * {@code fence} complete every operation issued before them. Every value is checked.
 */
class PipelinedCallsTest {

  private static final int ROUNDS = 30;

  private static long readAt(Win win, int rank, long disp) {
    return win.memory().readLong(disp);
  }

  /** lock → put → unlock, none awaited; the put must have landed when unlock completes. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void lockPutUnlockIssuedTogether(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      if (world.rank() == 1) {
        return world.barrier().compose(v -> win.free());
      }
      return Rma.repeat(ROUNDS, r -> {
        long[] value = {1000 + r};
        Future<Void> lock = win.lock(LockType.EXCLUSIVE, 1);
        Future<Void> put = win.put(Buf.of(value), 0, 1, Datatype.LONG, 1, r % 8);
        Future<Void> unlock = win.unlock(1);
        return Future.all(lock, put, unlock).compose(v -> {
          assertTrue(put.isComplete(), "unlock completed before the put of its epoch");
          long[] back = new long[1];
          return win.lock(LockType.SHARED, 1).compose(x -> win.get(Buf.of(back), 0, 1, Datatype.LONG, 1, r % 8))
              .compose(x -> win.unlock(1)).map(x -> {
                assertEquals(1000 + r, back[0], "round " + r + ": the value put in the pipelined epoch");
                return null;
              });
        });
      }).compose(v -> world.barrier()).compose(v -> win.free());
    }));
  }

  /** lock → put → flush, none awaited; when flush completes, the put is complete. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void lockPutFlushIssuedTogether(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      if (world.rank() == 1) {
        return world.barrier().map(v -> {
          assertEquals(77L, readAt(win, 1, 0), "value at the target after rank 0's flush and unlock");
          return null;
        }).compose(v -> win.free());
      }
      long[] value = {77};
      Future<Void> lock = win.lock(LockType.SHARED, 1);
      Future<Void> put = win.put(Buf.of(value), 0, 1, Datatype.LONG, 1, 0);
      Future<Void> flush = win.flush(1).map(v -> {
        assertTrue(lock.succeeded(), "flush completed before the lock of its epoch was granted");
        assertTrue(put.isComplete(), "flush completed before the put issued before it");
        return null;
      });
      return Future.all(lock, put, flush).compose(v -> win.unlock(1)).compose(v -> world.barrier())
          .compose(v -> win.free());
    }));
  }

  /** Several flushes in a row, and flushAll, each after a batch of puts: none completes early. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void everyFlushWaitsForWhatWasIssuedBeforeIt(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 8 * 64, 8, Info.NULL).compose(win -> {
      if (world.rank() == 1) {
        return world.barrier().map(v -> {
          for (int i = 0; i < 64; i++) {
            assertEquals(i * 3L, readAt(win, 1, 8L * i), "slot " + i);
          }
          return null;
        }).compose(v -> win.free());
      }
      return win.lockAll().compose(v -> {
        List<Future<?>> all = new ArrayList<>();
        for (int batch = 0; batch < 4; batch++) {
          List<Future<Void>> puts = new ArrayList<>();
          for (int i = 16 * batch; i < 16 * (batch + 1); i++) {
            puts.add(win.put(Buf.of(new long[] {i * 3L}), 0, 1, Datatype.LONG, 1, i));
          }
          Future<Void> first = win.flush(1);
          Future<Void> second = win.flush(1);
          Future<Void> everyone = win.flushAll();
          for (Future<Void> f : List.of(first, second, everyone)) {
            all.add(f.map(x -> {
              puts.forEach(p -> assertTrue(p.isComplete(), "a flush completed before a put issued before it"));
              return null;
            }));
          }
          all.addAll(puts);
        }
        return Future.all(all);
      }).compose(v -> win.unlockAll()).compose(v -> world.barrier()).compose(v -> win.free());
    }));
  }

  /** start → put → complete at the origin, post → waitFor at the target, none awaited. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void startPutCompleteIssuedTogether(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win ->
        Rma.repeat(ROUNDS, r -> {
          if (world.rank() == 1) {
            Future<Void> post = win.post(world.group().incl(0));
            Future<Void> waited = win.waitFor().map(v -> {
              assertEquals(500L + r, readAt(win, 1, 16), "round " + r + ": value after waitFor");
              return null;
            });
            return Future.all(post, waited);
          }
          Future<Void> start = win.start(world.group().incl(1));
          Future<Void> put = win.put(Buf.of(new long[] {500 + r}), 0, 1, Datatype.LONG, 1, 2);
          Future<Void> complete = win.complete();
          return Future.all(start, put, complete).map(v -> {
            assertTrue(put.isComplete(), "complete finished before the put of its epoch");
            return null;
          });
        }).compose(v -> world.barrier()).compose(v -> win.free())));
  }

  /** fence → put → fence, none awaited, round after round. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void fencePutFenceIssuedTogether(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      int next = (world.rank() + 1) % world.size();
      int prev = (world.rank() + world.size() - 1) % world.size();
      return win.fence(Mode.NOPRECEDE).compose(v -> Rma.repeat(ROUNDS, r -> {
        Future<Void> put = win.put(Buf.of(new long[] {100L * world.rank() + r}), 0, 1, Datatype.LONG, next, r % 8);
        Future<Void> fence = win.fence();
        return Future.all(put, fence).map(x -> {
          assertEquals(100L * prev + r, readAt(win, world.rank(), 8L * (r % 8)), "round " + r + ": put from " + prev);
          return null;
        });
      })).compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> win.free());
    }));
  }

  /** lockAll → 200 fetchAndOps → flush, none awaited: the fetched values are 0, 1, ..., 199 in issue order. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void pipelinedFetchAndOpsAreOrderedAndComplete(Jobs.Mode mode) {
    int n = 200;
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
      if (world.rank() == 1) {
        return world.barrier().map(v -> {
          assertEquals(n, readAt(win, 1, 0), "counter after the flush");
          return null;
        }).compose(v -> win.free());
      }
      long[] fetched = new long[n];
      List<Future<?>> ops = new ArrayList<>();
      ops.add(win.lockAll());
      for (int i = 0; i < n; i++) {
        int at = i;
        ops.add(win.fetchAndOp(1, 1, 0, Op.SUM).map(prev -> fetched[at] = prev));
      }
      ops.add(win.flush(1));
      ops.add(win.unlockAll());
      return Future.all(ops).map(v -> {
        long[] expected = new long[n];
        for (int i = 0; i < n; i++) {
          expected[i] = i;
        }
        assertArrayEquals(expected, fetched, "fetchAndOps of one origin are applied in issue order");
        return null;
      }).compose(v -> world.barrier()).compose(v -> win.free());
    }));
  }

  /** Twenty whole lock epochs on one target issued back to back, nothing awaited until the end. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void epochsAfterEpochsIssuedTogether(Jobs.Mode mode) {
    int epochs = 20;
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, 16, 8, Info.NULL).compose(win -> {
      if (world.rank() == 2) {
        return world.barrier().map(v -> {
          assertEquals(2L * epochs, readAt(win, 2, 8), "accumulates of both origins' epochs");
          long last = readAt(win, 2, 0);
          assertTrue(last == 100 + epochs - 1 || last == 200 + epochs - 1, "last put wins: " + last);
          return null;
        }).compose(v -> win.free());
      }
      List<Future<?>> calls = new ArrayList<>();
      for (int e = 0; e < epochs; e++) {
        calls.add(win.lock(LockType.EXCLUSIVE, 2));
        calls.add(win.put(Buf.of(new long[] {100L * (world.rank() + 1) + e}), 0, 1, Datatype.LONG, 2, 0));
        calls.add(win.accumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, 2, 1, Op.SUM));
        calls.add(win.unlock(2));
      }
      return Future.all(calls).compose(v -> world.barrier()).compose(v -> win.free());
    }));
  }

  /** A fence that asserts NOPRECEDE right after a completed passive-target epoch: nothing precedes it. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void fenceNoPrecedeAfterACompletedLockEpoch(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 16, 8, Info.NULL).compose(win -> {
      int other = 1 - world.rank();
      return win.lockAll()
          .compose(v -> win.put(Buf.of(new long[] {5}), 0, 1, Datatype.LONG, other, 0))
          .compose(v -> win.unlockAll())
          .compose(v -> win.fence(Mode.NOPRECEDE))
          .compose(v -> win.put(Buf.of(new long[] {6}), 0, 1, Datatype.LONG, other, 1))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .map(v -> {
            assertEquals(5L, readAt(win, world.rank(), 0));
            assertEquals(6L, readAt(win, world.rank(), 8));
            return null;
          }).compose(v -> win.free());
    }));
  }

  /**
   * A start that times out is withdrawn: the put and the complete issued with it fail with its
   * TIMEOUT, a later complete fails with RMA_SYNC at once, and the window serves a normal
   * post/start epoch afterwards. (Rank 1 waits on a timer, not a library wait, before it joins.)
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aTimedOutStartIsWithdrawnAndTheWindowStaysUsable(Jobs.Mode mode) {
    long t = 400;
    Jobs.await(Jobs.start(mode, Jobs.options(2).setWaitTimeoutMs(t), (world, args) ->
        Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
          Group other = win.group().excl(world.rank());
          if (world.rank() == 1) {
            return io.vertx.core.Vertx.currentContext().owner().timer(t * 3 / 2)
                .compose(x -> world.barrier())
                .compose(v -> win.post(other))
                .compose(v -> win.waitFor())
                .map(v -> {
                  assertEquals(7L, win.memory().readLong(0), "the put of the epoch after the withdrawn one");
                  return null;
                })
                .compose(v -> world.barrier()).compose(v -> win.free());
          }
          Future<Void> start = win.start(other);
          Future<Void> put = win.put(Buf.of(new long[] {5}), 0, 1, Datatype.LONG, 1, 0);
          Future<Void> complete = win.complete();
          return Future.join(start, put, complete).transform(ar -> {
            for (Future<Void> f : List.of(start, put, complete)) {
              assertTrue(f.failed(), "a call of the timed-out epoch succeeded");
              assertEquals(ErrorClass.TIMEOUT, ((RmaException) f.cause()).errorClass(), f.cause().getMessage());
            }
            return win.complete().transform(again -> {
              assertTrue(again.failed(), "complete after a withdrawn start succeeded");
              assertEquals(ErrorClass.RMA_SYNC, ((RmaException) again.cause()).errorClass());
              return world.barrier();
            });
          }).compose(v -> win.start(other))
              .compose(v -> win.put(Buf.of(new long[] {7}), 0, 1, Datatype.LONG, 1, 0))
              .compose(v -> win.complete())
              .compose(v -> world.barrier()).compose(v -> win.free());
        })), 60);
  }
}
