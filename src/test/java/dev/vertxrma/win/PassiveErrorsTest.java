package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.function.BiFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.opentest4j.AssertionFailedError;

/**
 * Wrong passive-target synchronization sequences: each fails with RMA_SYNC and a message naming
 * the call and the ranks, leaves every window unchanged, and a correct sequence afterwards works.
 */
class PassiveErrorsTest {

  private static final int SLOTS = 4;

  private static long pattern(int rank, int slot) {
    return 100L * rank + slot;
  }

  /**
   * Runs {@code scenario} on a window of {@value #SLOTS} longs per rank filled with a known
   * pattern, then checks at every rank that the window is unchanged, then proves it still works
   * (exclusive lock + put + unlock to the right neighbour, or fence epochs if the window has
   * no_locks), then frees it.
   */
  private static void scenario(Jobs.Mode mode, int np, Info info, BiFunction<Comm, Win, Future<Void>> scenario) {
    scenario(mode, Jobs.options(np), info, scenario);
  }

  private static void scenario(Jobs.Mode mode, JobOptions options, Info info,
      BiFunction<Comm, Win, Future<Void>> scenario) {
    Jobs.await(Jobs.start(mode, options, (world, args) -> Win.allocate(world, 8 * SLOTS, 8, info).compose(win -> {
      int r = world.rank();
      int n = world.size();
      int right = (r + 1) % n;
      int left = (r + n - 1) % n;
      for (int i = 0; i < SLOTS; i++) {
        win.memory().writeLong(8L * i, pattern(r, i));
      }
      boolean noLocks = "true".equals(win.info().get(Info.NO_LOCKS));
      long marker = 9000L + r;
      return world.barrier()
          .compose(v -> scenario.apply(world, win))
          .compose(v -> world.barrier())
          .map(v -> {
            for (int i = 0; i < SLOTS; i++) {
              assertEquals(pattern(r, i), win.memory().readLong(8L * i), "rank " + r + " slot " + i
                  + " after the rejected calls");
            }
            return null;
          })
          .compose(v -> world.barrier()) // every rank has checked before anyone writes again
          .compose(v -> noLocks
              ? win.fence()
                  .compose(x -> win.put(Buf.of(new long[] {marker}), 0, 1, Datatype.LONG, right, SLOTS - 1))
                  .compose(x -> win.fence(Mode.NOSUCCEED))
              : win.lock(LockType.EXCLUSIVE, right)
                  .compose(x -> win.put(Buf.of(new long[] {marker}), 0, 1, Datatype.LONG, right, SLOTS - 1))
                  .compose(x -> win.unlock(right))
                  .compose(x -> world.barrier()))
          .map(v -> {
            assertEquals(9000L + left, win.memory().readLong(8L * (SLOTS - 1)), "put of the correct sequence");
            for (int i = 0; i < SLOTS - 1; i++) {
              assertEquals(pattern(r, i), win.memory().readLong(8L * i), "rank " + r + " slot " + i);
            }
            return null;
          })
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    })), 120);
    assertEquals(0, WindowMemory.live());
  }

  /** A put issued where no epoch covers the target is rejected with RMA_SYNC. */
  private static Future<Void> putRejected(Win win, int target) {
    return expectError(win.put(Buf.of(new long[] {-1}), 0, 1, Datatype.LONG, target, 0), ErrorClass.RMA_SYNC,
        "put to rank " + target);
  }

  // ------------------------------------------------------------------

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void unlockWithoutLock(Jobs.Mode mode) {
    scenario(mode, 3, Info.NULL, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      return expectError(win.unlock(right), ErrorClass.RMA_SYNC, "unlock of rank " + right, "at rank " + r,
          "without a matching lock")
          .compose(v -> putRejected(win, right))
          // a second unlock after a correct lock/unlock pair
          .compose(v -> win.lock(LockType.SHARED, right))
          .compose(v -> win.unlock(right))
          .compose(v -> expectError(win.unlock(right), ErrorClass.RMA_SYNC, "unlock of rank " + right,
              "without a matching lock"));
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void lockingTheSameTargetTwice(Jobs.Mode mode) {
    scenario(mode, 3, Info.NULL, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      long[] got = new long[1];
      return win.lock(LockType.SHARED, right)
          .compose(v -> expectError(win.lock(LockType.EXCLUSIVE, right), ErrorClass.RMA_SYNC,
              "rank " + r + " already holds a lock on the window at rank " + right))
          .compose(v -> expectError(win.lock(LockType.SHARED, right), ErrorClass.RMA_SYNC,
              "already holds a lock", "rank " + right))
          // the first lock is still held and usable
          .compose(v -> win.get(Buf.of(got), 0, 1, Datatype.LONG, right, 1))
          .map(v -> {
            assertEquals(pattern(right, 1), got[0]);
            return null;
          })
          .compose(v -> win.unlock(right))
          // and really released: a lock of the same target again works
          .compose(v -> win.lock(LockType.EXCLUSIVE, right))
          .compose(v -> win.unlock(right));
    });
  }

  /**
   * A second lock on a target already locked with NOCHECK: it must be rejected with RMA_SYNC
   * without any effect at the target, so that once the first (NOCHECK) lock is released every
   * other rank can lock that target.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void lockingTwiceAfterANocheckLockLeavesTheTargetUnlocked(Jobs.Mode mode) {
    scenario(mode, Jobs.options(3).setWaitTimeoutMs(10_000), Info.NULL, (world, win) -> {
      int r = world.rank();
      if (r != 0) {
        return world.barrier()
            // rank 2 now locks rank 1, which rank 0 no longer holds: the grant must come (bounded
            // here well below the job's wait timeout, to fail with a precise message; the bug it
            // names withholds the grant for good, and one request and grant after the barrier take
            // milliseconds on 2 loaded cores, so 3 s is a wide margin, not a measurement)
            .compose(v -> r == 2 ? within(world, 3_000, win.lock(LockType.EXCLUSIVE, 1),
                "lock(EXCLUSIVE, 1) by rank 2 after rank 0 unlocked its NOCHECK lock on rank 1: rank 1 still "
                    + "counts the rejected second lock(EXCLUSIVE, 1) of rank 0 as granted")
                .compose(x -> win.unlock(1))
                : Future.succeededFuture());
      }
      return win.lock(LockType.SHARED, 1, Mode.NOCHECK)
          .compose(v -> expectError(win.lock(LockType.EXCLUSIVE, 1), ErrorClass.RMA_SYNC,
              "rank 0 already holds a lock on the window at rank 1"))
          .compose(v -> win.unlock(1))
          .compose(v -> world.barrier());
    });
  }

  /** {@code f}, failed with an assertion error if it has not completed after {@code ms} (a bound, not a delay). */
  private static <T> Future<T> within(Comm world, long ms, Future<T> f, String what) {
    io.vertx.core.Promise<T> p = io.vertx.core.Promise.promise();
    long timer = world.vertx().setTimer(ms, id -> p.tryFail(new AssertionFailedError(what + ": not done after "
        + ms + " ms")));
    f.onComplete(ar -> {
      world.vertx().cancelTimer(timer);
      if (ar.succeeded()) {
        p.tryComplete(ar.result());
      } else {
        p.tryFail(ar.cause());
      }
    });
    return p.future();
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void lockDuringAPostStartEpoch(Jobs.Mode mode) {
    scenario(mode, 3, Info.NULL, (world, win) -> {
      int r = world.rank();
      if (r == 0) {
        // exposure epoch for rank 1
        return win.post(world.group().incl(1))
            .compose(v -> expectError(win.lock(LockType.SHARED, 2), ErrorClass.RMA_SYNC, "lock at rank 0",
                "post/start epoch"))
            .compose(v -> expectError(win.lockAll(), ErrorClass.RMA_SYNC, "lockAll at rank 0", "post/start epoch"))
            .compose(v -> win.waitFor())
            .map(v -> {
              assertEquals(555, win.memory().readLong(8), "rank 1's put in the post/start epoch");
              win.memory().writeLong(8, pattern(0, 1));
              return null;
            });
      } else if (r == 1) {
        // access epoch to rank 0
        return win.start(world.group().incl(0))
            .compose(v -> expectError(win.lock(LockType.EXCLUSIVE, 0), ErrorClass.RMA_SYNC, "lock at rank 1",
                "post/start epoch"))
            .compose(v -> expectError(win.lock(LockType.SHARED, 2), ErrorClass.RMA_SYNC, "lock at rank 1",
                "post/start epoch"))
            .compose(v -> expectError(win.lockAll(), ErrorClass.RMA_SYNC, "lockAll at rank 1", "post/start epoch"))
            .compose(v -> win.put(Buf.of(new long[] {555}), 0, 1, Datatype.LONG, 0, 1))
            .compose(v -> win.complete());
      }
      return Future.succeededFuture();
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void fenceInsideALockEpoch(Jobs.Mode mode) {
    scenario(mode, 3, Info.NULL, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      int left = (r + world.size() - 1) % world.size();
      return win.lock(LockType.SHARED, right)
          .compose(v -> expectError(win.fence(), ErrorClass.RMA_SYNC, "fence at rank " + r,
              "passive-target (lock) epoch"))
          .compose(v -> win.unlock(right))
          .compose(v -> win.lockAll())
          .compose(v -> expectError(win.fence(), ErrorClass.RMA_SYNC, "fence at rank " + r,
              "passive-target (lock) epoch"))
          .compose(v -> win.unlockAll())
          // fences work afterwards (every rank called the same number of successful fences)
          .compose(v -> win.fence())
          .compose(v -> win.accumulate(Buf.of(new long[] {0}), 0, 1, Datatype.LONG, right, 2, Op.SUM))
          .compose(v -> win.get(Buf.of(new long[1]), 0, 1, Datatype.LONG, left, 0))
          .compose(v -> win.fence(Mode.NOSUCCEED));
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void freeWhileLocked(Jobs.Mode mode) {
    scenario(mode, 3, Info.NULL, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      long[] got = new long[1];
      return win.lock(LockType.EXCLUSIVE, right)
          .compose(v -> expectError(win.free(), ErrorClass.RMA_SYNC, "free at rank " + r,
              "passive-target (lock) epoch"))
          // the window was not freed: the epoch goes on
          .compose(v -> win.get(Buf.of(got), 0, 1, Datatype.LONG, right, 2))
          .map(v -> {
            assertEquals(pattern(right, 2), got[0]);
            return null;
          })
          .compose(v -> win.unlock(right))
          .compose(v -> win.lockAll())
          .compose(v -> expectError(win.free(), ErrorClass.RMA_SYNC, "free at rank " + r,
              "passive-target (lock) epoch"))
          .compose(v -> win.unlockAll());
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void syncOutsideAPassiveEpoch(Jobs.Mode mode) {
    scenario(mode, 2, Info.NULL, (world, win) -> {
      int r = world.rank();
      return expectError(win.sync(), ErrorClass.RMA_SYNC, "sync at rank " + r, "outside a passive-target epoch",
          win.name())
          .compose(v -> win.fence())
          .compose(v -> expectError(win.sync(), ErrorClass.RMA_SYNC, "sync at rank " + r,
              "outside a passive-target epoch"))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .compose(v -> win.lock(LockType.SHARED, r))
          .compose(v -> win.sync())
          .compose(v -> win.unlock(r))
          .compose(v -> expectError(win.sync(), ErrorClass.RMA_SYNC, "sync at rank " + r));
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void unlockAllWithoutLockAll(Jobs.Mode mode) {
    scenario(mode, 3, Info.NULL, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      return expectError(win.unlockAll(), ErrorClass.RMA_SYNC, "unlockAll at rank " + r,
          "without a matching lockAll")
          // a single-target lock is not a lockAll
          .compose(v -> win.lock(LockType.SHARED, right))
          .compose(v -> expectError(win.unlockAll(), ErrorClass.RMA_SYNC, "unlockAll at rank " + r,
              "without a matching lockAll"))
          .compose(v -> win.unlock(right))
          .compose(v -> putRejected(win, right));
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void unlockOfOneTargetInsideLockAll(Jobs.Mode mode) {
    scenario(mode, 3, Info.NULL, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      long[] got = new long[1];
      return win.lockAll()
          .compose(v -> expectError(win.unlock(right), ErrorClass.RMA_SYNC, "unlock of rank " + right,
              "at rank " + r, "inside lockAll"))
          // the lockAll epoch still covers that target
          .compose(v -> win.get(Buf.of(got), 0, 1, Datatype.LONG, right, 0))
          .map(v -> {
            assertEquals(pattern(right, 0), got[0]);
            return null;
          })
          .compose(v -> win.unlockAll())
          .compose(v -> putRejected(win, right));
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void flushOutsideAPassiveEpoch(Jobs.Mode mode) {
    scenario(mode, 3, Info.NULL, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      int left = (r + world.size() - 1) % world.size();
      return expectError(win.flush(right), ErrorClass.RMA_SYNC, "flush of rank " + right, "at rank " + r,
          "outside a passive-target epoch")
          .compose(v -> expectError(win.flushLocal(right), ErrorClass.RMA_SYNC, "rank " + right,
              "outside a passive-target epoch"))
          .compose(v -> expectError(win.flushAll(), ErrorClass.RMA_SYNC, "flushAll at rank " + r,
              "outside a passive-target epoch"))
          .compose(v -> expectError(win.flushLocalAll(), ErrorClass.RMA_SYNC, "at rank " + r,
              "outside a passive-target epoch"))
          // inside a fence epoch too
          .compose(v -> win.fence())
          .compose(v -> expectError(win.flush(right), ErrorClass.RMA_SYNC, "flush of rank " + right))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          // a lock on the right neighbour does not allow flushing the left one
          .compose(v -> win.lock(LockType.SHARED, right))
          .compose(v -> left == right ? Future.succeededFuture()
              : expectError(win.flush(left), ErrorClass.RMA_SYNC, "flush of rank " + left))
          .compose(v -> win.flush(right))
          .compose(v -> win.unlock(right));
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void lockOnANoLocksWindow(Jobs.Mode mode) {
    scenario(mode, 3, Info.of(Info.NO_LOCKS, "true"), (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      assertEquals("true", win.info().get(Info.NO_LOCKS));
      return expectError(win.lock(LockType.SHARED, right), ErrorClass.RMA_SYNC, "lock on window " + win.name(),
          "no_locks=true")
          .compose(v -> expectError(win.lock(LockType.EXCLUSIVE, right, Mode.NOCHECK), ErrorClass.RMA_SYNC,
              "no_locks=true"))
          .compose(v -> expectError(win.lockAll(), ErrorClass.RMA_SYNC, "lockAll on window " + win.name(),
              "no_locks=true"))
          .compose(v -> putRejected(win, right))
          .compose(v -> expectError(win.unlock(right), ErrorClass.RMA_SYNC, "unlock of rank " + right));
    });
  }
}
