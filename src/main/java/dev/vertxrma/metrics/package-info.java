/**
 * Metrics of vertx-rma through Micrometer: {@link dev.vertxrma.metrics.RmaMetrics} reports the
 * operations, bytes, epochs, lock waits, flushes and errors of every window to a
 * {@code MeterRegistry}. Optional: Micrometer ({@code io.micrometer:micrometer-core}) is needed on
 * the class path only by an application that uses this package; the rest of the library neither
 * loads nor mentions it, and without a binding no window pays for metrics.
 */
package dev.vertxrma.metrics;
