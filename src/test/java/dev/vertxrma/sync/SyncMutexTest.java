package dev.vertxrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The mutex's order and its refusals, embedded and clustered: FIFO grant order under contention
 * (requests made one after the other in a shuffled rank order while the first holds; the grant
 * order is drawn from a counter inside each critical section), fencing tokens in grant order,
 * tryLock, an unlock by a rank that does not hold it, and a lock that times out and is withdrawn
 * while the mutex keeps working for every rank. Deaths: {@link SyncDeathTest}.
 */
class SyncMutexTest {

  private static final int[] ORDER = {2, 0, 3, 1};

  @ParameterizedTest
  @EnumSource(Mode.class)
  void grantsFollowRequestOrder(Mode mode) {
    Jobs.run(mode, 4, (world, args) -> Mutex.create(world).compose(mutex -> Counter.create(world, 1, 0)
        .compose(order -> fifoRound(world, mutex, order)
            .compose(v -> world.barrier())
            .compose(v -> Future.all(order.free(), mutex.free())).mapEmpty())));
  }

  private static Future<Void> fifoRound(Comm world, Mutex mutex, Counter grantOrder) {
    int me = world.rank();
    int np = world.size();
    int p = 0;
    while (ORDER[p] != me) {
      p++;
    }
    int position = p;
    long[] note = new long[1];
    Future<?> myTurn = position == 0 ? Future.succeededFuture()
        : world.recv(Buf.of(note), 0, 1, Datatype.LONG, ORDER[position - 1], 1);
    return myTurn.compose(v -> {
      Promise<Void> inQueue = Promise.promise();
      Future<Grant> grant = mutex.lock(0, inQueue);
      // the next rank requests only once this request's place is fixed; the last tells the holder
      inQueue.future().compose(x -> position < np - 1
          ? world.send(Buf.of(new long[1]), 0, 1, Datatype.LONG, ORDER[position + 1], 1)
          : world.send(Buf.of(new long[1]), 0, 1, Datatype.LONG, ORDER[0], 2));
      return grant;
    }).compose(grant -> (position == 0 ? world.recv(Buf.of(note), 0, 1, Datatype.LONG, ORDER[np - 1], 2).mapEmpty()
        : Future.succeededFuture())
        .compose(x -> grantOrder.next())
        .compose(seq -> {
          assertEquals(position, (long) seq, "rank " + me + " requested " + position + "th but was granted " + seq
              + "th");
          long[] mine = {grant.token()};
          long[] all = new long[np];
          return mutex.unlock()
              .compose(x -> world.allgather(Buf.of(mine), 0, 1, Datatype.LONG, Buf.of(all), 0, 1, Datatype.LONG))
              .map(x -> {
                for (int i = 1; i < np; i++) {
                  assertTrue(all[ORDER[i]] > all[ORDER[i - 1]], "the token of the " + i + "th grant, "
                      + all[ORDER[i]] + ", is not above the one before, " + all[ORDER[i - 1]]);
                }
                return null;
              });
        }));
  }

  /**
   * One rank's lock + unlock loop against a home in the other node, over the data plane: each
   * next request joins behind the release in flight (its speculative swap); tokens must still
   * come in call order and the loop must end.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void aLockUnlockLoopJoinsBehindItsOwnRelease(Mode mode) {
    Jobs.runOverDataPlane(mode, 2, (world, args) -> Mutex.create(world, 1).compose(mutex -> {
      long[] last = {-1};
      Future<Void> loop = world.rank() == 1 ? Future.succeededFuture() : dev.vertxrma.Rma.repeat(200, i ->
          mutex.lock().compose(g -> {
            assertTrue(g.token() > last[0], "token " + g.token() + " after " + last[0]);
            last[0] = g.token();
            return mutex.unlock();
          }));
      List<Future<Grant>> atOnce = new java.util.ArrayList<>();
      return loop.compose(v -> {
        for (int i = 0; i < 20 && world.rank() == 0; i++) { // issued at once: granted one after the other
          atOnce.add(mutex.lock().compose(g -> mutex.unlock().map(g)));
        }
        return Future.all(atOnce);
      }).compose(v -> {
        for (int i = 1; i < atOnce.size(); i++) {
          assertTrue(atOnce.get(i).result().token() > atOnce.get(i - 1).result().token());
        }
        // the Vert.x shape: a Lock whose release() unlocks (else the lock(5000) after it times out)
        return world.rank() == 0 ? mutex.getLockWithTimeout(5000).compose(l -> {
          l.release();
          return mutex.lock(5000);
        }).compose(g -> mutex.unlock()) : Future.succeededFuture();
      }).compose(v -> world.barrier()).compose(v -> mutex.free());
    }));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void tryLockRefusalsAndAWithdrawnTimeout(Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Mutex.create(world, 2).compose(mutex -> {
      int me = world.rank();
      long[] first = new long[1];
      // rank 0 holds, twice in a row from two calls issued at once
      Future<Grant> a = me == 0 ? mutex.lock() : Future.succeededFuture();
      Future<Grant> b = me == 0 ? mutex.lock() : Future.succeededFuture();
      return a.compose(g -> {
        if (me == 0) {
          assertFalse(b.isComplete(), "a second lock of the holding rank waits for its unlock");
          first[0] = g.token();
        }
        return world.barrier();
      }).compose(v -> switch (me) {
        case 1 -> mutex.tryLock().compose(none -> {
          assertTrue(none.isEmpty(), "tryLock while rank 0 holds");
          return mutex.unlock().transform(ar -> {
            assertTrue(ar.failed(), "unlock by a rank that does not hold the mutex");
            RmaException e = (RmaException) ar.cause();
            assertEquals(ErrorClass.RMA_SYNC, e.errorClass(), e.getMessage());
            assertTrue(e.getMessage().contains("rank 1"), e.getMessage());
            return Future.<Void>succeededFuture();
          });
        });
        case 2 -> mutex.lock(150).transform(ar -> {
          assertTrue(ar.failed(), "rank 0 holds: the lock must time out");
          assertEquals(ErrorClass.TIMEOUT, ((RmaException) ar.cause()).errorClass(), ar.cause().getMessage());
          return Future.<Void>succeededFuture();
        });
        default -> Future.<Void>succeededFuture();
      }).compose(v -> world.barrier())
          .compose(v -> me == 0 ? mutex.unlock().compose(x -> b).compose(g2 -> {
            assertTrue(g2.token() > first[0]);
            first[0] = g2.token();
            return mutex.unlock();
          }) : Future.succeededFuture())
          // the withdrawn place of rank 2 passed the mutex on (or was freed): rank 1 gets it
          .compose(v -> me == 1 ? mutex.lock(10_000).compose(g -> {
            assertFalse(g.previousHolderDied());
            return mutex.unlock();
          }) : Future.succeededFuture())
          .compose(v -> world.barrier())
          .compose(v -> me == 2 ? mutex.tryLock().compose(g -> {
            assertTrue(g.isPresent(), "the mutex is free: tryLock takes it");
            return mutex.unlock();
          }) : Future.succeededFuture())
          .compose(v -> world.barrier())
          .compose(v -> mutex.free());
    }));
  }
}
