package dev.vertxrma.win;

import static dev.vertxrma.win.RmaOpsTest.all;
import static dev.vertxrma.win.RmaOpsTest.assertBytes;
import static dev.vertxrma.win.RmaOpsTest.bb;
import static dev.vertxrma.win.RmaOpsTest.expectFailure;
import static dev.vertxrma.win.RmaOpsTest.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Active-target synchronization: what fence and post/start/complete/wait guarantee about when
 * operations land, checked with designs that would observe an operation landing too early or a
 * synchronization completing too early.
 */
class ActiveTargetSyncTest {

  static final int TAG = 77;

  static long value(int epoch, int origin, int target, int i) {
    return epoch * 1_000_000L + origin * 10_000L + target * 100L + i;
  }

  /** Sends an empty-ish token (one int) to {@code dest}. */
  static Future<Void> token(Comm world, int dest, int v) {
    return world.send(Buf.of(new int[] {v}), 0, 1, Datatype.INT, dest, TAG);
  }

  static Future<Integer> awaitToken(Comm world, int source) {
    int[] b = new int[1];
    return world.recv(Buf.of(b), 0, 1, Datatype.INT, source, TAG).map(st -> b[0]);
  }

  // ------------------------------------------------------------------ fence

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void afterFenceEveryPutOfTheEpochIsVisibleEverywhere(Jobs.Mode mode) {
    int np = 5;
    int block = 64; // longs each origin writes into each target, self included
    int big = 4096; // longs of the large put to the right neighbour
    Jobs.run(mode, np, (world, args) -> {
      int r = world.rank();
      int n = world.size();
      int epochs = 3;
      long region = 8L * (n * block + big); // each epoch writes its own region: reading one never races the next
      return Win.allocate(world, epochs * region, 8, Info.NULL).compose(win -> {
        Future<Void> chain = win.fence(Mode.NOPRECEDE);
        for (int e = 1; e <= epochs; e++) {
          int epoch = e;
          long base = (e - 1) * region / 8;
          chain = chain.compose(v -> {
            // issue everything, wait for nothing: the fence must complete it all
            for (int t = 0; t < n; t++) {
              long[] data = new long[block];
              for (int i = 0; i < block; i++) {
                data[i] = value(epoch, r, t, i);
              }
              win.put(Buf.of(data), 0, block, Datatype.LONG, t, base + (long) r * block);
            }
            int right = (r + 1) % n;
            long[] large = new long[big];
            for (int i = 0; i < big; i++) {
              large[i] = value(epoch, r, right, i) ^ 0x5555_0000_0000L;
            }
            win.put(Buf.of(large), 0, big, Datatype.LONG, right, base + (long) n * block);
            return win.fence();
          }).map(v -> {
            ByteBuffer mine = bb(read(win.memory(), 8 * base, (int) region));
            for (int o = 0; o < n; o++) {
              for (int i = 0; i < block; i++) {
                long got = mine.getLong(8 * (o * block + i));
                if (got != value(epoch, o, r, i)) {
                  throw new AssertionError("epoch " + epoch + ": rank " + r + " element " + i + " from rank " + o
                      + " is " + got + " after fence, expected " + value(epoch, o, r, i));
                }
              }
            }
            int left = (r + n - 1) % n;
            for (int i = 0; i < big; i++) {
              long expected = value(epoch, left, r, i) ^ 0x5555_0000_0000L;
              long got = mine.getLong(8 * (n * block + i));
              if (got != expected) {
                throw new AssertionError("epoch " + epoch + ": rank " + r + " large-put element " + i + " is " + got
                    + ", expected " + expected);
              }
            }
            return null;
          });
        }
        return chain.compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> win.free());
      });
    });
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void noPrecedeFenceOperationsWaitForTheTargetsFence(Jobs.Mode mode) {
    // ranks 1 (same Vert.x as 0 when clustered) and 2 (the other node) put into rank 0, which calls its
    // fence late: only after both have issued their puts and told it so, and after its own local stores
    Jobs.run(mode, 4, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      if (r == 1 || r == 2) {
        return win.fence(Mode.NOPRECEDE).compose(v -> {
          Future<Void> put = win.put(Buf.of(new long[] {111L * r}), 0, 1, Datatype.LONG, 0, r);
          Future<Void> acc = win.accumulate(Buf.of(new long[] {r}), 0, 1, Datatype.LONG, 0, 4, Op.SUM);
          // do not wait for the operations: rank 0 has not opened the epoch yet
          return token(world, 0, r).compose(v2 -> Future.all(put, acc));
        }).compose(v -> win.fence()).compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> win.free());
      }
      if (r == 0) {
        return awaitToken(world, 1).compose(v -> awaitToken(world, 2)).compose(v -> {
          // the puts were issued before the tokens were sent; none may have landed yet
          assertEquals(0L, win.memory().readLong(8), "rank 1's put landed before rank 0's fence");
          assertEquals(0L, win.memory().readLong(16), "rank 2's put landed before rank 0's fence");
          assertEquals(0L, win.memory().readLong(32), "an accumulate landed before rank 0's fence");
          // local stores before the fence that opens the epoch; the epoch's puts must land after them
          win.memory().writeLong(8, -1);
          win.memory().writeLong(16, -2);
          win.memory().writeLong(24, -3);
          win.memory().writeLong(32, 1000);
          return win.fence(Mode.NOPRECEDE);
        }).compose(v -> win.fence()).map(v -> {
          assertEquals(111L, win.memory().readLong(8), "rank 1's put");
          assertEquals(222L, win.memory().readLong(16), "rank 2's put");
          assertEquals(-3L, win.memory().readLong(24), "rank 0's own store");
          assertEquals(1003L, win.memory().readLong(32), "accumulates on top of rank 0's store");
          return null;
        }).compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> win.free());
      }
      return win.fence(Mode.NOPRECEDE).compose(v -> win.fence()).compose(v -> win.fence(Mode.NOSUCCEED))
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  // ------------------------------------------------------------------ post/start/complete/wait

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void pscwNothingLandsBeforePostAndTestReportsCompletion(Jobs.Mode mode) {
    // target rank 0; origins 1 (same node when clustered) and 2 (other node); rank 3 only frees
    Jobs.run(mode, 4, (world, args) -> Win.allocate(world, 128, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      Group target = world.group().incl(0);
      Group origins = world.group().incl(1, 2);
      if (r == 1 || r == 2) {
        long[] got = {-9};
        // round 1: start before the target posted
        Future<Void> started = win.start(target);
        assertFalse(started.isComplete(), "start completed at rank " + r + " before rank 0 posted");
        Future<Void> put = win.put(Buf.of(new long[] {100L + r}), 0, 1, Datatype.LONG, 0, r);
        Future<Void> acc = win.accumulate(Buf.of(new long[] {r}), 0, 1, Datatype.LONG, 0, 5, Op.SUM);
        Future<Void> get = win.get(Buf.of(got), 0, 1, Datatype.LONG, 0, 3);
        return token(world, 0, r)
            .compose(v -> Future.all(started, put, acc, get))
            .compose(v -> win.complete())
            .map(v -> {
              assertEquals(333L, got[0], "get after start sees the store rank 0 made before posting");
              return null;
            })
            // round 2: the target polls test() until the epoch is complete
            .compose(v -> awaitToken(world, 0))
            .compose(v -> win.start(target))
            .compose(v -> win.put(Buf.of(new long[] {200L + r}), 0, 1, Datatype.LONG, 0, 8 + r))
            .compose(v -> win.complete())
            .compose(v -> win.free());
      }
      if (r == 0) {
        return awaitToken(world, 1).compose(v -> awaitToken(world, 2)).compose(v -> {
          for (int d = 0; d < 16; d++) {
            assertEquals(0L, win.memory().readLong(8L * d), "an operation landed at disp " + d
                + " before rank 0 posted");
          }
          win.memory().writeLong(8, -1);
          win.memory().writeLong(16, -2);
          win.memory().writeLong(24, 333);
          win.memory().writeLong(40, 1000);
          return win.post(origins);
        }).compose(v -> win.test()).compose(done -> {
          assertFalse(done, "test() true right after post, before any origin could complete");
          return win.waitFor();
        }).map(v -> {
          assertEquals(101L, win.memory().readLong(8));
          assertEquals(102L, win.memory().readLong(16));
          assertEquals(333L, win.memory().readLong(24));
          assertEquals(1003L, win.memory().readLong(40));
          return null;
        }).compose(v -> win.post(origins)).compose(v -> win.test()).compose(first -> {
          assertFalse(first, "test() true before the origins were even told to start");
          return token(world, 1, 0).compose(v -> token(world, 2, 0));
        }).compose(v -> pollTest(win, world, 0)).compose(polls -> {
          assertEquals(201L, win.memory().readLong(72));
          assertEquals(202L, win.memory().readLong(80));
          // test() returned true: the exposure epoch is over
          return expectFailure("waitFor after test() returned true", win.waitFor(), ErrorClass.RMA_SYNC,
              "without a matching post");
        }).compose(v -> win.free());
      }
      return win.free();
    }));
    assertEquals(0, WindowMemory.live());
  }

  /** Calls test() every few milliseconds (timer, not sleep) until it returns true; the number of calls. */
  static Future<Integer> pollTest(Win win, Comm world, int calls) {
    return win.test().compose(done -> {
      if (done) {
        return Future.succeededFuture(calls + 1);
      }
      if (calls > 5000) {
        return Future.failedFuture(new AssertionError("test() never returned true"));
      }
      Promise<Integer> p = Promise.promise();
      world.vertx().setTimer(2, id -> pollTest(win, world, calls + 1).onComplete(p));
      return p.future();
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void noCheckAfterBarrierThenCheckedEpochs(Jobs.Mode mode) {
    // every rank exposes to and accesses every other rank; NOCHECK epochs after a barrier, then a checked
    // epoch whose posts are delayed (a stale POST from the NOCHECK epochs would let an origin in early)
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      int[] others = IntStream.range(0, n).filter(x -> x != r).toArray();
      Group g = world.group().incl(others);
      Future<Void> chain = Future.succeededFuture();
      for (int round = 0; round < 2; round++) {
        int rd = round;
        chain = chain
            .compose(v -> win.post(g, Mode.NOCHECK))
            .compose(v -> world.barrier())
            .compose(v -> {
              Future<Void> s = win.start(g, Mode.NOCHECK);
              assertTrue(s.isComplete(), "start(NOCHECK) completes at once");
              List<Future<?>> ops = new ArrayList<>();
              for (int t : others) {
                ops.add(win.put(Buf.of(new long[] {value(rd, r, t, 0)}), 0, 1, Datatype.LONG, t, r));
              }
              return s.compose(x -> all(ops));
            })
            .compose(v -> win.complete())
            .compose(v -> win.waitFor())
            .map(v -> {
              for (int o : others) {
                assertEquals(value(rd, o, r, 0), win.memory().readLong(8L * o), "NOCHECK round " + rd + " at rank "
                    + r + " from rank " + o);
              }
              return null;
            });
      }
      // checked epoch: rank 0 posts only after everyone else has already called start and put
      return chain.compose(v -> world.barrier()).compose(v -> {
        if (r == 0) {
          return awaitToken(world, 1).compose(x -> awaitToken(world, 2)).compose(x -> {
            for (int o : others) {
              assertEquals(value(1, o, 0, 0), win.memory().readLong(8L * o), "rank " + o + "'s checked-epoch put "
                  + "landed before rank 0 posted");
            }
            return win.post(g);
          }).compose(x -> win.start(g)).compose(x -> win.complete()).compose(x -> win.waitFor()).map(x -> {
            for (int o : others) {
              assertEquals(value(7, o, 0, 0), win.memory().readLong(8L * o));
            }
            return null;
          });
        }
        Future<Void> s = win.start(world.group().incl(0));
        Future<Void> put = win.put(Buf.of(new long[] {value(7, r, 0, 0)}), 0, 1, Datatype.LONG, 0, r);
        return token(world, 0, r).compose(x -> Future.all(s, put)).compose(x -> win.complete())
            .compose(x -> win.post(world.group().incl(0))).compose(x -> win.waitFor());
      }).compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void twoWindowsInterleaved(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> {
      int r = world.rank();
      int n = world.size();
      int right = (r + 1) % n;
      int left = (r + n - 1) % n;
      return Win.allocate(world, 128, 8, Info.NULL).compose(a -> Win.allocate(world, 96, 4, Info.NULL)
          .compose(b -> {
            Group all = world.group().incl(IntStream.range(0, n).toArray());
            return a.fence()
                .compose(v -> b.fence())
                .compose(v -> Future.all(
                    a.put(Buf.of(new long[] {value(1, r, right, 0)}), 0, 1, Datatype.LONG, right, r),
                    b.put(Buf.of(new int[] {-(r + 1)}), 0, 1, Datatype.INT, right, r),
                    a.accumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, 0, n, Op.SUM),
                    b.accumulate(Buf.of(new int[] {2}), 0, 1, Datatype.INT, 0, n, Op.SUM)))
                .compose(v -> b.fence(Mode.NOSUCCEED))
                .compose(v -> a.put(Buf.of(new long[] {value(2, r, left, 0)}), 0, 1, Datatype.LONG, left, 8 + r))
                .compose(v -> a.fence())
                // b in post/start/complete/wait while a's fence epoch is open
                .compose(v -> b.post(all))
                .compose(v -> b.start(all))
                .compose(v -> Future.all(
                    b.put(Buf.of(new int[] {100 + r}), 0, 1, Datatype.INT, left, 8 + r),
                    a.put(Buf.of(new long[] {value(3, r, right, 0)}), 0, 1, Datatype.LONG, right, 4 + r),
                    b.accumulate(Buf.of(new int[] {r + 1}), 0, 1, Datatype.INT, 0, 12, Op.SUM),
                    a.accumulate(Buf.of(new long[] {r + 1}), 0, 1, Datatype.LONG, 0, 15, Op.SUM)))
                .compose(v -> b.complete())
                .compose(v -> b.waitFor())
                .compose(v -> a.fence(Mode.NOSUCCEED))
                .map(v -> {
                  byte[] ea = new byte[128];
                  ByteBuffer wa = bb(ea);
                  wa.putLong(8 * left, value(1, left, r, 0));
                  wa.putLong(8 * (8 + right), value(2, right, r, 0));
                  wa.putLong(8 * (4 + left), value(3, left, r, 0));
                  byte[] eb = new byte[96];
                  ByteBuffer wb = bb(eb);
                  wb.putInt(4 * left, -(left + 1));
                  wb.putInt(4 * (8 + right), 100 + right);
                  if (r == 0) {
                    wa.putLong(8 * n, n);
                    wa.putLong(8 * 15, n * (n + 1) / 2);
                    wb.putInt(4 * n, 2 * n);
                    wb.putInt(4 * 12, n * (n + 1) / 2);
                  }
                  assertBytes(ea, read(a.memory(), 0, 128), "window a at rank " + r);
                  assertBytes(eb, read(b.memory(), 0, 96), "window b at rank " + r);
                  return null;
                })
                .compose(v -> b.free())
                .compose(v -> a.free());
          }));
    });
    assertEquals(0, WindowMemory.live());
  }
}
