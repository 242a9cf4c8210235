package dev.vertxrma.bench;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** The rows of one {@code rmabench} run, printed as a table beside their baselines or as CSV. */
final class Results {

  private final List<Row> rows = new ArrayList<>();

  void addAll(List<Row> more) {
    rows.addAll(more);
  }

  List<Row> rows() {
    return rows;
  }

  void printCsv(PrintStream out) {
    out.println(Row.CSV_HEADER);
    rows.forEach(r -> out.println(r.toCsv()));
  }

  /** The baseline row measuring what {@code ours} measures, in the same configuration. */
  Optional<Row> baseline(Row ours, String impl) {
    String bench = "hazelcast".equals(impl) ? HazelcastProgram.PAIRS.get(ours.bench()) : ours.bench();
    return rows.stream().filter(r -> r.impl().equals(impl) && r.bench().equals(bench) && r.jvms() == ours.jvms()
        && r.bytes() == ours.bytes() && ("hazelcast".equals(impl) || r.sync().equals(ours.sync()))).findFirst();
  }

  /** The first line of a table measured here and now. */
  static String measuredHere(int np) {
    return String.format(Locale.ROOT, "# rmabench, %s on %s (%d cores, %s %s, Java %s), %d ranks",
        LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")), hostName(),
        Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"), System.getProperty("os.arch"),
        System.getProperty("java.version"), np);
  }

  void printTable(PrintStream out, String firstLine, Set<String> baselines) {
    out.println(firstLine);
    out.println("# times in microseconds: median and 99th percentile of individually timed iterations;"
        + " ratio = vertx-rma median / baseline median (below 1: vertx-rma is faster)");
    Set<Integer> configs = new TreeSet<>();
    rows.forEach(r -> configs.add(r.jvms()));
    for (int jvms : configs) {
      out.println();
      out.printf(Locale.ROOT, "## %s%s%s%n", jvms == 1 ? "1 JVM (embedded)" : jvms + " JVMs (clustered, loopback"
          + (NativeBaseline.onNode() ? ", on-node path: shared memory)" : ", on-node path off: data plane)"),
          baselines.contains("mpich") ? "; " + NativeBaseline.transport(jvms) : "",
          baselines.contains("hazelcast") ? "; Hazelcast with " + jvms + (jvms == 1 ? " member" : " members") : "");
      StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-16s %-8s %8s %10s %10s %9s",
          "bench", "sync", "bytes", "median", "p99", "MB/s"));
      if (baselines.contains("mpich")) {
        head.append(String.format(Locale.ROOT, " | %10s %10s %9s %6s", "mpich", "p99", "MB/s", "ratio"));
      }
      if (baselines.contains("hazelcast")) {
        head.append(String.format(Locale.ROOT, " | %10s %10s %6s", "hazelcast", "p99", "ratio"));
      }
      if (baselines.contains(Row.VT)) {
        head.append(String.format(Locale.ROOT, " | %10s %10s %6s", "vt await", "p99", "vt/fut"));
      }
      out.println(head);
      for (Row r : rows) {
        if (!r.impl().equals(Row.OURS) || r.jvms() != jvms) {
          continue;
        }
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-16s %-8s %8d %10.2f %10.2f %9s",
            r.bench(), r.sync(), r.bytes(), r.medianUs(), r.p99Us(), mb(r.mbPerS())));
        if (baselines.contains("mpich")) {
          Optional<Row> m = baseline(r, "mpich");
          line.append(m.map(b -> String.format(Locale.ROOT, " | %10.2f %10.2f %9s %6.2f", b.medianUs(), b.p99Us(),
              mb(b.mbPerS()), r.medianUs() / b.medianUs())).orElse(String.format(Locale.ROOT, " | %39s", "-")));
        }
        if (baselines.contains("hazelcast")) {
          Optional<Row> h = baseline(r, "hazelcast");
          line.append(h.map(b -> String.format(Locale.ROOT, " | %10.2f %10.2f %6.2f", b.medianUs(), b.p99Us(),
              r.medianUs() / b.medianUs())).orElse(String.format(Locale.ROOT, " | %28s", "-")));
        }
        if (baselines.contains(Row.VT)) {
          Optional<Row> v = baseline(r, Row.VT);
          line.append(v.map(b -> String.format(Locale.ROOT, " | %10.2f %10.2f %6.2f", b.medianUs(), b.p99Us(),
              b.medianUs() / r.medianUs())).orElse(String.format(Locale.ROOT, " | %28s", "-")));
        }
        out.println(line);
      }
      if (baselines.contains(Row.VT)) {
        out.println("# vt await: the same bench on virtual-thread ranks in the blocking style (op.await(); flush.await());"
            + " vt/fut = its median / the future-chained median");
      }
      if (baselines.contains("hazelcast")) {
        out.println("# hazelcast: put-latency beside IMap.setAsync, get-latency beside IMap.getAsync,"
            + " fop-latency beside IAtomicLong.incrementAndGetAsync (data owned by the target rank's JVM)");
      }
    }
  }

  private static String mb(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.0f", v);
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
