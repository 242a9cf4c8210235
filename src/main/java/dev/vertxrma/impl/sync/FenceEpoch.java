package dev.vertxrma.impl.sync;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * Fence synchronization state of one window at one rank as a target. Fence epochs are numbered;
 * operations carry the number of the epoch their origin issued them in. A target applies an operation of
 * its current epoch, holds one of a later epoch until its own fence opens that epoch (so a fence
 * with NOPRECEDE needs no barrier: early operations wait at the target, never before its local
 * stores are done), and rejects one of an earlier epoch.
 *
 * @param <T> what an operation is to the caller: this class reads only its epoch and its origin
 */
public final class FenceEpoch<T> {

  private long epoch;
  private boolean open;
  private final ArrayDeque<T> early = new ArrayDeque<>();
  private final ToLongFunction<T> epochOf;
  private final ToIntFunction<T> originOf;

  /** Fence state whose operations tell their fence epoch through {@code epochOf} and their origin through {@code originOf}. */
  public FenceEpoch(ToLongFunction<T> epochOf, ToIntFunction<T> originOf) {
    this.epochOf = epochOf;
    this.originOf = originOf;
  }

  /** The current epoch number. */
  public long epoch() {
    return epoch;
  }

  /** Whether a fence opened an access/exposure epoch that is still open. */
  public boolean isOpen() {
    return open;
  }

  /**
   * Moves to the next epoch ({@code open} unless NOSUCCEED) and hands the held operations of the
   * new epoch to {@code apply} in arrival order — or to {@code reject} if the new epoch is not
   * open (the origins' fences did not match this NOSUCCEED).
   */
  public void advance(boolean openNext, Consumer<T> apply, Consumer<T> reject) {
    epoch++;
    open = openNext;
    int n = early.size();
    for (int i = 0; i < n; i++) {
      T f = early.pollFirst();
      if (epochOf.applyAsLong(f) != epoch) {
        early.addLast(f);
      } else if (open) {
        apply.accept(f);
      } else {
        reject.accept(f);
      }
    }
  }

  /** Closes the fence epoch without opening another (another synchronization mode begins). */
  public void close() {
    open = false;
  }

  /**
   * Whether an operation of fence epoch {@code f} can be applied now; false if it belongs to
   * a later epoch (the caller {@link #hold holds} it or tries again later); RMA_SYNC for an earlier
   * one, or for this epoch after NOSUCCEED.
   */
  public boolean admits(T f, int rank) {
    long e = epochOf.applyAsLong(f);
    if (e == epoch && open) {
      return true;
    }
    if (e > epoch) {
      return false;
    }
    throw RmaException.of(ErrorClass.RMA_SYNC, "operation from rank %d belongs to fence epoch %d but rank %d is in "
        + "epoch %d%s (mismatched fences)", originOf.applyAsInt(f), e, rank, epoch, open ? "" : ", closed by NOSUCCEED");
  }

  /** Holds an operation of a later epoch until {@link #advance} reaches it. */
  public void hold(T f) {
    early.addLast(f);
  }

  /** Takes out, in arrival order, the operations of origin {@code src} held for later epochs. */
  public java.util.List<T> withdrawFrom(int src) {
    java.util.List<T> out = new java.util.ArrayList<>(0);
    early.removeIf(f -> {
      if (originOf.applyAsInt(f) == src) {
        out.add(f);
        return true;
      }
      return false;
    });
    return out;
  }

  /** Operations held for later epochs (to fail them when the window is freed). */
  public ArrayDeque<T> held() {
    return early;
  }
}
