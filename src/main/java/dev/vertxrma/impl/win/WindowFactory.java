package dev.vertxrma.impl.win;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.runtime.WorldComm;
import io.vertx.core.Future;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.BytesStore;

/** Collective window creation behind {@link Win}'s static factories. */
public final class WindowFactory {

  private WindowFactory() {
  }

  /** MPI_Win_create over the caller's store. */
  public static Future<Win> create(Comm comm, BytesStore<?, ?> memory, int dispUnit, Info info) {
    return build(comm, dispUnit, info, Win.Flavor.CREATE, () -> WindowMemory.wrap(memory));
  }

  /** MPI_Win_allocate of {@code size} zeroed bytes. */
  public static Future<Win> allocate(Comm comm, long size, int dispUnit, Info info) {
    return build(comm, dispUnit, info, Win.Flavor.ALLOCATE, () -> WindowMemory.allocate(size));
  }

  private static Future<Win> build(Comm comm, int dispUnit, Info info, Win.Flavor flavor,
      Supplier<WindowMemory> memory) {
    if (!(comm instanceof WorldComm)) {
      return Future.failedFuture(new RmaException(ErrorClass.COMM, "not a vertx-rma communicator: " + comm));
    }
    WorldComm wc = (WorldComm) comm;
    return wc.call(() -> {
      if (dispUnit <= 0) {
        throw RmaException.of(ErrorClass.ARG, "displacement unit %d must be positive", dispUnit);
      }
      WindowRegistry registry = WindowRegistry.of(wc.process());
      WindowMemory mem = memory.get();
      WinImpl w = new WinImpl(registry, wc, registry.nextId(), mem, dispUnit, flavor, info == null ? Info.NULL : info);
      registry.register(w);
      return w.exchangeAttributes().<Win>map(w).onFailure(e -> w.releaseNow());
    });
  }
}
