package dev.vertxrma.bench;

import io.vertx.core.Future;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * Latency samples of one bench point: the first {@code warmup} rounds are run but not recorded;
 * the others go into an HdrHistogram (nanoseconds, 3 significant digits).
 */
final class Latencies {

  private final int warmup;
  private final Histogram histogram = new Histogram(3);

  Latencies(int warmup) {
    this.warmup = warmup;
  }

  /** Runs round {@code i}, recording from issue to completion of {@code round}'s future. */
  Future<?> time(int i, Supplier<Future<?>> round) {
    long t0 = System.nanoTime();
    return round.get().andThen(ar -> {
      if (ar.succeeded() && i >= warmup) {
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
