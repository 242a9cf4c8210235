package dev.vertxrma.impl.memory;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.Reference;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.PointerBytesStore;
import org.junit.jupiter.api.Test;

/**
 * The stores whose addresses were taken: a store released since (whose memory the allocator may
 * have handed to a later store that starts lower) neither covers anything nor hides the live
 * store around it; a store that does not own its memory (a pointer, {@code BytesStore.wrap(address,
 * length)}) vouches for nothing, since it stays open after the memory it points at is freed.
 */
class AddressedMemoryTest {

  @Test
  void aDeadStoreInsideALiveOnesRangeDoesNotHideIt() {
    BytesStore<?, ?> live = BytesStore.nativeStoreWithFixedCapacity(64);
    BytesStore<?, ?> dead = BytesStore.nativeStoreWithFixedCapacity(8);
    try {
      long start = live.addressForRead(0);
      AddressedMemory.register(start, live);
      // as if a store freed before had started 16 bytes into the live one's memory
      AddressedMemory.register(start + 16, dead);
      dead.releaseLast();
      assertTrue(AddressedMemory.covers(start + 20, 8), "inside the live store, above the dead one's start");
      assertTrue(AddressedMemory.covers(start, 64), "the whole live store");
      assertFalse(AddressedMemory.covers(start + 60, 8), "past the live store's end");
    } finally {
      if (dead.refCount() > 0) {
        dead.releaseLast();
      }
      live.releaseLast();
    }
    assertFalse(AddressedMemory.covers(live.addressForRead(0) + 8, 8), "a released store covers nothing");
  }

  /**
   * The cause of BottomAddressingTest's flake: DynamicWindowTest takes the addresses of
   * {@code BytesStore.wrap(address, length)} views of its stores (attach does) and never releases
   * them; once the stores are freed, malloc may hand that memory to a store whose address was
   * never taken, and the still-open view made {@code covers} accept it until a GC cleared the view.
   */
  @Test
  void aPointerStaysOpenAfterItsMemoryIsFreedSoItCoversNothing() {
    BytesStore<?, ?> owner = BytesStore.nativeStoreWithFixedCapacity(256);
    long start = owner.addressForRead(0);
    PointerBytesStore view = BytesStore.wrap(start, 256);
    try {
      assertTrue(DynamicMemory.address(view, 0) == start, "Win.address of a pointer is still its address");
      assertFalse(AddressedMemory.covers(start, 8), "a pointer's address alone makes nothing reachable");
      owner.releaseLast();
      assertTrue(view.refCount() > 0, "the pointer is still open over freed memory");
      assertFalse(AddressedMemory.covers(start, 8), "freed memory under an open pointer");
      assertFalse(AddressedMemory.covers(start + 64, 8));
    } finally {
      if (owner.refCount() > 0) {
        owner.releaseLast();
      }
      Reference.reachabilityFence(view);
    }
  }

  @Test
  void insideALiveOwnerAPointersRangeIsReachableThroughTheOwner() {
    BytesStore<?, ?> owner = BytesStore.nativeStoreWithFixedCapacity(128);
    try {
      long start = DynamicMemory.address(owner, 0);
      PointerBytesStore view = BytesStore.wrap(start, 64);
      DynamicMemory.address(view, 0); // at the owner's start: must not replace the owner's entry
      assertTrue(AddressedMemory.covers(start + 64, 64), "the owner's upper half, beyond the pointer");
      Reference.reachabilityFence(view);
    } finally {
      owner.releaseLast();
    }
  }
}
