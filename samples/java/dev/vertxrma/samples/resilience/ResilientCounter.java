// A Vert.x HTTP service that keeps answering while one of its JVMs is killed: a histogram of 32
// bins held in RMA windows, every bin in two copies on two ranks, rebuilt over the survivors when
// a rank dies (ULFM: MPI_Comm_revoke, MPI_Comm_shrink). It stands beside counter-service, whose
// ticket counter (one fetch-and-op at rank 0, tickets checked to be exactly 0..T-1) cannot survive
// the loss of rank 0 without giving up what it promises.
//
//     POST /observe/{bin}  -> 204 once the bin's two copies have both counted it
//                             503 when they could not (a rank died): then it counts at most once
//     GET  /histogram      -> the bins as a JSON array (read from each bin's first copy)
//     POST /shutdown       -> (with --serve) 202, and this JVM stops serving and leaves the job
//
// Where the counts live: over n ranks, bin b's first copy is at rank b % n, its second at the next
// rank, (b % n + 1) % n, both at displacement b of the rank's window. An observation is an
// MPI_Accumulate(+1, SUM) onto each copy, completed by MPI_Win_flush of both ranks, in the passive
// epoch (MPI_Win_lock_all) that each rank holds for the service's life. Every JVM serves from its
// own ranks; requests are spread over them.
//
// When a rank dies (its JVM killed; the job runs with --on-failure continue), each survivor learns
// it from a receive from MPI_ANY_SOURCE that it keeps posted for the purpose (ULFM's way: such a
// receive fails with PROC_FAILED at a death, with REVOKED at a revoke), and then:
//   1. stops taking requests onto the old window (new ones wait for the new one), revokes the
//      communicator, and waits for its requests in flight to end;
//   2. shrinks the communicator (every survivor has done 1 by then);
//   3. reads the copies its old window holds and agrees with the other survivors on each bin's
//      count: the largest of its surviving copies (an allreduce MAX); a bin none of whose copies
//      survived is lost, and said so (with one rank per JVM a single death loses none);
//   4. makes a window over the survivors, places the counts there in the new layout, opens the
//      epoch and serves the requests that waited, and the next ones.
// The old window's epoch is then closed and the window freed (ULFM lets MPI_Win_free complete at
// each survivor of a revoked communicator).
//
// What the counts mean (every count, at any time, including across deaths):
//   * an observation answered 204 is counted exactly once in its bin;
//   * an observation that failed (503, or a request whose JVM died before it answered) is counted
//     at most once: it may have reached a copy that survived;
//   * so for every bin, answered(bin) <= count(bin) <= answered(bin) + failed(bin).
// A failed request is not retried by the service: a retry could count it twice.
//
// As a sample: bin/rmarun -np N [--jvms K] resilient-counter [--requests R] drives R requests at
// every JVM's service, and the JVM of rank 0 checks that every bin counts exactly the observations
// answered in all JVMs and that none failed. With --serve it only serves, printing each JVM's port,
// until POST /shutdown reaches every surviving JVM: ResilientCounterTest drives it so over 3 JVMs
// and kills one under load (bin/rmarun -np 3 --jvms 3 --on-failure continue resilient-counter --serve).
package dev.vertxrma.samples.resilience;

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
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import net.openhft.chronicle.bytes.BytesStore;

/** A histogram served over HTTP from windows, every bin in two copies, that survives the death of a rank. */
public final class ResilientCounter implements WorldProgram {

  /** Number of histogram bins. */
  public static final int BINS = 32;
  static final String NAME = "resilient-counter";
  private static final int DEFAULT_REQUESTS = 2000;
  /** The tag of the receive each rank keeps posted to learn of a death (nobody sends it but the rank itself, to stop). */
  private static final int WATCH_TAG = 31_001;

  private final Vertx vertx;
  private final World world;
  private final List<Replica> replicas = new ArrayList<>();
  private final AtomicInteger nextReplica = new AtomicInteger();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final Promise<Void> shutdownAsked = Promise.promise();
  private HttpServer server;

  /** For bin/rmarun (which calls {@link #run}); a service is made with {@link #start}. */
  public ResilientCounter() {
    this(null, null);
  }

  private ResilientCounter(Vertx vertx, World world) {
    this.vertx = vertx;
    this.world = world;
  }

  // ------------------------------------------------------------------ the replicas

  /**
   * A window over a communicator and the requests in flight on it: once it is closed (a rank
   * died) no request enters it, and {@link #drained} completes when the last one in it has ended;
   * {@link #next} is the layout that replaces it.
   */
  private static final class Layout {
    final Comm comm;
    final Win win;
    final AtomicInteger inflight = new AtomicInteger();
    volatile boolean closed;
    final Promise<Void> drained = Promise.promise();
    final Promise<Layout> next = Promise.promise();

    Layout(Comm comm, Win win) {
      this.comm = comm;
      this.win = win;
    }

    /** Takes a request in; false once closed. */
    boolean enter() {
      inflight.incrementAndGet();
      if (closed) {
        leave();
        return false;
      }
      return true;
    }

    void leave() {
      if (inflight.decrementAndGet() == 0 && closed) {
        drained.tryComplete();
      }
    }

    /** Takes no more requests; completes when those in flight have ended. */
    Future<Void> close() {
      closed = true;
      if (inflight.get() == 0) {
        drained.tryComplete();
      }
      return drained.future();
    }

    int size() {
      return comm.size();
    }

    /** The rank of bin {@code b}'s first copy. */
    int first(int b) {
      return b % size();
    }

    /** The rank of bin {@code b}'s second copy, -1 when the layout has one rank. */
    int second(int b) {
      return size() == 1 ? -1 : (b % size() + 1) % size();
    }
  }

  /** One local rank of the service: its current layout. */
  private static final class Replica {
    final int worldRank;
    volatile Layout layout;

    Replica(int worldRank, Layout layout) {
      this.worldRank = worldRank;
      this.layout = layout;
    }
  }

  // ------------------------------------------------------------------ start and stop

  /**
   * Starts the service on {@code world}'s local ranks: a window on each (collective: every JVM of
   * the job starts the service), each in a passive epoch, and listens on {@code port} (0: any
   * free port).
   *
   * @param vertx the Vert.x instance to serve on
   * @param world the ranks to serve from
   * @param port the HTTP port, or 0
   * @return completes with the running service
   */
  public static Future<ResilientCounter> start(Vertx vertx, World world, int port) {
    ResilientCounter service = new ResilientCounter(vertx, world);
    List<Future<Layout>> made = new ArrayList<>();
    for (int r : world.localRanks()) {
      Comm comm = world.rank(r);
      made.add(Win.allocate(comm, BINS * (long) Long.BYTES, Long.BYTES, Info.NULL)
          .compose(w -> w.lockAll().map(v -> new Layout(comm, w))));
    }
    return Future.all(made).compose(all -> {
      for (int i = 0; i < made.size(); i++) {
        Replica replica = new Replica(world.localRanks().get(i), made.get(i).result());
        service.replicas.add(replica);
        service.watch(replica, replica.layout);
      }
      return vertx.createHttpServer().requestHandler(service::serve).listen(port);
    }).map(s -> {
      service.server = s;
      return service;
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
   * Stops serving and releases the windows (collective over the survivors: every surviving JVM of
   * the job stops its service).
   *
   * @return completes when every local rank's epoch is closed and its window freed
   */
  public Future<Void> stop() {
    stopping.set(true);
    return server.close().compose(v -> {
      List<Future<Void>> stopped = new ArrayList<>();
      for (Replica r : replicas) {
        stopped.add(current(r).compose(l -> {
          // the rank's own message ends its watch: a stop, not a death
          return l.comm.send(Buf.of(new long[1]), 0, 1, Datatype.LONG, l.comm.rank(), WATCH_TAG)
              .compose(s -> l.win.unlockAll())
              .compose(u -> l.win.free())
              .compose(f -> l.comm == world.rank(r.worldRank) ? Future.succeededFuture() : l.comm.free());
        }));
      }
      return Future.all(stopped).mapEmpty();
    });
  }

  /** The layout that serves now: after a recovery in progress, the one it makes. */
  private static Future<Layout> current(Replica r) {
    Layout l = r.layout;
    return l.closed ? l.next.future().compose(n -> current(r)) : Future.succeededFuture(l);
  }

  // ------------------------------------------------------------------ requests

  private void serve(HttpServerRequest req) {
    Context requestContext = vertx.getOrCreateContext();
    String path = req.path();
    Future<String> answer;
    if (req.method() == HttpMethod.POST && path.startsWith("/observe/")) {
      int bin;
      try {
        bin = Integer.parseInt(path.substring("/observe/".length()));
      } catch (NumberFormatException e) {
        bin = -1;
      }
      if (bin < 0 || bin >= BINS) {
        req.response().setStatusCode(400).end("bin must be an integer in [0, " + BINS + ")\n");
        return;
      }
      int b = bin;
      answer = onCurrentLayout(l -> observe(l, b)).map("");
    } else if (req.method() == HttpMethod.GET && path.equals("/histogram")) {
      answer = onCurrentLayout(this::histogram).map(ResilientCounter::json);
    } else if (req.method() == HttpMethod.POST && path.equals("/shutdown")) {
      req.response().setStatusCode(202).end();
      shutdownAsked.tryComplete();
      return;
    } else {
      req.response().setStatusCode(404).end();
      return;
    }
    // the windows' futures complete on their rank's context: answer on the request's own
    answer.onComplete(ar -> requestContext.runOnContext(v -> {
      if (ar.failed()) {
        req.response().setStatusCode(503).end(ar.cause().getMessage() + "\n");
      } else if (ar.result().isEmpty()) {
        req.response().setStatusCode(204).end();
      } else {
        req.response().end(ar.result());
      }
    }));
  }

  /**
   * Runs {@code op} on the layout of the next local rank (round robin), counted in flight there;
   * while that rank recovers, once its new layout serves.
   */
  private <T> Future<T> onCurrentLayout(Function<Layout, Future<T>> op) {
    Replica r = replicas.get(Math.floorMod(nextReplica.getAndIncrement(), replicas.size()));
    return onLayout(r, r.layout, op);
  }

  private static <T> Future<T> onLayout(Replica r, Layout l, Function<Layout, Future<T>> op) {
    if (!l.enter()) {
      return l.next.future().compose(n -> onLayout(r, n, op));
    }
    Future<T> f;
    try {
      f = op.apply(l);
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    return f.andThen(ar -> l.leave());
  }

  /** MPI_Accumulate(+1, SUM) onto both copies of the bin, completed by MPI_Win_flush of both ranks. */
  private static Future<Void> observe(Layout l, int bin) {
    int first = l.first(bin);
    int second = l.second(bin);
    Future<Void> one = l.win.accumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, first, bin, Op.SUM)
        .compose(v -> l.win.flush(first));
    Future<Void> two = second < 0 ? Future.succeededFuture()
        : l.win.accumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, second, bin, Op.SUM)
            .compose(v -> l.win.flush(second));
    return Future.join(one, two).mapEmpty(); // both ended, each counted or failed
  }

  /** Every bin's first copy (MPI_Get, completed by MPI_Win_flush_all). */
  private Future<long[]> histogram(Layout l) {
    long[] bins = new long[BINS];
    List<Future<Void>> gets = new ArrayList<>();
    for (int b = 0; b < BINS; b++) {
      gets.add(l.win.get(Buf.of(bins), b, 1, Datatype.LONG, l.first(b), b));
    }
    return Future.all(gets).compose(v -> l.win.flushAll()).map(v -> bins);
  }

  private static String json(long[] values) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < values.length; i++) {
      sb.append(i == 0 ? "" : ",").append(values[i]);
    }
    return sb.append(']').toString();
  }

  // ------------------------------------------------------------------ a death, and the recovery

  /**
   * Keeps a receive from MPI_ANY_SOURCE posted on the layout's communicator: it fails with
   * PROC_FAILED when a member dies, with REVOKED when another survivor revoked the communicator,
   * and succeeds only with the rank's own message at {@link #stop}.
   */
  private void watch(Replica r, Layout l) {
    l.comm.recv(Buf.of(new long[1]), 0, 1, Datatype.LONG, Comm.ANY_SOURCE, WATCH_TAG).onComplete(ar -> {
      if (ar.succeeded()) {
        return;
      }
      Throwable e = ar.cause();
      if (e instanceof RmaException && ((RmaException) e).errorClass() == ErrorClass.TIMEOUT && !stopping.get()) {
        watch(r, l); // no death within the job's wait timeout: watch on
      } else if (isFailure(e) && !stopping.get()) {
        recover(r, l, e);
      }
    });
  }

  private static boolean isFailure(Throwable e) {
    return e instanceof RmaException && (((RmaException) e).errorClass() == ErrorClass.PROC_FAILED
        || ((RmaException) e).errorClass() == ErrorClass.REVOKED);
  }

  /** Steps 1-4 of the file comment: close, revoke, drain, shrink, agree on the counts, new window, serve. */
  private void recover(Replica r, Layout old, Throwable cause) {
    long began = System.nanoTime();
    System.out.printf("%s: rank %d noticed a failure: %s%n", NAME, r.worldRank, cause.getMessage());
    Future<Void> drained = old.close();
    old.comm.revoke().recover(e -> Future.succeededFuture())
        .compose(v -> drained)
        .compose(v -> old.comm.shrink())
        .compose(shrunk -> agreeOnCounts(old, shrunk).compose(counts -> rebuild(shrunk, counts)
            .onSuccess(fresh -> serveAgain(r, old, fresh, counts, began))))
        .onFailure(e -> {
          System.out.printf("%s: rank %d could not recover: %s%n", NAME, r.worldRank, e.getMessage());
          old.next.tryFail(e);
        });
  }

  /**
   * The counts the survivors hold: each reads the copies its old window holds (first or second
   * copy in the old layout) and the survivors take each bin's largest; the last word is the mask
   * of the bins some survivor held.
   */
  private static Future<long[]> agreeOnCounts(Layout old, Comm shrunk) {
    BytesStore<?, ?> memory = old.win.memory();
    int me = old.comm.rank();
    long[] held = new long[BINS + 1];
    for (int b = 0; b < BINS; b++) {
      if (old.first(b) == me || old.second(b) == me) {
        held[b] = memory.readLong((long) b * Long.BYTES);
        held[BINS] |= 1L << b;
      }
    }
    long[] counts = new long[BINS];
    long[] mask = new long[1];
    return shrunk.allreduce(Buf.of(held), 0, Buf.of(counts), 0, BINS, Datatype.LONG, Op.MAX)
        .compose(v -> shrunk.allreduce(Buf.of(held), BINS, Buf.of(mask), 0, 1, Datatype.LONG, Op.BOR))
        .map(v -> {
          long[] all = java.util.Arrays.copyOf(counts, BINS + 1);
          all[BINS] = mask[0];
          return all;
        });
  }

  /** A window over the survivors with every rank's copies of {@code counts} in place, in its passive epoch. */
  private static Future<Layout> rebuild(Comm shrunk, long[] counts) {
    return Win.allocate(shrunk, BINS * (long) Long.BYTES, Long.BYTES, Info.NULL).compose(w -> {
      Layout fresh = new Layout(shrunk, w);
      BytesStore<?, ?> memory = w.memory();
      int me = shrunk.rank();
      for (int b = 0; b < BINS; b++) {
        if (fresh.first(b) == me || fresh.second(b) == me) {
          memory.writeLong((long) b * Long.BYTES, counts[b]);
        }
      }
      // every rank has placed its copies before any rank's requests reach them
      return shrunk.barrier().compose(v -> w.lockAll()).map(v -> fresh);
    });
  }

  /** The new layout serves: the requests that waited go on it; the old window is released. */
  private void serveAgain(Replica r, Layout old, Layout fresh, long[] counts, long began) {
    r.layout = fresh;
    watch(r, fresh);
    old.next.complete(fresh);
    List<Integer> lost = new ArrayList<>();
    for (int b = 0; b < BINS; b++) {
      if ((counts[BINS] & (1L << b)) == 0) {
        lost.add(b);
      }
    }
    if (fresh.comm.rank() == 0) {
      System.out.printf("%s: %d of %d ranks survive; the histogram is rebuilt over them in %d ms%s%n", NAME,
          fresh.size(), old.size(), (System.nanoTime() - began) / 1_000_000,
          lost.isEmpty() ? ", no count lost" : "; bins " + lost + " lost both copies and restart from 0");
    }
    // the old window: its epoch closed (unlockAll fails with PROC_FAILED where it had operations
    // in flight to the dead rank, and closes the epoch all the same), then freed locally; a
    // failure here is said, and the window is released when the rank ends
    old.win.unlockAll().transform(unlocked -> old.win.free().onFailure(e -> System.out.printf("%s: rank %d could "
        + "not free the window of the communicator it revoked (%s%s); it is released when the rank ends%n", NAME,
        r.worldRank, e.getMessage(), unlocked.failed() ? "; its unlockAll: " + unlocked.cause().getMessage() : "")))
        .compose(v -> old.comm == world.rank(r.worldRank) ? Future.succeededFuture() : old.comm.free());
  }

  // ------------------------------------------------------------------ the sample

  @Override
  public Future<?> run(Vertx vertx, World world, List<String> args) {
    int requests = DEFAULT_REQUESTS;
    boolean serve = false;
    for (int i = 0; i < args.size() && requests >= 1; i++) {
      if (args.get(i).equals("--serve")) {
        serve = true;
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
    if (requests < 1) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "%s: usage %s [--requests R (>= 1)] [--serve]; got %s", NAME, NAME, args));
    }
    int r = requests;
    boolean serving = serve;
    return start(vertx, world, 0).compose(service -> {
      if (serving) {
        System.out.printf("%s: the JVM of rank(s) %s serves on port %d%n", NAME, world.localRanks(), service.port());
        return service.shutdownAsked.future().compose(v -> service.stop());
      }
      return drive(vertx, service.port(), r).compose(answered -> service.verify(answered, r))
          .eventually(service::stop);
    });
  }

  /** The bin of the {@code i}-th observation a driver sends. */
  static int binOf(int i) {
    return (i * 7 + i / BINS) % BINS;
  }

  /** Sends {@code requests} concurrent observations; completes with how many were answered per bin. */
  private static Future<long[]> drive(Vertx vertx, int port, int requests) {
    HttpClient client = vertx.createHttpClient(new PoolOptions().setHttp1MaxSize(16));
    List<Future<Void>> answers = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      answers.add(client.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port)
          .setURI("/observe/" + binOf(i)).setIdleTimeout(30_000)).compose(req -> req.send())
          .compose(resp -> resp.body().compose(b -> resp.statusCode() == 204 ? Future.succeededFuture()
              : Future.<Void>failedFuture(new IllegalStateException("HTTP " + resp.statusCode() + ": " + b)))));
    }
    return Future.join(answers).transform(all -> {
      long[] answered = new long[BINS + 1];
      for (int i = 0; i < requests; i++) {
        if (answers.get(i).succeeded()) {
          answered[binOf(i)]++;
        } else {
          answered[BINS]++; // failed
        }
      }
      return Future.succeededFuture(answered);
    }).eventually(client::close);
  }

  /**
   * After every JVM has driven its service: the answered and failed requests of all JVMs are
   * summed over the current layout, and the JVM of its rank 0 reads the histogram through its own
   * service: every bin counts exactly the observations answered, and none failed.
   */
  private Future<Void> verify(long[] answered, int requestsPerJvm) {
    List<Future<Void>> sums = new ArrayList<>();
    long[] total = new long[BINS + 1];
    for (int i = 0; i < replicas.size(); i++) {
      Replica r = replicas.get(i);
      long[] mine = i == 0 ? answered : new long[BINS + 1];
      long[] into = i == 0 ? total : new long[BINS + 1];
      sums.add(current(r).compose(l -> l.comm.allreduce(Buf.of(mine), 0, Buf.of(into), 0, BINS + 1, Datatype.LONG,
          Op.SUM)));
    }
    return Future.all(sums).compose(v -> current(replicas.get(0))).compose(l -> {
      if (l.comm.rank() != 0) {
        return Future.succeededFuture();
      }
      return histogram(l).compose(bins -> {
        List<String> failures = new ArrayList<>();
        if (total[BINS] != 0) {
          failures.add(total[BINS] + " request(s) failed");
        }
        long sum = 0;
        for (int b = 0; b < BINS; b++) {
          sum += total[b];
          if (bins[b] != total[b]) {
            failures.add("bin " + b + " holds " + bins[b] + ", " + total[b] + " observations were answered");
          }
        }
        if (!failures.isEmpty()) {
          return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "%s: %s", NAME, failures));
        }
        System.out.printf("%s: verified %d observations in %d bins, each in two copies, over %d ranks served by %d "
            + "JVM(s)%n", NAME, sum, BINS, l.size(), sum / requestsPerJvm);
        return Future.succeededFuture();
      });
    });
  }
}
