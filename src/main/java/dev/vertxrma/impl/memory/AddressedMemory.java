package dev.vertxrma.impl.memory;

import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.PointerBytesStore;

/**
 * The native stores whose addresses the program took with {@code Win.address} (MPI_Get_address):
 * the only memory a buffer at {@code Comm.BOTTOM} may reach. A range is usable while its store is
 * alive (not released, not collected); anything else would make an absolute address a write into
 * memory the JVM no longer owns.
 *
 * <p>Only a store that owns its memory vouches for it: its memory lives exactly as long as the
 * store is open (a native store frees it on release; a store over a direct {@code ByteBuffer}
 * keeps the buffer reachable). A {@link PointerBytesStore} ({@code BytesStore.wrap(address,
 * length)}, a shared window's memory) is a bare pointer: it stays open after the memory it points
 * at is freed or unmapped, and can be moved with {@code set}, so its address is an address like
 * any other but it is not recorded. A range under a pointer is reachable while a live owning store
 * around it has had its address taken.
 */
public final class AddressedMemory {

  /** Start address to the store there (weakly: registering keeps nothing alive). */
  private static final ConcurrentSkipListMap<Long, WeakReference<BytesStore<?, ?>>> STORES =
      new ConcurrentSkipListMap<>();

  private AddressedMemory() {
  }

  /**
   * Records {@code store}, whose native memory starts at {@code start}, if it owns that memory;
   * a {@link PointerBytesStore} is not recorded (nor does it replace the entry of the store it
   * may point into).
   */
  static void register(long start, BytesStore<?, ?> store) {
    if (!ownsItsMemory(store)) {
      return;
    }
    STORES.put(start, new WeakReference<>(store));
    if (STORES.size() > 4096) {
      STORES.values().removeIf(r -> {
        BytesStore<?, ?> s = r.get();
        return s == null || s.refCount() <= 0;
      });
    }
  }

  /** Whether {@code store}'s being open means its memory is allocated (see the class comment). */
  static boolean ownsItsMemory(BytesStore<?, ?> store) {
    return !(store instanceof PointerBytesStore);
  }

  /**
   * Whether {@code [address, address + bytes)} lies inside one live store whose address was taken.
   *
   * @param address an absolute address
   * @param bytes the length, {@code >= 0}
   * @return true if the whole range may be read and written
   */
  public static boolean covers(long address, long bytes) {
    Map.Entry<Long, WeakReference<BytesStore<?, ?>>> e = STORES.floorEntry(address);
    while (e != null) {
      BytesStore<?, ?> s = e.getValue().get();
      if (s != null && s.refCount() > 0) {
        // live stores do not overlap: this is the only one that can hold the address
        long end = e.getKey() + Math.min(s.capacity(), s.realCapacity());
        return address + bytes <= end && address + bytes >= address;
      }
      // a dead store's memory may now be inside a live store that starts lower: forget it, look below
      STORES.remove(e.getKey(), e.getValue());
      e = STORES.lowerEntry(e.getKey());
    }
    return false;
  }
}
