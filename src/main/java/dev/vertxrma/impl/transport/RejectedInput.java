package dev.vertxrma.impl.transport;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the input one rank rejected (malformed frames, messages that are not frames, frames with
 * an unknown source or window, operations refused at the target without anyone to answer) and
 * logs it at a bounded rate: the first rejection after a quiet interval is logged at once, the
 * ones that follow within the interval are only counted, and one summary line per interval
 * reports how many there were and the latest. A flood of junk costs a counter, not the disk.
 * Safe to use from any thread.
 */
public final class RejectedInput {

  private static final System.Logger LOG = System.getLogger(RejectedInput.class.getName());

  /** Default interval between summary lines (ms). */
  public static final long DEFAULT_INTERVAL_MS = 10_000;

  /** Schedules a one-shot task after a delay in ms (a Vert.x timer). */
  public interface Scheduler {
    /** Runs {@code task} once after {@code delayMs}. */
    void schedule(long delayMs, Runnable task);
  }

  private final String source;
  private final Scheduler scheduler;
  /** Made once here: the first rejection (often on an event loop) then links no lambda. */
  private final Runnable endIntervalTask = this::endInterval;
  private final long intervalMs;
  private final AtomicLong total = new AtomicLong();
  private final AtomicLong unreported = new AtomicLong();
  private final AtomicBoolean interval = new AtomicBoolean();
  private volatile String latest;

  /**
   * @param source who rejects, as the log lines name it ("rank 3 of job j")
   * @param scheduler runs the end-of-interval summary
   * @param intervalMs length of an interval
   */
  public RejectedInput(String source, Scheduler scheduler, long intervalMs) {
    this.source = source;
    this.scheduler = scheduler;
    this.intervalMs = intervalMs;
  }

  /** Records one rejected input; {@code what} says what it was and why it was rejected. */
  public void reject(String what) {
    total.incrementAndGet();
    if (interval.compareAndSet(false, true)) {
      LOG.log(Level.WARNING, opening(what));
      scheduler.schedule(intervalMs, endIntervalTask);
    } else {
      latest = what;
      unreported.incrementAndGet();
    }
  }

  /** Records one rejected input that revealed a bug here: logged with its stack trace if it opens an interval. */
  public void reject(String what, Throwable bug) {
    if (!interval.get()) {
      LOG.log(Level.ERROR, source + " failed handling " + what, bug);
    }
    reject(what + ": " + bug);
  }

  private void endInterval() {
    long n = unreported.getAndSet(0);
    if (n == 0) {
      interval.set(false);
      return;
    }
    LOG.log(Level.WARNING, summary(n));
    scheduler.schedule(intervalMs, endIntervalTask);
  }

  private String opening(String what) {
    return source + " rejected " + what + " (further rejected input is counted and summarised every " + intervalMs
        + " ms)";
  }

  private String summary(long n) {
    return source + " rejected " + n + " more input(s) in the last " + intervalMs + " ms (" + total.get()
        + " in all); the latest: " + latest;
  }

  /**
   * Links this class's lambdas and string concatenations without logging anything: called by the
   * JVM's warm-up on a worker thread, so that a job's first rejected input (a hostile frame, a
   * peer that died) costs an event loop no class generation.
   */
  public static void warmUp() {
    RejectedInput r = new RejectedInput("warm-up", (ms, task) -> { }, 1);
    r.latest = r.opening("nothing");
    r.summary(0).length();
  }

  /** How many inputs were rejected in all. */
  public long total() {
    return total.get();
  }
}
