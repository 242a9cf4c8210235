package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.impl.ops.OperationFrames;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Latch;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Early fence-epoch operations under reordering pressure (issue 43): ranks 1..3 issue, a fence
 * ahead of rank 0 and without awaiting anything, about 2.8 MiB each of accumulates to their own
 * region and to one shared location, puts and fetching operations — well past the credit of each
 * origin of another JVM ({@link FenceCredit}), so that the target holds part of them and the
 * origins hold the rest. The result equals the sequential computation: every region is its
 * REPLACE plus its sums, in order (a getAccumulate every fourth round reads the running value),
 * the shared location counts every add once, and each origin's fetchAndOp values rise
 * and, over all origins, are 0, 1, 2, ... once each. Clustered, ranks 2 and 3 are on the other
 * node (over the data plane), rank 1 in the target's JVM; with a plain fence and with
 * NOPRECEDE/NOSUCCEED.
 */
class EarlyFenceOperationsTest {

  private static final int ORIGINS = 3;
  private static final int K = 8192; // longs per accumulate: 64 KiB
  private static final int Q = 512; // longs per put
  private static final int ROUNDS = 40;
  private static final int SHARED = ORIGINS * K;
  private static final int PUTS_AT = SHARED + 8;

  static List<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (Jobs.Mode mode : Jobs.Mode.values()) {
      out.add(Arguments.of(mode, false));
      out.add(Arguments.of(mode, true));
    }
    return out;
  }

  private static long base(int r) {
    return r * 1_000_000_000L;
  }

  @ParameterizedTest(name = "{0}, NOPRECEDE/NOSUCCEED {1}")
  @MethodSource("cases")
  void earlyOperationsPastTheCreditGiveTheSequentialResult(Jobs.Mode mode, boolean noPrecede) {
    Latch issued = new Latch(ORIGINS);
    long[][] fetched = new long[ORIGINS + 1][];
    long windowLongs = PUTS_AT + (long) ORIGINS * ROUNDS * Q;
    Jobs.await(Jobs.start(mode, Jobs.overDataPlane(ORIGINS + 1), (world, args) ->
        Win.allocate(world, world.rank() == 0 ? windowLongs * 8 : 0, 8, Info.NULL)
            .compose(win -> (noPrecede ? Future.<Void>succeededFuture() : win.fence()).map(win)).compose(win -> {
          Mode[] open = noPrecede ? new Mode[] {Mode.NOPRECEDE} : new Mode[0];
          if (world.rank() == 0) {
            return issued.opened().compose(v -> win.fence(open)).compose(v -> win.fence(Mode.NOSUCCEED))
                .compose(v -> ((WinImpl) win).targetWindow().exposure().heldBytes()).map(held -> {
                  checkTarget(win, held, mode);
                  return null;
                }).compose(v -> win.free());
          }
          int r = world.rank();
          Future<Void> opening = win.fence(open); // the target has not opened this epoch yet
          List<Future<Void>> ops = new ArrayList<>();
          long[] replace = new long[K];
          Arrays.fill(replace, base(r));
          ops.add(win.accumulate(Buf.of(replace), 0, K, Datatype.LONG, 0, (long) (r - 1) * K, K, Datatype.LONG,
              Op.REPLACE));
          long[] counts = new long[ROUNDS];
          long[] running = new long[ROUNDS / 4];
          long[] one = {1};
          for (int i = 1; i <= ROUNDS; i++) {
            long[] add = new long[K];
            Arrays.fill(add, i);
            ops.add(win.accumulate(Buf.of(add), 0, K, Datatype.LONG, 0, (long) (r - 1) * K, K, Datatype.LONG, Op.SUM));
            long[] put = new long[Q];
            Arrays.fill(put, base(r) + i);
            ops.add(win.put(Buf.of(put), 0, Q, Datatype.LONG, 0, PUTS_AT + ((long) (r - 1) * ROUNDS + i - 1) * Q, Q,
                Datatype.LONG));
            ops.add(win.fetchAndOp(Buf.of(one), 0, Buf.of(counts), i - 1, Datatype.LONG, 0, SHARED, Op.SUM));
            if (i % 4 == 0) {
              ops.add(win.getAccumulate(null, 0, 0, Datatype.LONG, Buf.of(running), i / 4 - 1, 1, Datatype.LONG, 0,
                  (long) r * K - 1, 1, Datatype.LONG, Op.NO_OP));
            }
          }
          Future<Void> closing = win.fence(Mode.NOSUCCEED);
          issued.arrive();
          return closing.map(v -> {
            assertTrue(opening.succeeded(), "the opening fence completed before the closing one");
            for (int i = 0; i < ops.size(); i++) {
              assertTrue(ops.get(i).succeeded(), "operation " + i + " complete with the closing fence: " + ops.get(i));
            }
            for (int i = 1; i <= ROUNDS / 4; i++) {
              long n = 4L * i;
              assertEquals(base(r) + n * (n + 1) / 2, running[i - 1], "rank " + r + "'s region after round " + n);
            }
            for (int i = 1; i < ROUNDS; i++) {
              assertTrue(counts[i] > counts[i - 1], "rank " + r + "'s fetchAndOp values rise: " + Arrays.toString(counts));
            }
            fetched[r] = counts;
            if (mode == Jobs.Mode.CLUSTERED && r >= 2) {
              assertTrue(((WinImpl) win).mostHeldForFence() > 0, "an origin of the other node held operations back");
            }
            return null;
          }).compose(v -> win.free());
        })), 120);
    long[] all = LongStream.range(1, ORIGINS + 1).mapToObj(r -> fetched[(int) r]).flatMapToLong(Arrays::stream)
        .sorted().toArray();
    assertArrayEquals(LongStream.range(0, (long) ORIGINS * ROUNDS).toArray(), all,
        "every fetchAndOp saw the shared count once");
  }

  private static void checkTarget(Win win, long[] held, Jobs.Mode mode) {
    long sums = (long) ROUNDS * (ROUNDS + 1) / 2;
    for (int r = 1; r <= ORIGINS; r++) {
      for (int at : new int[] {0, K / 2, K - 1}) {
        assertEquals(base(r) + sums, win.memory().readLong(((long) (r - 1) * K + at) * 8), "rank " + r + "'s region");
      }
      for (int i = 1; i <= ROUNDS; i++) {
        long slot = PUTS_AT + ((long) (r - 1) * ROUNDS + i - 1) * Q;
        assertEquals(base(r) + i, win.memory().readLong(slot * 8), "rank " + r + "'s put " + i);
        assertEquals(base(r) + i, win.memory().readLong((slot + Q - 1) * 8), "rank " + r + "'s put " + i);
      }
    }
    assertEquals((long) ORIGINS * ROUNDS, win.memory().readLong((long) SHARED * 8), "the shared count");
    // an origin of the other node sends at most its credit early; one of this JVM's holds its
    // operations in place, each a header's worth here
    int remote = mode == Jobs.Mode.CLUSTERED ? 2 : 0;
    long opsPerOrigin = 1 + ROUNDS * 3L + ROUNDS / 4;
    long bound = remote * FenceCredit.DEFAULT_CREDIT_BYTES + (ORIGINS - remote) * opsPerOrigin
        * OperationFrames.heldBytes(0, 0);
    assertTrue(held[1] <= bound, "at most " + bound + " bytes held for the later epoch: " + held[1]);
    assertEquals(0L, held[0], "nothing held once the epoch closed");
  }
}
