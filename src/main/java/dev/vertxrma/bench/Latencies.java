package dev.vertxrma.bench;

import dev.vertxrma.Rma;
import io.vertx.core.Future;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * Latency samples of one bench point, in an HdrHistogram (nanoseconds, 3 significant digits):
 * either every round from index {@code warmup} on ({@link #afterWarmup}), or only the rounds
 * of {@link #measure}, after warm-up rounds that ran through the same timing code
 * ({@link #measured}).
 */
final class Latencies {

  private final int warmup;
  private final Histogram histogram = new Histogram(3);
  /** Whether rounds are recorded: from {@link #measure} on, or always when made with a warm-up count. */
  private boolean recording;

  private Latencies(int warmup, boolean recording) {
    this.warmup = warmup;
    this.recording = recording;
  }

  /** Rounds from index {@code warmup} on are recorded, whoever runs them. */
  static Latencies afterWarmup(int warmup) {
    return new Latencies(warmup, true);
  }

  /** Only rounds run by {@link #measure} are recorded. */
  static Latencies measured() {
    return new Latencies(0, false);
  }

  /**
   * Runs {@code n} rounds one after the other, timed but not recorded: a warm-up that runs the
   * same code as {@link #measure}, so that code is compiled by the time the measured rounds start.
   */
  Future<Void> rounds(int n, Supplier<Future<?>> round) {
    return Rma.repeat(n, i -> time(i, round));
  }

  /** Runs {@code n} rounds one after the other, each recorded from now on. */
  Future<Void> measure(int n, Supplier<Future<?>> round) {
    recording = true;
    return rounds(n, round);
  }

  /** Runs round {@code i}, recording from issue to completion of {@code round}'s future. */
  Future<?> time(int i, Supplier<Future<?>> round) {
    long t0 = System.nanoTime();
    return round.get().andThen(ar -> {
      if (ar.succeeded() && recording && i >= warmup) {
        histogram.recordValue(System.nanoTime() - t0);
      }
    });
  }

  double medianUs() {
    return histogram.getValueAtPercentile(50) / 1000.0;
  }

  double p99Us() {
    return histogram.getValueAtPercentile(99) / 1000.0;
  }
}
