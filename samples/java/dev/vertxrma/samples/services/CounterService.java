// A Vert.x HTTP service that embeds a world of ranks and serves from RMA windows: a distributed
// ticket counter (MPI_Fetch_and_op at rank 0) and a histogram whose bins are spread over the ranks
// (MPI_Accumulate onto the bin's owner). Requests are served concurrently by every rank of the
// JVM: the world's windows stay in one passive-target epoch (MPI_Win_lock_all) for the service's
// whole life, and each request completes its own operations with MPI_Win_flush.
//
//     POST /count          -> the ticket: the counter's value before this request's increment
//     POST /observe/{bin}  -> 204 once the bin's count has been incremented at its owner
//     GET  /count          -> the counter
//     GET  /histogram      -> the bins as a JSON array
//     GET  /metrics        -> the windows' metrics in Prometheus text format (when started with them)
//
// As a sample (bin/rmarun -np N [--jvms K] counter-service [--requests R] [--metrics]) every JVM of
// the job starts the service on its own ranks and sends it R concurrent requests (half tickets, half
// observations); then the JVM hosting rank 0 checks the totals of all JVMs: the counter equals the
// number of tickets, the tickets handed out are exactly {0, ..., tickets - 1}, and every bin holds
// exactly its observations. With --metrics each JVM binds dev.vertxrma.metrics.RmaMetrics to a
// Prometheus registry before it creates its windows, serves it at GET /metrics, and after the
// requests scrapes its own endpoint and checks that it counted exactly one fetch-and-op per ticket,
// one accumulate per observation and one flush per request made in that JVM.
package dev.vertxrma.samples.services;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.World;
import dev.vertxrma.WorldProgram;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** A counter and a histogram served over HTTP from the windows of an embedded world. */
public final class CounterService implements WorldProgram {

  /** Number of histogram bins. */
  public static final int BINS = 32;
  private static final int DEFAULT_REQUESTS = 2000;

  private final Vertx vertx;
  private final World world;
  private final List<Win> windows;
  private final AtomicInteger nextOrigin = new AtomicInteger();
  private final Supplier<String> metrics;
  private HttpServer server;

  /** For bin/rmarun (which calls {@link #run}); a service is made with {@link #start}. */
  public CounterService() {
    this(null, null, List.of(), null);
  }

  private CounterService(Vertx vertx, World world, List<Win> windows, Supplier<String> metrics) {
    this.vertx = vertx;
    this.world = world;
    this.windows = windows;
    this.metrics = metrics;
  }

  /**
   * Starts the service on {@code world}'s local ranks: creates a window on each (collective:
   * every JVM of the job starts the service), opens the world's passive epoch and listens on
   * {@code port} (0: any free port).
   *
   * @param vertx the Vert.x instance to serve on
   * @param world the ranks to serve from
   * @param port the HTTP port, or 0
   * @return completes with the running service
   */
  public static Future<CounterService> start(Vertx vertx, World world, int port) {
    return start(vertx, world, port, null);
  }

  /**
   * As {@link #start(Vertx, World, int)}, and serves {@code GET /metrics} with the text
   * {@code metrics} gives (a Prometheus registry's {@code scrape}: bind
   * {@code dev.vertxrma.metrics.RmaMetrics} to it before calling this, so that the service's windows
   * report to it).
   *
   * @param vertx the Vert.x instance to serve on
   * @param world the ranks to serve from
   * @param port the HTTP port, or 0
   * @param metrics the body of {@code GET /metrics} (Prometheus text format), or {@code null} for no such endpoint
   * @return completes with the running service
   */
  public static Future<CounterService> start(Vertx vertx, World world, int port, Supplier<String> metrics) {
    int np = world.size();
    long slots = 1 + (BINS + np - 1) / np;
    List<Future<Win>> created = new ArrayList<>();
    for (int r : world.localRanks()) {
      created.add(Win.allocate(world.rank(r), slots * Long.BYTES, Long.BYTES, Info.NULL)
          .compose(w -> w.lockAll().map(w)));
    }
    return Future.all(created).compose(all -> {
      List<Win> windows = new ArrayList<>();
      for (Future<Win> f : created) {
        windows.add(f.result());
      }
      CounterService service = new CounterService(vertx, world, windows, metrics);
      return vertx.createHttpServer().requestHandler(service::serve).listen(port).map(s -> {
        service.server = s;
        return service;
      });
    });
  }

  /**
   * The port the service listens on.
   *
   * @return the actual port
   */
  public int port() {
    return server.actualPort();
  }

  /**
   * Stops serving and releases the windows (collective: every JVM of the job stops its service).
   *
   * @return completes when the epoch is closed and the windows are freed
   */
  public Future<Void> stop() {
    return server.close().compose(v -> {
      List<Future<Void>> freed = new ArrayList<>();
      for (Win w : windows) {
        freed.add(w.unlockAll().compose(u -> w.free()));
      }
      return Future.all(freed).mapEmpty();
    });
  }

  private void serve(HttpServerRequest req) {
    Context requestContext = vertx.getOrCreateContext();
    String path = req.path();
    Future<String> answer;
    try {
      if (req.method() == HttpMethod.POST && path.equals("/count")) {
        answer = ticket().map(String::valueOf);
      } else if (req.method() == HttpMethod.POST && path.startsWith("/observe/")) {
        answer = observe(Integer.parseInt(path.substring("/observe/".length()))).map("");
      } else if (req.method() == HttpMethod.GET && path.equals("/count")) {
        answer = count().map(String::valueOf);
      } else if (req.method() == HttpMethod.GET && path.equals("/histogram")) {
        answer = histogram().map(CounterService::json);
      } else if (req.method() == HttpMethod.GET && path.equals("/metrics") && metrics != null) {
        req.response().putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(metrics.get());
        return;
      } else {
        req.response().setStatusCode(404).end();
        return;
      }
    } catch (NumberFormatException e) {
      req.response().setStatusCode(400).end("bin must be an integer\n");
      return;
    }
    // the windows' futures complete on their rank's context: answer on the request's own
    answer.onComplete(ar -> requestContext.runOnContext(v -> {
      if (ar.failed()) {
        req.response().setStatusCode(ar.cause() instanceof RmaException
            && ((RmaException) ar.cause()).errorClass() == ErrorClass.ARG ? 400 : 500).end(ar.cause().getMessage() + "\n");
      } else if (ar.result().isEmpty()) {
        req.response().setStatusCode(204).end();
      } else {
        req.response().end(ar.result());
      }
    }));
  }

  /** The window of the next local rank, round robin: requests are spread over the ranks. */
  private Win origin() {
    return windows.get(Math.floorMod(nextOrigin.getAndIncrement(), windows.size()));
  }

  /** MPI_Fetch_and_op(+1) on rank 0's counter, completed by MPI_Win_flush(0). */
  private Future<Long> ticket() {
    Win w = origin();
    return w.fetchAndOp(1, 0, 0, Op.SUM).compose(previous -> w.flush(0).map(previous));
  }

  /** MPI_Accumulate(+1, SUM) onto the bin's owner, completed by MPI_Win_flush(owner). */
  private Future<Void> observe(int bin) {
    if (bin < 0 || bin >= BINS) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "bin %d is outside [0, %d)", bin, BINS));
    }
    Win w = origin();
    int owner = bin % world.size();
    return w.accumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, owner, 1 + bin / world.size(), Op.SUM)
        .compose(v -> w.flush(owner));
  }

  private Future<Long> count() {
    Win w = origin();
    long[] value = new long[1];
    return w.get(Buf.of(value), 0, 1, Datatype.LONG, 0, 0).compose(v -> w.flush(0)).map(v -> value[0]);
  }

  private Future<long[]> histogram() {
    Win w = origin();
    long[] bins = new long[BINS];
    List<Future<Void>> gets = new ArrayList<>();
    for (int b = 0; b < BINS; b++) {
      gets.add(w.get(Buf.of(bins), b, 1, Datatype.LONG, b % world.size(), 1 + b / world.size()));
    }
    return Future.all(gets).compose(v -> w.flushAll()).map(v -> bins);
  }

  private static String json(long[] values) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < values.length; i++) {
      sb.append(i == 0 ? "" : ",").append(values[i]);
    }
    return sb.append(']').toString();
  }

  /** The bin of the {@code i}-th observation sent by a driver (any deterministic spread will do). */
  static int binOf(int i) {
    return (i * 7 + i / BINS) % BINS;
  }

  // ---- the sample: every JVM drives its own service, rank 0's JVM checks the job's totals ----

  @Override
  public Future<?> run(Vertx vertx, World world, List<String> args) {
    int requests = DEFAULT_REQUESTS;
    boolean withMetrics = false;
    for (int i = 0; i < args.size() && requests >= 2; i++) {
      if (args.get(i).equals("--metrics")) {
        withMetrics = true;
      } else if (args.get(i).equals("--requests") && i + 1 < args.size()) {
        try {
          requests = Integer.parseInt(args.get(++i));
        } catch (NumberFormatException e) {
          requests = -1;
        }
      } else {
        requests = -1;
      }
    }
    if (requests < 2) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "counter-service: usage counter-service [--requests R] [--metrics] with R >= 2; got %s", args));
    }
    int r = requests;
    // the Micrometer code is in a class of its own, loaded only with --metrics
    ServiceMetrics metrics = withMetrics ? ServiceMetrics.bind() : null;
    return start(vertx, world, 0, metrics == null ? null : metrics::scrape).compose(service -> drive(vertx, service.port(), r)
        .compose(tickets -> (metrics == null ? Future.succeededFuture()
            : metrics.check(vertx, world, service.port(), r / 2, r - r / 2))
            .compose(v -> verify(vertx, world, service, r / 2, r - r / 2, tickets)))
        .eventually(service::stop))
        .eventually(() -> {
          if (metrics != null) {
            metrics.close();
          }
          return Future.succeededFuture();
        });
  }

  /** Sends {@code requests} concurrent requests; completes with the tickets received. */
  static Future<List<Long>> drive(Vertx vertx, int port, int requests) {
    HttpClient client = vertx.createHttpClient(new PoolOptions().setHttp1MaxSize(16));
    List<Future<Buffer>> answers = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      String uri = i % 2 == 0 ? "/count" : "/observe/" + binOf(i / 2);
      answers.add(client.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port)
          .setURI(uri).setIdleTimeout(30_000)).compose(req -> req.send().compose(CounterService::body)));
    }
    return Future.all(answers).map(all -> {
      List<Long> tickets = new ArrayList<>();
      for (int i = 0; i < requests; i += 2) {
        tickets.add(Long.parseLong(answers.get(i).result().toString()));
      }
      return tickets;
    }).eventually(client::close);
  }

  private static Future<Buffer> body(HttpClientResponse resp) {
    return resp.body().compose(b -> resp.statusCode() / 100 == 2 ? Future.succeededFuture(b)
        : Future.failedFuture(new IllegalStateException("HTTP " + resp.statusCode() + ": " + b)));
  }

  /**
   * After every JVM has driven its service: rank 0's JVM reads the totals through its own service
   * and compares them with what the requests of all JVMs must have produced.
   */
  private static Future<Void> verify(Vertx vertx, World world, CounterService service, int ticketsPerJvm,
      int observationsPerJvm, List<Long> tickets) {
    List<Integer> local = world.localRanks();
    // number of JVMs: each JVM's first rank counts 1
    List<Future<Long>> jvmCounts = new ArrayList<>();
    for (int r : local) {
      jvmCounts.add(world.rank(r).allreduce(r == local.get(0) ? 1L : 0L, Op.SUM));
    }
    return Future.all(jvmCounts).compose(c -> {
      int jvms = jvmCounts.get(0).result().intValue();
      int totalTickets = ticketsPerJvm * jvms;
      // the tickets of all JVMs as one bitmap: every ticket must be handed out exactly once
      long[] mine = new long[(totalTickets + 63) / 64];
      for (long t : tickets) {
        if (t >= 0 && t < totalTickets) {
          mine[(int) (t / 64)] |= 1L << (t % 64);
        }
      }
      List<Future<Void>> merged = new ArrayList<>();
      long[] all = new long[mine.length];
      for (int r : local) {
        Comm comm = world.rank(r);
        long[] send = r == local.get(0) ? mine : new long[mine.length];
        long[] recv = r == local.get(0) ? all : new long[mine.length];
        merged.add(comm.allreduce(Buf.of(send), 0, Buf.of(recv), 0, mine.length, Datatype.LONG, Op.BOR));
      }
      return Future.all(merged).compose(m -> {
        if (!local.contains(0)) {
          return Future.succeededFuture();
        }
        return service.count().compose(count -> service.histogram().compose(bins ->
            check(world.size(), jvms, totalTickets, observationsPerJvm, tickets.size(), all, count, bins)));
      });
    });
  }

  private static Future<Void> check(int np, int jvms, int totalTickets, int observationsPerJvm, int myTickets,
      long[] ticketBits, long count, long[] bins) {
    List<String> failures = new ArrayList<>();
    if (count != totalTickets) {
      failures.add("counter is " + count + ", expected " + totalTickets);
    }
    int seen = 0;
    for (long word : ticketBits) {
      seen += Long.bitCount(word);
    }
    if (seen != totalTickets) {
      failures.add("tickets handed out: " + seen + " distinct values in [0, " + totalTickets + "), expected all");
    }
    long[] expected = new long[BINS];
    for (int i = 0; i < observationsPerJvm; i++) {
      expected[binOf(i)] += jvms;
    }
    for (int b = 0; b < BINS; b++) {
      if (bins[b] != expected[b]) {
        failures.add("bin " + b + " holds " + bins[b] + ", expected " + expected[b]);
      }
    }
    if (!failures.isEmpty()) {
      return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "counter-service: %s", failures));
    }
    System.out.printf("counter-service: verified %d tickets and %d observations in %d bins over %d ranks, "
        + "served by %d JVM(s) (%d tickets here)%n", totalTickets, observationsPerJvm * jvms, BINS, np, jvms, myTickets);
    return Future.succeededFuture();
  }
}
