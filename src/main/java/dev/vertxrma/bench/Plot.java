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
 * (log scales, one line per implementation and configuration), and the single-size benches as
 * bars, side by side in one PNG.
 */
final class Plot {

  private static final int WIDTH = 900;
  private static final int HEIGHT = 560;

  private final Results results;

  Plot(Results results) {
    this.results = results;
  }

  void write(Path file) throws IOException {
    List<Chart<?, ?>> charts = new ArrayList<>();
    XYChart latency = lines("Latency (median)", "microseconds", false);
    if (!latency.getSeriesMap().isEmpty()) {
      charts.add(latency);
    }
    XYChart bandwidth = lines("Bandwidth (64 operations + flush)", "MB/s", true);
    if (!bandwidth.getSeriesMap().isEmpty()) {
      charts.add(bandwidth);
    }
    CategoryChart single = bars();
    if (!single.getSeriesMap().isEmpty()) {
      charts.add(single);
    }
    if (charts.isEmpty()) {
      throw new IOException("nothing to plot");
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (OutputStream out = Files.newOutputStream(file)) {
      // one chart above the other (XChart's grid needs every cell filled)
      BitmapEncoder.saveBitmap(charts, charts.size(), 1, out, BitmapEncoder.BitmapFormat.PNG);
    }
  }

  private static String label(Row r) {
    String where = r.jvms() == 1 ? "1 JVM" : r.jvms() + " JVMs";
    if (r.impl().equals("mpich")) {
      where = r.jvms() == 1 ? "shm" : "tcp";
    }
    String sync = r.sync().equals("-") || r.sync().equals("lockall") ? "" : " " + r.sync();
    return r.impl() + " " + r.bench() + sync + " (" + where + ")";
  }

  /** Latency or bandwidth against size, one series per implementation, bench, sync and configuration. */
  private XYChart lines(String title, String yTitle, boolean bandwidth) {
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
      if (bw == bandwidth && sized) {
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
  private CategoryChart bars() {
    CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title("Single-size benches (median)")
        .xAxisTitle("bench").yAxisTitle("microseconds").build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW).setToolTipsEnabled(false);
    // the value above each bar: a linear axis would hide the sub-microsecond ones otherwise
    chart.getStyler().setLabelsVisible(true);
    Map<String, Map<String, Double>> byImpl = new LinkedHashMap<>();
    List<String> categories = new ArrayList<>();
    for (Row r : results.rows()) {
      String bench = r.impl().equals("hazelcast") ? pairedBench(r.bench()) : r.bench();
      boolean single = r.bytes() == 0 || bench.equals(Bench.FOP_LATENCY.id) || bench.equals(Bench.CAS_LATENCY.id);
      if (!single) {
        continue;
      }
      String category = bench + (r.jvms() == 1 ? " 1 JVM" : " " + r.jvms() + " JVMs");
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
