package dev.vertxrma.vt;

import static dev.vertxrma.testing.RmaAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Rmarun;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * On the default JDK (the project's Java 17): a virtual-thread job refuses to start with ARG,
 * naming the Java version it needs and the one it found, and so does {@code rmarun
 * --virtual-threads} on that java, before starting anything. On Java 21+ the same job runs its
 * ranks on virtual threads. Either way something is checked; nothing is skipped.
 */
class VirtualThreadsRefusalTest {

  private static final boolean HAS_VIRTUAL_THREADS = Runtime.version().feature() >= 21;

  @Test
  void aVirtualThreadJobNeedsJava21() {
    AtomicReference<ThreadingModel> model = new AtomicReference<>();
    Throwable failure = Jobs.runExpectingFailure(Jobs.Mode.EMBEDDED, Jobs.options(2).setVirtualThreads(true),
        (world, args) -> {
          model.set(Vertx.currentContext().threadingModel());
          return Future.succeededFuture();
        });
    if (HAS_VIRTUAL_THREADS) {
      assertNull(failure);
      assertEquals(ThreadingModel.VIRTUAL_THREAD, model.get());
    } else {
      assertError(failure, ErrorClass.ARG, "need Java 21 or newer", "this JVM is Java " + Runtime.version());
      assertNull(model.get(), "no rank program ran");
    }
  }

  @Test
  void rmarunRefusesVirtualThreadsOnAnOlderJava() throws Exception {
    try (Rmarun run = Rmarun.start("-np", "2", "--virtual-threads", "linked-list-vt")) {
      int status = run.await(run.exit(), 60, "rmarun's exit");
      String out = run.output();
      if (HAS_VIRTUAL_THREADS) {
        assertEquals(0, status, out);
        assertTrue(out.contains("linked-list-vt: verified"), out);
      } else {
        assertEquals(2, status, out);
        assertTrue(out.contains("--virtual-threads: ARG: virtual-thread ranks need Java 21 or newer"), out);
        assertFalse(out.contains("\tat "), "no stack trace for a user error\n" + out);
      }
    }
  }
}
