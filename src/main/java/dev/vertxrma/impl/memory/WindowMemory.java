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
public final class WindowMemory implements TargetMemory {

  private static final AtomicInteger LIVE = new AtomicInteger();

  private final BytesStore<?, ?> store;
  private final Runnable releaser;
  private final Object base;
  private final long address;
  private final long size;
  private boolean released;

  private WindowMemory(BytesStore<?, ?> store, long size, Runnable releaser) {
    this.store = store;
    this.releaser = releaser;
    MemoryRef ref = MemoryRef.of(store, 0);
    this.base = ref.base();
    this.address = ref.address();
    this.size = size;
    LIVE.incrementAndGet();
  }

  /**
   * Windows of at least this many bytes are allocated, zeroed and released on a worker thread,
   * never on an event loop: zeroing takes about a millisecond per MiB touched for the first time.
   */
  public static final long OFF_LOOP_BYTES = 1L << 20;

  /**
   * Library-owned, zeroed native memory of {@code size} bytes (MPI_Win_allocate) at the native
   * allocator's alignment ({@link #NATIVE_ALIGNMENT}); {@link #allocate(long, long)}.
   */
  public static WindowMemory allocate(long size) {
    return allocate(size, NATIVE_ALIGNMENT);
  }

  /**
   * The alignment every native allocation has (glibc's {@code malloc} on 64-bit Linux, below the
   * JVM's {@code Unsafe.allocateMemory}); checked on every allocation all the same.
   */
  public static final long NATIVE_ALIGNMENT = 16;

  /**
   * Library-owned, zeroed native memory of {@code size} bytes (MPI_Win_allocate) whose first byte
   * lies on a boundary of {@code align} bytes (MPI's {@code mpi_minimum_memory_alignment}): the
   * allocator's own block up to {@link #NATIVE_ALIGNMENT}, else (or should the allocator's block
   * not be aligned so) an aligned view of a block {@code align - 1} bytes larger, released with it. From {@link #OFF_LOOP_BYTES} bytes on this blocks (it reads
   * {@code /proc/meminfo} and zeroes the memory, about a second per GiB, in steps the JVM can
   * reach a safepoint between): call it on a worker thread then.
   *
   * @param align a power of two, at most 2^20
   * @throws RmaException ARG for a negative size or an alignment that is not a power of two up to
   *     2^20; NO_MEM, naming the size, when the native allocator cannot provide it or the host has
   *     less memory available than that ({@link HostMemory}: memory the kernel would promise but
   *     could not back when touched)
   */
  public static WindowMemory allocate(long size, long align) {
    if (size < 0) {
      throw RmaException.of(ErrorClass.ARG, "window size %d is negative", size);
    }
    if (align < 1 || align > 1 << 20 || Long.bitCount(align) != 1) {
      throw RmaException.of(ErrorClass.ARG, "window alignment %d is not a power of two from 1 to 2^20", align);
    }
    long bytes = Math.max(size, 8);
    if (align <= NATIVE_ALIGNMENT) {
      BytesStore<?, ?> store = zeroed(bytes, size);
      if ((store.addressForWrite(0) & (align - 1)) == 0) {
        return new WindowMemory(store, size, store::releaseLast);
      }
      store.releaseLast(); // an allocator that does not align as promised: a larger block, as below
    }
    BytesStore<?, ?> block = zeroed(bytes + align - 1, size);
    long aligned = (block.addressForWrite(0) + align - 1) & -align;
    return new WindowMemory(BytesStore.wrap(aligned, bytes), size, block::releaseLast);
  }

  /** A zeroed native store of {@code bytes} bytes, for a window of {@code size}. */
  private static BytesStore<?, ?> zeroed(long bytes, long size) {
    if (bytes >= OFF_LOOP_BYTES) {
      java.util.OptionalLong available = HostMemory.available();
      if (available.isPresent() && bytes > available.getAsLong()) {
        throw RmaException.of(ErrorClass.NO_MEM, "cannot allocate a window of %d bytes (%s) of native memory: this "
            + "host has %d bytes (%s) available (MemAvailable + SwapFree)", size, gib(size), available.getAsLong(),
            gib(available.getAsLong()));
      }
    }
    BytesStore<?, ?> store;
    try {
      // the lazy store: Chronicle's eager one zeroes in one Unsafe.setMemory call (from 128 KiB
      // on the lazy one leaves it to us), which no safepoint can interrupt; Memory.zero steps
      store = BytesStore.lazyNativeBytesStoreWithFixedCapacity(bytes);
    } catch (OutOfMemoryError | RuntimeException e) {
      // Chronicle refuses sizes beyond its limit with a bare IllegalArgumentException, the
      // allocator runs out with an OutOfMemoryError: to the caller both are "no memory"
      throw new RmaException(ErrorClass.NO_MEM, String.format("cannot allocate a window of %d bytes (%s) of native "
          + "memory: %s", size, gib(size), e.getMessage() == null ? e.getClass().getName() : e.getMessage()), e);
    }
    Memory.zero(null, store.addressForWrite(0), bytes);
    return store;
  }

  private static String gib(long bytes) {
    return String.format("%.1f GiB", bytes / (double) (1L << 30));
  }

  /** The caller's store (MPI_Win_create), reserved until {@link #release()}. */
  public static WindowMemory wrap(BytesStore<?, ?> store) {
    if (store == null) {
      throw new RmaException(ErrorClass.BUFFER, "window memory is null");
    }
    if (store.refCount() <= 0) {
      throw new RmaException(ErrorClass.BUFFER, "window memory store was already released");
    }
    MemoryRef.of(store, 0); // validates the store before it is reserved
    ReferenceOwner owner = ReferenceOwner.temporary("vertx-rma window");
    store.reserve(owner);
    return new WindowMemory(store, store.capacity(), () -> store.release(owner));
  }

  /** A segment of memory owned elsewhere (a shared mapping); {@code releaser} runs once on release. */
  public static WindowMemory segment(BytesStore<?, ?> store, long size, Runnable releaser) {
    return new WindowMemory(store, size, releaser);
  }

  /** Number of window memories not yet released, in this JVM (tests check it returns to zero). */
  public static int live() {
    return LIVE.get();
  }

  /** The store, for local loads and stores by the owning rank. */
  public BytesStore<?, ?> store() {
    return store;
  }

  @Override
  public Object base() {
    return base;
  }

  /** Address of byte 0 of the window. */
  public long address() {
    return address;
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public long addressOf(long start, long lo, long hi) {
    if (!TargetMemory.wellFormed(start, lo, hi) || start + lo < 0 || start + hi > size) {
      return NOT_INSIDE;
    }
    return address + start;
  }

  @Override
  public String whyOutside(long start, long lo, long hi) {
    return String.format("bytes [%d + %d, %d + %d) exceed window size %d", start, lo, start, hi, size);
  }

  /**
   * Whether {@link #release()} may take long enough to belong on a worker thread (releasing
   * memory the JVM touched costs about 27 ms per GiB, and the JVM cannot reach a safepoint
   * meanwhile).
   */
  public boolean releaseMayBlock() {
    return size >= OFF_LOOP_BYTES;
  }

  /**
   * Releases the memory (or the reservation on the caller's store); idempotent. Blocks as long
   * as {@link #releaseMayBlock()} says: call it on a worker thread then.
   */
  public void release() {
    if (released) {
      return;
    }
    released = true;
    LIVE.decrementAndGet();
    releaser.run();
  }
}
