package dev.vertxrma.testing;

import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.impl.VertxThread;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.threadchecker.BlockedThreadEvent;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails the test during which an event loop of a watched Vert.x instance ran one task of
 * vertx-rma's (library or rank program code on its stack) that <b>blocked</b> the loop or
 * <b>computed</b> on it for {@value #MAX_EVENT_LOOP_MS} ms of the loop thread's own CPU time.
 * Registered for every test class through JUnit's extension auto-detection
 * ({@code META-INF/services}); {@link #options()} and {@link #watch} put a Vert.x instance under it.
 *
 * <p>Vert.x's blocked-thread checker, every 10 ms, names the loops whose current task has run
 * {@value #MAX_EVENT_LOOP_MS} ms of wall time. Wall time cannot tell a loop that blocks from one
 * the machine did not run, so each such task is judged from what {@link EventLoopSampler} saw of
 * it, every {@value EventLoopSampler#SAMPLE_MS} ms:
 *
 * <ul>
 *   <li><b>waited</b>: seen twice in a row parked, sleeping, waiting on a monitor or a lock, or in
 *       a blocking read, open or write: a blocking call, however little CPU it used. Fails.
 *   <li><b>computed</b>: used {@value #MAX_EVENT_LOOP_MS} ms of the thread's CPU. Fails.
 *   <li><b>first use</b>: computed, but most of its samples were the JVM loading classes or
 *       linking call sites, work a path does once per JVM: logged, not failed (the guard is armed
 *       for a path once the JVM has warmed it up).
 *   <li><b>off the CPU</b>: neither: the thread was preempted by the machine's other work, or
 *       stopped by the JVM (a garbage-collection pause, a safepoint). Logged, not failed.
 * </ul>
 */
public final class BlockedThreadGuard implements BeforeEachCallback, AfterEachCallback {

  /** The most CPU time, in ms, one event-loop task may use; also the wall time after which it is judged. */
  public static final long MAX_EVENT_LOOP_MS = 50;
  private static final System.Logger LOG = System.getLogger(BlockedThreadGuard.class.getName());

  /** How a long task is judged. */
  enum Verdict {
    WAITED(true), COMPUTED(true), FIRST_USE(false), OFF_CPU(false);

    final boolean fails;

    Verdict(boolean fails) {
      this.fails = fails;
    }
  }

  /** The latest judgement of one long task: the checker reports it every 10 ms until it ends. */
  record Report(Verdict verdict, String text) {
  }

  private static final Map<EventLoopSampler.Task, Report> REPORTS = new LinkedHashMap<>();
  /** Told of every judgement as it is made (the guard's own tests release a blocked loop on it). */
  static volatile Consumer<Report> onReport;

  /** Options with the checker at {@value #MAX_EVENT_LOOP_MS} ms, checked every 10 ms. */
  public static VertxOptions options() {
    return new VertxOptions()
        .setMaxEventLoopExecuteTime(MAX_EVENT_LOOP_MS).setMaxEventLoopExecuteTimeUnit(TimeUnit.MILLISECONDS)
        .setBlockedThreadCheckInterval(10).setBlockedThreadCheckIntervalUnit(TimeUnit.MILLISECONDS)
        .setWarningExceptionTime(MAX_EVENT_LOOP_MS).setWarningExceptionTimeUnit(TimeUnit.MILLISECONDS);
  }

  /** Reports the checker's warnings on {@code vertx} to the running test; returns {@code vertx}. */
  public static Vertx watch(Vertx vertx) {
    VertxInternal vi = (VertxInternal) vertx;
    vi.blockedThreadChecker().setThreadBlockedHandler(BlockedThreadGuard::report);
    EventLoopSampler sampler = EventLoopSampler.get();
    for (EventExecutor loop : vi.nettyEventLoopGroup()) {
      loop.execute(() -> sampler.watch(Thread.currentThread()));
    }
    return vertx;
  }

  private static void report(BlockedThreadEvent e) {
    if (!(e.thread() instanceof VertxThread thread) || !thread.getName().startsWith("vert.x-eventloop")) {
      return; // worker threads run blocking work by design (executeBlocking)
    }
    EventLoopSampler sampler = EventLoopSampler.get();
    sampler.watch(thread);
    EventLoopSampler.Look look = sampler.look(thread);
    if (look == null) {
      return; // the task has ended
    }
    StackTraceElement[] st = look.stack();
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
    long wallMs = TimeUnit.NANOSECONDS.toMillis(e.duration());
    long cpuMs = TimeUnit.NANOSECONDS.toMillis(look.cpuNanos());
    Verdict verdict = look.waitedAs() != null ? Verdict.WAITED
        : cpuMs < MAX_EVENT_LOOP_MS ? Verdict.OFF_CPU : look.firstUse() ? Verdict.FIRST_USE : Verdict.COMPUTED;
    StringBuilder sb = new StringBuilder(thread.getName()).append(" ran one task for ").append(wallMs)
        .append(" ms with ").append(cpuMs).append(" ms of its own CPU");
    switch (verdict) {
      case WAITED -> sb.append(", waiting (").append(look.waitedAs()).append(") at");
      case COMPUTED -> sb.append(", computing at");
      case FIRST_USE -> sb.append(", mostly the JVM's first-use work (class loading, linking), at");
      case OFF_CPU -> sb.append(", off the CPU the rest of the time (preempted or paused), at");
    }
    for (int i = 0; i < Math.min(16, st.length); i++) {
      sb.append("\n    ").append(st[i]);
    }
    if (ours >= 16) {
      sb.append("\n    ...\n    ").append(st[ours]);
    }
    Report r = new Report(verdict, sb.toString());
    synchronized (REPORTS) {
      REPORTS.put(look.task(), r);
    }
    Consumer<Report> listener = onReport;
    if (listener != null) {
      listener.accept(r);
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    takeReports();
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
      throw new AssertionError("an event loop was blocked, or computed " + MAX_EVENT_LOOP_MS
          + " ms of CPU in one task, during " + context.getDisplayName() + ":\n" + String.join("\n", seen));
    }
  }

  /** Every long task judged since the last call; clears them. */
  static List<Report> takeReports() {
    synchronized (REPORTS) {
      List<Report> reports = new ArrayList<>(REPORTS.values());
      REPORTS.clear();
      return reports;
    }
  }

  /** The texts of the tasks since the last call that fail a test; logs the others; clears them all. */
  static List<String> takeFailures() {
    List<String> seen = new ArrayList<>();
    for (Report r : takeReports()) {
      if (r.verdict().fails) {
        seen.add(r.text());
      } else {
        LOG.log(System.Logger.Level.INFO, "not failed: {0}", r.text());
      }
    }
    return seen;
  }
}
