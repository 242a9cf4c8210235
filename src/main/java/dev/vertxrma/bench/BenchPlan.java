package dev.vertxrma.bench;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What one run of the benches measures: the benches (each with its sync mode), the sizes, the
 * iteration policy and the JVM count to report. It travels from {@link RmaBench} to
 * {@link BenchProgram} as program arguments:
 * {@code --jvms K --iterations N --warmup W --sizes 8,64 put-latency:lockall fop-latency:lockall}
 * ({@code N = 0} and {@code W = -1} choose OSU-like defaults per size).
 */
record BenchPlan(List<Spec> specs, List<Long> sizes, int iterations, int warmup, long warmupMillis, int jvms) {

  /** A bench and the sync mode it runs with. */
  record Spec(Bench bench, Bench.Sync sync) {
    @Override
    public String toString() {
      return bench.id + ":" + sync.id;
    }
  }

  /** One measured point: a row of the results. */
  record Point(Bench bench, Bench.Sync sync, long bytes) {
  }

  /** Every point, in run order: bench by bench, size by size. */
  List<Point> points() {
    List<Point> points = new ArrayList<>();
    for (Spec s : specs) {
      for (long bytes : s.bench().sizes(sizes)) {
        points.add(new Point(s.bench(), s.sync(), bytes));
      }
    }
    return points;
  }

  /** Measured iterations at a point: {@code --iterations} or OSU-like defaults. */
  int iterations(Bench bench, long bytes) {
    return iterations > 0 ? iterations : bench.defaultIterations(bytes);
  }

  /** The default warm-up time of the Java side: at least this long before anything is timed. */
  static final long DEFAULT_WARMUP_MILLIS = 1_000;

  /**
   * Unmeasured warm-up iterations before {@code iters} measured ones: {@code --warmup}, or four
   * times the measured count (for the native twin, and one warm-up phase of the Java side).
   */
  int warmup(int iters) {
    return warmup >= 0 ? warmup : 4 * iters;
  }

  /**
   * The least time the Java side warms up for before it measures: phases of {@link #warmup}
   * rounds are run until every rank has spent this long, so that the JIT has compiled every path
   * of the measured loop (a count alone is not enough: on a slow or busy machine 20,000 rounds of
   * an 8-byte put end before C2 has compiled them, and the median comes out 3x too high).
   * {@code --warmup N} given: exactly N rounds, no time floor.
   */
  long warmupNanos() {
    return warmup >= 0 ? 0 : warmupMillis * 1_000_000L;
  }

  /** The window size every point fits in (bandwidth benches wrap their 64 operations in it). */
  long windowBytes() {
    long w = 64;
    for (Point p : points()) {
      if (p.bench().kind == Bench.Kind.BANDWIDTH) {
        w = Math.max(w, Bench.bwWindowBytes(p.bytes()));
      } else if (p.bench().oneSided()) {
        w = Math.max(w, Math.max(8, p.bytes()));
      }
    }
    return w;
  }

  List<String> toArgs() {
    List<String> args = new ArrayList<>(List.of("--jvms", String.valueOf(jvms), "--iterations",
        String.valueOf(iterations), "--warmup", String.valueOf(warmup), "--warmup-ms", String.valueOf(warmupMillis), "--sizes",
        sizes.stream().map(String::valueOf).collect(Collectors.joining(","))));
    specs.forEach(s -> args.add(s.toString()));
    return args;
  }

  /** The plan in a measuring program's arguments, or an {@code ARG} failure saying what is wrong. */
  static Future<BenchPlan> fromArgs(List<String> args) {
    try {
      return Future.succeededFuture(parse(args));
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(new RmaException(ErrorClass.ARG, e.getMessage()));
    }
  }

  static BenchPlan parse(List<String> args) {
    int jvms = 1;
    int iterations = 0;
    int warmup = -1;
    long warmupMillis = DEFAULT_WARMUP_MILLIS;
    List<Long> sizes = List.of(8L);
    List<Spec> specs = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      switch (a) {
        case "--jvms":
          jvms = Integer.parseInt(value(args, ++i, a));
          break;
        case "--iterations":
          iterations = Integer.parseInt(value(args, ++i, a));
          break;
        case "--warmup":
          warmup = Integer.parseInt(value(args, ++i, a));
          break;
        case "--warmup-ms":
          warmupMillis = Long.parseLong(value(args, ++i, a));
          break;
        case "--sizes":
          sizes = parseSizes(value(args, ++i, a));
          break;
        default: {
          String[] bs = a.split(":");
          specs.add(new Spec(Bench.of(bs[0]), bs.length > 1 ? Bench.Sync.of(bs[1]) : Bench.Sync.LOCKALL));
        }
      }
    }
    if (specs.isEmpty()) {
      throw new IllegalArgumentException("no bench given; the benches are " + Bench.ids());
    }
    return new BenchPlan(specs, sizes, iterations, warmup, warmupMillis, jvms);
  }

  /** Byte counts from a comma-separated list; each between 1 and 64 MiB. */
  static List<Long> parseSizes(String list) {
    List<Long> sizes = new ArrayList<>();
    for (String s : list.split(",")) {
      long v;
      try {
        v = Long.parseLong(s.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--sizes takes byte counts separated by commas, got '" + s + "'");
      }
      if (v < 1 || v > Bench.MAX_WINDOW_BYTES) {
        throw new IllegalArgumentException("size " + v + " out of range [1, " + Bench.MAX_WINDOW_BYTES + "]");
      }
      sizes.add(v);
    }
    return sizes.stream().distinct().sorted().collect(Collectors.toList());
  }

  private static String value(List<String> args, int i, String option) {
    if (i >= args.size()) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args.get(i);
  }

  static List<Long> defaultSizes() {
    return Arrays.asList(8L, 64L, 512L, 4096L, 65536L, 1048576L, 4194304L);
  }
}
