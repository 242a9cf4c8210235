package dev.vertxrma.runtime;

import com.sun.management.OperatingSystemMXBean;
import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The rank program {@link IdleJobTest} runs through {@code bin/rmarun}, one rank per JVM: after a
 * barrier each rank waits until its JVM has settled — a sample of {@value #SAMPLE_MS} ms in which
 * the JVM used at most {@code ARGS[1]} of a core (the JIT compiling the job's start-up and other
 * start-up work go on for seconds, longer on loaded cores) — for at most {@value #SETTLE_MAX_MS}
 * ms; then a barrier, and each rank waits on nothing for {@code ARGS[0]} milliseconds (a Vert.x
 * timer; the event loops have no work), reads its JVM's CPU time (every thread: event loops,
 * Hazelcast, the JIT, the collector) at the start and the end of that window, and prints
 * {@code idle-cpu: rank R cpu C ms in W ms after S ms, settled|unsettled}; a final barrier ends
 * the job. A JVM that never settles (an event loop that never sleeps takes a whole core) goes on
 * to the window after {@value #SETTLE_MAX_MS} ms, which then shows it.
 */
public class IdleJobProgram implements RankProgram {

  /** The start of the line each rank prints. */
  public static final String LINE = "idle-cpu: rank ";

  /** One sample of the settling: the heartbeats (every second) come within it. */
  private static final long SAMPLE_MS = 1_000;
  /** The longest the settling goes on. */
  private static final long SETTLE_MAX_MS = 60_000;

  /** Needed by rmarun: one instance per rank. */
  public IdleJobProgram() {
  }

  @Override
  public Future<?> run(Comm world, List<String> args) {
    if (args.size() != 2) {
      return Future.failedFuture(new RmaException(ErrorClass.ARG, "idle: two arguments, the idle window in ms and "
          + "the largest fraction of a core a settled JVM uses"));
    }
    long windowMs = Long.parseLong(args.get(0));
    double maxFraction = Double.parseDouble(args.get(1));
    Vertx vertx = world.vertx();
    long[] start = new long[2];
    boolean[] settled = new boolean[1];
    long settleStart = System.nanoTime();
    return world.barrier()
        .compose(v -> settle(vertx, maxFraction, settleStart + SETTLE_MAX_MS * 1_000_000L))
        .compose(ok -> {
          settled[0] = ok;
          return world.barrier();
        })
        .compose(v -> cpuNanos(vertx))
        .compose(cpu -> {
          start[0] = cpu;
          start[1] = System.nanoTime();
          return timer(vertx, windowMs);
        })
        .compose(v -> cpuNanos(vertx))
        .compose(cpu -> {
          long wall = System.nanoTime() - start[1];
          System.out.println(LINE + world.rank() + " cpu " + (cpu - start[0]) / 1_000_000 + " ms in " + wall / 1_000_000
              + " ms after " + (start[1] - settleStart) / 1_000_000 + " ms, " + (settled[0] ? "settled" : "unsettled"));
          return world.barrier();
        });
  }

  /**
   * Samples this JVM's CPU use, {@value #SAMPLE_MS} ms at a time, until a sample is at most
   * {@code maxFraction} of a core (true) or {@code deadline} (System.nanoTime) has passed (false).
   */
  private static Future<Boolean> settle(Vertx vertx, double maxFraction, long deadline) {
    long[] t0 = new long[2];
    return cpuNanos(vertx).compose(cpu -> {
      t0[0] = cpu;
      t0[1] = System.nanoTime();
      return timer(vertx, SAMPLE_MS);
    }).compose(v -> cpuNanos(vertx)).compose(cpu -> {
      long now = System.nanoTime();
      if (cpu - t0[0] <= maxFraction * (now - t0[1])) {
        return Future.succeededFuture(true);
      }
      return now >= deadline ? Future.succeededFuture(false) : settle(vertx, maxFraction, deadline);
    });
  }

  private static Future<Void> timer(Vertx vertx, long ms) {
    Promise<Void> p = Promise.promise();
    vertx.setTimer(ms, id -> p.complete());
    return p.future();
  }

  /** This JVM's CPU time, read on a worker (the management beans load classes on first use). */
  private static Future<Long> cpuNanos(Vertx vertx) {
    return vertx.executeBlocking(() ->
        ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime());
  }
}
