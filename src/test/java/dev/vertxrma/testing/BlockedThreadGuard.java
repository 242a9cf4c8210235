package dev.vertxrma.testing;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.threadchecker.BlockedThreadEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Vert.x's blocked-thread checker at {@value #MAX_EVENT_LOOP_MS} ms for every Vert.x instance the
 * tests create ({@link #options()}, {@link #watch}), and a JUnit extension that fails the test
 * during which it reported an event loop running one task of vertx-rma's (library or rank
 * program code on the blocked thread's stack) for longer. Registered for every test
 * class through JUnit's extension auto-detection ({@code META-INF/services}).
 */
public final class BlockedThreadGuard implements BeforeEachCallback, AfterEachCallback {

  /** The longest an event-loop task may run. */
  public static final long MAX_EVENT_LOOP_MS = 50;
  private static final List<String> REPORTS = new ArrayList<>();

  /** Options with the checker at {@value #MAX_EVENT_LOOP_MS} ms, checked every 10 ms. */
  public static VertxOptions options() {
    return new VertxOptions()
        .setMaxEventLoopExecuteTime(MAX_EVENT_LOOP_MS).setMaxEventLoopExecuteTimeUnit(TimeUnit.MILLISECONDS)
        .setBlockedThreadCheckInterval(10).setBlockedThreadCheckIntervalUnit(TimeUnit.MILLISECONDS)
        .setWarningExceptionTime(MAX_EVENT_LOOP_MS).setWarningExceptionTimeUnit(TimeUnit.MILLISECONDS);
  }

  /** Reports the checker's warnings on {@code vertx} to the running test; returns {@code vertx}. */
  public static Vertx watch(Vertx vertx) {
    ((VertxInternal) vertx).blockedThreadChecker().setThreadBlockedHandler(BlockedThreadGuard::report);
    return vertx;
  }

  private static void report(BlockedThreadEvent e) {
    if (!e.thread().getName().startsWith("vert.x-eventloop")) {
      return; // worker threads run blocking work by design (executeBlocking)
    }
    StackTraceElement[] st = e.thread().getStackTrace();
    int ours = -1;
    for (int i = 0; i < st.length && ours < 0; i++) {
      if (st[i].getClassName().startsWith("dev.vertxrma.")) {
        ours = i;
      }
    }
    if (ours < 0) {
      // no vertx-rma code (library or rank program) runs the task: a one-time start-up of Vert.x,
      // Netty or the JVM on a node a test has just created (DNS resolver, class loading), not ours
      return;
    }
    StringBuilder sb = new StringBuilder(e.thread().getName()).append(" ran one task for ")
        .append(TimeUnit.NANOSECONDS.toMillis(e.duration())).append(" ms, at");
    for (int i = 0; i < Math.min(16, st.length); i++) {
      sb.append("\n    ").append(st[i]);
    }
    if (ours >= 16) {
      sb.append("\n    ...\n    ").append(st[ours]);
    }
    synchronized (REPORTS) {
      REPORTS.add(sb.toString());
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    synchronized (REPORTS) {
      REPORTS.clear();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    List<String> seen;
    synchronized (REPORTS) {
      seen = new ArrayList<>(REPORTS);
      REPORTS.clear();
    }
    if (!seen.isEmpty()) {
      throw new AssertionError("Vert.x's blocked-thread checker (" + MAX_EVENT_LOOP_MS + " ms) warned during "
          + context.getDisplayName() + ":\n" + String.join("\n", seen));
    }
  }
}
