package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The completion order a reactive user relies on (ARCHITECTURE decision 14): the future of every
 * operation issued before a synchronization has completed, with its result in place, and its
 * listeners have run, when the synchronization's future completes — for every synchronization
 * that completes operations, every kind of operation, and targets in this JVM and another. No
 * call is awaited before the synchronization is issued.
 */
class CompletionOrderTest {

  private static final int ROUNDS = 150;

  /** The synchronizations that complete the operations issued before them. */
  enum Closing { FLUSH, FLUSH_ALL, FLUSH_LOCAL, UNLOCK, UNLOCK_ALL, FENCE, COMPLETE }

  /** One round's operations to {@code target}, none awaited, each telling {@code ran} when its listener ran. */
  private static List<Future<?>> issueRound(Win win, int target, int round, boolean[] ran, long[][] values) {
    List<Future<?>> ops = new ArrayList<>();
    long[] got = new long[1];
    long[] fetched = new long[1];
    long[] swapped = new long[1];
    values[round % values.length] = new long[] {-1, -1, -1, -1};
    long[] v = values[round % values.length];
    ops.add(win.put(Buf.of(new long[] {round}), 0, 1, Datatype.LONG, target, 1));
    ops.add(win.accumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, target, 2, Op.SUM));
    ops.add(win.get(Buf.of(got), 0, 1, Datatype.LONG, target, 3).map(x -> v[0] = got[0]));
    ops.add(win.fetchAndOp(1L, target, 0, Op.SUM).map(x -> v[1] = x));
    ops.add(win.compareAndSwap(0L, 0L, target, 4).map(x -> v[2] = x));
    ops.add(win.getAccumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, Buf.of(fetched), 0, 1, Datatype.LONG,
        target, 5, 1, Datatype.LONG, Op.SUM).map(x -> v[3] = fetched[0]));
    ops.add(win.compareAndSwap(Buf.of(new long[] {0}), 0, Buf.of(new long[] {0}), 0, Buf.of(swapped), 0,
        Datatype.LONG, target, 4));
    for (int i = 0; i < ops.size(); i++) {
      int at = i;
      ops.get(i).onComplete(ar -> ran[at] = true);
    }
    return ops;
  }

  private static Future<Void> checked(Future<Void> sync, List<Future<?>> ops, boolean[] ran, long[] v, int round,
      Closing how) {
    return sync.map(x -> {
      for (int i = 0; i < ops.size(); i++) {
        Future<?> f = ops.get(i);
        assertTrue(f.isComplete(), how + " of round " + round + " completed before operation " + i);
        assertTrue(f.succeeded(), "operation " + i + " of round " + round + ": " + f.cause());
        assertTrue(ran[i], how + " of round " + round + " completed before operation " + i + "'s listener ran");
      }
      assertTrue(v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[3] >= 0, "round " + round + ": a fetched value is "
          + "missing when " + how + " completed: " + java.util.Arrays.toString(v));
      return null;
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void passiveSynchronizationsCompleteAfterTheirOperations(Jobs.Mode mode) {
    List<Closing> passive = List.of(Closing.FLUSH, Closing.FLUSH_ALL, Closing.FLUSH_LOCAL, Closing.UNLOCK,
        Closing.UNLOCK_ALL);
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      int target = 1 - world.rank();
      long[][] values = new long[4][];
      return Rma.repeat(ROUNDS, r -> {
        Closing how = passive.get(r % passive.size());
        boolean[] ran = new boolean[7];
        Future<Void> open = how == Closing.UNLOCK ? win.lock(LockType.SHARED, target) : win.lockAll();
        List<Future<?>> ops = issueRound(win, target, r, ran, values);
        Future<Void> sync;
        switch (how) {
          case FLUSH:
            sync = win.flush(target);
            break;
          case FLUSH_ALL:
            sync = win.flushAll();
            break;
          case FLUSH_LOCAL:
            sync = win.flushLocal(target);
            break;
          default:
            sync = null;
        }
        Future<Void> checkedFlush = sync == null ? open : checked(sync, ops, ran, values[r % values.length], r, how);
        Future<Void> close = how == Closing.UNLOCK ? win.unlock(target) : win.unlockAll();
        Future<Void> checkedClose = sync != null ? close : checked(close, ops, ran, values[r % values.length], r, how);
        return Future.all(open, checkedFlush, checkedClose).mapEmpty();
      }).compose(v -> world.barrier()).compose(v -> win.free());
    }));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void activeSynchronizationsCompleteAfterTheirOperations(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      int target = 1 - world.rank();
      long[][] values = new long[4][];
      Future<Void> fences = win.fence(Mode.NOPRECEDE).compose(x -> Rma.repeat(ROUNDS, r -> {
        boolean[] ran = new boolean[7];
        List<Future<?>> ops = issueRound(win, target, r, ran, values);
        return checked(win.fence(), ops, ran, values[r % values.length], r, Closing.FENCE);
      })).compose(v -> win.fence(Mode.NOSUCCEED));
      return fences.compose(x -> Rma.repeat(ROUNDS, r -> {
        boolean[] ran = new boolean[7];
        Future<Void> post = win.post(world.group().incl(target));
        Future<Void> start = win.start(world.group().incl(target));
        List<Future<?>> ops = issueRound(win, target, r, ran, values);
        Future<Void> complete = checked(win.complete(), ops, ran, values[r % values.length], r, Closing.COMPLETE);
        Future<Void> waited = win.waitFor();
        return Future.all(post, start, complete, waited).mapEmpty();
      })).compose(v -> world.barrier()).map(v -> {
        // every round of the other rank added 1 to each of these slots of this rank's window
        assertEquals(2L * ROUNDS, win.memory().readLong(0), "fetchAndOp counter");
        assertEquals(2L * ROUNDS, win.memory().readLong(16), "accumulate slot");
        assertEquals(2L * ROUNDS, win.memory().readLong(40), "getAccumulate slot");
        return null;
      }).compose(v -> win.free());
    }));
  }

  /**
   * A flush called from an operation's own listener (the op-then-flush chain every reactive user
   * writes): the operation's later listeners, those added after the chain, have run when the
   * flush completes, and each value is the one the operation fetched — for every operation that
   * answers, both ranks at once, not awaited across rounds.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aFlushCalledFromItsOperationsListenerCompletesAfterTheOperationsOtherListeners(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      int target = 1 - world.rank();
      return win.lockAll().compose(x -> Rma.repeat(ROUNDS, r -> {
        long[] got = new long[1];
        Future<?> op;
        switch (r % 3) {
          case 0:
            op = win.fetchAndOp(1L, target, 0, Op.SUM);
            break;
          case 1:
            op = win.get(Buf.of(got), 0, 1, Datatype.LONG, target, 0);
            break;
          default:
            op = win.compareAndSwap(-1L, 0L, target, 1);
        }
        Future<Void> flushed = op.compose(v -> win.flush(target));
        boolean[] later = new boolean[1];
        op.onComplete(ar -> later[0] = true); // added after the flush's chain: runs after flush() is called
        return flushed.map(v -> {
          assertTrue(later[0], "round " + r + ": flush completed before a listener of its operation ran");
          assertTrue(op.succeeded(), "round " + r + ": " + op.cause());
          return null;
        });
      })).compose(v -> win.unlockAll()).compose(v -> world.barrier()).map(v -> {
        // every third round of the other rank added 1 here
        assertEquals((ROUNDS + 2) / 3, win.memory().readLong(0), "fetchAndOp counter");
        return null;
      }).compose(v -> win.free());
    }));
  }
}
