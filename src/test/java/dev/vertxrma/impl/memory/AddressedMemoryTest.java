package dev.vertxrma.impl.memory;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The stores whose addresses were taken: a store released since (whose memory the allocator may
 * have handed to a later store that starts lower) neither covers anything nor hides the live
 * store around it.
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
}
