package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.junit.RmaJob;
import dev.vertxrma.junit.RmaTest;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;

/**
 * Window creation is collective and agreed: a creation that fails at one rank fails at every
 * rank with that rank's reason, and the windows created afterwards are the same windows at
 * every rank (ids are agreed, not counted locally). Embedded and on two clustered nodes; every
 * window must be freed (a failed creation leaves none behind).
 */
class WindowCreationTest {

  @RmaTest(ranks = 3)
  void aCreationThatFailsAtOneRankFailsEverywhereAndLaterWindowsStillMatch(RmaJob job) {
    job.withVertx(Jobs.embedded()).run(FAILED_THEN_MATCHING);
  }

  @RmaTest(ranks = 3)
  void aCreationThatFailsAtOneRankFailsEverywhereAndLaterWindowsStillMatchClustered(RmaJob job) {
    job.withVertx(Jobs.clusterNodes()).run(FAILED_THEN_MATCHING);
  }

  /** Rank 1 asks for a negative size; the two windows created afterwards are told apart. */
  private static final RankProgram FAILED_THEN_MATCHING = (world, args) -> {
    int me = world.rank();
    return Win.allocate(world, me == 1 ? -1 : 8, 8, Info.NULL).transform(ar -> {
      assertTrue(ar.failed(), "the creation must fail at every rank, rank " + me + " got a window");
      RmaException e = (RmaException) ar.cause();
      assertEquals(ErrorClass.ARG, e.errorClass(), e.getMessage());
      assertTrue(e.getMessage().contains(me == 1 ? "window size -1 is negative"
          : "window creation failed at rank 1: ARG: window size -1 is negative"), e.getMessage());
      return Win.allocate(world, 8, 8, Info.NULL);
    }).compose(a -> Win.allocate(world, 16, 8, Info.NULL).compose(b -> {
      // rank 0 writes into B at rank 1: it must land in B, never in A
      Future<Void> write = me != 0 ? Future.succeededFuture()
          : b.lockAll().compose(v -> b.put(Buf.of(new long[] {7}), 0, 1, Datatype.LONG, 1, 1)).compose(v -> b.unlockAll());
      return write.compose(v -> world.barrier()).map(v -> {
        if (me == 1) {
          assertEquals(0L, a.memory().readLong(0), "window A untouched");
          assertEquals(7L, b.memory().readLong(8), "the put into B landed in B");
        }
        return null;
      }).compose(v -> a.free()).compose(v -> b.free());
    }));
  };

  @RmaTest(ranks = 2)
  void aLargeWindowIsAllocatedZeroedOffTheEventLoop(RmaJob job) {
    job.withVertx(Jobs.embedded()).run(LARGE_WINDOW);
  }

  @RmaTest(ranks = 2)
  void aLargeWindowIsAllocatedZeroedOffTheEventLoopClustered(RmaJob job) {
    job.withVertx(Jobs.clusterNodes()).run(LARGE_WINDOW);
  }

  private static final long LARGE = 8L << 20;

  /** An 8 MiB window: its future completes on the rank's event loop, and it reads all zeroes. */
  private static final RankProgram LARGE_WINDOW = (world, args) -> {
    long size = LARGE;
    return Win.allocate(world, size, 1, Info.NULL).compose(win -> {
      assertTrue(io.vertx.core.Context.isOnEventLoopThread(), "the future completes back on the rank's event loop");
      assertEquals(size, win.size());
      for (long at = 0; at < size; at += 4093) {
        assertEquals(0, win.memory().readByte(at), "byte " + at);
      }
      return world.barrier().compose(v -> win.free());
    });
  };
}
