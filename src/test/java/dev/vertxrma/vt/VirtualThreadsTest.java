package dev.vertxrma.vt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import dev.vertxrma.junit.RmaJob;
import dev.vertxrma.junit.RmaTest;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.VirtualThreadsAvailable;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.ThreadingModel;
import io.vertx.core.internal.VertxInternal;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Rank programs in MPI's blocking style on virtual-thread ranks ({@link JobOptions#setVirtualThreads}),
 * embedded and clustered, under the blocked-thread checker: a parked rank keeps serving its window,
 * long await loops, lock contention, and calls from virtual threads and event loops mixed. Every
 * value is checked. Runs in the {@code virtual-threads} Surefire execution, on Java 21+.
 */
@Tag("vt")
class VirtualThreadsTest {

  @BeforeAll
  static void needsJava21() {
    VirtualThreadsAvailable.assume(VirtualThreadsTest.class);
  }

  static JobOptions vt(int np) {
    return Jobs.options(np).setVirtualThreads(true);
  }

  static void run(Jobs.Mode mode, JobOptions options, RankProgram program) {
    Jobs.await(Jobs.start(mode, options, (world, args) -> {
      Context ctx = io.vertx.core.Vertx.currentContext();
      assertEquals(ThreadingModel.VIRTUAL_THREAD, ctx.threadingModel(), "the rank runs on a virtual-thread context");
      return program.run(world, args);
    }), 300);
  }

  /**
   * Rank 0 parks in {@code barrier().await()} at once; ranks 1..3, meanwhile, put into and
   * accumulate onto its window under lockAll, pipelined and awaited. Only a rank that keeps
   * serving while parked lets them finish and reach the barrier.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aParkedRankKeepsServingItsWindow(Jobs.Mode mode) {
    int n = 200;
    run(mode, vt(4), (world, args) -> {
      int r = world.rank();
      Win win = Win.allocate(world, 8 * 8, 8, Info.NULL).await();
      if (r == 0) {
        world.barrier().await();
        long[] got = new long[8];
        for (int i = 0; i < 8; i++) {
          got[i] = win.memory().readLong(8L * i);
        }
        long[] want = new long[8];
        want[0] = (1 + 2 + 3) * (long) n;              // accumulated by every rank, n times each
        for (int s = 1; s <= 3; s++) {
          want[s] = s * 1000L + n - 1;                  // the last of rank s's puts
          want[3 + s] = (long) s * n * (n - 1) / 2;     // rank s's pipelined accumulates of 0..n-1
        }
        assertEquals(Arrays.toString(want), Arrays.toString(got), "rank 0's window");
      } else {
        win.lockAll().await();
        long[] one = {r};
        long[] v = new long[1];
        Future<?> last = Future.succeededFuture();
        for (int i = 0; i < n; i++) {
          v[0] = r * 1000L + i;
          win.put(Buf.of(v), 0, 1, Datatype.LONG, 0, r).await();              // awaited: origin completion
          win.accumulate(Buf.of(one), 0, 1, Datatype.LONG, 0, 0, Op.SUM).await();
          last = win.accumulate(Buf.of(new long[] {(long) r * i}), 0, 1, Datatype.LONG, 0, 3 + r, Op.SUM); // not awaited
        }
        last.await();
        win.flush(0).await();
        win.unlockAll().await();
        world.barrier().await();
      }
      return win.free();
    });
  }

  /** 1,000,000 iterations of {@code put(...).await(); flush(...).await()}, each value checked at the target. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aMillionAwaitedPutsAndFlushes(Jobs.Mode mode) {
    int iterations = 1_000_000;
    run(mode, vt(2), (world, args) -> {
      Win win = Win.allocate(world, 8, 8, Info.NULL).await();
      int self = world.rank();
      long[] v = new long[1];
      win.lock(LockType.EXCLUSIVE, self).await();
      long start = System.nanoTime();
      for (int i = 0; i < iterations; i++) {
        v[0] = i;
        win.put(Buf.of(v), 0, 1, Datatype.LONG, self, 0).await();
        win.flush(self).await();
        long at = win.memory().readLong(0);
        if (at != i) {
          throw new AssertionError("after put " + i + " + flush the window holds " + at);
        }
      }
      long ns = System.nanoTime() - start;
      win.unlock(self).await();
      if (self == 0) {
        System.out.printf("VirtualThreadsTest %s: %d awaited put + flush in %.0f ms (%.2f us each)%n", mode, iterations,
            ns / 1e6, ns / 1e3 / iterations);
      }
      world.barrier().await();
      return win.free();
    });
  }

  /**
   * Four ranks increment one counter under exclusive locks in the blocking style: the total is
   * exact and the values the ranks read are 0..total-1, each exactly once.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void lockContentionInTheBlockingStyle(Jobs.Mode mode) {
    int n = 150;
    int np = 4;
    run(mode, vt(np), (world, args) -> {
      Win win = Win.allocate(world, 8, 8, Info.NULL).await();
      world.barrier().await();
      long[] seen = new long[n];
      long[] cur = new long[1];
      for (int i = 0; i < n; i++) {
        win.lock(LockType.EXCLUSIVE, 0).await();
        win.get(Buf.of(cur), 0, 1, Datatype.LONG, 0, 0).await();
        seen[i] = cur[0];
        cur[0]++;
        win.put(Buf.of(cur), 0, 1, Datatype.LONG, 0, 0).await();
        win.unlock(0).await();
      }
      long[] all = new long[np * n];
      world.gather(Buf.of(seen), 0, n, Datatype.LONG, Buf.of(all), 0, n, Datatype.LONG, 0).await();
      world.barrier().await();
      if (world.rank() == 0) {
        assertEquals((long) np * n, win.memory().readLong(0), "the counter after " + np + " x " + n + " increments");
        Arrays.sort(all);
        for (int k = 0; k < all.length; k++) {
          assertEquals(k, all[k], "the values read under the lock are 0..total-1, each once");
        }
      }
      return win.free();
    });
  }

  /**
   * Calls from a rank's virtual thread and from an event loop, in one epoch: the virtual thread
   * awaits each accumulate while an event-loop context issues its own loop of accumulates
   * onto the same counter. The total is exact.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void callsFromVirtualThreadsAndEventLoopsMix(Jobs.Mode mode) {
    int n = 500;
    int np = 3;
    run(mode, vt(np), (world, args) -> {
      Win win = Win.allocate(world, 8, 8, Info.NULL).await();
      win.lockAll().await();
      VertxInternal vertx = (VertxInternal) io.vertx.core.Vertx.currentContext().owner();
      Promise<Void> fromLoop = Promise.promise();
      vertx.createEventLoopContext().runOnContext(x -> {
        assertTrue(Context.isOnEventLoopThread());
        Rma.repeat(n, i -> win.accumulate(Buf.of(new long[] {1000}), 0, 1, Datatype.LONG, 0, 0, Op.SUM))
            .onComplete(fromLoop);
      });
      long[] one = {1};
      for (int i = 0; i < n; i++) {
        win.accumulate(Buf.of(one), 0, 1, Datatype.LONG, 0, 0, Op.SUM).await();
      }
      fromLoop.future().await();
      win.flush(0).await();
      win.unlockAll().await();
      world.barrier().await();
      if (world.rank() == 0) {
        assertEquals((long) np * n * 1001, win.memory().readLong(0), "the counter");
      }
      return win.free();
    });
  }

  /**
   * {@link Rma#run} of a virtual-thread job closes its own Vert.x and ends: closed from the
   * virtual-thread context that completes the job, Vert.x 5.0 waited 10 s for that context's
   * executor to end while it ran the close itself. The job's end must not wait that out: 5 s
   * after the program's end is twice the longest close seen on 2 loaded cores, and half the
   * defect's 10 s.
   */
  @org.junit.jupiter.api.Test
  void aVirtualThreadJobEndsWithoutWaitingOutVertxsShutdown() throws Exception {
    long[] programEnded = new long[1];
    Future<Void> job = Rma.run(vt(2), (world, args) -> {
      world.barrier().await();
      programEnded[0] = System.nanoTime();
      return Future.succeededFuture();
    });
    job.toCompletionStage().toCompletableFuture().get(60, java.util.concurrent.TimeUnit.SECONDS);
    long closeMs = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - programEnded[0]);
    assertTrue(closeMs < 5_000, "the job ended " + closeMs + " ms after its program");
  }

  /** {@code @RmaTest(virtualThreads = true)}: a user's JUnit test of a blocking-style program, in this JVM and over two. */
  @RmaTest(ranks = 3, virtualThreads = true)
  void theJUnitExtensionRunsVirtualThreadRanks(RmaJob job) {
    job.withVertx(Jobs.embedded()).run((world, args) -> {
      assertEquals(ThreadingModel.VIRTUAL_THREAD, io.vertx.core.Vertx.currentContext().threadingModel());
      long sum = world.allreduce((long) world.rank(), Op.SUM).await();
      assertEquals(3L, sum);
      return Future.succeededFuture();
    });
  }

  @Tag("multijvm")
  @RmaTest(ranks = 4, jvms = 2, virtualThreads = true)
  void theJUnitExtensionRunsVirtualThreadRanksOverTwoJvms(RmaJob job) {
    job.run(dev.vertxrma.samples.styles.LinkedListVt.class);
  }
}
