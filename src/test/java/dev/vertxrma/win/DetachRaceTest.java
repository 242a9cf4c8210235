package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Detach races operations in flight (an erroneous program, which must still never write memory
 * the window no longer owns): once {@code detach} has completed, the memory is poisoned, and no
 * later write may change the poison.
 */
class DetachRaceTest {

  private static final int ROUNDS = 1000;
  private static final int PUTS = 8;
  private static final long POISON = 0xDEADBEEFCAFEF00DL;

  /** Each round: rank 1 attaches, tells rank 0, and detaches at once while rank 0's puts fly. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void noWriteReachesMemoryAfterDetachCompleted(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.createDynamic(world, Info.NULL).compose(win -> {
      if (world.rank() == 1) {
        BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(8L * PUTS);
        long[] addr = {Win.address(store, 0)};
        return Rma.repeat(ROUNDS, r -> win.attach(store)
            .compose(v -> world.send(Buf.of(addr), 0, 1, Datatype.LONG, 0, 1))
            .compose(v -> win.detach(store))
            .compose(v -> {
              for (int i = 0; i < PUTS; i++) {
                store.writeLong(8L * i, POISON);
              }
              return world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 0, 2); // rank 0's operations are complete
            })
            .map(v -> {
              for (int i = 0; i < PUTS; i++) {
                assertEquals(POISON, store.readLong(8L * i), "round " + r + ": slot " + i
                    + " was written after detach had completed");
              }
              return null;
            }))
            .eventually(() -> {
              store.releaseLast();
              return Future.succeededFuture();
            })
            .compose(v -> win.free());
      }
      long[] addr = new long[1];
      return Rma.repeat(ROUNDS, r -> world.recv(Buf.of(addr), 0, 1, Datatype.LONG, 1, 1).compose(s -> {
        List<Future<Void>> puts = new ArrayList<>();
        Future<Void> lock = win.lock(LockType.SHARED, 1);
        for (int i = 0; i < PUTS; i++) {
          puts.add(win.put(Buf.of(new long[] {r}), 0, 1, Datatype.LONG, 1, addr[0] + 8L * i));
        }
        Future<Void> unlock = win.unlock(1);
        puts.add(lock);
        puts.add(unlock);
        return Future.join(puts).transform(ar -> {
          for (Future<Void> f : puts) {
            if (f.failed()) {
              RmaException e = (RmaException) f.cause();
              assertTrue(e.errorClass() == ErrorClass.RMA_RANGE, "round " + r + ": " + e.getMessage());
            }
          }
          return world.send(Buf.of(new int[] {r}), 0, 1, Datatype.INT, 1, 2);
        });
      })).compose(v -> win.free());
    }));
  }
}
