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
 * access must lie entirely inside attached memory: inside one region, or across regions that
 * touch end to end (one ends at the address where the next begins: the bytes are contiguous in
 * the address space, as in MPICH). An access reaching into a gap between regions is refused
 * whole. Attached stores are reserved until detached, so they cannot be freed under an
 * operation; the window's owner runs attach, detach and every access one at a time, so an access
 * sees the region map of one moment from its check to its last byte.
 */
public final class DynamicMemory implements TargetMemory {

  private static final class Region {
    final BytesStore<?, ?> store;
    final long address;
    final long length;
    final ReferenceOwner owner = ReferenceOwner.temporary("vertx-rma attach");

    long end() {
      return address + length;
    }

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

  /**
   * MPI_Win_attach; RMA_ATTACH if the store overlaps an attached region or starts where one
   * starts (two regions, even of 0 bytes, never share a start address).
   */
  public void attach(BytesStore<?, ?> store, int rank) {
    long addr = address(store, 0);
    long len = store.capacity();
    // the highest region starting below this store's end: any overlap or shared start shows there
    Map.Entry<Long, Region> below = regions.floorEntry(addr + Math.max(len, 1) - 1);
    if (below != null && (below.getValue().end() > addr || below.getKey() == addr)) {
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
    return coveredFrom(start + lo, start + hi) >= start + hi ? start : NOT_INSIDE;
  }

  /**
   * How far attached memory reaches without a gap from {@code first}: the end of the region that
   * holds byte {@code first} or of the last region in the run of regions touching end to end
   * after it, looked at no further than {@code end}; {@code first} itself if no region holds it.
   */
  private long coveredFrom(long first, long end) {
    Map.Entry<Long, Region> e = regions.floorEntry(first);
    if (e == null || e.getValue().end() <= first) {
      return first;
    }
    long reach = e.getValue().end();
    while (reach < end) {
      Region next = regions.get(reach); // the region that begins where this one ends
      if (next == null || next.length == 0) {
        break;
      }
      reach = next.end();
    }
    return reach;
  }

  @Override
  public String whyOutside(long start, long lo, long hi) {
    if (!TargetMemory.wellFormed(start, lo, hi)) {
      return String.format("bytes [0x%x + %d, 0x%x + %d) overflow 64-bit addresses", start, lo, start, hi);
    }
    long first = start + lo;
    long reach = coveredFrom(first, start + hi);
    String where = reach == first
        ? String.format("byte 0x%x is in no attached region", first)
        : String.format("attached memory from byte 0x%x ends at 0x%x", first, reach);
    return String.format("bytes [0x%x + %d, 0x%x + %d) are not inside attached memory: %s (%d region(s) attached; "
        + "regions that touch end to end count as one)", start, lo, start, hi, where, regions.size());
  }
}
