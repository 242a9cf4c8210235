package dev.vertxrma.coll;

import static dev.vertxrma.testing.RmaAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Mode;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import dev.vertxrma.impl.runtime.JobRuntime;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MPI_Barrier's guarantee, checked at every round: no rank leaves barrier k before every rank has
 * entered it. Embedded, the ranks meet in shared memory (no message); clustered, by dissemination;
 * both must behave the same, also for barriers called back to back without awaiting, after a
 * timeout, and when the job is aborted while ranks wait.
 */
class BarrierTest {

  static Stream<Arguments> modesAndSizes() {
    List<Arguments> out = new ArrayList<>();
    for (Jobs.Mode m : Jobs.Mode.values()) {
      for (int np : new int[] {2, 3, 8}) {
        out.add(Arguments.of(m, np));
      }
    }
    return out.stream();
  }

  @ParameterizedTest
  @MethodSource("modesAndSizes")
  void noRankLeavesABarrierBeforeEveryRankEnteredIt(Jobs.Mode mode, int np) {
    int rounds = mode == Jobs.Mode.EMBEDDED ? 20_000 : 1_000;
    AtomicIntegerArray entered = new AtomicIntegerArray(np);
    Jobs.run(mode, np, (world, args) -> {
      int me = world.rank();
      return Rma.repeat(rounds, k -> {
        entered.set(me, k + 1);
        return world.barrier().map(v -> {
          for (int r = 0; r < np; r++) {
            int e = entered.get(r);
            // every rank entered barrier k+1; none can be past barrier k+2 yet
            if (e < k + 1 || e > k + 2) {
              throw new IllegalStateException("rank " + me + " left barrier " + (k + 1) + " while rank " + r
                  + " had entered barrier " + e);
            }
          }
          return null;
        });
      });
    });
  }

  /** Fences are barriers too: a put before fence k is seen by its target after fence k, every round. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void everyPutOfAFenceEpochIsThereAfterTheFence(Jobs.Mode mode) {
    int np = 3;
    int rounds = mode == Jobs.Mode.EMBEDDED ? 5_000 : 300;
    Jobs.run(mode, np, (world, args) -> Win.allocate(world, 8L * np, 8, Info.NULL).compose(win -> {
      int me = world.rank();
      long[] local = new long[np];
      return win.fence(Mode.NOPRECEDE).compose(v -> Rma.repeat(rounds, k -> {
        long[] value = {(long) k * np + me};
        return win.put(Buf.of(value), 0, 1, Datatype.LONG, (me + 1) % np, me)
            .compose(x -> win.fence())
            .compose(x -> win.get(Buf.of(local), 0, np, Datatype.LONG, me, 0))
            .compose(x -> win.fence())
            .map(x -> {
              int from = (me + np - 1) % np;
              if (local[from] != (long) k * np + from) {
                throw new IllegalStateException("round " + k + ": rank " + me + " read " + local[from]
                    + " from rank " + from);
              }
              return null;
            });
      })).compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> win.free());
    }));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void barriersCalledBackToBackCompleteInCallOrder(Jobs.Mode mode) {
    int np = 4;
    Map<Integer, List<Integer>> order = new ConcurrentHashMap<>();
    Jobs.run(mode, np, (world, args) -> Rma.repeat(200, round -> {
      List<Integer> mine = order.computeIfAbsent(world.rank(), r -> new CopyOnWriteArrayList<>());
      mine.clear();
      List<Future<Void>> calls = new ArrayList<>();
      for (int b = 0; b < 3; b++) {
        int n = b;
        calls.add(world.barrier().onSuccess(v -> mine.add(n)));
      }
      return Future.all(calls).map(v -> {
        if (!mine.equals(List.of(0, 1, 2))) {
          throw new IllegalStateException("rank " + world.rank() + " saw its barriers complete in order " + mine);
        }
        return null;
      });
    }));
  }

  /**
   * Allreduces called back to back without awaiting: each gets the sum of its own round (embedded,
   * the rounds' blocks alternate between two sets of slots; a round must not see the next one's).
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void allreducesCalledBackToBackEachReduceTheirOwnRound(Jobs.Mode mode) {
    int np = 4;
    int inFlight = 5;
    Jobs.run(mode, np, (world, args) -> Rma.repeat(mode == Jobs.Mode.EMBEDDED ? 2_000 : 100, k -> {
      List<Future<Long>> sums = new ArrayList<>();
      for (int j = 0; j < inFlight; j++) {
        sums.add(world.allreduce((long) (k * inFlight + j) * 1000 + world.rank(), dev.vertxrma.Op.SUM));
      }
      return Future.all(sums).map(v -> {
        for (int j = 0; j < inFlight; j++) {
          long round = (long) k * inFlight + j;
          long expected = round * 1000 * np + (long) np * (np - 1) / 2;
          if (sums.get(j).result() != expected) {
            throw new IllegalStateException("rank " + world.rank() + ", allreduce " + round + ": " + sums.get(j).result()
                + " instead of " + expected);
          }
        }
        return null;
      });
    }));
  }

  /** A barrier that timed out at one rank: the late rank passes it, and the next one meets as usual. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aTimedOutBarrierLeavesTheNextOneWorking(Jobs.Mode mode) {
    AtomicReference<Throwable> timedOut = new AtomicReference<>();
    Promise<Void> late = Promise.promise(); // rank 1 enters its first barrier once rank 0's has timed out
    Jobs.await(Jobs.start(mode, Jobs.options(2).setWaitTimeoutMs(500), (world, args) -> {
      if (world.rank() == 0) {
        return world.barrier().transform(ar -> {
          timedOut.set(ar.cause());
          late.complete();
          return world.barrier();
        });
      }
      return late.future().compose(v -> world.barrier()).compose(v -> world.barrier());
    }), 60);
    assertError(timedOut.get(), ErrorClass.TIMEOUT, "at rank 0", "within 500 ms");
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void anAbortReleasesTheRanksWaitingInABarrier(Jobs.Mode mode) {
    Map<Integer, Throwable> released = new ConcurrentHashMap<>();
    Throwable t = Jobs.runExpectingFailure(mode, Jobs.options(3).setWaitTimeoutMs(60_000), (world, args) -> {
      if (world.rank() == 1) {
        int[] none = new int[0];
        return Future.all(world.recv(Buf.of(none), 0, 0, Datatype.INT, 0, 6),
            world.recv(Buf.of(none), 0, 0, Datatype.INT, 2, 6)).map(v -> {
              world.abort("barrier probe 41");
              return null;
            });
      }
      Future<Void> waiting = world.barrier().onFailure(e -> released.put(world.rank(), e));
      world.send(Buf.of(new int[0]), 0, 0, Datatype.INT, 1, 6);
      return waiting;
    });
    assertError(t, ErrorClass.COMM, "aborted by rank 1", "barrier probe 41");
    assertEquals(2, released.size(), "ranks released from the barrier: " + released);
    for (int r : new int[] {0, 2}) {
      assertError(released.get(r), ErrorClass.COMM, "aborted by rank 1", "barrier probe 41");
    }
  }

  /** Rank 0 reads the job's barrier count into {@code inUse[k]}, off its event loop (the job registry's monitor). */
  private static Future<Void> count(int rank, JobOptions options, int[] inUse, int k) {
    if (rank != 0) {
      return Future.succeededFuture();
    }
    return Jobs.embedded().<Integer>executeBlocking(() -> JobRuntime.sharedBarriersInUse(Jobs.embedded(),
        options.getJobName())).map(n -> {
          inUse[k] = n;
          return null;
        });
  }

  /** Embedded: windows and communicators freed release their shared-memory barriers. */
  @Test
  void freedWindowsAndCommunicatorsReleaseTheirSharedBarriers() {
    JobOptions options = Jobs.options(4);
    int[] inUse = new int[3];
    Jobs.await(Rma.run(Jobs.embedded(), options, (world, args) -> {
      Future<Void> loop = Rma.repeat(50, i -> Win.allocate(world, 64, 8, Info.NULL)
          .compose(win -> win.fence().compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> win.free())));
      return loop.compose(v -> world.split(world.rank() % 2, 0)).compose(sub -> {
        Comm c = sub.orElseThrow();
        return c.barrier().compose(v -> world.barrier()).compose(v -> count(world.rank(), options, inUse, 0))
            .compose(x -> world.barrier()).map(c); // nobody frees before rank 0 has counted
      }).compose(c -> c.free()).compose(v -> world.barrier()).compose(v -> count(world.rank(), options, inUse, 1));
    }), 120);
    // the world's barrier, plus one per half of the split while it lived; none of the 50 windows'
    assertEquals(3, inUse[0]);
    assertEquals(1, inUse[1]);
  }
}
