package dev.vertxrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The counter and the mutex under pipelined load ({@link SyncProgram}), and the counter's other calls, embedded and clustered. */
class SyncCounterTest {

  @ParameterizedTest
  @EnumSource(Mode.class)
  void pipelinedNextAndGuardedUpdatesAreExact(Mode mode) {
    Jobs.run(mode, 4, (world, args) -> new SyncProgram().run(world, List.of("300", "25")));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void addGetCompareAndSetAndTheVertxShape(Mode mode) {
    Jobs.run(mode, 3, (world, args) -> {
      Future<Counter> bad = Counter.create(world, 3, 0);
      return bad.transform(ar -> {
        assertTrue(ar.failed());
        assertEquals(ErrorClass.RANK, ((RmaException) ar.cause()).errorClass(), ar.cause().getMessage());
        return Counter.create(world, 2, 100);
      }).compose(counter -> {
        io.vertx.core.shareddata.Counter vc = counter.asVertx();
        int me = world.rank();
        Future<Long> added = counter.add(10L * (me + 1));     // +10, +20, +30
        Future<Long> inc = vc.incrementAndGet();              // +1 each
        Future<Long> dec = vc.decrementAndGet();              // -1 each
        return Future.all(added, inc, dec).compose(x -> {
          // the others' calls interleave, but never by more than their -1: the add applied first
          assertTrue(inc.result() > added.result(), "issued after add: applied after it");
          return world.barrier();
        }).compose(x -> counter.get()).compose(v -> {
          assertEquals(160L, (long) v);
          return world.barrier();
        }).compose(x -> me == 1 ? Future.all(vc.incrementAndGet(), vc.decrementAndGet()).compose(both -> {
          assertEquals(161L, (long) both.<Long>resultAt(0), "alone, issued at once: applied in call order");
          assertEquals(160L, (long) both.<Long>resultAt(1));
          return counter.compareAndSet(160, 7);
        }).compose(ok -> {
          assertTrue(ok);
          return counter.compareAndSet(160, 8);
        }).map(ok -> {
          assertFalse(ok, "the value is 7 now: no swap");
          return null;
        }) : Future.succeededFuture()).compose(x -> world.barrier())
            .compose(x -> vc.addAndGet(0)).compose(v -> {
              assertEquals(7L, (long) v);
              return world.barrier();
            }).compose(x -> counter.free());
      });
    });
  }
}
