package dev.vertxrma.metrics;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.observe.Observers;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.impl.observe.Sync;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Reports what the windows of this JVM do to a Micrometer {@link MeterRegistry}: the Micrometer
 * binder of vertx-rma.
 *
 * <pre>{@code
 * PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
 * RmaMetrics metrics = new RmaMetrics();
 * metrics.bindTo(registry);          // windows created from now on report to registry
 * ... Rma.run / Rma.world ...
 * metrics.close();                   // windows created afterwards do not
 * }</pre>
 *
 * <p>Every window created in this JVM while the binding is open (by any job, any rank) reports to
 * the registry; windows created before {@link #bindTo} or after {@link #close()} do not, and cost
 * nothing. The meters stay in the registry when a window is freed or a job ends, so a scrape after
 * the job still sees its totals. Every meter has the tags {@code job} (the job's name), {@code rank}
 * (the origin rank, whose calls are counted) and {@code window} (the window's id, the same at every
 * rank of the job); sum over {@code window} for a rank's totals, over {@code rank} for a job's:
 *
 * <table>
 *   <caption>Meters (Prometheus names in parentheses)</caption>
 *   <tr><th>meter</th><th>type</th><th>more tags</th><th>counts</th></tr>
 *   <tr><td>{@code rma.operations} ({@code rma_operations_total})</td><td>counter</td>
 *       <td>{@code kind}: put, get, accumulate, get_accumulate (fetch-and-op too), compare_and_swap</td>
 *       <td>RMA operations issued (request-based ones included)</td></tr>
 *   <tr><td>{@code rma.operation.bytes} ({@code rma_operation_bytes_total})</td><td>counter</td><td>{@code kind}</td>
 *       <td>bytes the operations move at their targets</td></tr>
 *   <tr><td>{@code rma.epochs} ({@code rma_epochs_total})</td><td>counter</td>
 *       <td>{@code kind}: fence, access (start), exposure (post), lock, lock_all</td>
 *       <td>epochs opened</td></tr>
 *   <tr><td>{@code rma.lock.wait} ({@code rma_lock_wait_seconds})</td><td>timer</td>
 *       <td>{@code kind}: lock_shared, lock_exclusive, lock_all</td>
 *       <td>lock calls and the time from each to its grant</td></tr>
 *   <tr><td>{@code rma.flush} ({@code rma_flush_seconds})</td><td>timer</td><td>{@code kind}: flush, flush_all</td>
 *       <td>flushes (flush_local ones too) and their time</td></tr>
 *   <tr><td>{@code rma.sync} ({@code rma_sync_seconds})</td><td>timer</td>
 *       <td>{@code kind}: fence, post, start, complete, wait, unlock, unlock_all</td>
 *       <td>the other synchronization calls and their time</td></tr>
 *   <tr><td>{@code rma.errors} ({@code rma_errors_total})</td><td>counter</td>
 *       <td>{@code class}: the {@link ErrorClass} name</td>
 *       <td>window calls that failed</td></tr>
 *   <tr><td>{@code rma.windows.created}, {@code rma.windows.freed}</td><td>counter</td>
 *       <td>no {@code window} tag</td><td>windows created and freed (or released at the rank's end)</td></tr>
 * </table>
 *
 * <p>Cost when bound: a counter increment per operation and a timer per synchronization call, on
 * the rank's event loop. This class is the only one of vertx-rma that needs Micrometer on the
 * class path.
 */
public final class RmaMetrics implements MeterBinder, AutoCloseable {

  private final Map<String, RankMeters> ranks = new ConcurrentHashMap<>();
  private final Observers.Source source = this::rank;
  private volatile MeterRegistry registry;

  /** A binding not bound yet: {@link #bindTo} starts it. */
  public RmaMetrics() {
  }

  /**
   * Starts reporting: windows created from now on in this JVM report to {@code registry}.
   *
   * @param registry the registry the meters are registered with
   * @throws IllegalStateException if this binding is bound already (make one per registry)
   */
  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    if (this.registry != null) {
      throw new IllegalStateException("RmaMetrics is bound to a registry already; use one RmaMetrics per registry");
    }
    this.registry = registry;
    // the meter classes load here, on the caller's thread, rather than on a rank's event loop
    // when its first window is created
    new WindowMeters(new SimpleMeterRegistry(), Tags.of("window", "0"));
    Observers.add(source);
  }

  /**
   * Stops reporting for windows created from now on (those created before keep reporting until
   * they are freed). The meters stay in the registry.
   */
  @Override
  public void close() {
    Observers.remove(source);
  }

  private RankObserver rank(String job, int rank) {
    return ranks.computeIfAbsent(job + '\u0000' + rank, k -> new RankMeters(registry, job, rank));
  }

  /** The meters of one rank of one job: one set per window, made when the window is created. */
  private static final class RankMeters implements RankObserver {
    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<Integer, WindowMeters> windows = new ConcurrentHashMap<>();
    private final Counter created;
    private final Counter freed;

    RankMeters(MeterRegistry registry, String job, int rank) {
      this.registry = registry;
      this.tags = Tags.of("job", job, "rank", Integer.toString(rank));
      this.created = Counter.builder("rma.windows.created").description("windows created").tags(tags).register(registry);
      this.freed = Counter.builder("rma.windows.freed").description("windows freed or released").tags(tags)
          .register(registry);
    }

    private WindowMeters window(int win) {
      WindowMeters w = windows.get(win);
      return w != null ? w : windows.computeIfAbsent(win, id -> new WindowMeters(registry, tags.and("window",
          Integer.toString(id))));
    }

    @Override
    public void windowCreated(int win, String flavor, long size) {
      created.increment();
      window(win);
    }

    @Override
    public void windowFreed(int win) {
      freed.increment();
    }

    @Override
    public void opIssued(int win, byte kind, int target, long bytes, long seq) {
      WindowMeters w = window(win);
      int k = Observers.opIndex(kind);
      w.operations[k].increment();
      w.bytes[k].increment(bytes);
    }

    @Override
    public <T> Future<T> sync(int win, Sync kind, int peer, Future<T> done) {
      WindowMeters w = window(win);
      Timer timer = w.sync.get(kind);
      long start = System.nanoTime();
      if (kind.opens() != null) {
        // an epoch is opened by the call, counted when the call succeeds
        Counter epochs = w.epochs.get(kind.opens());
        if (done.isComplete()) {
          timer.record(0, TimeUnit.NANOSECONDS);
          if (done.succeeded()) {
            epochs.increment();
          }
          return done;
        }
        return done.onComplete(ar -> {
          timer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
          if (ar.succeeded()) {
            epochs.increment();
          }
        });
      }
      if (done.isComplete()) {
        timer.record(0, TimeUnit.NANOSECONDS);
        return done;
      }
      return done.onComplete(ar -> timer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
    }

    @Override
    public <T> Future<T> failures(int win, Future<T> call) {
      if (call.isComplete()) {
        if (call.failed()) {
          error(win, call.cause());
        }
        return call;
      }
      return call.onFailure(e -> error(win, e));
    }

    private void error(int win, Throwable e) {
      ErrorClass ec = e instanceof RmaException ? ((RmaException) e).errorClass() : ErrorClass.OTHER;
      window(win).errors.computeIfAbsent(ec, c -> Counter.builder("rma.errors").description("window calls that failed")
          .tags(tags).tag("window", Integer.toString(win)).tag("class", c.name()).register(registry)).increment();
    }
  }

  /** One window's meters at one rank. */
  private static final class WindowMeters {
    final Counter[] operations = new Counter[Observers.OP_KINDS.size()];
    final Counter[] bytes = new Counter[Observers.OP_KINDS.size()];
    final Map<String, Counter> epochs = new ConcurrentHashMap<>();
    final Map<Sync, Timer> sync = new EnumMap<>(Sync.class);
    final Map<ErrorClass, Counter> errors = new ConcurrentHashMap<>();

    WindowMeters(MeterRegistry registry, Tags tags) {
      for (int i = 0; i < operations.length; i++) {
        String kind = Observers.OP_KINDS.get(i);
        operations[i] = Counter.builder("rma.operations").description("RMA operations issued").tags(tags)
            .tag("kind", kind).register(registry);
        bytes[i] = Counter.builder("rma.operation.bytes").description("bytes moved by RMA operations at their targets")
            .baseUnit("bytes").tags(tags).tag("kind", kind).register(registry);
      }
      for (Sync s : Sync.values()) {
        String name;
        String description;
        switch (s.meter()) {
          case LOCK_WAIT:
            name = "rma.lock.wait";
            description = "lock calls, from the call to the grant";
            break;
          case FLUSH:
            name = "rma.flush";
            description = "flushes";
            break;
          default:
            name = "rma.sync";
            description = "synchronization calls (fence, PSCW, unlock)";
        }
        sync.put(s, Timer.builder(name).description(description).tags(tags).tag("kind", s.label()).register(registry));
        if (s.opens() != null) {
          epochs.computeIfAbsent(s.opens(), k -> Counter.builder("rma.epochs").description("epochs opened").tags(tags)
              .tag("kind", k).register(registry));
        }
      }
    }
  }
}
