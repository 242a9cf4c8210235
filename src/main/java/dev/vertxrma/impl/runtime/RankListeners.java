package dev.vertxrma.impl.runtime;

import io.vertx.core.Completable;
import java.util.ArrayList;

/**
 * The listeners of a pending {@link RankFuture}, which holds them in one field: {@code null}, one
 * {@link Completable}, or, from the second on, a {@code RankListeners} list. A listener wrapped by
 * {@link #tail} stays behind every other one, those added before it and those added after it: new
 * listeners go in front of the tails at the end of the list.
 */
final class RankListeners<T> extends ArrayList<Completable<? super T>> {

  private RankListeners() {
    super(4);
  }

  /** {@code listener} marked to run behind every other listener ({@link RankFuture#addTailListener}). */
  static <T> Completable<T> tail(Completable<T> listener) {
    return new Tail<>(listener);
  }

  /** The field's new value once {@code listener} is added to {@code held}, the field's value. */
  static <T> Object add(Object held, Completable<? super T> listener) {
    if (held == null) {
      return listener;
    }
    RankListeners<T> list;
    if (held instanceof RankListeners) {
      list = (RankListeners<T>) held;
    } else {
      list = new RankListeners<>();
      list.add((Completable<? super T>) held);
    }
    list.addBeforeTails(listener);
    return list;
  }

  /**
   * The field's new value once {@code moved} (a field's value taken from a future merged into
   * this one) is added in front: its listeners that are not tails, then {@code held}'s, then the
   * tails of both, {@code held}'s first.
   */
  static <T> Object addInFront(Object held, Object moved) {
    if (held == null) {
      return moved;
    }
    RankListeners<T> list = new RankListeners<>();
    for (Completable<? super T> l : listOf(moved)) {
      if (!(l instanceof Tail)) {
        list.add(l);
      }
    }
    for (Completable<? super T> l : listOf(held)) {
      list.addBeforeTails(l);
    }
    for (Completable<? super T> l : listOf(moved)) {
      if (l instanceof Tail) {
        list.add(l);
      }
    }
    return list;
  }

  @SuppressWarnings("unchecked")
  private static <T> java.util.List<Completable<? super T>> listOf(Object held) {
    return held instanceof RankListeners ? (RankListeners<T>) held
        : java.util.List.of((Completable<? super T>) held);
  }

  /** The field's new value once {@code listener} is removed from {@code held}, the field's value. */
  static Object remove(Object held, Completable<?> listener) {
    if (held == listener) {
      return null;
    }
    if (held instanceof RankListeners) {
      ((RankListeners<?>) held).remove(listener);
    }
    return held;
  }

  /** Appends {@code l}; a listener that is not a {@link Tail} goes in front of the tails at the end. */
  private void addBeforeTails(Completable<? super T> l) {
    int at = size();
    if (!(l instanceof Tail)) {
      while (at > 0 && get(at - 1) instanceof Tail) {
        at--;
      }
    }
    add(at, l);
  }

  /** A listener kept behind every other one. */
  private static final class Tail<T> implements Completable<T> {
    private final Completable<T> listener;

    Tail(Completable<T> listener) {
      this.listener = listener;
    }

    @Override
    public void complete(T result, Throwable failure) {
      listener.complete(result, failure);
    }
  }
}
