package dev.vertxrma.rx;

import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;
import io.vertx.core.Future;
import java.util.function.Supplier;

/**
 * Future to RxJava adapters. Cold, as Rx users expect: the vertx-rma call is made when the
 * Completable/Single is subscribed to, once per subscription.
 */
final class Deferred {

  private Deferred() {
  }

  static Completable completable(Supplier<? extends Future<?>> call) {
    return Completable.create(emitter -> call.get().onComplete(ar -> {
      if (ar.succeeded()) {
        emitter.onComplete();
      } else {
        emitter.onError(ar.cause());
      }
    }));
  }

  static <T> Single<T> single(Supplier<Future<T>> call) {
    return Single.create(emitter -> call.get().onComplete(ar -> {
      if (ar.succeeded()) {
        emitter.onSuccess(ar.result());
      } else {
        emitter.onError(ar.cause());
      }
    }));
  }
}
