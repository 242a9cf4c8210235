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
 * barrier and {@value #SETTLE_MS} ms more (the JIT compiles the job's start-up meanwhile), each rank
 * waits on nothing for {@code ARGS[0]} milliseconds (a Vert.x timer; the event loops have no
 * work), reads its JVM's CPU time (every thread: event loops, Hazelcast, the JIT, the collector)
 * at the start and the end of that window, and prints {@code idle-cpu: rank R cpu C ms in W ms
 * after S ms}; a final barrier ends the job.
 */
public class IdleJobProgram implements RankProgram {

  /** The start of the line each rank prints. */
  public static final String LINE = "idle-cpu: rank ";

  /** From the first barrier to the window. */
  private static final long SETTLE_MS = 5_000;

  /** Needed by rmarun: one instance per rank. */
  public IdleJobProgram() {
  }

  @Override
  public Future<?> run(Comm world, List<String> args) {
    if (args.size() != 1) {
      return Future.failedFuture(new RmaException(ErrorClass.ARG, "idle: one argument, the idle window in ms"));
    }
    long windowMs = Long.parseLong(args.get(0));
    Vertx vertx = world.vertx();
    long[] start = new long[2];
    long settleStart = System.nanoTime();
    return world.barrier()
        .compose(v -> timer(vertx, SETTLE_MS))
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
              + " ms after " + (start[1] - settleStart) / 1_000_000 + " ms");
          return world.barrier();
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
