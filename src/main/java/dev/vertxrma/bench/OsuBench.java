package dev.vertxrma.bench;

import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * OSU-style latency benchmark of one-sided operations between rank 0 (origin) and rank 1
 * (target), in the style of {@code osu_put_latency}/{@code osu_get_latency}/{@code
 * osu_acc_latency}: each sample is one operation plus {@code flush} inside a passive-target
 * epoch. Reports the median of each, and its ratio to a raw Vert.x event-bus request/reply
 * between the same two ranks measured in the same run (the baseline). Run it with
 * {@code bin/rmarun -np 2 [--jvms 2] dev.vertxrma.bench.OsuBench [iterations]}.
 */
public final class OsuBench implements RankProgram {

  private static final int WARMUP = 500;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    if (world.size() != 2) {
      return Future.failedFuture(new RmaException(ErrorClass.ARG, "OsuBench runs with exactly 2 ranks (-np 2)"));
    }
    int iterations = args.isEmpty() ? 5000 : Integer.parseInt(args.get(0));
    String echo = "bench." + world.jobName() + ".echo";
    MessageConsumer<Object> consumer = world.vertx().eventBus().consumer(echo, m -> m.reply(m.body()));
    return consumer.completion().compose(v -> world.barrier())
        .compose(v -> Win.allocate(world, 1 << 20, 1, Info.NULL))
        .compose(win -> world.rank() != 0 ? world.barrier().compose(v -> win.free())
            // a full unmeasured pass first, so every path is compiled before any is timed
            : measureAll(world, win, echo, iterations, false)
                .compose(v -> measureAll(world, win, echo, iterations, true))
                .compose(v -> world.barrier()).compose(v -> win.free()))
        .eventually(consumer::unregister);
  }

  private Future<Void> measureAll(Comm world, Win win, String echo, int n, boolean print) {
    long[] eight = new long[1];
    byte[] kilo = new byte[1024];
    byte[] big = new byte[64 * 1024];
    StringBuilder out = new StringBuilder();
    double[] base = new double[1];
    return measure(n, () -> world.vertx().eventBus().request(echo, "ping"))
        .compose(b -> {
          base[0] = b;
          out.append(String.format(Locale.ROOT, "%-28s %10s %8s%n", "# operation", "median us", "x base"));
          row(out, "event-bus request/reply", b, b);
          return win.lock(LockType.SHARED, 1);
        })
        .compose(v -> measure(n, () -> win.put(eight, 0, 1, Datatype.LONG, 1, 0).compose(x -> win.flush(1))))
        .compose(t -> record(out, "put 8 B + flush", t, base))
        .compose(v -> measure(n, () -> win.get(eight, 0, 1, Datatype.LONG, 1, 0).compose(x -> win.flush(1))))
        .compose(t -> record(out, "get 8 B + flush", t, base))
        .compose(v -> measure(n, () -> win.accumulate(eight, 0, 1, Datatype.LONG, 1, 0, Op.SUM)
            .compose(x -> win.flush(1))))
        .compose(t -> record(out, "accumulate 8 B + flush", t, base))
        .compose(v -> measure(n, () -> win.fetchAndOp(1, 1, 8, Op.SUM)))
        .compose(t -> record(out, "fetchAndOp 8 B", t, base))
        .compose(v -> measure(n, () -> win.put(kilo, 0, kilo.length, Datatype.BYTE, 1, 0).compose(x -> win.flush(1))))
        .compose(t -> record(out, "put 1 KiB + flush", t, base))
        .compose(v -> measure(n / 5, () -> win.put(big, 0, big.length, Datatype.BYTE, 1, 0).compose(x -> win.flush(1))))
        .compose(t -> record(out, "put 64 KiB + flush", t, base))
        .compose(v -> win.unlock(1))
        .map(v -> {
          if (print) {
            System.out.print(out);
          }
          return null;
        });
  }

  private static Future<Void> record(StringBuilder out, String what, double t, double[] base) {
    row(out, what, t, base[0]);
    return Future.succeededFuture();
  }

  private static void row(StringBuilder out, String what, double t, double base) {
    out.append(String.format(Locale.ROOT, "%-28s %10.2f %8.2f%n", what, t, t / base));
  }

  /** Median latency in microseconds of {@code n} sequential runs of {@code op}, after a warm-up. */
  private static Future<Double> measure(int n, Supplier<Future<?>> op) {
    long[] samples = new long[n];
    return loop(WARMUP, op, null).compose(v -> loop(n, op, samples)).map(v -> {
      Arrays.sort(samples);
      return samples[n / 2] / 1000.0;
    });
  }

  /**
   * Runs {@code op} {@code n} times, one after the other. A flat callback loop, not a chain of
   * nested {@code compose}: completing thousands of nested futures at once would overflow the stack.
   */
  private static Future<Void> loop(int n, Supplier<Future<?>> op, long[] samples) {
    Promise<Void> done = Promise.promise();
    next(0, n, op, samples, done);
    return done.future();
  }

  private static void next(int i, int n, Supplier<Future<?>> op, long[] samples, Promise<Void> done) {
    if (i == n) {
      done.complete();
      return;
    }
    long t0 = System.nanoTime();
    op.get().onComplete(ar -> {
      if (ar.failed()) {
        done.fail(ar.cause());
        return;
      }
      if (samples != null) {
        samples[i] = System.nanoTime() - t0;
      }
      next(i + 1, n, op, samples, done);
    });
  }
}
