package dev.vertxrma.testing;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.threadchecker.BlockedThreadEvent;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Vert.x's blocked-thread checker at {@value #MAX_EVENT_LOOP_MS} ms for every Vert.x instance the
 * tests create ({@link #options()}, {@link #watch}), and a JUnit extension that fails the test
 * during which it reported an event loop running one task of vertx-rma's (library or rank
 * program code on the blocked thread's stack) for longer. Registered for every test
 * class through JUnit's extension auto-detection ({@code META-INF/services}).
 *
 * <p>Stop-the-world garbage-collection pauses stop every thread, so the checker counts them as
 * time the task ran. A warning is excused when, without the GC pauses that overlapped the task,
 * the task ran no longer than the limit: that is the JVM pausing the event loop, not code
 * holding it. Any other warning fails the test.
 */
public final class BlockedThreadGuard implements BeforeEachCallback, AfterEachCallback {

  /** The longest an event-loop task may run. */
  public static final long MAX_EVENT_LOOP_MS = 50;
  private static final List<Report> REPORTS = new ArrayList<>();
  /** Stop-the-world GC pauses as [start, end] in JVM uptime milliseconds, most recent last. */
  private static final ConcurrentLinkedDeque<long[]> PAUSES = new ConcurrentLinkedDeque<>();

  static {
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter && !gc.getName().contains("Concurrent")) {
        ((NotificationEmitter) gc).addNotificationListener((n, handback) -> {
          if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            PAUSES.addLast(new long[] {info.getGcInfo().getStartTime(), info.getGcInfo().getEndTime()});
            while (PAUSES.size() > 1000) {
              PAUSES.pollFirst();
            }
          }
        }, null, null);
      }
    }
  }

  /** One warning: when it was seen (JVM uptime ms), how long the task had run, and where. */
  private record Report(long seenAtMs, long ranMs, String text) {
    /** Milliseconds of GC pause inside the task's run (with one check interval of slack). */
    long gcPauseMs() {
      long from = seenAtMs - ranMs;
      long to = seenAtMs + 10;
      long sum = 0;
      for (long[] p : PAUSES) {
        sum += Math.max(0, Math.min(p[1], to) - Math.max(p[0], from));
      }
      return sum;
    }
  }

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
    for (int i = 0; i < ours; i++) {
      if (st[i].getClassName().equals("io.netty.resolver.dns.DnsNameResolverBuilder") && st[i].getMethodName().equals("build")) {
        // Netty builds an event loop's DNS resolver (a datagram channel) in the first connect made
        // on that loop, whatever the address: once per loop of a node a test has just created,
        // with our transport's channel factory the only vertx-rma frame above the connect
        return;
      }
    }
    if (ours < 0) {
      // no vertx-rma code (library or rank program) runs the task: a one-time start-up of Vert.x,
      // Netty or the JVM on a node a test has just created (DNS resolver, class loading), not ours
      return;
    }
    long ranMs = TimeUnit.NANOSECONDS.toMillis(e.duration());
    StringBuilder sb = new StringBuilder(e.thread().getName()).append(" ran one task for ")
        .append(ranMs).append(" ms, at");
    for (int i = 0; i < Math.min(16, st.length); i++) {
      sb.append("\n    ").append(st[i]);
    }
    if (ours >= 16) {
      sb.append("\n    ...\n    ").append(st[ours]);
    }
    synchronized (REPORTS) {
      REPORTS.add(new Report(ManagementFactory.getRuntimeMXBean().getUptime(), ranMs, sb.toString()));
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    synchronized (REPORTS) {
      REPORTS.clear();
    }
  }

  /**
   * Marks a test whose rank program holds an event loop on purpose (a user's mistake the library
   * must survive and report, such as a chain of futures deep enough to overflow the stack): the
   * checker's warnings during it are expected and do not fail it. Say why in {@link #value()}.
   */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  public @interface HoldsEventLoopOnPurpose {
    /** What the test's program does that holds the loop. */
    String value();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    List<String> seen = takeFailures();
    if (context.getTestMethod().map(m -> m.isAnnotationPresent(HoldsEventLoopOnPurpose.class)).orElse(false)) {
      return;
    }
    if (!seen.isEmpty()) {
      throw new AssertionError("Vert.x's blocked-thread checker (" + MAX_EVENT_LOOP_MS + " ms) warned during "
          + context.getDisplayName() + ":\n" + String.join("\n", seen));
    }
  }

  /** The warnings seen since the last call that GC pauses do not excuse; clears them all. */
  static List<String> takeFailures() {
    List<Report> reports;
    synchronized (REPORTS) {
      reports = new ArrayList<>(REPORTS);
      REPORTS.clear();
    }
    List<String> seen = new ArrayList<>();
    for (Report r : reports) {
      long gc = r.gcPauseMs();
      if (r.ranMs() - gc > MAX_EVENT_LOOP_MS) {
        seen.add(gc == 0 ? r.text() : r.text() + "\n    (GC paused it " + gc + " ms of that)");
      }
    }
    return seen;
  }
}
