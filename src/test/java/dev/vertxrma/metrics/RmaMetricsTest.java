package dev.vertxrma.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
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
import dev.vertxrma.testing.Jobs;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link RmaMetrics}: every meter counts exactly what the ranks did, embedded and clustered. */
class RmaMetricsTest {

  private static double count(MeterRegistry r, String name, String job, int rank, String... tags) {
    Counter c = r.find(name).tag("job", job).tag("rank", String.valueOf(rank)).tags(tags).counter();
    return c == null ? 0 : c.count();
  }

  private static long timerCount(MeterRegistry r, String name, String job, int rank, String kind) {
    Timer t = r.find(name).tag("job", job).tag("rank", String.valueOf(rank)).tag("kind", kind).timer();
    return t == null ? 0 : t.count();
  }

  /**
   * Rank 0, on window 1: a fence epoch with 3 puts of one long and 2 gets to rank 1; an exclusive
   * lock on rank 1 with 5 accumulates of two longs and 2 flushes; a put outside any epoch
   * (RMA_SYNC) and a get beyond the window (RMA_RANGE). Rank 1: a PSCW exposure to rank 0 and
   * rank 0's access epoch with 1 compare-and-swap; a lockAll epoch with 4 fetch-and-ops and a
   * flushAll.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void countsExactlyWhatWasDone(Jobs.Mode mode) {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    JobOptions options = Jobs.options(2);
    String job = options.getJobName();
    try (RmaMetrics metrics = new RmaMetrics()) {
      metrics.bindTo(registry);
      Jobs.await(Jobs.start(mode, options, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
        long[] buf = new long[4];
        int me = world.rank();
        Future<Void> f = win.fence(Mode.NOPRECEDE);
        if (me == 0) {
          for (int i = 0; i < 3; i++) {
            int d = i;
            f = f.compose(v -> win.put(Buf.of(buf), 0, 1, Datatype.LONG, 1, d));
          }
          f = f.compose(v -> win.get(Buf.of(buf), 0, 1, Datatype.LONG, 1, 3))
              .compose(v -> win.get(Buf.of(buf), 1, 1, Datatype.LONG, 1, 4));
        }
        f = f.compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> world.barrier());
        if (me == 0) {
          f = f.compose(v -> win.put(Buf.of(buf), 0, 1, Datatype.LONG, 1, 0).transform(ar ->
                  expect(ar.cause(), ErrorClass.RMA_SYNC)))
              .compose(v -> win.lock(LockType.EXCLUSIVE, 1));
          for (int i = 0; i < 5; i++) {
            f = f.compose(v -> win.accumulate(Buf.of(buf), 0, 2, Datatype.LONG, 1, 0, Op.SUM));
          }
          f = f.compose(v -> win.flush(1)).compose(v -> win.flush(1))
              .compose(v -> win.get(Buf.of(buf), 0, 1, Datatype.LONG, 1, 8).transform(ar ->
                  expect(ar.cause(), ErrorClass.RMA_RANGE)))
              .compose(v -> win.unlock(1))
              .compose(v -> world.barrier())
              .compose(v -> win.start(Group.of(0, 1)))
              .compose(v -> win.compareAndSwap(0, 7, 1, 7).mapEmpty())
              .compose(v -> win.complete());
        } else {
          f = f.compose(v -> win.lockAll());
          for (int i = 0; i < 4; i++) {
            f = f.compose(v -> win.fetchAndOp(1, 1, 5, Op.SUM).mapEmpty());
          }
          f = f.compose(v -> win.flushAll()).compose(v -> win.unlockAll())
              .compose(v -> world.barrier())
              .compose(v -> win.post(Group.of(1, 0)))
              .compose(v -> win.waitFor());
        }
        return f.compose(v -> world.barrier()).compose(v -> win.free());
      })), 120);
    }

    assertEquals(3, count(registry, "rma.operations", job, 0, "kind", "put"));
    assertEquals(24, count(registry, "rma.operation.bytes", job, 0, "kind", "put"));
    assertEquals(2, count(registry, "rma.operations", job, 0, "kind", "get"),
        "two gets; the one out of range failed its origin-side check and never left: an error, not an operation");
    assertEquals(5, count(registry, "rma.operations", job, 0, "kind", "accumulate"));
    assertEquals(80, count(registry, "rma.operation.bytes", job, 0, "kind", "accumulate"));
    assertEquals(1, count(registry, "rma.operations", job, 0, "kind", "compare_and_swap"));
    assertEquals(0, count(registry, "rma.operations", job, 0, "kind", "fetch_and_op"));
    assertEquals(4, count(registry, "rma.operations", job, 1, "kind", "fetch_and_op"), "fetch-and-op");
    assertEquals(32, count(registry, "rma.operation.bytes", job, 1, "kind", "fetch_and_op"));

    assertEquals(1, count(registry, "rma.epochs", job, 0, "kind", "fence"), "NOSUCCEED opens none");
    assertEquals(1, count(registry, "rma.epochs", job, 0, "kind", "lock"));
    assertEquals(1, count(registry, "rma.epochs", job, 0, "kind", "access"));
    assertEquals(1, count(registry, "rma.epochs", job, 1, "kind", "exposure"));
    assertEquals(1, count(registry, "rma.epochs", job, 1, "kind", "lock_all"));
    assertEquals(0, count(registry, "rma.epochs", job, 1, "kind", "lock"));

    assertEquals(1, timerCount(registry, "rma.lock.wait", job, 0, "lock_exclusive"), "one lock wait");
    assertEquals(1, timerCount(registry, "rma.lock.wait", job, 1, "lock_all"));
    assertEquals(2, timerCount(registry, "rma.flush", job, 0, "flush"));
    assertEquals(1, timerCount(registry, "rma.flush", job, 1, "flush_all"));
    assertEquals(2, timerCount(registry, "rma.sync", job, 0, "fence"));
    assertEquals(1, timerCount(registry, "rma.sync", job, 0, "unlock"));
    assertEquals(1, timerCount(registry, "rma.sync", job, 0, "complete"));
    assertEquals(1, timerCount(registry, "rma.sync", job, 1, "wait"));

    assertEquals(1, count(registry, "rma.errors", job, 0, "class", "RMA_SYNC"));
    assertEquals(1, count(registry, "rma.errors", job, 0, "class", "RMA_RANGE"));
    assertEquals(0, count(registry, "rma.errors", job, 1, "class", "RMA_SYNC"));
    assertEquals(1, count(registry, "rma.windows.created", job, 0));
    assertEquals(1, count(registry, "rma.windows.freed", job, 1));
    assertEquals("1", registry.find("rma.operations").tag("job", job).meters().iterator().next().getId().getTag("window"),
        "per window");
  }

  private static Future<Void> expect(Throwable failure, ErrorClass ec) {
    assertTrue(failure instanceof RmaException, String.valueOf(failure));
    assertEquals(ec, ((RmaException) failure).errorClass(), failure.getMessage());
    return Future.succeededFuture();
  }

  @Test
  void windowsCreatedAfterCloseAreNotObserved() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RmaMetrics metrics = new RmaMetrics();
    metrics.bindTo(registry);
    assertThrows(IllegalStateException.class, () -> metrics.bindTo(registry), "one registry per binding");
    metrics.close();
    JobOptions options = Jobs.options(1);
    Jobs.await(Jobs.start(Jobs.Mode.EMBEDDED, options, (world, args) -> Win.allocate(world, 8, 8, Info.NULL)
        .compose(win -> win.fence().compose(v -> win.put(Buf.of(new long[1]), 0, 1, Datatype.LONG, 0, 0))
            .compose(v -> win.fence()).compose(v -> win.free()))), 60);
    assertNull(registry.find("rma.operations").tag("job", options.getJobName()).counter());
  }
}
