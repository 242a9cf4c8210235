package dev.vertxrma.bench;

import java.util.Locale;

/**
 * A one-line progress bar on stderr, drawn only on a terminal and only once a run has lasted a
 * few seconds; {@link #clear()} erases it before anything else is printed.
 */
final class Progress {

  private static final long SHOW_AFTER_NANOS = 3_000_000_000L;
  private static final int WIDTH = 30;

  private final int total;
  private final boolean enabled;
  private final long start = System.nanoTime();
  private int done;
  private boolean drawn;

  Progress(int total, boolean enabled) {
    this.total = Math.max(1, total);
    this.enabled = enabled;
  }

  /** One more point measured: {@code what}. */
  synchronized void step(String what) {
    done++;
    long elapsed = System.nanoTime() - start;
    if (!enabled || elapsed < SHOW_AFTER_NANOS) {
      return;
    }
    int filled = Math.min(WIDTH, done * WIDTH / total);
    String bar = "=".repeat(filled) + " ".repeat(WIDTH - filled);
    System.err.printf(Locale.ROOT, "\r[%s] %d/%d %-40.40s %3ds", bar, Math.min(done, total), total, what,
        elapsed / 1_000_000_000L);
    System.err.flush();
    drawn = true;
  }

  /** Erases the bar, if drawn. */
  synchronized void clear() {
    if (drawn) {
      System.err.print("\r" + " ".repeat(WIDTH + 60) + "\r");
      System.err.flush();
      drawn = false;
    }
  }
}
