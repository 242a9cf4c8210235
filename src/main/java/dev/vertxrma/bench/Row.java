package dev.vertxrma.bench;

import java.util.Locale;

/**
 * One measured point: a bench at one message size, in the CSV columns of {@code rmabench --csv}
 * ({@code bench,sync,ranks,jvms,bytes,iters,median_us,p99_us,mb_per_s}). {@code impl} names who
 * was measured: {@code vertx-rma}, {@code mpich} or {@code hazelcast}; in CSV a baseline's bench
 * name carries it as a prefix ({@code mpich/put-latency}).
 *
 * <p>Measuring programs (the Java rank program and the native MPICH program) print rows as
 * {@code @row,BENCH,SYNC,RANKS,JVMS,BYTES,ITERS,MEDIAN_US,P99_US,MB_PER_S} lines on stdout.
 */
record Row(String impl, String bench, String sync, int ranks, int jvms, long bytes, long iters, double medianUs,
           double p99Us, double mbPerS) {

  static final String OURS = "vertx-rma";
  /** vertx-rma with virtual-thread ranks, every call awaited ({@code rmabench --virtual-threads}). */
  static final String VT = "vt";
  static final String CSV_HEADER = "bench,sync,ranks,jvms,bytes,iters,median_us,p99_us,mb_per_s";
  static final String WIRE_PREFIX = "@row,";

  /** The line a measuring program prints. */
  String toWire() {
    return WIRE_PREFIX + bench + "," + sync + "," + ranks + "," + jvms + "," + bytes + "," + iters + ","
        + String.format(Locale.ROOT, "%.3f,%.3f,", medianUs, p99Us)
        + (Double.isNaN(mbPerS) ? "" : String.format(Locale.ROOT, "%.1f", mbPerS));
  }

  /** The row of a {@code @row,...} line printed by {@code impl}'s measuring program. */
  static Row parseWire(String impl, String line) {
    String[] f = line.substring(WIRE_PREFIX.length()).split(",", -1);
    if (f.length != 9) {
      throw new IllegalArgumentException("malformed result line from " + impl + ": " + line);
    }
    return new Row(impl, f[0], f[1], Integer.parseInt(f[2]), Integer.parseInt(f[3]), Long.parseLong(f[4]),
        Long.parseLong(f[5]), Double.parseDouble(f[6]), Double.parseDouble(f[7]),
        f[8].isEmpty() ? Double.NaN : Double.parseDouble(f[8]));
  }

  /** The CSV line of {@code rmabench --csv}. */
  String toCsv() {
    String name = OURS.equals(impl) ? bench : impl + "/" + bench;
    return toWire().substring(WIRE_PREFIX.length()).replaceFirst("^[^,]*", name);
  }

  /** The row of a line of {@code rmabench --csv}: a baseline's bench name carries its implementation. */
  static Row parseCsv(String line) {
    String[] f = line.split(",", 2);
    int slash = f[0].indexOf('/');
    String impl = slash < 0 ? OURS : f[0].substring(0, slash);
    return parseWire(impl, WIRE_PREFIX + f[0].substring(slash + 1) + "," + (f.length > 1 ? f[1] : ""));
  }
}
