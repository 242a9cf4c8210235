package dev.vertxrma.samples.services;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.JobOptions;
import dev.vertxrma.World;
import dev.vertxrma.metrics.RmaMetrics;
import dev.vertxrma.testing.Jobs;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The counter-service sample's Prometheus endpoint: {@code GET /metrics} serves the windows'
 * counters, and a scrape after a known set of requests reads exactly those requests.
 */
class CounterServiceMetricsTest {

  private static Future<String> call(HttpClient client, int port, HttpMethod method, String uri, int status) {
    return client.request(new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(uri))
        // the response is read inside send()'s continuation: the flat form
        // request().compose(send).compose(body) races when called off an event loop
        // (eclipse-vertx/vert.x#6038): a body that ended before body() was called is never delivered
        .compose(req -> req.send().compose(resp -> resp.body().map(b -> {
          assertEquals(status, resp.statusCode(), method + " " + uri + ": " + b);
          return b.toString();
        })));
  }

  @Test
  void aScrapeCountsExactlyTheRequestsServed() {
    Vertx vertx = Jobs.embedded();
    JobOptions options = Jobs.options(4);
    String job = options.getJobName();
    World world = Jobs.worlds(Jobs.Mode.EMBEDDED, options).get(0);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (RmaMetrics metrics = new RmaMetrics()) {
      metrics.bindTo(registry);
      CounterService service = Jobs.await(CounterService.start(vertx, world, 0, registry::scrape), 60);
      HttpClient client = vertx.createHttpClient();
      try {
        int port = service.port();
        List<Future<String>> requests = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
          requests.add(call(client, port, HttpMethod.POST, "/observe/" + (i % CounterService.BINS), 204));
        }
        for (int i = 0; i < 20; i++) {
          requests.add(call(client, port, HttpMethod.POST, "/count", 200));
        }
        requests.add(call(client, port, HttpMethod.POST, "/observe/99", 400)); // refused before any window call
        Jobs.await(Future.all(requests), 60);
        String text = Jobs.await(call(client, port, HttpMethod.GET, "/metrics", 200), 30);
        assertEquals(30, ServiceMetrics.sum(text, "rma_operations_total", job, "accumulate"), text);
        assertEquals(30 * 8, ServiceMetrics.sum(text, "rma_operation_bytes_total", job, "accumulate"));
        assertEquals(20, ServiceMetrics.sum(text, "rma_operations_total", job, "fetch_and_op"), "fetch-and-ops");
        assertEquals(0, ServiceMetrics.sum(text, "rma_operations_total", job, "put"));
        assertEquals(50, ServiceMetrics.sum(text, "rma_flush_seconds_count", job, "flush"), "one flush per request");
        assertEquals(4, ServiceMetrics.sum(text, "rma_epochs_total", job, "lock_all"), "one lockAll per rank");
        assertEquals(4, ServiceMetrics.sum(text, "rma_lock_wait_seconds_count", job, "lock_all"));
        assertTrue(text.contains("# TYPE rma_operations_total counter"), "Prometheus text format");
        assertTrue(!text.contains("rma_errors_total{"), "no window call failed");
      } finally {
        client.close();
        Jobs.await(service.stop().compose(v -> world.close()), 60);
        registry.close();
      }
    }
  }

  /**
   * {@code counter-service --requests 120 --metrics} as bin/rmarun runs it (a Vert.x of its own: the
   * sample's driver sends all its requests from one task, more than the tests' 50 ms event-loop
   * budget on a cold JVM): it checks its own scrape and fails if a count is off.
   */
  @Test
  void theSampleChecksItsOwnScrape() {
    Vertx vertx = Vertx.vertx();
    try {
      Jobs.await(dev.vertxrma.Rma.world(vertx, Jobs.options(3)).compose(world -> new CounterService()
          .run(vertx, world, List.of("--requests", "120", "--metrics")).eventually(world::close)), 120);
    } finally {
      Jobs.await(vertx.close(), 30);
    }
  }

  @Test
  void usage() {
    World world = Jobs.worlds(Jobs.Mode.EMBEDDED, Jobs.options(1)).get(0);
    Future<?> run = new CounterService().run(Jobs.embedded(), world, List.of("--metrics", "--requests"));
    Throwable t = run.cause();
    Jobs.await(world.close(), 60);
    assertTrue(String.valueOf(t).contains("usage counter-service [--requests R] [--metrics]"), String.valueOf(t));
  }
}
