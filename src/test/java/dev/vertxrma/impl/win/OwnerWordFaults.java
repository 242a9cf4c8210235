package dev.vertxrma.impl.win;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The job of {@code OwnerWordFaultsTest}: 2 ranks on 2 JVMs of this host, one {@code allocate}
 * window of {@value #BIG} bytes per rank, so its memory lives in host segments. Rank 1 puts the
 * whole window to rank 0 over and over under {@code lockAll}: each put is applied by rank 1's
 * event loop in rank 0's segment, holding rank 0's owner word for the copy (a few ms), so a
 * signal sent to rank 1's JVM almost always finds it holding the word. Rank 0 runs
 * {@value #IN_FLIGHT} chains of owner tasks of its window ({@code ExposureEpochs.heldCount}), each
 * issuing its next task {@value #TICK_MS} ms after the last one ended (so that a chain whose task
 * waits wakes its loop no more), and prints, as {@code "owner-word: rank 0 ..."} lines:
 *
 * <ul>
 *   <li>once an owner task has waited more than {@value #STALL_MS} ms: that tasks wait behind the
 *       word, and {@value #CPU_MS} ms later how much CPU its JVM's event loops used meanwhile
 *       ({@link ThreadMXBean}, in % of one core);</li>
 *   <li>once the job failed (a receive from rank 1 fails): how many owner tasks were pending,
 *       and then either that they all ended (completed or failed, with the first failure) or how
 *       many were still pending {@value #PENDING_BOUND_MS} ms after the failure.</li>
 * </ul>
 *
 * <p>Test code only. Usage: {@code rmarun -np 2 --jvms 2 dev.vertxrma.impl.win.OwnerWordFaults}.
 */
public final class OwnerWordFaults extends RankVerticle {

  static final int BIG = 64 << 20;
  static final int IN_FLIGHT = 4;
  static final long TICK_MS = 2;
  static final long STALL_MS = 300;
  static final long CPU_MS = 1_500;
  static final long PENDING_BOUND_MS = 2_000;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    if (world.size() != 2) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "owner-word: needs 2 ranks, got %d", world.size()));
    }
    Vertx vertx = Vertx.currentContext().owner();
    return Win.allocate(world, BIG, 1, Info.NULL).compose(win -> {
      WinImpl w = (WinImpl) win;
      if (w.onNodePeers() != 1) {
        return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "owner-word: rank %d reaches %d rank(s) in "
            + "their segments: the on-node path is off", world.rank(), w.onNodePeers()));
      }
      if (world.rank() == 1) {
        return win.lockAll().compose(v -> world.barrier()).compose(v -> putForever(w, Buf.of(new byte[BIG])));
      }
      return world.barrier().compose(v -> new Target(vertx, world, w.targetWindow()).run());
    });
  }

  private static Future<Void> putForever(WinImpl win, Buf whole) {
    return win.put(whole, 0, BIG, Datatype.BYTE, 0, 0).compose(v -> win.flush(0)).compose(v -> {
      if (win.appliedOnNode() == 3) {
        System.out.println("owner-word: rank 1 puts " + (BIG >> 20) + " MiB into rank 0's segment, over and over");
        System.out.flush();
      }
      return putForever(win, whole);
    });
  }

  /** Rank 0: owner tasks queued without pause, the stall and the failure reported. */
  private static final class Target {
    private final Vertx vertx;
    private final Comm world;
    private final TargetWindow target;
    /** Owner tasks in flight and when each was issued (nanoTime). */
    private final Map<Future<Integer>, Long> inFlight = new LinkedHashMap<>();
    private final Promise<Void> done = Promise.promise();
    private boolean stallReported;
    private boolean failed;

    Target(Vertx vertx, Comm world, TargetWindow target) {
      this.vertx = vertx;
      this.world = world;
      this.target = target;
    }

    Future<Void> run() {
      for (int i = 0; i < IN_FLIGHT; i++) {
        next();
      }
      world.recv(Buf.of(new long[1]), 0, 1, Datatype.LONG, 1, 77).onComplete(ar -> onJobFailure(ar.cause()));
      return done.future();
    }

    /** Issues a chain's next owner task, and the next one {@value #TICK_MS} ms after it ended. */
    private void next() {
      if (failed) {
        return;
      }
      long issued = System.nanoTime();
      Future<Integer> f = target.exposure().heldCount();
      if (f.isComplete()) {
        vertx.setTimer(TICK_MS, id -> next());
        return;
      }
      inFlight.put(f, issued);
      long stall = vertx.setTimer(STALL_MS, id -> stalled(issued));
      f.onComplete(ar -> {
        inFlight.remove(f);
        vertx.cancelTimer(stall);
        vertx.setTimer(TICK_MS, id -> next());
      });
    }

    private void stalled(long issued) {
      if (!stallReported && !failed) {
        stallReported = true;
        print("owner tasks wait behind the word (the oldest for " + (System.nanoTime() - issued) / 1_000_000 + " ms)");
        Map<Long, Long> before = loopCpu();
        long from = System.nanoTime();
        vertx.setTimer(CPU_MS, id -> {
          Map<Long, Long> after = loopCpu();
          long elapsed = System.nanoTime() - from;
          long used = 0;
          StringBuilder each = new StringBuilder();
          for (Map.Entry<Long, Long> e : after.entrySet()) {
            long ns = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            used += ns;
            each.append(each.length() == 0 ? "" : ", ").append(String.format(java.util.Locale.ROOT, "%.1f",
                100.0 * ns / elapsed));
          }
          print(String.format(java.util.Locale.ROOT, "event loops used %.1f %% of a core for %d ms while owner "
              + "tasks waited (%d loop threads: %s %%)", 100.0 * used / elapsed, CPU_MS, after.size(), each));
        });
      }
    }

    /** CPU time (ns) of each event-loop thread of this JVM. */
    private static Map<Long, Long> loopCpu() {
      ThreadMXBean mx = ManagementFactory.getThreadMXBean();
      Map<Long, Long> cpu = new HashMap<>();
      for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
        if (t != null && t.getThreadName().startsWith("vert.x-eventloop-thread")) {
          long ns = mx.getThreadCpuTime(t.getThreadId());
          if (ns >= 0) {
            cpu.put(t.getThreadId(), ns);
          }
        }
      }
      return cpu;
    }

    private void onJobFailure(Throwable cause) {
      if (failed) {
        return;
      }
      failed = true;
      long at = System.nanoTime();
      List<Future<Integer>> pending = List.copyOf(inFlight.keySet());
      print("the job failed (" + cause + "); " + pending.size() + " owner task(s) pending");
      Promise<Void> bounded = Promise.promise();
      long bound = vertx.setTimer(PENDING_BOUND_MS, id -> bounded.tryComplete());
      Future.join(pending).onComplete(ar -> bounded.tryComplete());
      bounded.future().onComplete(ar -> {
        vertx.cancelTimer(bound);
        long still = pending.stream().filter(f -> !f.isComplete()).count();
        if (still > 0) {
          print(still + " of " + pending.size() + " owner task(s) still pending " + PENDING_BOUND_MS
              + " ms after the failure");
        } else {
          long completed = pending.stream().filter(Future::succeeded).count();
          Throwable first = pending.stream().filter(Future::failed).map(Future::cause).findFirst().orElse(null);
          print("all " + pending.size() + " pending owner task(s) ended " + (System.nanoTime() - at) / 1_000_000
              + " ms after the failure: " + completed + " completed, " + (pending.size() - completed) + " failed"
              + (first == null ? "" : " (first: " + first.getMessage() + ")"));
        }
        done.fail(cause instanceof RmaException ? cause : new RmaException(ErrorClass.OTHER, "owner-word: " + cause));
      });
    }

    private static void print(String what) {
      System.out.println("owner-word: rank 0 " + what);
      System.out.flush();
    }
  }
}
