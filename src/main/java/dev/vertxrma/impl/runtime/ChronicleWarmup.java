package dev.vertxrma.impl.runtime;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Initializes Chronicle Bytes once per JVM on a worker thread before any rank starts: its static
 * initialization takes seconds on a cold JVM and must not run on an event loop (the first window
 * allocation would otherwise block one).
 */
final class ChronicleWarmup {

  private static volatile boolean done;

  private ChronicleWarmup() {
  }

  static Future<Void> ensure(Vertx vertx) {
    if (done) {
      return Future.succeededFuture();
    }
    return vertx.executeBlocking(() -> {
      BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(64);
      try {
        BytesStore<?, ?> view = BytesStore.wrap(store.addressForRead(0), 64);
        view.writeLong(0, 1L);
        BytesStore.wrap(new byte[8]).readLong(0);
      } finally {
        store.releaseLast();
      }
      done = true;
      return null;
    });
  }
}
