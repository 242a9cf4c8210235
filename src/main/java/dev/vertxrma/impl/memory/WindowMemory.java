package dev.vertxrma.impl.memory;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.util.concurrent.atomic.AtomicInteger;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.io.ReferenceOwner;

/**
 * One rank's window memory: a fixed Chronicle {@link BytesStore} (library-allocated, or the
 * caller's, reserved for the window's lifetime), its raw address for the engines, and the range
 * check that must pass before any byte is touched. Released exactly once.
 */
public final class WindowMemory {

  private static final AtomicInteger LIVE = new AtomicInteger();

  private final BytesStore<?, ?> store;
  private final boolean owned;
  private final ReferenceOwner owner = ReferenceOwner.temporary("vertx-rma window");
  private final Object base;
  private final long address;
  private final long size;
  private boolean released;

  private WindowMemory(BytesStore<?, ?> store, boolean owned, long size) {
    this.store = store;
    this.owned = owned;
    MemoryRef ref = MemoryRef.of(store, 0);
    this.base = ref.base();
    this.address = ref.address();
    this.size = size;
    LIVE.incrementAndGet();
  }

  /** Library-owned, zeroed native memory of {@code size} bytes (MPI_Win_allocate). */
  public static WindowMemory allocate(long size) {
    if (size < 0) {
      throw RmaException.of(ErrorClass.ARG, "window size %d is negative", size);
    }
    BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(Math.max(size, 8));
    Memory.zero(null, store.addressForWrite(0), Math.max(size, 8));
    return new WindowMemory(store, true, size);
  }

  /** The caller's store (MPI_Win_create), reserved until {@link #release()}. */
  public static WindowMemory wrap(BytesStore<?, ?> store) {
    if (store == null) {
      throw new RmaException(ErrorClass.BUFFER, "window memory is null");
    }
    if (store.refCount() <= 0) {
      throw new RmaException(ErrorClass.BUFFER, "window memory store was already released");
    }
    WindowMemory m = new WindowMemory(store, false, store.capacity());
    store.reserve(m.owner);
    return m;
  }

  /** Number of window memories not yet released, in this JVM (tests check it returns to zero). */
  public static int live() {
    return LIVE.get();
  }

  /** The store, for local loads and stores by the owning rank. */
  public BytesStore<?, ?> store() {
    return store;
  }

  /** Unsafe base object (null for native memory). */
  public Object base() {
    return base;
  }

  /** Address of byte 0 of the window. */
  public long address() {
    return address;
  }

  /** Size in bytes. */
  public long size() {
    return size;
  }

  /**
   * The byte offset of displacement {@code disp} in units of {@code dispUnit}, overflow-checked;
   * {@link ErrorClass#RMA_RANGE} naming the values and {@code rank} if it overflows or is negative.
   */
  public long byteOffset(long disp, int dispUnit, int rank) {
    try {
      long at = Math.multiplyExact(disp, (long) dispUnit);
      if (at < 0) {
        throw RmaException.of(ErrorClass.RMA_RANGE, "target displacement %d x disp unit %d is negative "
            + "(window size %d at rank %d)", disp, dispUnit, size, rank);
      }
      return at;
    } catch (ArithmeticException e) {
      throw RmaException.of(ErrorClass.RMA_RANGE, "target displacement %d x disp unit %d overflows (window size %d "
          + "at rank %d)", disp, dispUnit, size, rank);
    }
  }

  /** Releases the memory (or the reservation on the caller's store); idempotent. */
  public void release() {
    if (released) {
      return;
    }
    released = true;
    LIVE.decrementAndGet();
    if (owned) {
      store.releaseLast();
    } else {
      store.release(owner);
    }
  }

  /** Whether {@link #release()} was called. */
  public boolean isReleased() {
    return released;
  }
}
