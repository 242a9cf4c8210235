package dev.vertxrma.rx;

import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Single;
import java.util.List;

/**
 * Loads the RxJava classes the Rx tests' rank programs use, on the test thread: the first rank
 * program to touch them would otherwise load them on an event loop, a one-time cost of the JVM
 * (not of the facade) that the 50 ms blocked-thread checker flags. Call it from {@code @BeforeAll}.
 */
final class RxWarmup {

  private RxWarmup() {
  }

  static void load() {
    Single.just(1).map(x -> x + 1).flatMap(Single::just).doOnSuccess(x -> { }).ignoreElement()
        .andThen(Completable.complete()).blockingAwait();
    Maybe.just(1).toSingle().blockingGet();
    Single.merge(List.of(Single.just(1), Single.just(2))).toList().blockingGet();
    Single.just(1).flatMapCompletable(x -> Completable.complete()).blockingAwait();
    Completable.merge(List.of(Completable.complete(), Completable.complete())).blockingAwait();
    Completable.mergeArray(Completable.complete(), Completable.complete()).blockingAwait();
    Completable.defer(Completable::complete).andThen(Completable.fromAction(() -> { })).blockingAwait();
    Completable.error(new IllegalStateException()).onErrorResumeNext(e -> Completable.complete()).blockingAwait();
    Completable.create(e -> e.onComplete()).andThen(Single.create(e -> e.onSuccess(1))).blockingGet();
    Flowable.range(0, 3).concatMapCompletable(i -> Completable.complete()).blockingAwait();
    Completable.complete().repeatUntil(() -> true).blockingAwait();
    int[] n = {0};
    Completable.defer(() -> Completable.fromAction(() -> n[0]++)).repeatUntil(() -> n[0] > 2).blockingAwait();
    Completable.complete().doFinally(() -> { }).blockingAwait();
  }
}
