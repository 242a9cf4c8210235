package dev.vertxrma.impl.memory;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.util.Map;
import java.util.TreeMap;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.io.ReferenceOwner;

/**
 * The memory of a dynamic window (MPI_Win_create_dynamic): the native regions attached with
 * MPI_Win_attach, addressed by their absolute addresses (what MPI_Get_address returns). An
 * access must lie entirely inside one attached region. Attached stores are reserved until
 * detached, so they cannot be freed under an operation.
 */
public final class DynamicMemory implements TargetMemory {

  private static final class Region {
    final BytesStore<?, ?> store;
    final long address;
    final long length;
    final ReferenceOwner owner = ReferenceOwner.temporary("vertx-rma attach");

    Region(BytesStore<?, ?> store, long address, long length) {
      this.store = store;
      this.address = address;
      this.length = length;
    }
  }

  private final TreeMap<Long, Region> regions = new TreeMap<>();

  /** The absolute address of byte {@code offset} of a native store (MPI_Get_address). */
  public static long address(BytesStore<?, ?> store, long offset) {
    if (store == null || !store.isDirectMemory()) {
      throw new RmaException(ErrorClass.ARG, "an address exists only for native memory: use "
          + "BytesStore.nativeStoreWithFixedCapacity");
    }
    if (offset < 0 || offset > store.capacity()) {
      throw RmaException.of(ErrorClass.ARG, "offset %d is outside the store of %d bytes", offset, store.capacity());
    }
    long start = store.addressForRead(0);
    AddressedMemory.register(start, store);
    return start + offset;
  }

  /** MPI_Win_attach; RMA_ATTACH if the store overlaps an attached region. */
  public void attach(BytesStore<?, ?> store, int rank) {
    long addr = address(store, 0);
    long len = store.capacity();
    Map.Entry<Long, Region> below = regions.floorEntry(addr + Math.max(len, 1) - 1);
    if (below != null && below.getValue().address + below.getValue().length > addr) {
      throw RmaException.of(ErrorClass.RMA_ATTACH, "memory [0x%x, +%d) overlaps the region [0x%x, +%d) already attached "
          + "at rank %d", addr, len, below.getKey(), below.getValue().length, rank);
    }
    Region r = new Region(store, addr, len);
    store.reserve(r.owner);
    regions.put(addr, r);
  }

  /** MPI_Win_detach; RMA_ATTACH if the store is not attached. */
  public void detach(BytesStore<?, ?> store, int rank) {
    long addr = address(store, 0);
    Region r = regions.get(addr);
    if (r == null || r.store != store) {
      throw RmaException.of(ErrorClass.RMA_ATTACH, "memory at 0x%x is not attached to this window at rank %d", addr,
          rank);
    }
    regions.remove(addr);
    r.store.release(r.owner);
  }

  /** Detaches every region (window freed). */
  public void detachAll() {
    for (Region r : regions.values()) {
      r.store.release(r.owner);
    }
    regions.clear();
  }

  @Override
  public Object base() {
    return null;
  }

  @Override
  public long size() {
    return 0;
  }

  @Override
  public long addressOf(long start, long lo, long hi) {
    if (!TargetMemory.wellFormed(start, lo, hi)) {
      return NOT_INSIDE;
    }
    Map.Entry<Long, Region> e = regions.floorEntry(start + lo);
    if (e == null || start + hi > e.getValue().address + e.getValue().length) {
      return NOT_INSIDE;
    }
    return start;
  }

  @Override
  public String whyOutside(long start, long lo, long hi) {
    return String.format("bytes [0x%x + %d, 0x%x + %d) are not inside one attached region (%d region(s) attached)",
        start, lo, start, hi, regions.size());
  }
}
