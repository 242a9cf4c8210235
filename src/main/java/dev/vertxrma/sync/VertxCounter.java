package dev.vertxrma.sync;

import io.vertx.core.Future;

/** {@link Counter} as Vert.x's {@code io.vertx.core.shareddata.Counter}: each call is one counter call. */
final class VertxCounter implements io.vertx.core.shareddata.Counter {

  private final Counter counter;

  VertxCounter(Counter counter) {
    this.counter = counter;
  }

  @Override
  public Future<Long> get() {
    return counter.get();
  }

  @Override
  public Future<Long> incrementAndGet() {
    return counter.add(1).map(v -> v + 1);
  }

  @Override
  public Future<Long> getAndIncrement() {
    return counter.next();
  }

  @Override
  public Future<Long> decrementAndGet() {
    return counter.add(-1).map(v -> v - 1);
  }

  @Override
  public Future<Long> addAndGet(long value) {
    return counter.add(value).map(v -> v + value);
  }

  @Override
  public Future<Long> getAndAdd(long value) {
    return counter.add(value);
  }

  @Override
  public Future<Boolean> compareAndSet(long expected, long value) {
    return counter.compareAndSet(expected, value);
  }
}
