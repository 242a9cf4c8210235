package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * MPI_WIN_BASE as an address ({@link Win#baseAddress}): 0 (MPI_BOTTOM) for a dynamic window, whose
 * displacements are then {@code address - base} as in MPI; the address of the window's memory for
 * the other flavors; BUFFER for memory without a native address, WIN after free.
 */
class WindowBaseAddressTest {

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aDynamicWindowsBaseIsMpiBottomAndOtherFlavorsReportTheirMemory(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      int r = world.rank();
      int other = 1 - r;
      BytesStore<?, ?> attached = BytesStore.nativeStoreWithFixedCapacity(32);
      attached.zeroOut(0, 32);
      BytesStore<?, ?> own = BytesStore.nativeStoreWithFixedCapacity(16);
      BytesStore<?, ?> heap = BytesStore.wrap(new byte[16]);
      long[] mine = new long[2];
      long[] all = new long[4];
      long[] got = new long[1];
      return Win.createDynamic(world, Info.NULL).compose(dyn -> {
        assertEquals(0L, dyn.baseAddress(), "MPI_WIN_BASE of a dynamic window is MPI_BOTTOM");
        assertEquals(0L, dyn.size());
        RmaException e = assertThrows(RmaException.class, dyn::memory);
        assertEquals(ErrorClass.RMA_FLAVOR, e.errorClass(), e.getMessage());
        mine[0] = dyn.baseAddress();
        mine[1] = Win.address(attached, 8);
        return dyn.attach(attached)
            .compose(v -> world.allgather(Buf.of(mine), 0, 2, Datatype.AINT, Buf.of(all), 0, 2, Datatype.AINT))
            .compose(v -> dyn.lockAll())
            // MPI's idiom: the target displacement is the target's address minus its base
            .compose(v -> dyn.put(Buf.of(new long[] {70L + r}), 0, 1, Datatype.LONG, other,
                all[2 * other + 1] - all[2 * other]))
            .compose(v -> dyn.flush(other))
            .compose(v -> world.barrier())
            .compose(v -> dyn.get(Buf.of(got), 0, 1, Datatype.LONG, other, all[2 * other + 1] - all[2 * other]))
            .compose(v -> dyn.unlockAll())
            .compose(v -> world.barrier())
            .map(v -> {
              assertArrayEquals(new long[] {0, 0}, new long[] {all[0], all[2]}, "every rank's base is 0");
              assertEquals(70L + r, got[0]);
              assertEquals(70L + other, attached.readLong(8));
              return null;
            })
            .compose(v -> dyn.detach(attached))
            .compose(v -> dyn.free())
            .map(v -> {
              assertError(assertThrows(RmaException.class, dyn::baseAddress), ErrorClass.WIN, "baseAddress");
              return null;
            });
      })
          .compose(v -> Win.allocate(world, 24, 8, Info.NULL))
          .compose(w -> {
            assertNotEquals(0L, w.baseAddress());
            assertEquals(Win.address(w.memory(), 0), w.baseAddress(), "allocate: the address of memory()");
            return w.free();
          })
          .compose(v -> Win.create(world, own, 1, Info.NULL))
          .compose(w -> {
            assertEquals(Win.address(own, 0), w.baseAddress(), "create: the address of the caller's store");
            return w.free();
          })
          .compose(v -> Win.create(world, heap, 1, Info.NULL))
          .compose(w -> {
            assertError(assertThrows(RmaException.class, w::baseAddress), ErrorClass.BUFFER, "baseAddress of window "
                + w.name(), "byte[]-backed", "no native address");
            return w.free();
          })
          .compose(v -> Win.allocateShared(world, 16, 8, Info.NULL))
          .compose(w -> {
            assertEquals(Win.address(w.memory(), 0), w.baseAddress(), "shared: this rank's segment");
            return w.free();
          })
          .onComplete(ar -> {
            attached.releaseLast();
            own.releaseLast();
            heap.releaseLast();
          });
    });
    assertEquals(0, WindowMemory.live());
  }
}
