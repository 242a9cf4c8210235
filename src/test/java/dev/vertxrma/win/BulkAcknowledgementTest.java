package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.comm.CommImpl;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.opentest4j.AssertionFailedError;

/**
 * Puts and accumulates to another JVM are acknowledged in bulk: sent one way, completed by one
 * acknowledgement per flush, and a failure at the target reaches the synchronization that covers
 * the operation. Embedded, the same calls go the same-JVM way and send no request at all. (Clustered
 * with the on-node path off: the two nodes stand for JVMs of different hosts.)
 */
class BulkAcknowledgementTest {

  private static final int PUTS = 200;
  private static final int ACCS = 56;

  /**
   * Under an exclusive lock, 200 puts and 56 accumulates (each twice) issued without awaiting,
   * then a flush: one request leaves the origin for all of them (the acknowledgement request;
   * none embedded), and every slot holds exactly its value after unlock.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void manyPutsAndAccumulatesTakeOneRequestPerFlush(Jobs.Mode mode) {
    long[] requests = new long[2];
    Jobs.runOverDataPlane(mode, 2, (world, args) -> Win.allocate(world, 8L * (PUTS + ACCS), 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int other = 1 - r;
      var process = ((CommImpl) world).process();
      long[] before = new long[1];
      return win.lock(LockType.EXCLUSIVE, other).compose(v -> {
        before[0] = process.requestsSent();
        List<Future<?>> ops = new ArrayList<>();
        for (int i = 0; i < PUTS; i++) {
          ops.add(win.put(Buf.of(new long[] {1000L * r + i}), 0, 1, Datatype.LONG, other, i));
        }
        for (int k = 0; k < 2; k++) {
          for (int i = 0; i < ACCS; i++) {
            ops.add(win.accumulate(Buf.of(new long[] {r + 1 + i}), 0, 1, Datatype.LONG, other, PUTS + i, Op.SUM));
          }
        }
        Future<Void> flushed = win.flush(other);
        return Future.all(ops).compose(x -> flushed);
      }).map(v -> {
        requests[r] = process.requestsSent() - before[0];
        return null;
      }).compose(v -> win.unlock(other)).compose(v -> world.barrier()).map(v -> {
        BytesStore<?, ?> mem = win.memory();
        for (int i = 0; i < PUTS; i++) {
          assertEquals(1000L * other + i, mem.readLong(8L * i), "slot " + i + " put by rank " + other);
        }
        for (int i = 0; i < ACCS; i++) {
          assertEquals(2L * (other + 1 + i), mem.readLong(8L * (PUTS + i)), "slot " + (PUTS + i) + " accumulated "
              + "twice by rank " + other);
        }
        return null;
      }).compose(v -> win.free());
    }));
    long expected = mode == Jobs.Mode.EMBEDDED ? 0 : 1;
    assertEquals(expected, requests[0], "requests rank 0 sent for 312 operations and a flush");
    assertEquals(expected, requests[1], "requests rank 1 sent for 312 operations and a flush");
    assertEquals(0, WindowMemory.live());
  }

  /**
   * On a dynamic window (the origin cannot check the range), puts and an accumulate outside the
   * attached region, issued without awaiting between good ones: the flush that covers them fails
   * with RMA_RANGE naming the target, once; the next flush succeeds; a later bad put is reported
   * by the later flush. The good puts land, and nothing else of the region changes.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aFailureAtTheTargetReachesTheFlushThatCoversIt(Jobs.Mode mode) {
    Jobs.runOverDataPlane(mode, 2, (world, args) -> Win.createDynamic(world, Info.NULL).compose(win -> {
      int r = world.rank();
      int other = 1 - r;
      BytesStore<?, ?> region = BytesStore.nativeStoreWithFixedCapacity(64);
      region.zeroOut(0, 64);
      long[] addrs = new long[2];
      return win.attach(region)
          .compose(v -> world.allgather(Buf.of(new long[] {Win.address(region, 0)}), 0, 1, Datatype.AINT,
              Buf.of(addrs), 0, 1, Datatype.AINT))
          .compose(v -> win.lockAll())
          .compose(v -> {
            long base = addrs[other];
            List<Future<?>> ops = new ArrayList<>();
            ops.add(win.put(Buf.of(new long[] {10L + r}), 0, 1, Datatype.LONG, other, base));
            ops.add(rangeRejected(win.put(Buf.of(new long[] {-1}), 0, 1, Datatype.LONG, other, base + 64)));
            ops.add(win.put(Buf.of(new long[] {20L + r}), 0, 1, Datatype.LONG, other, base + 8));
            ops.add(rangeRejected(win.accumulate(Buf.of(new long[] {-1}), 0, 1, Datatype.LONG, other, base + 4096,
                Op.SUM)));
            ops.add(win.put(Buf.of(new long[] {30L + r}), 0, 1, Datatype.LONG, other, base + 16));
            Future<Void> flushed = expectError(win.flush(other), ErrorClass.RMA_RANGE, "at rank " + other);
            return Future.all(ops).compose(x -> flushed);
          })
          .compose(v -> win.flush(other)) // reported once: nothing left
          .compose(v -> rangeRejected(win.put(Buf.of(new long[] {-1}), 0, 1, Datatype.LONG, other,
              addrs[other] + 72)))
          .compose(v -> expectError(win.flush(other), ErrorClass.RMA_RANGE, "at rank " + other))
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .map(v -> {
            long[] want = {10L + other, 20L + other, 30L + other, 0, 0, 0, 0, 0};
            for (int i = 0; i < want.length; i++) {
              assertEquals(want[i], region.readLong(8L * i), "slot " + i + " of rank " + r + "'s region");
            }
            return null;
          })
          .compose(v -> win.detach(region))
          .compose(v -> win.free())
          .onComplete(ar -> region.releaseLast());
    }));
    assertEquals(0, WindowMemory.live());
  }

  /**
   * A fetchAndOp that fails at the target (outside the attached region of a dynamic window), with
   * a flush called from its own listener, as a reactive program chains them: the flush fails with
   * the operation's RMA_RANGE, once, the next flush succeeds, and a good fetchAndOp chained the same
   * way fetches and counts. Both ranks at once, not awaited across rounds.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aFlushFromAFailedOperationsListenerReportsItsFailureOnce(Jobs.Mode mode) {
    Jobs.runOverDataPlane(mode, 2, (world, args) -> Win.createDynamic(world, Info.NULL).compose(win -> {
      int r = world.rank();
      int other = 1 - r;
      BytesStore<?, ?> region = BytesStore.nativeStoreWithFixedCapacity(8);
      region.zeroOut(0, 8);
      long[] addrs = new long[2];
      return win.attach(region)
          .compose(v -> world.allgather(Buf.of(new long[] {Win.address(region, 0)}), 0, 1, Datatype.AINT,
              Buf.of(addrs), 0, 1, Datatype.AINT))
          .compose(v -> win.lockAll())
          .compose(v -> Rma.repeat(20, i -> {
            Future<Long> bad = win.fetchAndOp(1L, other, addrs[other] + 64, Op.SUM);
            Future<Void> flushed = bad.transform(ar -> win.flush(other));
            return expectError(bad, ErrorClass.RMA_RANGE, "at rank " + other)
                .compose(x -> expectError(flushed, ErrorClass.RMA_RANGE, "at rank " + other))
                .compose(x -> win.flush(other)) // reported once: nothing left
                .compose(x -> {
                  Future<Long> good = win.fetchAndOp(1L, other, addrs[other], Op.SUM);
                  return good.compose(old -> win.flush(other).map(old)).map(old -> {
                    assertEquals(i, old, "round " + i + ": the value fetched before this rank's add");
                    return null;
                  });
                });
          }))
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .map(v -> {
            assertEquals(20, region.readLong(0), "rank " + r + "'s counter");
            return null;
          })
          .compose(v -> win.detach(region))
          .compose(v -> win.free())
          .onComplete(ar -> region.releaseLast());
    }));
    assertEquals(0, WindowMemory.live());
  }

  /** The operation's own future succeeds (one way) or fails with RMA_RANGE (same JVM). */
  private static Future<Void> rangeRejected(Future<?> op) {
    return op.transform(ar -> {
      if (ar.succeeded()) {
        return Future.succeededFuture();
      }
      if (ar.cause() instanceof RmaException && ((RmaException) ar.cause()).errorClass() == ErrorClass.RMA_RANGE) {
        return Future.succeededFuture();
      }
      return Future.failedFuture(new AssertionFailedError("expected RMA_RANGE or success, got " + ar.cause(),
          ar.cause()));
    });
  }
}
