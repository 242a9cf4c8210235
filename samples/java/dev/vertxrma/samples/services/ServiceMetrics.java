// The counter-service sample's metrics (counter-service --metrics): dev.vertxrma.metrics.RmaMetrics
// bound to a Micrometer Prometheus registry, whose scrape the service serves at GET /metrics, and
// the sample's check of the served values. The only sample class that needs Micrometer
// (io.micrometer:micrometer-core and micrometer-registry-prometheus on the class path): it is loaded
// only when --metrics is given.
package dev.vertxrma.samples.services;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.World;
import dev.vertxrma.metrics.RmaMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A Prometheus registry the windows of this JVM report to, and the check of what it serves. */
final class ServiceMetrics implements AutoCloseable {

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final RmaMetrics binding = new RmaMetrics();

  private ServiceMetrics() {
  }

  /** Windows created from now on in this JVM report to a new Prometheus registry. */
  static ServiceMetrics bind() {
    ServiceMetrics m = new ServiceMetrics();
    m.binding.bindTo(m.registry);
    return m;
  }

  /** The registry's meters in Prometheus text format. */
  String scrape() {
    return registry.scrape();
  }

  /**
   * Scrapes the service's own {@code GET /metrics} and checks the job's counters of this JVM's
   * ranks against the requests this JVM made: one fetch-and-op per ticket, one accumulate per
   * observation, one flush per request.
   */
  Future<Void> check(Vertx vertx, World world, int port, int tickets, int observations) {
    HttpClient client = vertx.createHttpClient();
    return client.request(new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(port)
        .setURI("/metrics")).compose(req -> req.send().compose(resp -> resp.body())).<Void>compose(body -> {
          String text = body.toString();
          String job = world.jobName();
          double fetchAndOps = sum(text, "rma_operations_total", job, "fetch_and_op");
          double accumulates = sum(text, "rma_operations_total", job, "accumulate");
          double flushes = sum(text, "rma_flush_seconds_count", job, "flush");
          if (fetchAndOps != tickets || accumulates != observations || flushes != tickets + observations) {
            return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "counter-service: GET /metrics counted %.0f "
                + "fetch-and-ops, %.0f accumulates and %.0f flushes; this JVM made %d tickets and %d observations",
                fetchAndOps, accumulates, flushes, tickets, observations));
          }
          System.out.printf("counter-service: metrics verified at GET /metrics: %.0f fetch-and-ops, %.0f accumulates, "
              + "%.0f flushes by ranks %s%n", fetchAndOps, accumulates, flushes, world.localRanks());
          return Future.succeededFuture();
        }).eventually(client::close);
  }

  /** The sum of the samples of {@code metric} of job {@code job} with {@code kind="KIND"}, over ranks and windows. */
  static double sum(String text, String metric, String job, String kind) {
    Matcher m = Pattern.compile("^" + metric + "\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE).matcher(text);
    double total = 0;
    while (m.find()) {
      String labels = m.group(1);
      if (labels.contains("job=\"" + job + "\"") && labels.contains("kind=\"" + kind + "\"")) {
        total += Double.parseDouble(m.group(2));
      }
    }
    return total;
  }

  /** Stops the binding (windows created afterwards do not report) and closes the registry. */
  @Override
  public void close() {
    binding.close();
    registry.close();
  }
}
