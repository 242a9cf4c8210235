package dev.vertxrma.rx;

import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.function.Supplier;

/**
 * Adapters between Vert.x futures and RxJava. Future to Rx is cold, as Rx users expect: the
 * vertx-rma call is made when the Completable/Single is subscribed to, once per subscription (an
 * exception thrown by the call becomes the error). Rx to future subscribes at once.
 */
final class Deferred {

  private Deferred() {
  }

  /** A Completable that makes {@code call} on subscription and completes or fails with its future. */
  static Completable completable(Supplier<? extends Future<?>> call) {
    return Completable.create(emitter -> call.get().onComplete(ar -> {
      if (ar.succeeded()) {
        emitter.onComplete();
      } else {
        emitter.onError(ar.cause());
      }
    }));
  }

  /** A Single that makes {@code call} on subscription and emits its future's value or failure. */
  static <T> Single<T> single(Supplier<Future<T>> call) {
    return Single.create(emitter -> call.get().onComplete(ar -> {
      if (ar.succeeded()) {
        emitter.onSuccess(ar.result());
      } else {
        emitter.onError(ar.cause());
      }
    }));
  }

  /** Subscribes to {@code rx} now; the future completes or fails when it does. */
  static Future<Void> future(Completable rx) {
    Promise<Void> done = Promise.promise();
    rx.subscribe(done::complete, done::fail);
    return done.future();
  }

  /** Subscribes to {@code rx} now; the future completes with its value or fails when it does. */
  static <T> Future<T> future(Single<T> rx) {
    Promise<T> done = Promise.promise();
    rx.subscribe(done::complete, done::fail);
    return done.future();
  }
}
