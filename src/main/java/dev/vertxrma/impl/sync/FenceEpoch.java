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
 * <p>What it holds is bounded by its origins: an origin in another JVM sends at most a credit's
 * worth of an epoch before it knows that epoch is open here ({@code FenceCredit} in the window
 * engine); {@link #heldBytes} and {@link #mostHeldBytes} measure it.
 *
 * @param <T> what an operation is to the caller: this class reads only its epoch, its origin and its size
 */
public final class FenceEpoch<T> {

  private long epoch;
  private boolean open;
  private final ArrayDeque<T> early = new ArrayDeque<>();
  private final ToLongFunction<T> epochOf;
  private final ToIntFunction<T> originOf;
  private final ToLongFunction<T> bytesOf;
  /** Bytes of the operations held now, and the most ever held at once. */
  private long heldBytes;
  private long mostHeldBytes;

  /**
   * Fence state whose operations tell their fence epoch through {@code epochOf}, their origin
   * through {@code originOf} and the bytes they hold while held through {@code bytesOf}.
   */
  public FenceEpoch(ToLongFunction<T> epochOf, ToIntFunction<T> originOf, ToLongFunction<T> bytesOf) {
    this.epochOf = epochOf;
    this.originOf = originOf;
    this.bytesOf = bytesOf;
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
        continue;
      }
      heldBytes -= bytesOf.applyAsLong(f);
      if (open) {
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
    heldBytes += bytesOf.applyAsLong(f);
    mostHeldBytes = Math.max(mostHeldBytes, heldBytes);
  }

  /** Takes out, in arrival order, the operations of origin {@code src} held for later epochs. */
  public java.util.List<T> withdrawFrom(int src) {
    java.util.List<T> out = new java.util.ArrayList<>(0);
    early.removeIf(f -> {
      if (originOf.applyAsInt(f) == src) {
        out.add(f);
        heldBytes -= bytesOf.applyAsLong(f);
        return true;
      }
      return false;
    });
    return out;
  }

  /** Takes out every operation held for a later epoch, in arrival order (to fail them: the window is freed or closed). */
  public java.util.List<T> takeAll() {
    java.util.List<T> out = new java.util.ArrayList<>(early);
    early.clear();
    heldBytes = 0;
    return out;
  }

  /** How many operations are held for later epochs. */
  public int heldCount() {
    return early.size();
  }

  /** Bytes of the operations held for later epochs now. */
  public long heldBytes() {
    return heldBytes;
  }

  /** The most bytes of operations held for later epochs at once so far. */
  public long mostHeldBytes() {
    return mostHeldBytes;
  }
}
