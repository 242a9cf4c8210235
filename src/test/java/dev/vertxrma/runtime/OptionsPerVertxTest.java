package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.ClusterOptions;
import dev.vertxrma.CopyOptions;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Progress;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.World;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.memory.ParallelCopy;
import dev.vertxrma.impl.runtime.JobRuntime;
import dev.vertxrma.impl.transport.PollingTransport;
import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two Vert.x instances in one JVM run jobs with different options, at the same time, and each job
 * sees its own: its copy threads, its trace file (and format), its data-plane host; when clustered,
 * each node its own progress mode. Closing one instance releases what it held (its jobs, a world
 * left open among them, and its copy threads, which have ended when the close completes) while the
 * other still runs RMA operations with the right values; a job started on the closed instance
 * fails with ARG.
 */
class OptionsPerVertxTest {

  @TempDir
  Path dir;

  /**
   * Every rank puts {@code tag + rank} into the next rank's window in one fence epoch and gets it
   * back in the next; a wrong value fails the rank.
   */
  private static RankProgram ring(long tag) {
    return (world, args) -> {
      int r = world.rank();
      int next = (r + 1) % world.size();
      long[] back = new long[1];
      return Win.allocate(world, 8, 8, Info.NULL).compose(win -> win.fence()
          .compose(v -> win.put(Buf.of(new long[] {tag + r}), 0, 1, Datatype.LONG, next, 0))
          .compose(v -> win.fence())
          .compose(v -> win.get(Buf.of(back), 0, 1, Datatype.LONG, next, 0))
          .compose(v -> win.fence())
          .compose(v -> {
            if (back[0] != tag + r) {
              return Future.failedFuture(new AssertionError("rank " + r + " read " + back[0] + " back from rank "
                  + next + ", wrote " + (tag + r)));
            }
            return win.free();
          }));
    };
  }

  private static Vertx start(Jobs.Mode mode, Progress progress) {
    if (mode == Jobs.Mode.EMBEDDED) {
      return BlockedThreadGuard.watch(Vertx.vertx(BlockedThreadGuard.options()));
    }
    // a cluster of its own: the job's ranks all live in this node, over its clustered event bus and data plane
    return BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx("opt-" + UUID.randomUUID().toString().substring(0, 8),
        BlockedThreadGuard.options(), new ClusterOptions(), progress), 120));
  }

  /** A large copy on a worker thread of {@code vertx}: byte for byte, and it starts the instance's copy threads. */
  private static void copyOnAWorker(Vertx vertx) {
    int n = 4 << 20;
    byte[] src = new byte[n];
    for (int i = 0; i < n; i++) {
      src[i] = (byte) (i * 13 + 1);
    }
    byte[] dst = new byte[n];
    Jobs.await(vertx.executeBlocking(() -> {
      Memory.copy(src, Memory.ARRAY_BYTE_BASE_OFFSET, dst, Memory.ARRAY_BYTE_BASE_OFFSET, n);
      return null;
    }), 30);
    assertEquals(-1, java.util.Arrays.mismatch(src, dst), "first wrong byte of a copy on a worker");
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void twoVertxInstancesRunJobsWithTheirOwnOptionsAndClosingOneReleasesOnlyItsOwn(Jobs.Mode mode) throws Exception {
    Vertx a = start(mode, Progress.SLEEP);
    Vertx b = start(mode, Progress.ADAPTIVE);
    try {
      Path traceA = dir.resolve("a.json");
      Path traceB = dir.resolve("b.html");
      JobOptions optionsA = Jobs.options(2).setCopyOptions(new CopyOptions().setCopyThreads(1))
          .setTraceFile(traceA.toString());
      optionsA.getTraceOptions().setEventsPerRank(64);
      optionsA.getTransportOptions().setHost("127.0.0.2");
      JobOptions optionsB = Jobs.options(3).setCopyOptions(new CopyOptions().setCopyThreads(2))
          .setTraceFile(traceB.toString());

      // both jobs at once, each on its instance
      Jobs.await(Future.all(Rma.run(a, optionsA, ring(1000)), Rma.run(b, optionsB, ring(2000))), 120);
      assertEquals(1, ParallelCopy.threadsOf(a), "copy threads of the first instance");
      assertEquals(2, ParallelCopy.threadsOf(b), "copy threads of the second instance");
      assertEquals(optionsA.getJobName(), new io.vertx.core.json.JsonObject(Files.readString(traceA, StandardCharsets.UTF_8))
          .getJsonObject("otherData").getString("job"), "the first job's trace: trace-event JSON");
      String html = Files.readString(traceB, StandardCharsets.UTF_8);
      assertTrue(html.startsWith("<!DOCTYPE html>") && html.contains(optionsB.getJobName()), "the second job's trace: HTML");
      assertFalse(Files.exists(dir.resolve("b.json")) || Files.exists(dir.resolve("a.html")), "a trace in the other's file");
      if (mode == Jobs.Mode.CLUSTERED) {
        assertEquals(Progress.SLEEP, PollingTransport.modeOf(a));
        assertEquals(io.vertx.core.transport.Transport.EPOLL.available() ? Progress.ADAPTIVE : Progress.SLEEP,
            PollingTransport.modeOf(b));
      }

      // a world left open on the first instance, with the first job's data-plane host
      JobOptions openA = new JobOptions(optionsA).setJobName(optionsA.getJobName() + "-open").setTraceFile(null);
      World left = Jobs.await(Rma.world(a, openA), 60); // never closed: the instance's close releases it
      assertEquals(2, left.size());
      JobRuntime leftJob = JobRuntime.find(a, openA.getJobName());
      assertEquals("127.0.0.2", leftJob.host());
      if (mode == Jobs.Mode.CLUSTERED) {
        assertTrue(Jobs.await(leftJob.dataPlaneAddress(), 30).startsWith("127.0.0.2:"),
            "the data plane's address: " + Jobs.await(leftJob.dataPlaneAddress(), 30));
      }
      copyOnAWorker(a);
      assertEquals(1, ParallelCopy.liveThreadsOf(a), "the first instance's copy thread runs");
      assertEquals(1, JobRuntime.activeJobs(a));

      Jobs.await(a.close(), 60);
      assertEquals(0, JobRuntime.activeJobs(a), "jobs still registered on the closed instance");
      assertEquals(0, ParallelCopy.threadsOf(a), "copy threads of the closed instance");
      assertEquals(0, ParallelCopy.liveThreadsOf(a), "copy threads of the closed instance still run");
      Throwable refused = Rma.run(a, Jobs.options(2), ring(0)).toCompletionStage().toCompletableFuture()
          .handle((v, e) -> e).get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertTrue(refused instanceof RmaException && ((RmaException) refused).errorClass() == ErrorClass.ARG
          && refused.getMessage().contains("closed"), "a job on the closed instance: " + refused);

      // the second instance is untouched: its copy threads, and a job with the right values
      assertEquals(2, ParallelCopy.threadsOf(b));
      JobOptions againB = Jobs.options(3).setTraceFile(null);
      Jobs.await(Rma.run(b, againB, ring(3000)), 120);
      copyOnAWorker(b);
      assertEquals(2, ParallelCopy.threadsOf(b), "the first job on an instance decided its copy threads");
      assertEquals(0, JobRuntime.activeJobs(b));
    } finally {
      Jobs.await(Future.join(a.close(), b.close()), 60);
    }
  }
}
