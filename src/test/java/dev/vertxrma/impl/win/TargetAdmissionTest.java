package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.ops.RmaOperation;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The target decides what it admits: no field of an operation frame (such as the NOCHECK
 * assertion an origin made about its own lock) lets a peer skip the target's lock check, and a
 * lock request the origin gave up on is withdrawn at the target.
 */
class TargetAdmissionTest {

  /** A passive-target put of one long from {@code src}, flagged as the old wire format flagged NOCHECK. */
  private static Frame forgedNoCheckPut(int src, int windowId) {
    Frame f = Frame.of(FrameType.PUT, src, windowId);
    f.tag = RmaOperation.SYNC_PASSIVE;
    f.epoch = 1;
    Buffer type = Buffer.buffer();
    TypeMap.of(Datatype.LONG).encode(type);
    f.typeBytes = type.getBytes();
    f.disp = 0;
    f.count = 1;
    f.payload = new byte[] {1, 2, 3, 4, 5, 6, 7, 8};
    return f;
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void anOperationFlaggedNoCheckFromARankWithoutALockIsRefused(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
      if (world.rank() == 1) {
        return world.barrier().map(v -> {
          assertEquals(0L, win.memory().readLong(0), "the window is unchanged");
          return null;
        }).compose(v -> win.free());
      }
      WinImpl origin = (WinImpl) win;
      return origin.requestRaw(1, forgedNoCheckPut(0, origin.id())).transform(ar -> {
        assertTrue(ar.failed(), "a forged passive-target put without a lock was applied");
        RmaException e = (RmaException) ar.cause();
        assertEquals(ErrorClass.RMA_SYNC, e.errorClass(), e.getMessage());
        return world.barrier();
      }).compose(v -> win.free());
    }));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void noCheckLocksStillCarryOperationsAndEnd(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, 8 * 3, 8, Info.NULL).compose(win -> {
      int me = world.rank();
      return win.lockAll(Mode.NOCHECK)
          .compose(v -> win.put(Buf.of(new long[] {10 + me}), 0, 1, Datatype.LONG, (me + 1) % 3, me))
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .compose(v -> win.lock(LockType.EXCLUSIVE, (me + 1) % 3)) // after NOCHECK, ordinary locks work
          .compose(v -> win.unlock((me + 1) % 3))
          .compose(v -> world.barrier())
          .map(v -> {
            int from = (me + 2) % 3;
            assertEquals(10L + from, win.memory().readLong(8L * from));
            return null;
          }).compose(v -> win.free());
    }));
  }

  /**
   * Rank 0's lock request times out while rank 1 holds the lock; afterwards rank 0, and then the
   * other ranks, can lock again: no request is left queued and no lock granted to a rank that gave
   * up. (Waits here are timers, not library waits: every library wait times out after T.)
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aLockRequestThatTimedOutIsWithdrawnAtTheTarget(Jobs.Mode mode) {
    long t = 1000;
    Jobs.await(Jobs.start(mode, Jobs.options(4).setWaitTimeoutMs(t), (world, args) ->
        Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
          int me = world.rank();
          int[] token = new int[1];
          switch (me) {
            case 1: // holds the lock on rank 2 for 1.5 T
              return win.lock(LockType.EXCLUSIVE, 2)
                  .compose(v -> world.send(Buf.of(new int[] {1}), 0, 1, Datatype.INT, 0, 5))
                  .compose(v -> world.vertx().timer(t * 3 / 2))
                  .compose(v -> win.unlock(2))
                  .compose(v -> world.barrier())
                  .compose(v -> win.free());
            case 0:
              return world.recv(Buf.of(token), 0, 1, Datatype.INT, 1, 5)
                  .compose(v -> win.lock(LockType.EXCLUSIVE, 2).transform(ar -> {
                    assertEquals(ErrorClass.TIMEOUT, ar.failed() && ar.cause() instanceof RmaException
                        ? ((RmaException) ar.cause()).errorClass() : null, "lock while rank 1 holds it: " + ar);
                    return win.lock(LockType.EXCLUSIVE, 2); // granted when rank 1 unlocks
                  }))
                  .compose(v -> win.put(Buf.of(new long[] {42}), 0, 1, Datatype.LONG, 2, 0))
                  .compose(v -> win.unlock(2))
                  .compose(v -> world.barrier())
                  .compose(v -> win.free());
            default: // ranks 2 and 3 lock after rank 0: no phantom holder left at the target
              return world.vertx().timer(2 * t)
                  .compose(v -> world.barrier())
                  .compose(v -> win.lock(LockType.EXCLUSIVE, 2))
                  .compose(v -> {
                    long[] got = new long[1];
                    return win.get(Buf.of(got), 0, 1, Datatype.LONG, 2, 0).compose(x -> win.unlock(2)).map(x -> {
                      assertEquals(42L, got[0], "rank 0's put under its second, granted lock");
                      return null;
                    });
                  })
                  .compose(v -> win.free());
          }
        })), 120);
  }
}
