package dev.vertxrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Semaphore, Sequential and CountDownLatch, embedded and clustered, checked by values and order. */
class SyncTurnsTest {

  /** 4 ranks, 3 acquires each issued at once, 2 permits: never more than 2 inside, all get in. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aSemaphoreAdmitsAtMostItsPermits(Jobs.Mode mode) {
    Jobs.run(mode, 4, (world, args) -> Semaphore.create(world, 3, 2).compose(sem ->
        Win.allocate(world, world.rank() == 0 ? 16 : 0, 8, Info.NULL).compose(win -> {
          List<Future<Void>> sections = new ArrayList<>();
          Future<Void> epoch = win.lockAll(Mode.NOCHECK);
          for (int i = 0; i < 3; i++) {
            sections.add(sem.acquire().compose(v -> {
              Future<Long> inside = win.fetchAndOp(1, 0, 0, Op.SUM);
              win.fetchAndOp(1, 0, 1, Op.SUM); // entries, for the final check
              return win.flush(0).compose(x -> inside);
            }).compose(before -> {
              assertTrue(before < 2, "entered with " + before + " others inside; 2 permits");
              Future<Long> left = win.fetchAndOp(-1, 0, 0, Op.SUM);
              return win.flush(0).compose(x -> left).compose(x -> sem.release());
            }));
          }
          return epoch.compose(v -> Future.all(sections)).compose(v -> world.barrier())
              .compose(v -> sem.availablePermits()).compose(p -> {
                assertEquals(2L, (long) p);
                return world.barrier();
              })
              .compose(v -> world.rank() == 1 ? sem.tryAcquire().compose(a -> sem.tryAcquire().map(b -> a && b))
                  .compose(both -> {
                    assertTrue(both, "two permits free: two tryAcquires succeed");
                    return sem.tryAcquire();
                  }).compose(third -> {
                    assertFalse(third, "no permit left");
                    return sem.release().compose(x -> sem.release());
                  }) : Future.succeededFuture())
              .compose(v -> win.unlockAll()).compose(v -> world.barrier())
              .compose(v -> {
                if (world.rank() == 0) {
                  assertEquals(12L, win.memory().readLong(8), "every acquire got in");
                  assertEquals(0L, win.memory().readLong(0));
                }
                return win.free();
              }).compose(v -> sem.free());
        })));
  }

  /** Two rounds of turns: inside its turn, rank r draws the (round * np + r)-th number of a counter. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void turnsGoInRankOrder(Jobs.Mode mode) {
    Jobs.run(mode, 4, (world, args) -> Sequential.create(world).compose(seq -> Counter.create(world).compose(c -> {
      int me = world.rank();
      int np = world.size();
      Future<Void> rounds = Future.succeededFuture();
      for (int k = 0; k < 2; k++) {
        int round = k;
        rounds = rounds.compose(v -> seq.begin()).compose(v -> c.next()).compose(n -> {
          assertEquals((long) round * np + me, (long) n, "rank " + me + " in round " + round);
          return seq.end();
        });
      }
      return rounds.compose(v -> seq.end().transform(ar -> {
        assertTrue(ar.failed(), "end() without begin()");
        assertEquals(ErrorClass.RMA_SYNC, ((RmaException) ar.cause()).errorClass());
        return world.barrier();
      })).compose(v -> Future.all(seq.free(), c.free())).mapEmpty();
    })));
  }

  /** np counts: awaits issued first complete only after the last countDown, at every rank. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aLatchOpensAtTheLastCountDown(Jobs.Mode mode) {
    Jobs.run(mode, 4, (world, args) -> CountDownLatch.create(world, 2, world.size()).compose(latch -> {
      int me = world.rank();
      Future<Void> open = latch.await();
      Future<Long> down = me == 0 ? Future.succeededFuture(-1L) : latch.countDown();
      return down.compose(v -> world.barrier())
          .compose(v -> latch.getCount())
          .compose(left -> {
            assertEquals(1L, (long) left, "rank 0 has not counted down yet");
            assertFalse(open.isComplete(), "the latch opened before its last countDown");
            return world.barrier();
          })
          .compose(v -> me == 0 ? latch.countDown().map(after -> {
            assertEquals(0L, (long) after);
            return null;
          }) : Future.succeededFuture())
          .compose(v -> open)
          .compose(v -> latch.await()) // open: at once
          .compose(v -> world.barrier())
          .compose(v -> latch.free());
    }));
  }
}
