package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A target decodes a derived datatype once per origin and type, not once per operation (issue
 * 43): rank 0 issues many accumulates with one vector target type to rank 1 of a
 * {@code create} window, none awaited before the flush. Clustered, they cross the data plane
 * (the other node stands for another JVM) and rank 1's window decodes the type once; embedded,
 * they are applied in place and decode nothing. The values are checked either way.
 */
class TargetTypeDecodesTest {

  private static final int OPS = 200;

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void manyOperationsWithOneDerivedTypeDecodeItOnce(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      BytesStore<?, ?> mem = BytesStore.nativeStoreWithFixedCapacity(8 * 12);
      mem.zeroOut(0, 8 * 12);
      // 3 blocks of 2 longs, 4 longs apart: longs 0, 1, 4, 5, 8, 9
      Datatype vector = Datatype.vector(3, 2, 4, Datatype.LONG).commit();
      return Win.create(world, mem, 8, Info.NULL).compose(win -> {
        List<Future<Void>> issued = new ArrayList<>();
        Future<Void> epoch = win.lockAll();
        if (world.rank() == 0) {
          for (int i = 0; i < OPS; i++) {
            issued.add(win.accumulate(Buf.of(new long[] {1, 2, 3, 4, 5, 6}), 0, 6, Datatype.LONG, 1, 1, 1, vector,
                Op.SUM));
          }
          epoch = epoch.compose(v -> win.flush(1)).map(v -> {
            for (Future<Void> f : issued) {
              assertTrue(f.succeeded(), "complete when the flush covering it completes: " + f.cause());
            }
            return null;
          });
        }
        return epoch.compose(v -> win.unlockAll()).compose(v -> world.barrier()).map(v -> {
          if (world.rank() == 1) {
            long decodes = ((WinImpl) win).targetWindow().types().decodes();
            assertEquals(mode == Jobs.Mode.EMBEDDED ? 0 : 1, decodes, "derived type decodes at the target");
            long[] slots = {1, 2, 5, 6, 9, 10};
            for (int k = 0; k < slots.length; k++) {
              assertEquals((long) OPS * (k + 1), mem.readLong(8 * slots[k]), "long " + slots[k]);
            }
            assertEquals(0, mem.readLong(8 * 3), "a gap of the vector is untouched");
          }
          return null;
        }).compose(v -> win.free());
      }).onComplete(ar -> mem.releaseLast()).mapEmpty();
    });
  }
}
