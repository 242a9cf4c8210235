package dev.vertxrma.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/**
 * {@code rmabench --plot}: latency against message size and bandwidth against message size
 * (log scales, one line per implementation and bench), and the single-size benches as bars; one
 * column of charts per configuration (JVM count), in one PNG.
 */
final class Plot {

  private static final int WIDTH = 800;
  private static final int HEIGHT = 640;

  private final Results results;

  Plot(Results results) {
    this.results = results;
  }

  void write(Path file) throws IOException {
    // a column per configuration (JVM count), a row per kind of chart that has data
    List<Integer> configs = results.rows().stream().map(Row::jvms).distinct().sorted().toList();
    List<List<Chart<?, ?>>> kinds = new ArrayList<>();
    kinds.add(new ArrayList<>());
    kinds.add(new ArrayList<>());
    kinds.add(new ArrayList<>());
    for (int jvms : configs) {
      String where = jvms == 1 ? "1 JVM (MPICH: shared memory)" : jvms + " JVMs (MPICH: TCP loopback)";
      kinds.get(0).add(lines("Latency (median), " + where, "microseconds", false, jvms));
      kinds.get(1).add(lines("Bandwidth (64 operations + flush), " + where, "MB/s", true, jvms));
      kinds.get(2).add(bars("Single-size benches (median), " + where, jvms));
    }
    List<Chart<?, ?>> charts = new ArrayList<>();
    for (List<Chart<?, ?>> row : kinds) {
      if (row.stream().anyMatch(c -> !c.getSeriesMap().isEmpty())) {
        charts.addAll(row);
      }
    }
    if (charts.isEmpty()) {
      throw new IOException("nothing to plot");
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (OutputStream out = Files.newOutputStream(file)) {
      BitmapEncoder.saveBitmap(charts, charts.size() / configs.size(), configs.size(), out,
          BitmapEncoder.BitmapFormat.PNG);
    }
  }

  private static String label(Row r) {
    String sync = r.sync().equals("-") || r.sync().equals("lockall") ? "" : " " + r.sync();
    return r.impl() + " " + r.bench() + sync;
  }

  /** Latency or bandwidth against size, one series per implementation, bench, sync and configuration. */
  private XYChart lines(String title, String yTitle, boolean bandwidth, int jvms) {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle("message size (bytes)")
        .yAxisTitle(yTitle).build();
    chart.getStyler().setXAxisLogarithmic(true).setYAxisLogarithmic(true)
        .setLegendPosition(Styler.LegendPosition.OutsideS).setLegendFont(chart.getStyler().getLegendFont().deriveFont(10f))
        .setMarkerSize(5).setToolTipsEnabled(false);
    Map<String, List<Row>> series = new LinkedHashMap<>();
    for (Row r : results.rows()) {
      boolean bw = !Double.isNaN(r.mbPerS());
      boolean sized = r.bytes() > 0 && !r.bench().equals(Bench.FOP_LATENCY.id) && !r.bench().equals(Bench.CAS_LATENCY.id)
          && !r.bench().equals(HazelcastProgram.PAIRS.get(Bench.FOP_LATENCY.id));
      if (bw == bandwidth && sized && r.jvms() == jvms) {
        series.computeIfAbsent(label(r), k -> new ArrayList<>()).add(r);
      }
    }
    series.forEach((name, rs) -> {
      if (rs.size() < 2) {
        return;
      }
      double[] x = rs.stream().mapToDouble(Row::bytes).toArray();
      double[] y = rs.stream().mapToDouble(r -> bandwidth ? r.mbPerS() : r.medianUs()).toArray();
      chart.addSeries(name, x, y);
    });
    return chart;
  }

  /** The benches measured at one size only (atomics, barrier, fence) as grouped bars. */
  private CategoryChart bars(String title, int jvms) {
    CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle("bench").yAxisTitle("microseconds").build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW).setToolTipsEnabled(false);
    // the value above each bar: a linear axis would hide the sub-microsecond ones otherwise
    chart.getStyler().setLabelsVisible(true);
    Map<String, Map<String, Double>> byImpl = new LinkedHashMap<>();
    List<String> categories = new ArrayList<>();
    for (Row r : results.rows()) {
      String bench = r.impl().equals("hazelcast") ? pairedBench(r.bench()) : r.bench();
      boolean single = r.bytes() == 0 || bench.equals(Bench.FOP_LATENCY.id) || bench.equals(Bench.CAS_LATENCY.id);
      if (!single || r.jvms() != jvms) {
        continue;
      }
      String category = bench;
      if (!categories.contains(category)) {
        categories.add(category);
      }
      byImpl.computeIfAbsent(r.impl(), k -> new LinkedHashMap<>()).put(category, r.medianUs());
    }
    byImpl.forEach((impl, values) -> {
      List<Double> y = new ArrayList<>();
      for (String c : categories) {
        // a bar chart needs a value per category: none where this implementation was not measured
        y.add(values.getOrDefault(c, 0.0));
      }
      chart.addSeries(impl, categories, y);
    });
    return chart;
  }

  private static String pairedBench(String hazelcastBench) {
    return HazelcastProgram.PAIRS.entrySet().stream().filter(e -> e.getValue().equals(hazelcastBench))
        .map(Map.Entry::getKey).findFirst().orElse(hazelcastBench);
  }
}
