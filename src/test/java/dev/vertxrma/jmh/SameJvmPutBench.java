package dev.vertxrma.jmh;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One same-JVM put of 8 B + flush from rank 0 to rank 1 of an embedded job, under lockAll: the
 * path {@code rmabench put-latency} measures, here with JMH's GC profiler to count what each
 * operation allocates. Each invocation runs {@value #BATCH} put + flush rounds as a loop on rank
 * 0's event loop ({@code Rma.repeat}), so the benchmark thread's hand-off is amortized.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SameJvmPutBench {

  static final int BATCH = 1000;

  private Vertx vertx;
  private Future<Void> job;
  private final Promise<Void> finished = Promise.promise();
  private Win win;
  private Context rank0;
  private final long[] value = {42};
  private final byte[] bytes = new byte[8];

  @Setup
  public void start() throws Exception {
    vertx = Vertx.vertx();
    CompletableFuture<Void> ready = new CompletableFuture<>();
    job = Rma.run(vertx, new JobOptions().setNp(2), (world, args) ->
        Win.allocate(world, 4096, 8, Info.NULL).compose(w -> {
          if (world.rank() != 0) {
            return world.barrier().compose(v -> w.free());
          }
          win = w;
          rank0 = Vertx.currentContext();
          return w.lockAll().compose(v -> {
            ready.complete(null);
            return finished.future();
          }).compose(v -> w.unlockAll()).compose(v -> world.barrier()).compose(v -> w.free());
        }));
    job.onFailure(ready::completeExceptionally);
    ready.get(60, TimeUnit.SECONDS);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void putFlush8() throws Exception {
    loop(() -> win.put(Buf.of(value), 0, 1, Datatype.LONG, 1, 0));
  }

  /** As {@link #putFlush8}, with the origin as 8 bytes of MPI_BYTE (what {@code rmabench put-latency} sends). */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void putFlush8Bytes() throws Exception {
    loop(() -> win.put(Buf.of(bytes), 0, 8, Datatype.BYTE, 1, 0));
  }

  /**
   * As {@link #putFlush8Bytes}, issued the way a pipelining caller writes it: put and flush back to
   * back in a plain loop on rank 0's event loop, no compose between them (both complete at once on
   * the same-JVM path). What remains is the library's own cost per put + flush.
   */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void putFlush8Pipelined() throws Exception {
    Buf origin = Buf.of(bytes);
    pipelined(() -> win.put(origin, 0, 8, Datatype.BYTE, 1, 0));
  }

  /** As {@link #putFlush8Pipelined} for fetchAndOp (SUM of one long) + flush. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void fetchAndOpFlushPipelined() throws Exception {
    Buf one = Buf.of(value);
    Buf result = Buf.of(new long[1]);
    pipelined(() -> win.fetchAndOp(one, 0, result, 0, Datatype.LONG, 1, 0, Op.SUM));
  }

  /** As {@link #putFlush8Pipelined} for compareAndSwap (one long) + flush. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void compareAndSwapFlushPipelined() throws Exception {
    Buf swap = Buf.of(value);
    Buf compare = Buf.of(new long[1]);
    Buf result = Buf.of(new long[1]);
    pipelined(() -> win.compareAndSwap(swap, 0, compare, 0, result, 0, Datatype.LONG, 1, 0));
  }

  /** {@value #BATCH} rounds of {@code op} and flush issued back to back in a plain loop on rank 0's event loop. */
  private void pipelined(java.util.function.Supplier<Future<Void>> op) throws Exception {
    CompletableFuture<Void> done = new CompletableFuture<>();
    rank0.runOnContext(x -> {
      Future<Void> last = null;
      for (int i = 0; i < BATCH; i++) {
        op.get();
        last = win.flush(1);
      }
      last.onComplete(ar -> {
        if (ar.succeeded()) {
          done.complete(null);
        } else {
          done.completeExceptionally(ar.cause());
        }
      });
    });
    done.get(60, TimeUnit.SECONDS);
  }

  /** {@value #BATCH} rounds of {@code put} + flush on rank 0's event loop; returns when they are done. */
  private void loop(java.util.function.Supplier<Future<Void>> put) throws Exception {
    CompletableFuture<Void> done = new CompletableFuture<>();
    rank0.runOnContext(x -> Rma.repeat(BATCH, i -> put.get().compose(v -> win.flush(1))).onComplete(ar -> {
      if (ar.succeeded()) {
        done.complete(null);
      } else {
        done.completeExceptionally(ar.cause());
      }
    }));
    done.get(60, TimeUnit.SECONDS);
  }

  @TearDown
  public void stop() throws Exception {
    rank0.runOnContext(x -> finished.complete());
    job.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
