package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.function.IntFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The loop a new user writes — recursive {@code compose}, one awaited call after another — runs
 * in constant stack for any number of iterations (ARCHITECTURE decision 12), on the default
 * thread stack of the test JVM, embedded and clustered. Every final value is checked.
 */
class ConstantStackTest {

  /** Calls embedded; clustered ranks pay a network round trip per call, so they run fewer. */
  private static int iterations(Jobs.Mode mode, int embedded) {
    return iterations(mode, embedded, 100_000);
  }

  private static int iterations(Jobs.Mode mode, int embedded, int clustered) {
    return mode == Jobs.Mode.EMBEDDED ? embedded : clustered;
  }

  /** Runs a 2-rank job; the other rank may wait at a barrier while a long loop runs. */
  private static void run(Jobs.Mode mode, dev.vertxrma.RankProgram program) {
    Jobs.await(Jobs.start(mode, Jobs.options(2).setWaitTimeoutMs(120_000), program), 180);
  }

  /** The loop as a user writes it: {@code step(i).compose(v -> loop(i + 1))}, nothing else. */
  private static Future<Void> loop(int i, int n, IntFunction<Future<?>> step) {
    if (i == n) {
      return Future.succeededFuture();
    }
    return step.apply(i).compose(v -> loop(i + 1, n, step));
  }

  /** Rank 0 runs {@code program} against rank 1's window; rank 1 checks its window afterwards. */
  private static void againstRankOne(Jobs.Mode mode, int n, Origin program, long expected) {
    run(mode, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      Future<?> done = world.rank() == 0 ? program.run(win, n) : Future.succeededFuture();
      return done.compose(v -> world.barrier()).map(v -> {
        if (world.rank() == 1) {
          assertEquals(expected, win.memory().readLong(0), "the value at rank 1 after " + n + " iterations");
        }
        return null;
      }).compose(v -> win.free());
    }));
  }

  private interface Origin {
    Future<?> run(Win win, int n);
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void putAndFlushInARecursiveComposeLoop(Jobs.Mode mode) {
    int n = iterations(mode, 1_000_000);
    long[] value = new long[1];
    againstRankOne(mode, n, (win, iters) -> win.lockAll().compose(v -> loop(0, iters, i -> {
      value[0] = i;
      return win.put(Buf.of(value), 0, 1, Datatype.LONG, 1, 0).compose(x -> win.flush(1));
    })).compose(v -> win.unlockAll()), n - 1);
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void lockPutUnlockInARecursiveComposeLoop(Jobs.Mode mode) {
    int n = iterations(mode, 100_000, 20_000); // two round trips per iteration when clustered
    long[] value = new long[1];
    againstRankOne(mode, n, (win, iters) -> loop(0, iters, i -> {
      value[0] = 3L * i;
      return win.lock(LockType.EXCLUSIVE, 1).compose(x -> win.put(Buf.of(value), 0, 1, Datatype.LONG, 1, 0))
          .compose(x -> win.unlock(1));
    }), 3L * (n - 1));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void fetchAndOpInARecursiveComposeLoop(Jobs.Mode mode) {
    int n = iterations(mode, 100_000);
    againstRankOne(mode, n, (win, iters) -> win.lock(LockType.SHARED, 1).compose(v -> loop(0, iters, i ->
        win.fetchAndOp(1, 1, 0, Op.SUM).map(before -> {
          assertEquals(i, before.longValue(), "fetchAndOp " + i + " fetched the count before it");
          return null;
        }))).compose(v -> win.unlock(1)), n);
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void barriersInARecursiveComposeLoop(Jobs.Mode mode) {
    int n = iterations(mode, 100_000);
    run(mode, (world, args) -> {
      long[] sum = new long[1];
      return loop(0, n, i -> world.allreduce(1L, Op.SUM).map(s -> {
        sum[0] += s;
        return null;
      }).compose(v -> world.barrier())).map(v -> {
        assertEquals(2L * n, sum[0], "the sum of " + n + " allreduces over 2 ranks");
        return null;
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void sendAndReceiveInARecursiveComposeLoop(Jobs.Mode mode) {
    int n = iterations(mode, 100_000);
    run(mode, (world, args) -> {
      long[] buf = new long[1];
      long[] sum = new long[1];
      return loop(0, n, i -> {
        if (world.rank() == 0) {
          buf[0] = i;
          return world.send(Buf.of(buf), 0, 1, Datatype.LONG, 1, 7);
        }
        return world.recv(Buf.of(buf), 0, 1, Datatype.LONG, 0, Comm.ANY_TAG).map(st -> sum[0] += buf[0]);
      }).map(v -> {
        if (world.rank() == 1) {
          assertEquals((long) n * (n - 1) / 2, sum[0], "the sum of the " + n + " values received");
        }
        return null;
      });
    });
  }
}
