package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.ops.RmaOperation;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The target checks a notified operation frame as untrusted input: a notification field naming a
 * counter the target lacks (at or above its count, or no index at all) is refused with
 * RMA_NOTIFICATION before a byte is touched, and a well-formed one is applied and counted. The
 * frames cross the binary codec between the clustered nodes (data plane).
 */
class NotifiedFramesTest {

  /** A passive-target notified put of one long, its frame's notification field as given. */
  private static Frame forgedNotifiedPut(int src, int windowId, long notificationField, long disp, long value) {
    Frame f = Frame.of(FrameType.PUT, src, windowId);
    f.tag = RmaOperation.SYNC_PASSIVE;
    f.epoch = notificationField;
    Buffer type = Buffer.buffer();
    TypeMap.of(Datatype.LONG).encode(type);
    f.typeBytes = type.getBytes();
    f.disp = disp;
    f.count = 1;
    f.payload = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder()).putLong(value).array();
    return f;
  }

  private static Future<Void> refused(Future<Frame> reply, String... fragments) {
    return reply.transform(ar -> {
      assertTrue(ar.failed(), "a forged notified put was applied");
      RmaException e = (RmaException) ar.cause();
      assertEquals(ErrorClass.RMA_NOTIFICATION, e.errorClass(), e.getMessage());
      for (String s : fragments) {
        assertTrue(e.getMessage().contains(s), e.getMessage() + " lacks " + s);
      }
      return Future.succeededFuture();
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void theTargetRefusesAnIndexItLacksAndCountsAValidOne(Jobs.Mode mode) {
    Jobs.runOverDataPlane(mode, 2, (world, args) -> Win.allocate(world, 16, 8, Info.NULL).compose(win -> {
      WinImpl w = (WinImpl) win;
      if (world.rank() == 1) {
        return win.setNumNotify(2)
            .compose(v -> world.barrier())
            .compose(v -> win.awaitNotify(1, 1))
            .compose(seen -> {
              assertEquals(1L, seen);
              assertEquals(99L, win.memory().readLong(8), "the valid notified put landed");
              assertEquals(0L, win.memory().readLong(0), "the refused ones left the window unchanged");
              return win.notifyValue(0);
            })
            .compose(c0 -> {
              assertEquals(0L, c0, "counter 0 untouched");
              return world.barrier();
            })
            .compose(v -> win.free());
      }
      return win.setNumNotify(0)
          .compose(v -> win.lock(LockType.SHARED, 1))
          .compose(v -> refused(w.requestRaw(1, forgedNotifiedPut(0, w.id(), 3, 0, 7)), "names counter 2", "has 2"))
          .compose(v -> refused(w.requestRaw(1, forgedNotifiedPut(0, w.id(), Long.MAX_VALUE, 0, 7)), "(invalid)"))
          .compose(v -> refused(w.requestRaw(1, forgedNotifiedPut(0, w.id(), -5, 0, 7)), "(invalid)"))
          .compose(v -> w.requestRaw(1, forgedNotifiedPut(0, w.id(), 2, 1, 99)))
          .compose(v -> win.unlock(1))
          .compose(v -> world.barrier())
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    }));
  }
}
