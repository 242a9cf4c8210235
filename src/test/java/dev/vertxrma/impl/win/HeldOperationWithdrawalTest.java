package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Latch;
import io.vertx.core.Future;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * A same-JVM operation that its target holds for a later fence epoch reaches the origin's buffer
 * in place. When the origin's fence times out, the operation is withdrawn at the target before
 * the fence's future fails: its own future fails with TIMEOUT, nothing of it stays held, and the
 * origin may release its native buffer (issue 27, item 5.1).
 */
class HeldOperationWithdrawalTest {

  @Test
  void aTimedOutFenceWithdrawsItsHeldSameJvmOperations() {
    // every wait is bounded by 1 s; only rank 0's fence waits it out. Rank 1 acts once that fence
    // failed (a latch, no wait of the job: a timer of 1.5 s did, which a late start-up or a late
    // timeout on a loaded machine could outrun); rank 0's free then waits for it a few hops only
    Latch fenceFailed = new Latch();
    Throwable failed = Jobs.runExpectingFailure(Jobs.Mode.EMBEDDED, Jobs.options(2).setWaitTimeoutMs(1000),
        (world, args) -> Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
          TargetWindow target = ((WinImpl) win).targetWindow();
          if (world.rank() == 1) {
            // fences only after rank 0's fence timed out: rank 0's operation of its next epoch is
            // held here meanwhile, then withdrawn, and this fence (which meets rank 0's abandoned
            // barrier) opens an epoch that has nothing left to apply
            return fenceFailed.opened().compose(v -> target.exposure().heldCount()).map(held -> {
              assertEquals(0, held, "an operation of rank 0's timed-out fence epoch is still held");
              return null;
            }).compose(v -> win.fence()).map(v -> {
              assertEquals(0L, win.memory().readLong(0), "the withdrawn put was applied");
              return null;
            }).compose(v -> win.free());
          }
          BytesStore<?, ?> origin = BytesStore.nativeStoreWithFixedCapacity(8);
          origin.writeLong(0, 42L);
          return win.fence(Mode.NOPRECEDE).compose(v -> {
            Future<Void> put = win.put(Buf.of(origin), 0, 1, Datatype.LONG, 1, 0);
            return win.fence().transform(ar -> {
              fenceFailed.open(); // the withdrawal came before the failure (same JVM: nothing in flight)
              assertTrue(ar.failed(), "a fence whose peer never fenced succeeded");
              assertEquals(ErrorClass.TIMEOUT, ((RmaException) ar.cause()).errorClass(), ar.cause().toString());
              assertTrue(put.failed(), "the held put's future did not fail with its fence: " + put);
              assertEquals(ErrorClass.TIMEOUT, ((RmaException) put.cause()).errorClass(), put.cause().toString());
              origin.releaseLast(); // nobody reaches it any more
              return Future.succeededFuture();
            });
          }).compose(v -> win.free());
        }));
    assertEquals(null, failed, "the job failed: " + failed);
  }

  @Test
  void aLateReplyIsNotWrittenIntoAReleasedResultBuffer() {
    // across two cluster nodes: rank 1 holds rank 0's get for a later epoch and answers it only
    // after rank 0's fence timed out and rank 0 released the get's native buffer (a latch, no wait
    // of the job, where a timer of 1.5 s did: only rank 0's fence waits the 1 s timeout out)
    Latch released = new Latch();
    Throwable failed = Jobs.runExpectingFailure(Jobs.Mode.CLUSTERED, Jobs.options(2).setWaitTimeoutMs(1000),
        (world, args) -> Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
          if (world.rank() == 1) {
            // late: opens the epoch of rank 0's get without a barrier (NOPRECEDE), which applies the
            // held get and answers it; then closes it with the fence that meets rank 0's abandoned one
            win.memory().writeLong(0, 7L);
            return released.opened().compose(v -> win.fence(Mode.NOPRECEDE)).compose(v -> win.fence(Mode.NOSUCCEED))
                .compose(v -> win.free());
          }
          BytesStore<?, ?> result = BytesStore.nativeStoreWithFixedCapacity(8);
          return win.fence(Mode.NOPRECEDE).compose(v -> {
            Future<Void> get = win.get(Buf.of(result), 0, 1, Datatype.LONG, 1, 0);
            return win.fence().transform(ar -> {
              result.releaseLast(); // the program gives up on the epoch and frees the get's buffer
              released.open();
              assertTrue(ar.failed(), "a fence whose peer never fenced succeeded");
              return get.transform(g -> {
                assertTrue(g.failed(), "the late reply was written into a released store");
                assertEquals(ErrorClass.BUFFER, ((RmaException) g.cause()).errorClass(), g.cause().toString());
                return Future.<Void>succeededFuture();
              });
            });
          }).compose(v -> win.free());
        }));
    assertEquals(null, failed, "the job failed: " + failed);
  }
}
