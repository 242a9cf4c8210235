package dev.vertxrma.runtime;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static dev.vertxrma.testing.RmaAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.JobOptions;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.runtime.JobRuntime;
import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Erroneous calls fail their future with the MPI error class and a message naming the values;
 * failures of a rank, aborts and timeouts end the job without leaving anybody waiting.
 */
class ErrorsTest {

  private static final Future<Void> DONE = Future.succeededFuture();

  static Future<Void> sequence(List<Supplier<Future<?>>> steps) {
    Future<Void> chain = DONE;
    for (Supplier<Future<?>> s : steps) {
      chain = chain.compose(v -> s.get().mapEmpty());
    }
    return chain;
  }

  /** A healthy exchange with the peer after the errors: nothing was sent by the failed calls. */
  static Future<Void> exchange(Comm world) {
    int peer = 1 - world.rank();
    int[] in = new int[1];
    world.send(Buf.of(new int[] {world.rank() + 40}), 0, 1, Datatype.INT, peer, 0);
    return world.recv(Buf.of(in), 0, 1, Datatype.INT, Comm.ANY_SOURCE, Comm.ANY_TAG).map(st -> {
      assertEquals(peer + 40, in[0], "the first message to arrive is the peer's valid one");
      assertEquals(peer, st.source());
      assertEquals(0, st.tag());
      return null;
    });
  }

  /**
   * A program that awaits on its event loop (forgot --virtual-threads) is told the fix in one
   * line: before, the job failed with Vert.x's bare "IllegalStateException: Cannot be called on a
   * Vert.x event-loop thread" (issue 42).
   */
  @org.junit.jupiter.api.Test
  void awaitOnAnEventLoopNamesTheFix() {
    Throwable t = Jobs.runExpectingFailure(Mode.EMBEDDED, Jobs.options(2), (world, args) -> {
      world.barrier().await();
      return Future.succeededFuture();
    });
    assertInstanceOf(RmaException.class, t);
    assertError((RmaException) t, ErrorClass.ARG, "await()", "event loop", "--virtual-threads", "compose");
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void unknownRanksFailWithRank(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      int[] b = new int[2];
      return sequence(List.of(
          () -> expectError(world.send(Buf.of(b), 0, 1, Datatype.INT, 2, 0), ErrorClass.RANK, "send", "rank 2", "[0, 2)"),
          () -> expectError(world.send(Buf.of(b), 0, 1, Datatype.INT, Comm.ANY_SOURCE, 0), ErrorClass.RANK, "rank -1"),
          () -> expectError(world.ssend(Buf.of(b), 0, 1, Datatype.INT, 5, 0), ErrorClass.RANK, "ssend", "rank 5"),
          () -> expectError(world.isend(Buf.of(b), 0, 1, Datatype.INT, -9, 0), ErrorClass.RANK, "isend", "rank -9"),
          () -> expectError(world.recv(Buf.of(b), 0, 1, Datatype.INT, -5, 0), ErrorClass.RANK, "recv", "rank -5", "[0, 2)"),
          () -> expectError(world.irecv(Buf.of(b), 0, 1, Datatype.INT, 2, 0), ErrorClass.RANK, "irecv", "rank 2"),
          () -> exchange(world)));
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void negativeCountsFailWithCount(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      int peer = 1 - world.rank();
      int[] b = new int[4];
      return sequence(List.of(
          () -> expectError(world.send(Buf.of(b), 0, -1, Datatype.INT, peer, 0), ErrorClass.COUNT, "send", "count -1"),
          () -> expectError(world.recv(Buf.of(b), 0, -3, Datatype.INT, peer, 0), ErrorClass.COUNT, "recv", "count -3"),
          () -> expectError(world.bsend(Buf.of(b), 0, -2, Datatype.INT, peer, 0), ErrorClass.COUNT, "bsend", "count -2"),
          () -> expectError(world.bcast(Buf.of(b), 0, -4, Datatype.INT, 0), ErrorClass.COUNT, "bcast", "count -4"),
          () -> exchange(world)));
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void negativeTagsFailWithTag(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      int peer = 1 - world.rank();
      int[] b = new int[4];
      return sequence(List.of(
          () -> expectError(world.send(Buf.of(b), 0, 1, Datatype.INT, peer, -7), ErrorClass.TAG, "send", "tag -7"),
          // ANY_TAG is only for receives
          () -> expectError(world.ssend(Buf.of(b), 0, 1, Datatype.INT, peer, Comm.ANY_TAG), ErrorClass.TAG, "ssend",
              "tag -1"),
          () -> expectError(world.recv(Buf.of(b), 0, 1, Datatype.INT, peer, -2), ErrorClass.TAG, "recv", "tag -2"),
          () -> expectError(world.irecv(Buf.of(b), 0, 1, Datatype.INT, Comm.ANY_SOURCE, Integer.MIN_VALUE), ErrorClass.TAG,
              "tag " + Integer.MIN_VALUE),
          () -> exchange(world)));
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void buffersTooSmallFailWithBuffer(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      int peer = 1 - world.rank();
      Datatype strided = Datatype.vector(3, 1, 4, Datatype.INT).commit(); // spans 9 ints = 36 bytes
      return sequence(List.of(
          () -> expectError(world.send(Buf.of(new int[3]), 0, 4, Datatype.INT, peer, 0), ErrorClass.BUFFER, "send",
              "count 4", "INT", "[0, 12)"),
          () -> expectError(world.send(Buf.of(new int[4]), 2, 3, Datatype.INT, peer, 0), ErrorClass.BUFFER, "count 3",
              "[0, 16)"),
          () -> expectError(world.send(Buf.of(new int[4]), 5, 0, Datatype.INT, peer, 0), ErrorClass.BUFFER, "offset 5"),
          () -> expectError(world.send(Buf.of(new int[8]), 0, 1, strided, peer, 0), ErrorClass.BUFFER, "count 1",
              "[0, 32)"),
          () -> expectError(world.recv(Buf.of(new long[2]), 0, 3, Datatype.LONG, peer, 0), ErrorClass.BUFFER, "recv",
              "count 3", "LONG", "[0, 16)"),
          () -> expectError(world.recv(null, 0, 1, Datatype.INT, peer, 0), ErrorClass.BUFFER,
              "buffer is null"),
          () -> exchange(world)));
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void truncationFailsWithTruncateAndLeavesTheBufferAlone(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 0) {
        world.send(Buf.of(new int[] {1, 2, 3, 4, 5}), 0, 5, Datatype.INT, 1, 1);
        return world.send(Buf.of(new int[] {6, 7}), 0, 2, Datatype.INT, 1, 2);
      }
      int[] small = {-1, -1, -1, -1};
      int[] next = new int[3];
      return expectError(world.recv(Buf.of(small), 0, 3, Datatype.INT, 0, 1), ErrorClass.TRUNCATE,
          "20 bytes", "rank 0", "tag 1", "3 x INT = 12 bytes", "rank 1")
          .compose(v -> {
            assertArrayEquals(new int[] {-1, -1, -1, -1}, small, "a truncated receive must not write the buffer");
            // the truncated message was consumed; the next one is received normally
            return world.recv(Buf.of(next), 0, 3, Datatype.INT, 0, Comm.ANY_TAG);
          }).map(st -> {
            assertEquals(2, st.tag());
            assertEquals(2, st.count());
            assertArrayEquals(new int[] {6, 7, 0}, next);
            return null;
          });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void uncommittedDerivedDatatypeFailsWithType(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      int peer = 1 - world.rank();
      Datatype pairs = Datatype.vector(2, 1, 2, Datatype.INT);
      int[] b = new int[8];
      return sequence(List.of(
          () -> expectError(world.send(Buf.of(b), 0, 1, pairs, peer, 0), ErrorClass.TYPE, "send", "not committed"),
          () -> expectError(world.recv(Buf.of(b), 0, 1, pairs, peer, 0), ErrorClass.TYPE, "recv", "not committed"),
          () -> expectError(world.bcast(Buf.of(b), 0, 1, pairs, 0), ErrorClass.TYPE, "bcast", "not committed"),
          () -> expectError(world.send(Buf.of(b), 0, 1, null, peer, 0), ErrorClass.TYPE, "null"),
          () -> {
            // once committed the same type works
            pairs.commit();
            int[] out = {world.rank() + 1, 99, world.rank() + 2, 99};
            int[] in = new int[4];
            world.send(Buf.of(out), 0, 1, pairs, peer, 3);
            return world.recv(Buf.of(in), 0, 1, pairs, peer, 3).map(st -> {
              assertArrayEquals(new int[] {peer + 1, 0, peer + 2, 0}, in);
              return null;
            });
          }));
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void callsAfterTheJobEndedFailWithComm(Mode mode) {
    AtomicReferenceArray<Comm> kept = new AtomicReferenceArray<>(2);
    JobOptions options = Jobs.options(2);
    Jobs.await(Jobs.start(mode, options, (world, args) -> {
      kept.set(world.rank(), world);
      return world.barrier();
    }), 120);
    for (int r = 0; r < 2; r++) {
      Comm world = kept.get(r);
      assertNotNull(world, "rank " + r + " ran");
      String job = options.getJobName();
      assertCommError(world.send(Buf.of(new int[1]), 0, 1, Datatype.INT, 1 - r, 0), job);
      assertCommError(world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 1 - r, 0), job);
      assertCommError(world.barrier(), job);
      assertCommError(world.allreduce(1L, dev.vertxrma.Op.SUM), job);
      assertCommError(world.bufferAttach(Buf.of(new byte[64]), 64), job);
      assertCommError(world.probe(1 - r, 0), job);
      assertCommError(world.iprobe(Comm.ANY_SOURCE, Comm.ANY_TAG), job);
      assertCommError(world.sendrecv(Buf.of(new int[1]), 0, 1, Datatype.INT, 1 - r, 0, Buf.of(new int[1]), 0, 1,
          Datatype.INT, 1 - r, 0), job);
      assertCommError(world.scan(Comm.IN_PLACE, 0, Buf.of(new int[1]), 0, 1, Datatype.INT, dev.vertxrma.Op.SUM), job);
      assertCommError(world.reduceScatterBlock(Buf.of(new int[2]), 0, Buf.of(new int[1]), 0, 1, Datatype.INT,
          dev.vertxrma.Op.SUM), job);
    }
  }

  private static void assertCommError(Future<?> f, String jobName) {
    Throwable t = failureOf(f, 10);
    assertError(t, ErrorClass.COMM, jobName);
  }

  /** The failure of a future, waiting at most {@code seconds}; fails the test if it succeeded. */
  static Throwable failureOf(Future<?> f, int seconds) {
    CompletableFuture<?> cf = f.toCompletionStage().toCompletableFuture();
    try {
      Object v = cf.get(seconds, TimeUnit.SECONDS);
      return fail("expected a failure, the future succeeded with " + v);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      return fail("the future did not complete within " + seconds + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail(e);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void receiveThatNeverMatchesTimesOutNamingSourceAndTag(Mode mode) {
    Throwable t = Jobs.runExpectingFailure(mode, Jobs.options(2).setWaitTimeoutMs(500), (world, args) -> {
      if (world.rank() == 1) {
        return DONE;
      }
      Future<?> specific = world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 1, 42);
      Future<?> wildcard = world.recv(Buf.of(new long[1]), 0, 1, Datatype.LONG, Comm.ANY_SOURCE, Comm.ANY_TAG);
      return Future.join(specific, wildcard).transform(ar -> {
        assertTrue(specific.failed() && wildcard.failed(), "both receives must time out");
        assertError(wildcard.cause(), ErrorClass.TIMEOUT, "ANY_SOURCE", "ANY_TAG", "rank 0", "500 ms");
        return specific;
      });
    });
    // the receives' own 500 ms timeout ended the job (TIMEOUT naming it): a hang would leave
    // runExpectingFailure's 120 s wait to fail it with no RmaException. The elapsed time (< 20 s,
    // the clustered job's start-up included) measured the loaded machine; when a deadline fires
    // is WaitDeadlinesTest's
    assertError(t, ErrorClass.TIMEOUT, "receive at rank 0", "from rank 1", "tag 42", "500 ms");
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void failingRankFailsTheJobAndReleasesBlockedReceivers(Mode mode) {
    Map<Integer, Throwable> released = new ConcurrentHashMap<>();
    Throwable t = Jobs.runExpectingFailure(mode, Jobs.options(3).setWaitTimeoutMs(60_000), (world, args) -> {
      if (world.rank() == 0) {
        // fail only once both others are blocked in a receive from this rank
        return Future.all(world.recv(Buf.of(new int[0]), 0, 0, Datatype.INT, 1, 6),
                world.recv(Buf.of(new int[0]), 0, 0, Datatype.INT, 2, 6))
            .compose(v -> Future.failedFuture(new RmaException(ErrorClass.ARG, "deliberate failure 4711")));
      }
      Future<?> blocked = world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 0, 5)
          .onFailure(e -> released.put(world.rank(), e));
      world.send(Buf.of(new int[0]), 0, 0, Datatype.INT, 0, 6);
      return blocked;
    });
    assertError(t, ErrorClass.ARG, "deliberate failure 4711");
    assertEquals(2, released.size(), "blocked receivers released: " + released);
    // released by rank 0's failure (COMM naming it), not by their 60 s wait timeout (TIMEOUT),
    // which is what the elapsed bound (< 30 s) stood for
    for (int r = 1; r <= 2; r++) {
      assertError(released.get(r), ErrorClass.COMM, "rank 0", "deliberate failure 4711");
      // the abort's message travels without its class, which the receiver puts back once (the
      // newcomer of issue 42 read "COMM: COMM: job … aborted")
      assertFalse(released.get(r).getMessage().contains("COMM: COMM"), released.get(r).getMessage());
    }
  }

  /**
   * A rank that fails with Vert.x's {@code Future.failedFuture(String)} is reported in its own
   * words (issue 42: "OTHER: rank 0 failed: io.vertx.core.impl.NoStackTraceThrowable: slot 0 …").
   */
  @org.junit.jupiter.api.Test
  void aFailureGivenAsAStringIsReportedInItsWords() {
    Throwable t = Jobs.runExpectingFailure(Mode.EMBEDDED, Jobs.options(2), (world, args) ->
        world.rank() == 0 ? Future.failedFuture("slot 0 holds 7, not 8") : world.barrier());
    assertError(t, ErrorClass.OTHER, "rank 0 failed: slot 0 holds 7, not 8");
    assertFalse(t.getMessage().contains("NoStackTrace"), t.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void rankProgramThrowingFailsTheJobWithItsError(Mode mode) {
    Map<Integer, Throwable> released = new ConcurrentHashMap<>();
    AtomicBoolean otherRan = new AtomicBoolean();
    Throwable t = Jobs.runExpectingFailure(mode, Jobs.options(2).setWaitTimeoutMs(60_000), (world, args) -> {
      if (world.rank() == 0) {
        throw new IllegalStateException("boom 99");
      }
      otherRan.set(true);
      return world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 0, 5).onFailure(e -> released.put(1, e));
    });
    assertError(t, ErrorClass.OTHER, "rank 0", "IllegalStateException", "boom 99");
    // rank 1's program does not run at all if the abort reached it first
    if (otherRan.get()) {
      assertError(released.get(1), ErrorClass.COMM, "boom 99");
    }
  }

  /**
   * A program that throws an {@link Error} (such as a JUnit AssertionError) instead of returning
   * a future must fail the job like any other failure, not leave it running forever. Runs on
   * private Vert.x instances so that a hung job cannot leak into the shared ones.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void rankProgramThrowingAnErrorFailsTheJob(Mode mode) {
    List<Vertx> instances = new ArrayList<>();
    try {
      JobOptions options = Jobs.options(2).setWaitTimeoutMs(60_000);
      Map<Integer, Throwable> released = new ConcurrentHashMap<>();
      AtomicBoolean otherRan = new AtomicBoolean();
      RankProgram program = (world, args) -> {
        if (world.rank() == 0) {
          throw new AssertionError("assertion 31337 failed");
        }
        otherRan.set(true);
        return world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 0, 5).onFailure(e -> released.put(1, e));
      };
      Future<Void> job;
      if (mode == Mode.EMBEDDED) {
        Vertx v = BlockedThreadGuard.watch(Vertx.vertx(BlockedThreadGuard.options()));
        instances.add(v);
        job = Rma.run(v, options, program);
      } else {
        String cluster = "rma-err-" + UUID.randomUUID().toString().substring(0, 8);
        Vertx a = BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(cluster, BlockedThreadGuard.options()), 120));
        instances.add(a);
        Vertx b = BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(cluster, BlockedThreadGuard.options()), 120));
        instances.add(b);
        Future<Void> fa = Rma.run(a, copy(options).setLocalRanks(0, 1), program);
        Future<Void> fb = Rma.run(b, copy(options).setLocalRanks(1, 1), program);
        job = Future.join(fa, fb).transform(ar -> fa);
      }
      Throwable t = failureOf(job, 10);
      assertError(t, ErrorClass.OTHER, "rank 0", "assertion 31337 failed");
      if (otherRan.get()) {
        assertError(released.get(1), ErrorClass.COMM, "assertion 31337 failed");
      }
      for (Vertx v : instances) {
        assertEquals(0, JobRuntime.activeJobs(v), "jobs left registered");
        assertTrue(v.deploymentIDs().isEmpty(), "deployments left: " + v.deploymentIDs());
      }
    } finally {
      for (Vertx v : instances) {
        v.close().toCompletionStage().toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> null)
            .join();
      }
    }
  }

  private static JobOptions copy(JobOptions o) {
    return new JobOptions().setNp(o.getNp()).setJobName(o.getJobName()).setWaitTimeoutMs(o.getWaitTimeoutMs())
        .setStartupTimeoutMs(o.getStartupTimeoutMs()).setArgs(o.getArgs()).setSecret(o.getSecret());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void abortFailsTheJobWithCommNamingTheReason(Mode mode) {
    Map<Integer, Throwable> released = new ConcurrentHashMap<>();
    Map<Integer, Throwable> afterAbort = new ConcurrentHashMap<>();
    Throwable t = Jobs.runExpectingFailure(mode, Jobs.options(3).setWaitTimeoutMs(60_000), (world, args) -> {
      if (world.rank() == 1) {
        return Future.all(world.recv(Buf.of(new int[0]), 0, 0, Datatype.INT, 0, 6),
            world.recv(Buf.of(new int[0]), 0, 0, Datatype.INT, 2, 6)).compose(v -> {
              world.abort("disk on fire 77");
              // every later call of the aborting rank fails too
              return world.send(Buf.of(new int[1]), 0, 1, Datatype.INT, 0, 1)
                  .onFailure(e -> afterAbort.put(1, e))
                  .otherwiseEmpty();
            });
      }
      Future<?> blocked = world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 1, 5)
          .onFailure(e -> released.put(world.rank(), e));
      world.send(Buf.of(new int[0]), 0, 0, Datatype.INT, 1, 6);
      return blocked;
    });
    assertError(t, ErrorClass.COMM, "aborted by rank 1", "disk on fire 77");
    assertError(afterAbort.get(1), ErrorClass.COMM, "disk on fire 77");
    assertEquals(2, released.size(), "blocked receivers released: " + released);
    for (int r : new int[] {0, 2}) {
      assertError(released.get(r), ErrorClass.COMM, "aborted by rank 1", "disk on fire 77");
    }
  }
}
