package dev.vertxrma.bench;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The vertx-rma side of {@code rmabench}: a rank program that runs the requested benches one
 * after the other in one job and prints, at rank 0, one {@code @row,...} line per bench and size
 * (see {@link Row}). Started by {@link RmaBench} through {@code rmarun}; arguments are a
 * {@link BenchPlan}. Every bench does exactly what {@code bench/native/rmabench_native.c} does
 * with MPICH, so the two rows compare like with like.
 *
 * <p>On virtual-thread ranks ({@code rmabench --virtual-threads}) every round is written in the
 * blocking style instead: each call of the round is awaited before the next is made
 * ({@link #steps}), as an MPI program would.
 */
public final class BenchProgram implements RankProgram {

  private static final int ORIGIN = 0;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    return BenchPlan.fromArgs(args).compose(plan -> run(world, plan));
  }

  private static Future<Void> run(Comm world, BenchPlan plan) {
    if (world.size() < 2 && plan.points().stream().anyMatch(p -> p.bench().oneSided())) {
      return Future.failedFuture(new RmaException(ErrorClass.ARG, "one-sided benches need at least 2 ranks (-np 2)"));
    }
    // the coordination benches run in a job of their own (CoordinationProgram)
    List<BenchPlan.Point> points = plan.points().stream().filter(p -> p.bench().kind != Bench.Kind.COORDINATION).toList();
    return Win.allocate(world, plan.windowBytes(), 1, Info.NULL).compose(win ->
        Rma.repeat(points.size(), k -> world.barrier().compose(v -> runPoint(world, win, plan, points.get(k), k == 0)))
            .compose(v -> win.free()));
  }

  /**
   * The calls of one round, one after the other: chained with {@code compose} on an event loop;
   * on a virtual thread each awaited in turn (the round's future is then complete when returned).
   */
  @SafeVarargs
  static Supplier<Future<?>> steps(Supplier<? extends Future<?>>... calls) {
    io.vertx.core.Context ctx = io.vertx.core.Vertx.currentContext();
    if (ctx != null && ctx.threadingModel() == io.vertx.core.ThreadingModel.VIRTUAL_THREAD) {
      return () -> {
        for (Supplier<? extends Future<?>> call : calls) {
          call.get().await();
        }
        return Future.succeededFuture();
      };
    }
    return () -> {
      Future<?> f = calls[0].get();
      for (int k = 1; k < calls.length; k++) {
        Supplier<? extends Future<?>> next = calls[k];
        f = f.compose(v -> next.get().mapEmpty());
      }
      return f;
    };
  }

  /**
   * The first point of a run warms up for at least this long: the JVM's compilers still work
   * through the start-up code then (put 8 B + flush measured 0.35 µs after 1 s, 0.16 after 4 s).
   */
  private static final long FIRST_POINT_WARMUP_NANOS = 4_000_000_000L;

  private static Future<Void> runPoint(Comm world, Win win, BenchPlan plan, BenchPlan.Point p, boolean first) {
    Bench bench = p.bench();
    long bytes = p.bytes();
    int iters = plan.iterations(bench, bytes);
    Latencies lat = Latencies.measured();
    long warmupNanos = first && plan.warmupNanos() > 0 ? Math.max(plan.warmupNanos(), FIRST_POINT_WARMUP_NANOS)
        : plan.warmupNanos();
    Warmup warmup = new Warmup(world, plan.warmup(iters), warmupNanos, lat);
    int rank = world.rank();
    int target = world.size() - 1;
    Future<Void> measured;
    if (!bench.oneSided()) {
      Supplier<Future<?>> op = steps(collective(world, win, bench, bytes));
      Future<Void> loop = warmup.run(op).compose(v -> lat.measure(iters, op));
      measured = bench == Bench.FENCE ? loop.compose(v -> win.fence(Mode.NOSUCCEED)) : loop;
    } else if (bench == Bench.NET_LATENCY) {
      measured = NetRoundTrip.run(world, bytes, rank, target, iters, warmup, lat);
    } else if (bench == Bench.NOTIFY_LATENCY || bench == Bench.SIGNAL_LATENCY) {
      measured = NotifiedPingPong.run(world, win, bench == Bench.NOTIFY_LATENCY, bytes, target, iters, warmup, lat);
    } else {
      measured = oneSided(world, win, p, rank, target, iters, warmup, lat);
    }
    return measured.compose(v -> world.barrier()).map(v -> {
      if (rank == ORIGIN) {
        double median = lat.medianUs();
        double mbPerS = bench.kind == Bench.Kind.BANDWIDTH ? Bench.BW_WINDOW * bytes / median : Double.NaN;
        Row row = new Row(Row.OURS, bench.id, bench.syncColumn(p.sync()), world.size(), plan.jvms(), bytes, iters,
            median, lat.p99Us(), mbPerS);
        System.out.println(row.toWire());
        System.out.flush();
      }
      return null;
    });
  }

  /**
   * The unmeasured warm-up of one bench point: phases of {@code phase} rounds, each followed by an
   * allreduce that goes on while any rank has warmed up for less than {@code nanos}, so every rank
   * runs the same number of rounds (the synchronizations of a round match across ranks).
   */
  static final class Warmup {
    private final Comm world;
    private final int phase;
    private final long nanos;
    private final Latencies lat;

    Warmup(Comm world, int phase, long nanos, Latencies lat) {
      this.world = world;
      this.phase = phase;
      this.nanos = nanos;
      this.lat = lat;
    }

    /**
     * Runs the warm-up rounds, through the very code that times the measured ones (so that it is
     * compiled when they start); {@code round} null: this rank plays no part in the rounds, only
     * in the agreement.
     */
    Future<Void> run(Supplier<Future<?>> round) {
      if (nanos == 0) {
        return round == null ? Future.succeededFuture() : lat.rounds(phase, round);
      }
      long start = System.nanoTime();
      return Rma.repeatUntil(() -> (round == null ? Future.succeededFuture() : lat.rounds(phase, round))
          .compose(v -> world.allreduce(System.nanoTime() - start < nanos ? 1L : 0L, Op.MAX))
          .map(more -> more == 0L));
    }
  }

  private static Supplier<Future<?>> collective(Comm world, Win win, Bench bench, long bytes) {
    switch (bench) {
      case BARRIER:
        return world::barrier;
      case FENCE:
        return win::fence;
      case ALLREDUCE: {
        int count = (int) Math.max(1, bytes / 8);
        double[] in = new double[count];
        double[] out = new double[count];
        return () -> world.allreduce(Buf.of(in), 0, Buf.of(out), 0, count, Datatype.DOUBLE, Op.SUM);
      }
      default:
        throw new IllegalStateException(bench.id + " is not a collective bench");
    }
  }

  /** One-sided benches: rank 0 measures against the last rank; the target plays its part of the sync. */
  private static Future<Void> oneSided(Comm world, Win win, BenchPlan.Point p, int rank, int target, int iters,
      Warmup warmup, Latencies lat) {
    Bench.Sync sync = p.bench().takesSync ? p.sync() : Bench.Sync.LOCKALL;
    Supplier<Future<?>> op = rank == ORIGIN ? operation(win, p.bench(), p.bytes(), target) : null;
    switch (sync) {
      case LOCKALL:
        if (rank != ORIGIN) {
          return warmup.run(null);
        }
        Supplier<Future<?>> opFlush = steps(op, () -> win.flush(target));
        return win.lockAll().compose(v -> warmup.run(opFlush)).compose(v -> lat.measure(iters, opFlush))
            .compose(v -> win.unlockAll());
      case LOCK:
        if (rank != ORIGIN) {
          return warmup.run(null);
        }
        Supplier<Future<?>> locked = steps(() -> win.lock(LockType.SHARED, target), op, () -> win.unlock(target));
        return warmup.run(locked).compose(v -> lat.measure(iters, locked));
      case FENCE:
        Supplier<Future<?>> epoch = rank == ORIGIN ? steps(op, win::fence) : steps(win::fence);
        // a plain first fence, as the native twin does (MPI_Win_fence(0))
        return win.fence().compose(v -> warmup.run(epoch)).compose(v -> lat.measure(iters, epoch))
            .compose(v -> win.fence(Mode.NOSUCCEED));
      case PSCW:
        if (rank == ORIGIN) {
          Group targets = Group.of(rank, target);
          Supplier<Future<?>> access = steps(() -> win.start(targets), op, win::complete);
          return warmup.run(access).compose(v -> lat.measure(iters, access));
        }
        if (rank == target) {
          Group origins = Group.of(rank, ORIGIN);
          Supplier<Future<?>> exposure = steps(() -> win.post(origins), win::waitFor);
          return warmup.run(exposure).compose(v -> Rma.repeat(iters, i -> exposure.get()));
        }
        return warmup.run(null);
      default:
        throw new IllegalStateException("unknown sync " + sync);
    }
  }

  /** The measured operation of a one-sided bench, without its synchronization. */
  private static Supplier<Future<?>> operation(Win win, Bench bench, long bytes, int target) {
    int n = (int) bytes;
    int longs = (int) Math.max(1, bytes / 8);
    switch (bench) {
      case PUT_LATENCY: {
        byte[] buf = pattern(n);
        return () -> win.put(Buf.of(buf), 0, n, Datatype.BYTE, target, 0);
      }
      case GET_LATENCY: {
        byte[] buf = new byte[n];
        return () -> win.get(Buf.of(buf), 0, n, Datatype.BYTE, target, 0);
      }
      case ACC_LATENCY: {
        long[] buf = new long[longs];
        return () -> win.accumulate(Buf.of(buf), 0, longs, Datatype.LONG, target, 0, Op.SUM);
      }
      case GET_ACC_LATENCY: {
        long[] buf = new long[longs];
        long[] result = new long[longs];
        return () -> win.getAccumulate(Buf.of(buf), 0, longs, Datatype.LONG, Buf.of(result), 0, longs, Datatype.LONG, target, 0,
            longs, Datatype.LONG, Op.SUM);
      }
      case FOP_LATENCY: {
        long[] one = {1};
        long[] result = new long[1];
        return () -> win.fetchAndOp(Buf.of(one), 0, Buf.of(result), 0, Datatype.LONG, target, 0, Op.SUM);
      }
      case CAS_LATENCY: {
        long[] value = {1};
        long[] compare = {0};
        long[] result = new long[1];
        return () -> win.compareAndSwap(Buf.of(value), 0, Buf.of(compare), 0, Buf.of(result), 0, Datatype.LONG, target, 0);
      }
      case PUT_BW:
      case GET_BW:
        return bandwidthRound(win, bench == Bench.PUT_BW, n, target);
      default:
        throw new IllegalStateException(bench.id + " is not a one-sided bench");
    }
  }

  /**
   * OSU's bandwidth round: 64 operations of {@code n} bytes issued back to back, then one flush;
   * operation {@code j} uses slot {@code j mod (window / n)} of the window (as the native twin).
   */
  private static Supplier<Future<?>> bandwidthRound(Win win, boolean put, int n, int target) {
    long window = Bench.bwWindowBytes(n);
    byte[] buf = put ? pattern((int) window) : new byte[(int) window];
    List<Future<?>> round = new ArrayList<>(Bench.BW_WINDOW + 1);
    return () -> {
      round.clear();
      for (int j = 0; j < Bench.BW_WINDOW; j++) {
        int at = (int) (j % (window / n) * n);
        round.add(put ? win.put(Buf.of(buf), at, n, Datatype.BYTE, target, at) : win.get(Buf.of(buf), at, n, Datatype.BYTE, target, at));
      }
      round.add(win.flush(target));
      return Future.all(round);
    };
  }

  private static byte[] pattern(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + 7);
    }
    return b;
  }
}
