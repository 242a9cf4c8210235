package dev.vertxrma.rx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.testing.Jobs;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The Rx entry points: jobs and worlds started on subscription, Rx programs, Rx loops, cold calls. */
class RxRmaTest {

  @BeforeAll
  static void loadRxJava() {
    RxWarmup.load();
  }

  /**
   * One job of {@code options} in {@code mode}: on the embedded instance, or split over the two
   * cluster nodes (ranks [0, np/2) on the first), each part made by {@code start}.
   */
  private static <T> List<T> perNode(Jobs.Mode mode, JobOptions options, BiFunction<Vertx, JobOptions, T> start) {
    if (mode == Jobs.Mode.EMBEDDED) {
      return List.of(start.apply(Jobs.embedded(), options));
    }
    Vertx[] nodes = Jobs.clusterNodes();
    int half = options.getNp() / 2;
    return List.of(start.apply(nodes[0], copy(options).setLocalRanks(0, half)),
        start.apply(nodes[1], copy(options).setLocalRanks(half, options.getNp() - half)));
  }

  private static JobOptions copy(JobOptions o) {
    return new JobOptions().setNp(o.getNp()).setJobName(o.getJobName()).setWaitTimeoutMs(o.getWaitTimeoutMs())
        .setStartupTimeoutMs(o.getStartupTimeoutMs()).setArgs(o.getArgs()).setSecret(o.getSecret());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void runStartsTheJobOnSubscription(Jobs.Mode mode) {
    AtomicInteger started = new AtomicInteger();
    long[] sums = new long[4];
    RankProgram program = RxRma.program((world, args) -> {
      started.incrementAndGet();
      return world.allreduce((long) world.rank(), Op.SUM).doOnSuccess(sum -> sums[world.rank()] = sum)
          .ignoreElement();
    });
    List<Completable> parts = perNode(mode, Jobs.options(4), (vertx, options) -> RxRma.run(vertx, options, program));
    assertEquals(0, started.get(), "nothing runs before subscription");
    Completable.merge(parts).blockingAwait();
    assertEquals(4, started.get());
    assertEquals(List.of(6L, 6L, 6L, 6L), List.of(sums[0], sums[1], sums[2], sums[3]));
  }

  @Test
  void runOnAVertxOfItsOwn() {
    AtomicInteger ranks = new AtomicInteger();
    RxRma.run(Jobs.options(2), RxRma.program((world, args) -> world.barrier().andThen(Completable.fromAction(
        ranks::incrementAndGet)))).blockingAwait();
    assertEquals(2, ranks.get());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aFailingRxProgramFailsTheJob(Jobs.Mode mode) {
    Throwable failure = Jobs.runExpectingFailure(mode, Jobs.options(2), RxRma.program((world, args) ->
        world.rank() == 1 ? Completable.error(new RmaException(ErrorClass.OTHER, "rank 1 gives up"))
            : world.barrier()));
    assertInstanceOf(RmaException.class, failure);
    assertEquals(ErrorClass.OTHER, ((RmaException) failure).errorClass(), failure::toString);
    Throwable thrown = Jobs.runExpectingFailure(mode, Jobs.options(1), RxRma.program((world, args) -> {
      throw new RmaException(ErrorClass.COUNT, "thrown before any Completable");
    }));
    assertEquals(ErrorClass.COUNT, ((RmaException) thrown).errorClass(), thrown::toString);
    Throwable nullProgram = Jobs.runExpectingFailure(mode, Jobs.options(1), RxRma.program((world, args) -> null));
    assertEquals(ErrorClass.ARG, ((RmaException) nullProgram).errorClass(), nullProgram::toString);
  }

  /** A world used from the test thread: each local rank's allreduce subscribed at once, then close. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void worldServesRxCallsUntilClosed(Jobs.Mode mode) {
    List<Single<RxWorld>> starting = perNode(mode, Jobs.options(4), RxRma::world);
    List<RxWorld> worlds = Single.merge(starting).toList().blockingGet();
    List<Single<Long>> sums = new ArrayList<>();
    for (RxWorld world : worlds) {
      assertEquals(4, world.size());
      for (int r : world.localRanks()) {
        RxComm comm = world.rank(r);
        assertEquals(world.jobName(), comm.jobName());
        sums.add(comm.allreduce((long) r * r, Op.SUM));
      }
    }
    assertEquals(List.of(14L, 14L, 14L, 14L), Single.merge(sums).toList().blockingGet());
    Completable.merge(worlds.stream().map(RxWorld::close).toList()).blockingAwait();
    assertThrows(RmaException.class, () -> worlds.get(0).rank(0));
  }

  /** RxRma.repeat and repeatUntil run long loops of calls that complete at once in constant stack. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void loopsRunInConstantStack(Jobs.Mode mode) {
    Jobs.run(mode, 2, RxRma.program((world, args) -> {
      int[] n = {0, 0};
      return RxRma.repeat(100_000, i -> Completable.fromAction(() -> n[0] += i % 2))
          .andThen(RxRma.repeatUntil(() -> Single.fromCallable(() -> ++n[1] >= 100_000)))
          .andThen(RxRma.repeat(20, i -> world.barrier()))
          .andThen(failsWith(ErrorClass.COUNT, RxRma.repeat(-1, i -> Completable.complete())))
          .andThen(Completable.fromAction(() -> {
            assertEquals(50_000, n[0]);
            assertEquals(100_000, n[1]);
          }));
    }));
  }

  private static Completable failsWith(ErrorClass expected, Completable failing) {
    return failing.andThen(Completable.error(new AssertionError("expected " + expected + ", the call succeeded")))
        .onErrorResumeNext(e -> e instanceof RmaException r && r.errorClass() == expected ? Completable.complete()
            : Completable.error(e));
  }

  /** Every call is made on subscription, once per subscription; an exception thrown by it is the error. */
  @Test
  void callsAreCold() {
    AtomicInteger calls = new AtomicInteger();
    Completable completable = Deferred.completable(() -> {
      calls.incrementAndGet();
      return Future.succeededFuture();
    });
    Single<Integer> single = Deferred.single(() -> Future.succeededFuture(calls.incrementAndGet()));
    assertEquals(0, calls.get());
    completable.blockingAwait();
    completable.blockingAwait();
    assertEquals(2, calls.get());
    assertEquals(3, single.blockingGet());
    assertEquals(4, single.blockingGet());
    RmaException thrown = new RmaException(ErrorClass.ARG, "thrown by the call");
    assertEquals(thrown, assertThrows(RmaException.class, () -> Deferred.completable(() -> {
      throw thrown;
    }).blockingAwait()));
    assertEquals(thrown, assertThrows(RmaException.class, () -> Deferred.<Integer>single(() -> {
      throw thrown;
    }).blockingGet()));
    assertEquals(thrown, assertThrows(RmaException.class,
        () -> Deferred.completable(() -> Future.failedFuture(thrown)).blockingAwait()));
  }
}
