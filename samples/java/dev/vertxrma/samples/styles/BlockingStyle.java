package dev.vertxrma.samples.styles;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Context;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;

/**
 * The guard of the samples written in MPI's blocking style ({@code future.await()} after each
 * call): they run only on a virtual-thread rank, where {@code await()} parks the rank's virtual
 * thread while the rank goes on serving other ranks. On an event loop the same {@code await()}
 * would wait for a future that only that event loop can complete.
 */
final class BlockingStyle {

  private BlockingStyle() {
  }

  /** Fails with ARG, saying how to run {@code sample}, unless the caller runs on a virtual-thread context. */
  static void require(String sample) {
    Context ctx = Vertx.currentContext();
    if (ctx == null || ctx.threadingModel() != ThreadingModel.VIRTUAL_THREAD) {
      throw RmaException.of(ErrorClass.ARG, "%s is written in the blocking style and runs on virtual threads only:"
          + " bin/rmarun --virtual-threads -np N %s (Java 21 or newer), or JobOptions.setVirtualThreads(true)",
          sample, sample);
    }
  }
}
