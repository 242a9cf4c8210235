package dev.vertxrma.impl.job;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.runtime.JobRuntime;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.threadchecker.BlockedThreadEvent;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Diagnoses an event loop that a rank's program blocks, on a Vert.x instance the library made
 * for a job (in place of Vert.x's own report, a stack trace every second): the first report of a
 * blocked task names the rank, where it waits and the likely fix, at WARNING with the stack;
 * while the same task stays blocked, one line per {@link #REPEAT_MS} ms; and once it has been
 * blocked longer than the job's wait timeout, the job ends with {@code TIMEOUT} naming the rank
 * and the call (a loop that never returns runs no timer, so the rank's own timeouts cannot).
 * Threads that host no rank (workers, Vert.x's own loops) get one line per task, as Vert.x gives.
 */
final class BlockedRankWatch {

  private static final System.Logger LOG = System.getLogger(BlockedRankWatch.class.getName());
  /** How often a task that stays blocked is reported again. */
  static final long REPEAT_MS = 10_000;
  /** Frames shown of the blocked thread's stack. */
  private static final int FRAMES = 12;

  /** One blocked task: the checker reports it again and again with a growing duration. */
  private static final class Episode {
    long durationNanos;
    long lastReportNanos;
    boolean timedOut;
  }

  private final Vertx vertx;
  private final long waitTimeoutMs;
  private final Consumer<RmaException> onStuck;
  private final Map<Thread, Episode> episodes = new ConcurrentHashMap<>();

  private BlockedRankWatch(Vertx vertx, long waitTimeoutMs, Consumer<RmaException> onStuck) {
    this.vertx = vertx;
    this.waitTimeoutMs = waitTimeoutMs;
    this.onStuck = onStuck;
  }

  /**
   * Watches the loops of {@code vertx}, an instance made for a job with wait timeout
   * {@code waitTimeoutMs}; {@code onStuck} is told once when a rank's loop has been blocked
   * longer than it.
   */
  static void install(Vertx vertx, long waitTimeoutMs, Consumer<RmaException> onStuck) {
    BlockedRankWatch w = new BlockedRankWatch(vertx, waitTimeoutMs, onStuck);
    ((VertxInternal) vertx).blockedThreadChecker().setThreadBlockedHandler(w::report);
  }

  private void report(BlockedThreadEvent e) {
    Thread t = e.thread();
    long now = System.nanoTime();
    Episode ep = episodes.compute(t, (k, old) -> old == null || e.duration() < old.durationNanos ? new Episode() : old);
    boolean first = ep.durationNanos == 0;
    ep.durationNanos = e.duration();
    long blockedMs = TimeUnit.NANOSECONDS.toMillis(e.duration());
    List<String> ranks = JobRuntime.ranksOn(vertx, t);
    String who = ranks.isEmpty() ? "thread " + t.getName() : String.join(", ", ranks) + " (thread " + t.getName() + ")";
    StackTraceElement[] stack = t.getStackTrace();
    String where = where(stack);
    if (!ranks.isEmpty() && !ep.timedOut && blockedMs > waitTimeoutMs) {
      ep.timedOut = true;
      onStuck.accept(RmaException.of(ErrorClass.TIMEOUT, "%s: its event loop has been blocked for %d ms, longer than "
          + "the job's wait timeout of %d ms, in %s: %s", who, blockedMs, waitTimeoutMs, where, FIX));
    }
    if (first) {
      ep.lastReportNanos = now;
      Throwable trace = new Throwable("the blocked thread's stack");
      trace.setStackTrace(java.util.Arrays.copyOf(stack, Math.min(stack.length, FRAMES)));
      LOG.log(System.Logger.Level.WARNING, who + ": its " + (ranks.isEmpty() ? "" : "event loop ") + "task has run "
          + blockedMs + " ms (a task may run " + TimeUnit.NANOSECONDS.toMillis(e.maxExecTime()) + " ms) and is now in "
          + where + (ranks.isEmpty() ? "" : ": " + FIX), trace);
    } else if (now - ep.lastReportNanos >= TimeUnit.MILLISECONDS.toNanos(REPEAT_MS)) {
      ep.lastReportNanos = now;
      LOG.log(System.Logger.Level.WARNING, who + ": still blocked after " + blockedMs + " ms, in " + where);
    }
  }

  private static final String FIX = "a blocking call on an event loop stops the rank and every call aimed at it; "
      + "run the ranks on virtual threads (bin/rmarun --virtual-threads) and await there, or chain futures with "
      + "compose";

  /**
   * Where a blocked thread is: the JDK call it waits in and the first frame of the program or
   * library that made it ("java.util.concurrent.CompletableFuture.get, called from
   * com.example.Hello.run:12"), or the top frame when it computes outside the JDK.
   */
  static String where(StackTraceElement[] stack) {
    if (stack.length == 0) {
      return "an unknown place";
    }
    int i = 0;
    while (i < stack.length && isJdk(stack[i])) {
      i++;
    }
    if (i == 0 || i == stack.length) {
      return frame(stack[i == 0 ? 0 : i - 1]);
    }
    return frame(stack[i - 1]) + ", called from " + frame(stack[i]);
  }

  private static boolean isJdk(StackTraceElement f) {
    String c = f.getClassName();
    return c.startsWith("java.") || c.startsWith("javax.") || c.startsWith("jdk.") || c.startsWith("sun.")
        || c.startsWith("com.sun.");
  }

  private static String frame(StackTraceElement f) {
    return f.getClassName() + "." + f.getMethodName() + (f.getLineNumber() > 0 ? ":" + f.getLineNumber() : "");
  }
}
