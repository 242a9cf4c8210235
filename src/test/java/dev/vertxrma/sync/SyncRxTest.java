package dev.vertxrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.rx.RxComm;
import dev.vertxrma.rx.RxCountDownLatch;
import dev.vertxrma.rx.RxCounter;
import dev.vertxrma.rx.RxMutex;
import dev.vertxrma.rx.RxRma;
import dev.vertxrma.rx.RxSemaphore;
import dev.vertxrma.rx.RxSequential;
import dev.vertxrma.testing.Jobs;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** RxCounter and RxMutex, embedded and clustered: cold calls, values and refusals as their futures' twins. */
class SyncRxTest {

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void rxCounterAndMutex(Jobs.Mode mode) {
    Jobs.run(mode, 3, RxRma.program((RxComm world, java.util.List<String> args) ->
        RxCounter.create(world).flatMapCompletable(counter -> RxMutex.create(world).flatMapCompletable(mutex ->
            Flowable.range(0, 50).concatMapSingle(i -> counter.next()).toList()
                .flatMapCompletable(values -> {
                  for (int i = 1; i < values.size(); i++) {
                    assertTrue(values.get(i) > values.get(i - 1), "one rank's values increase");
                  }
                  return world.barrier();
                })
                .andThen(counter.get()).flatMapCompletable(v -> {
                  assertEquals(150L, (long) v);
                  return world.barrier();
                })
                .andThen(world.rank() == 0 ? mutex.lock().ignoreElement() : Completable.complete())
                .andThen(world.barrier())
                .andThen(world.rank() == 1 ? mutex.tryLock().isEmpty().flatMapCompletable(empty -> {
                  assertTrue(empty, "rank 0 holds it");
                  return mutex.unlock().onErrorResumeNext(e -> {
                    assertEquals(ErrorClass.RMA_SYNC, ((RmaException) e).errorClass());
                    return Completable.complete();
                  });
                }) : Completable.complete())
                .andThen(world.barrier())
                .andThen(world.rank() == 0 ? mutex.unlock() : Completable.complete())
                .andThen(world.barrier())
                .andThen(mutex.free())
                .andThen(counter.free())))));
  }

  /** RxSequential turns draw a counter in rank order; an RxCountDownLatch opens at the last countDown; an RxSemaphore admits. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void rxTurnsLatchAndSemaphore(Jobs.Mode mode) {
    Jobs.run(mode, 3, RxRma.program((RxComm world, java.util.List<String> args) ->
        RxSequential.create(world).flatMapCompletable(turns -> RxCounter.create(world).flatMapCompletable(counter ->
            RxCountDownLatch.create(world, 1, 3).flatMapCompletable(latch ->
                RxSemaphore.create(world, 2, 1).flatMapCompletable(sem ->
                    turns.begin().andThen(counter.next()).flatMapCompletable(n -> {
                      assertEquals(world.rank(), (long) n, "turns in rank order");
                      return turns.end();
                    })
                    .andThen(latch.countDown()).ignoreElement()
                    .andThen(latch.await())
                    .andThen(sem.acquire()).andThen(sem.release())
                    .andThen(world.barrier())
                    .andThen(sem.tryAcquire()).flatMapCompletable(took ->
                        world.allreduce(took ? 1L : 0L, dev.vertxrma.Op.SUM).flatMapCompletable(takers -> {
                          assertEquals(1L, (long) takers, "one permit, three tryAcquires at once: one takes it");
                          return took ? sem.release() : Completable.complete();
                        }))
                    .andThen(world.barrier())
                    .andThen(sem.free()).andThen(latch.free()).andThen(counter.free()).andThen(turns.free())))))));
  }
}
