package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * MPI_Win_set_info (no_locks switched off and on again, collectively, with the locks refused and
 * allowed accordingly; bad values; a refusal leaves the hints unchanged at every rank) and
 * MPI_Win_create over no memory (a size-0 part: operations aimed at it fail with RMA_RANGE, the
 * other ranks' parts work). Values checked.
 */
class WindowInfoTest {

  private static Future<Throwable> failure(Future<?> f) {
    return f.transform(ar -> Future.succeededFuture(ar.failed() ? ar.cause() : null));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void setInfoSwitchesLocksOffAndOnEverywhere(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
      int next = (world.rank() + 1) % world.size();
      long[] one = {1};
      return win.setInfo(Info.of(Info.NO_LOCKS, "true", "vendor_hint", "42"))
          .compose(v -> {
            assertEquals("true", win.info().get(Info.NO_LOCKS));
            assertEquals("42", win.info().get("vendor_hint"));
            return failure(win.lock(LockType.SHARED, next));
          })
          .compose(t -> {
            assertError(t, ErrorClass.RMA_SYNC, "no_locks");
            return failure(win.setInfo(Info.of(Info.ACCUMULATE_OPS, "sometimes")));
          })
          .compose(t -> {
            assertError(t, ErrorClass.INFO, "accumulate_ops=sometimes");
            return win.setInfo(Info.of(Info.NO_LOCKS, "false", Info.ACCUMULATE_ORDERING, "none"));
          })
          .compose(v -> {
            assertEquals("false", win.info().get(Info.NO_LOCKS));
            assertEquals("none", win.info().get(Info.ACCUMULATE_ORDERING));
            return win.lock(LockType.SHARED, next);
          })
          .compose(v -> win.accumulate(Buf.of(one), 0, 1, Datatype.LONG, next, 0, Op.SUM))
          .compose(v -> win.unlock(next))
          // switching locks off while rank 0 holds a lockAll is refused at every rank, hints unchanged
          .compose(v -> world.barrier())
          .compose(v -> world.rank() == 0 ? win.lockAll() : Future.succeededFuture())
          .compose(v -> failure(win.setInfo(Info.of(Info.NO_LOCKS, "true"))))
          .compose(t -> {
            assertError(t, ErrorClass.RMA_SYNC, "refused", "rank 0"); // its lockAll: held there and as a target
            assertEquals("false", win.info().get(Info.NO_LOCKS));
            return world.rank() == 0 ? win.unlockAll() : Future.succeededFuture();
          })
          .compose(v -> world.barrier())
          .compose(v -> {
            assertEquals(1L, win.memory().readLong(0), "the accumulate of the previous rank");
            return win.free();
          });
    }));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aRankMayCreateItsPartOverNoMemory(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      BytesStore<?, ?> mine = world.rank() == 0 ? BytesStore.nativeStoreWithFixedCapacity(16) : null;
      if (mine != null) {
        mine.writeLong(0, 0);
        mine.writeLong(8, 0);
      }
      return Win.create(world, mine, 8, Info.NULL).compose(win -> {
        long[] v = {77};
        Future<Throwable> intoEmpty = world.rank() == 0 ? Future.succeededFuture()
            : win.fence().compose(x -> failure(win.put(Buf.of(v), 0, 1, Datatype.LONG, 1, 0)));
        return (world.rank() == 0 ? win.fence() : Future.succeededFuture())
            .compose(x -> intoEmpty)
            .compose(t -> {
              if (world.rank() == 1) {
                assertError(t, ErrorClass.RMA_RANGE);
                return win.put(Buf.of(v), 0, 1, Datatype.LONG, 0, 1);
              }
              return Future.succeededFuture();
            })
            .compose(x -> win.fence())
            .compose(x -> {
              if (mine != null) {
                assertEquals(0L, mine.readLong(0));
                assertEquals(77L, mine.readLong(8));
              }
              return win.free();
            })
            .andThen(x -> {
              if (mine != null) {
                mine.releaseLast();
              }
            });
      });
    });
  }
}
