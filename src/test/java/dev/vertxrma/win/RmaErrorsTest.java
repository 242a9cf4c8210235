package dev.vertxrma.win;

import static dev.vertxrma.win.RmaOpsTest.assertBytes;
import static dev.vertxrma.win.RmaOpsTest.bb;
import static dev.vertxrma.win.RmaOpsTest.expectFailure;
import static dev.vertxrma.win.RmaOpsTest.read;
import static dev.vertxrma.win.RmaOpsTest.syncAllowing;
import static dev.vertxrma.win.RmaOpsTest.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.ops.BasicType;
import dev.vertxrma.impl.ops.OperationFrames;
import dev.vertxrma.impl.ops.RmaTarget;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.io.ReferenceOwner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Erroneous RMA calls: each is rejected with the MPI error class and a message naming the
 * offending values, leaves the target window byte-for-byte unchanged, and is followed by a
 * correct operation that shows the window still works. Also malformed frames applied directly at
 * the target.
 */
class RmaErrorsTest {

  static final int[] UNITS = {8, 1, 4};

  /** 64, 71, 78: sizes that are not all multiples of their rank's displacement unit. */
  static long sizeOf(int rank) {
    return 64 + 7L * rank;
  }

  static byte[] pattern(int rank, int len) {
    byte[] b = new byte[len];
    new Random(4242 + rank).nextBytes(b);
    return b;
  }

  /** One erroneous call and what it must fail with. */
  static final class Case {
    final String what;
    final Supplier<Future<?>> call;
    final ErrorClass cls;
    final String[] parts;

    Case(String what, Supplier<Future<?>> call, ErrorClass cls, String... parts) {
      this.what = what;
      this.call = call;
      this.cls = cls;
      this.parts = parts;
    }
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void rangeRankAndCountErrorsLeaveTheTargetUnchanged(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> {
      int r = world.rank();
      int n = world.size();
      int t = (r + 1) % n;
      int origin = (r + n - 1) % n;
      long size = sizeOf(r);
      return Win.allocate(world, size, UNITS[r], Info.NULL).compose(win -> {
        write(win.memory(), 0, pattern(r, (int) size));
        long tSize = sizeOf(t);
        int u = UNITS[t];
        String sz = "window size " + tSize;
        String rk = "rank " + t;
        long[] one = {1};
        long[] l3 = {1, 2, 3};
        long[] res = {-9, -9, -9};
        long beyond = tSize / u;
        long last = tSize / u - 1;
        int overBy1 = (int) (tSize - last * u + 1);
        Datatype bytesOver = Datatype.contiguous(overBy1, Datatype.BYTE).commit();
        Datatype bytesFit = Datatype.contiguous(overBy1 - 1, Datatype.BYTE).commit();
        Datatype zeroExtentLong = Datatype.resized(Datatype.LONG, 0, 0).commit();
        Datatype hugeExtent = Datatype.resized(Datatype.LONG, 0, Long.MAX_VALUE / 2).commit();
        byte[] over = new byte[overBy1];
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("put just beyond the end", () -> win.put(Buf.of(one), 0, 1, Datatype.LONG, t, beyond),
            ErrorClass.RMA_RANGE, "disp=" + beyond, sz, rk));
        cases.add(new Case("put one byte past the end", () -> win.put(Buf.of(over), 0, 1, bytesOver, t, last),
            ErrorClass.RMA_RANGE, "disp=" + last, sz, rk));
        cases.add(new Case("get one byte past the end", () -> win.get(Buf.of(over), 0, 1, bytesOver, t, last),
            ErrorClass.RMA_RANGE, "disp=" + last, sz, rk));
        cases.add(new Case("accumulate one byte past the end", () -> win.accumulate(Buf.of(over), 0, overBy1, Datatype.BYTE, t,
            last, 1, bytesOver, Op.BXOR), ErrorClass.RMA_RANGE, "disp=" + last, sz, rk));
        if (u == 1) {
          cases.add(new Case("LONG put one byte past the end", () -> win.put(Buf.of(one), 0, 1, Datatype.LONG, t, tSize - 7),
              ErrorClass.RMA_RANGE, "disp=" + (tSize - 7), sz, rk));
        }
        cases.add(new Case("accumulate at a negative disp", () -> win.accumulate(Buf.of(one), 0, 1, Datatype.LONG, t, -1,
            Op.SUM), ErrorClass.RMA_RANGE, "disp=-1", sz, rk));
        cases.add(new Case("getAccumulate at disp Long.MIN_VALUE", () -> win.getAccumulate(Buf.of(one), 0, 1, Datatype.LONG,
            Buf.of(res), 0, 1, Datatype.LONG, t, Long.MIN_VALUE, 1, Datatype.LONG, Op.SUM), ErrorClass.RMA_RANGE,
            "disp=" + Long.MIN_VALUE, sz, rk));
        cases.add(new Case("put at disp Long.MAX_VALUE", () -> win.put(Buf.of(one), 0, 1, Datatype.LONG, t, Long.MAX_VALUE),
            ErrorClass.RMA_RANGE, "disp=" + Long.MAX_VALUE, sz, rk));
        cases.add(new Case("put at disp Long.MAX_VALUE / unit", () -> win.put(Buf.of(one), 0, 1, Datatype.LONG, t,
            Long.MAX_VALUE / u), ErrorClass.RMA_RANGE, "disp=" + Long.MAX_VALUE / u, sz, rk));
        cases.add(new Case("get at disp Long.MAX_VALUE / 2", () -> win.get(Buf.of(res), 0, 1, Datatype.LONG, t,
            Long.MAX_VALUE / 2), ErrorClass.RMA_RANGE, "disp=" + Long.MAX_VALUE / 2, sz, rk));
        cases.add(new Case("fetchAndOp far beyond the end", () -> win.fetchAndOp(1, t, beyond + 1000, Op.SUM),
            ErrorClass.RMA_RANGE, "disp=" + (beyond + 1000), sz, rk));
        cases.add(new Case("compareAndSwap at disp Long.MAX_VALUE / 3", () -> win.compareAndSwap(0, 1, t,
            Long.MAX_VALUE / 3), ErrorClass.RMA_RANGE, "disp=" + Long.MAX_VALUE / 3, sz, rk));
        cases.add(new Case("put of a huge count", () -> win.put(Buf.of(one), 0, Integer.MAX_VALUE, zeroExtentLong, t, 0,
            Integer.MAX_VALUE, Datatype.LONG), ErrorClass.RMA_RANGE, "disp=0", sz, rk));
        cases.add(new Case("get of a huge count", () -> win.get(Buf.of(res), 0, Integer.MAX_VALUE, zeroExtentLong, t, 0,
            Integer.MAX_VALUE, Datatype.LONG), ErrorClass.RMA_RANGE, "disp=0", sz, rk));
        cases.add(new Case("accumulate of a huge count", () -> win.accumulate(Buf.of(one), 0, Integer.MAX_VALUE,
            zeroExtentLong, t, 0, Integer.MAX_VALUE, Datatype.LONG, Op.SUM), ErrorClass.RMA_RANGE, "disp=0", sz, rk));
        cases.add(new Case("count x extent overflowing 64 bits", () -> win.put(Buf.of(l3), 0, 3, Datatype.LONG, t, 0, 3,
            hugeExtent), ErrorClass.RMA_RANGE, "disp=0", sz, rk));
        cases.add(new Case("put to rank " + n, () -> win.put(Buf.of(one), 0, 1, Datatype.LONG, n, 0), ErrorClass.RANK,
            "rank " + n));
        cases.add(new Case("get from rank -5", () -> win.get(Buf.of(res), 0, 1, Datatype.LONG, -5, 0), ErrorClass.RANK,
            "rank -5"));
        cases.add(new Case("accumulate to rank Integer.MAX_VALUE", () -> win.accumulate(Buf.of(one), 0, 1, Datatype.LONG,
            Integer.MAX_VALUE, 0, Op.SUM), ErrorClass.RANK, "rank " + Integer.MAX_VALUE));
        cases.add(new Case("fetchAndOp to rank 99", () -> win.fetchAndOp(1, 99, 0, Op.SUM), ErrorClass.RANK,
            "rank 99"));
        cases.add(new Case("put with origin count -1", () -> win.put(Buf.of(one), 0, -1, Datatype.LONG, t, 0),
            ErrorClass.COUNT, "-1"));
        cases.add(new Case("put with target count -2", () -> win.put(Buf.of(one), 0, 0, Datatype.LONG, t, 0, -2,
            Datatype.LONG), ErrorClass.COUNT, "-2"));
        cases.add(new Case("get with count -3", () -> win.get(Buf.of(res), 0, -3, Datatype.LONG, t, 0), ErrorClass.COUNT,
            "-3"));
        cases.add(new Case("accumulate with count -4", () -> win.accumulate(Buf.of(one), 0, -4, Datatype.LONG, t, 0, Op.SUM),
            ErrorClass.COUNT, "-4"));
        cases.add(new Case("getAccumulate with result count -5", () -> win.getAccumulate(Buf.of(one), 0, 1, Datatype.LONG,
            Buf.of(res), 0, -5, Datatype.LONG, t, 0, 1, Datatype.LONG, Op.SUM), ErrorClass.COUNT, "-5"));

        Datatype reachesBack = Datatype.hindexed(new int[] {1, 1}, new long[] {-8, 0}, Datatype.LONG).commit();
        cases.add(new Case("derived type reaching 8 bytes before the window", () -> win.put(Buf.of(new long[] {1, 2}), 0, 2,
            Datatype.LONG, t, 0, 1, reachesBack), ErrorClass.RMA_RANGE, "disp=0", sz, rk));
        cases.add(new Case("get into a buffer too small", () -> win.get(Buf.of(new long[1]), 0, 2, Datatype.LONG, t, 0),
            ErrorClass.BUFFER, "2"));
        cases.add(new Case("put from an offset past the buffer", () -> win.put(Buf.of(one), 3, 1, Datatype.LONG, t, 0),
            ErrorClass.BUFFER, "3"));
        cases.add(new Case("put from a null buffer", () -> win.put(null, 0, 1, Datatype.LONG, t, 0),
            ErrorClass.BUFFER));
        cases.add(new Case("getAccumulate into a result buffer too small", () -> win.getAccumulate(Buf.of(l3), 0, 3,
            Datatype.LONG, Buf.of(new long[2]), 0, 3, Datatype.LONG, t, 0, 3, Datatype.LONG, Op.SUM), ErrorClass.BUFFER));
        cases.add(new Case("accumulate with a null op", () -> win.accumulate(Buf.of(one), 0, 1, Datatype.LONG, t, 0, null),
            ErrorClass.OP));
        byte[][] snapshot = new byte[1][];
        byte[] fit = pattern(100 + r, overBy1 - 1);
        Future<Void> chain = Future.succeededFuture();
        // outside any epoch: RMA_SYNC, nothing sent
        chain = chain
            .compose(v -> expectFailure("put before the first fence", win.put(Buf.of(one), 0, 1, Datatype.LONG, t, 0),
                ErrorClass.RMA_SYNC, "to rank " + t, "outside an access epoch"))
            .compose(v -> expectFailure("get before the first fence", win.get(Buf.of(res), 0, 1, Datatype.LONG, t, 0),
                ErrorClass.RMA_SYNC, "to rank " + t))
            .compose(v -> expectFailure("accumulate before the first fence", win.accumulate(Buf.of(one), 0, 1, Datatype.LONG,
                t, 0, Op.SUM), ErrorClass.RMA_SYNC, "to rank " + t))
            .compose(v -> expectFailure("fetchAndOp before the first fence", win.fetchAndOp(1, t, 0, Op.SUM),
                ErrorClass.RMA_SYNC, "to rank " + t))
            .compose(v -> expectFailure("compareAndSwap before the first fence", win.compareAndSwap(0, 1, t, 0),
                ErrorClass.RMA_SYNC, "to rank " + t))
            .compose(v -> win.fence())
            .compose(v -> {
              snapshot[0] = read(win.memory(), 0, (int) size);
              return world.barrier();
            });
        for (Case c : cases) {
          chain = chain
              .compose(v -> expectFailure(c.what + " (rank " + r + " -> rank " + t + ", unit " + u + ")", c.call,
                  c.cls, c.parts))
              .compose(v -> win.accumulate(Buf.of(one), 0, 1, Datatype.LONG, t, 0, Op.SUM));
        }
        // the origin that targets this rank ran the same list, with the unit-1-only case iff this rank's unit is 1
        int errors = cases.size() - (u == 1 ? 1 : 0) + (UNITS[r] == 1 ? 1 : 0);
        return chain
            .compose(v -> win.put(Buf.of(fit), 0, 1, bytesFit, t, last))
            .compose(v -> syncAllowing(win.fence(), ErrorClass.RMA_RANGE, ErrorClass.RANK, ErrorClass.COUNT,
                ErrorClass.BUFFER, ErrorClass.OP))
            .map(v -> {
              assertArrayEquals(new long[] {-9, -9, -9}, res, "rejected gets leave the origin buffer alone");
              byte[] expected = snapshot[0].clone();
              ByteBuffer e = bb(expected);
              e.putLong(0, e.getLong(0) + errors);
              long myLast = size / UNITS[r] - 1;
              int fitLen = (int) (size - myLast * UNITS[r]);
              byte[] leftFit = pattern(100 + origin, fitLen);
              System.arraycopy(leftFit, 0, expected, (int) (myLast * UNITS[r]), fitLen);
              assertBytes(expected, read(win.memory(), 0, (int) size), "window of rank " + r + " after " + errors
                  + " rejected calls of rank " + origin + ", each followed by a counted accumulate, and an exact fit "
                  + "at the end");
              return null;
            })
            .compose(v -> win.fence(Mode.NOSUCCEED))
            .compose(v -> expectFailure("put after fence(NOSUCCEED)", win.put(Buf.of(one), 0, 1, Datatype.LONG, t, 0),
                ErrorClass.RMA_SYNC, "outside an access epoch"))
            .compose(v -> win.free());
      });
    });
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void synchronizationErrorsAndUseAfterFree(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> {
      int r = world.rank();
      int n = world.size();
      int right = (r + 1) % n;
      int left = (r + n - 1) % n;
      long[] v1 = {1000 + r};
      return Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
        write(win.memory(), 0, pattern(r, 64));
        byte[] initial = pattern(r, 64);
        byte[][] snapshot = new byte[1][];
        return expectFailure("complete without start", win.complete(), ErrorClass.RMA_SYNC,
            "complete at rank " + r, "without a matching start")
            .compose(v -> expectFailure("waitFor without post", win.waitFor(), ErrorClass.RMA_SYNC,
                "waitFor at rank " + r, "without a matching post"))
            .compose(v -> expectFailure("test without post", win.test(), ErrorClass.RMA_SYNC, "rank " + r))
            .compose(v -> expectFailure("put outside any epoch", win.put(Buf.of(v1), 0, 1, Datatype.LONG, right, 1),
                ErrorClass.RMA_SYNC, "to rank " + right))
            // fence(NOPRECEDE) closing an epoch that has operations: rejected everywhere, a plain fence then works
            .compose(v -> win.fence())
            .compose(v -> win.put(Buf.of(v1), 0, 1, Datatype.LONG, right, 1))
            .compose(v -> expectFailure("fence(NOPRECEDE) after a put", win.fence(Mode.NOPRECEDE),
                ErrorClass.RMA_SYNC, "NOPRECEDE", "rank " + r))
            .compose(v -> win.fence())
            .map(v -> {
              byte[] expected = initial.clone();
              bb(expected).putLong(8, 1000 + left);
              assertBytes(expected, read(win.memory(), 0, 64), "window of rank " + r + " after the ring put");
              return null;
            })
            .compose(v -> win.fence(Mode.NOSUCCEED))
            .compose(v -> expectFailure("put after fence(NOSUCCEED)", win.put(Buf.of(v1), 0, 1, Datatype.LONG, right, 3),
                ErrorClass.RMA_SYNC, "outside an access epoch"))
            .compose(v -> {
              snapshot[0] = read(win.memory(), 0, 64);
              Group g0 = world.group().incl(0);
              Group g1 = world.group().incl(1);
              if (r == 0) {
                return win.post(g1)
                    .compose(x -> expectFailure("post twice", win.post(g1), ErrorClass.RMA_SYNC, "post at rank 0",
                        "exposure epoch"))
                    .compose(x -> expectFailure("fence inside an exposure epoch", win.fence(), ErrorClass.RMA_SYNC,
                        "fence at rank 0"))
                    .compose(x -> expectFailure("free inside an exposure epoch", win.free(), ErrorClass.RMA_SYNC,
                        "free of window"))
                    .compose(x -> win.waitFor())
                    .compose(x -> expectFailure("waitFor after the epoch ended", win.waitFor(), ErrorClass.RMA_SYNC,
                        "without a matching post"))
                    .map(x -> {
                      byte[] expected = snapshot[0].clone();
                      bb(expected).putLong(16, 4242);
                      assertBytes(expected, read(win.memory(), 0, 64), "window of rank 0 after the post/start epoch");
                      return null;
                    });
              }
              if (r == 1) {
                Future<Void> started = win.start(g0);
                return expectFailure("nested start", win.start(g0), ErrorClass.RMA_SYNC, "start at rank 1",
                    "access epoch")
                    .compose(x -> expectFailure("put to a rank outside the start group", win.put(Buf.of(v1), 0, 1,
                        Datatype.LONG, 2, 2), ErrorClass.RMA_SYNC, "rank 2", "not in the start group"))
                    .compose(x -> expectFailure("fence inside an access epoch", win.fence(), ErrorClass.RMA_SYNC,
                        "fence at rank 1"))
                    .compose(x -> started)
                    .compose(x -> win.put(Buf.of(new long[] {4242}), 0, 1, Datatype.LONG, 0, 2))
                    .compose(x -> win.complete())
                    .compose(x -> expectFailure("complete twice", win.complete(), ErrorClass.RMA_SYNC,
                        "without a matching start"));
              }
              return Future.succeededFuture();
            })
            .compose(v -> world.barrier())
            .map(v -> {
              if (r != 0) {
                assertBytes(snapshot[0], read(win.memory(), 0, 64), "window of rank " + r + " (not exposed)");
              }
              return null;
            })
            .compose(v -> win.free())
            .compose(v -> expectFailure("put after free", win.put(Buf.of(v1), 0, 1, Datatype.LONG, right, 0), ErrorClass.WIN,
                "after free"))
            .compose(v -> expectFailure("get after free", win.get(Buf.of(new long[1]), 0, 1, Datatype.LONG, right, 0),
                ErrorClass.WIN, "after free"))
            .compose(v -> expectFailure("accumulate after free", win.accumulate(Buf.of(v1), 0, 1, Datatype.LONG, right, 0,
                Op.SUM), ErrorClass.WIN))
            .compose(v -> expectFailure("fetchAndOp after free", win.fetchAndOp(1, right, 0, Op.SUM), ErrorClass.WIN))
            .compose(v -> expectFailure("compareAndSwap after free", win.compareAndSwap(1, 2, right, 0),
                ErrorClass.WIN))
            .compose(v -> expectFailure("fence after free", win.fence(), ErrorClass.WIN, "fence"))
            .compose(v -> expectFailure("post after free", win.post(world.group().incl(right)), ErrorClass.WIN))
            .compose(v -> expectFailure("start after free", win.start(world.group().incl(right)), ErrorClass.WIN))
            .compose(v -> expectFailure("complete after free", win.complete(), ErrorClass.WIN))
            .compose(v -> expectFailure("waitFor after free", win.waitFor(), ErrorClass.WIN))
            .compose(v -> expectFailure("second free", win.free(), ErrorClass.WIN, "free"))
            .map(v -> {
              RmaException e = assertThrows(RmaException.class, win::memory);
              assertEquals(ErrorClass.WIN, e.errorClass());
              return null;
            })
            // the library still works: a new window
            .compose(v -> Win.allocate(world, 16, 8, Info.NULL))
            .compose(w2 -> w2.fence()
                .compose(v -> w2.put(Buf.of(v1), 0, 1, Datatype.LONG, right, 1))
                .compose(v -> w2.fence(Mode.NOSUCCEED))
                .map(v -> {
                  assertEquals(1000 + left, w2.memory().readLong(8));
                  assertEquals(0, w2.memory().readLong(0));
                  return null;
                })
                .compose(v -> w2.free()));
      });
    });
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void wrongNoCheckPromiseIsDetectedAtTheTargetAndReportedByComplete(Jobs.Mode mode) {
    // rank 1 starts with NOCHECK although rank 0 never posted: only rank 0 can tell. Its rejection must
    // reach rank 1's operation (if it waits for the target) and always rank 1's complete(), rank 0's
    // window must be unchanged, and a correct epoch afterwards must work and report nothing.
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      write(win.memory(), 0, pattern(r, 64));
      byte[] before = pattern(r, 64);
      if (r == 1) {
        Group g0 = world.group().incl(0);
        long[] got = {-9};
        return win.start(g0, Mode.NOCHECK)
            .compose(v -> {
              Future<Void> put = win.put(Buf.of(new long[] {77}), 0, 1, Datatype.LONG, 0, 1);
              // same JVM: the put's future waits for the target, so it carries the rejection
              Future<Void> putChecked = mode == Jobs.Mode.EMBEDDED
                  ? expectFailure("put into an unposted window (same JVM)", put, ErrorClass.RMA_SYNC, "rank 1",
                      "rank 0", "not posted")
                  : put;
              Future<Void> getChecked = expectFailure("get from an unposted window", win.get(Buf.of(got), 0, 1,
                  Datatype.LONG, 0, 2), ErrorClass.RMA_SYNC, "rank 1", "rank 0", "not posted");
              return Future.all(putChecked, getChecked);
            })
            .compose(v -> expectFailure("complete of the epoch whose operations were rejected", win.complete(),
                ErrorClass.RMA_SYNC, "rank 1", "not posted"))
            .map(v -> {
              assertEquals(-9L, got[0], "the rejected get wrote nothing");
              return null;
            })
            .compose(v -> token(world, 0))
            .compose(v -> win.start(g0))
            .compose(v -> win.put(Buf.of(new long[] {88}), 0, 1, Datatype.LONG, 0, 3))
            .compose(v -> win.complete())
            .compose(v -> world.barrier())
            .compose(v -> win.free());
      }
      return awaitToken(world, 1)
          .map(v -> {
            assertBytes(before, read(win.memory(), 0, 64), "rank 0's window after the rejected operations");
            return null;
          })
          .compose(v -> win.post(world.group().incl(1)))
          .compose(v -> win.waitFor())
          .map(v -> {
            byte[] expected = before.clone();
            bb(expected).putLong(24, 88);
            assertBytes(expected, read(win.memory(), 0, 64), "rank 0's window after the correct epoch");
            return null;
          })
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  static Future<Void> token(dev.vertxrma.Comm world, int dest) {
    // tokens and RMA frames from one rank to another travel in order (same transport)
    return world.send(Buf.of(new int[] {1}), 0, 1, Datatype.INT, dest, 91);
  }

  static Future<Void> awaitToken(dev.vertxrma.Comm world, int source) {
    return world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, source, 91).mapEmpty();
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void mismatchedNoSucceedIsDetectedAtTheTarget(Jobs.Mode mode) {
    // NOSUCCEED must be given by all ranks or none (Mode); rank 0 gives it, rank 1 does not and puts into
    // rank 0 in the epoch rank 0 declared empty. Only rank 0 can tell: it must reject the put (RMA_SYNC),
    // on the put's future when that waits for the target, and always on rank 1's next fence; rank 0's
    // window stays unchanged. Round 1: the put arrives after rank 0's fence(NOSUCCEED). Round 2: it arrives
    // before (fence(NOPRECEDE) has no barrier), so rank 0 holds it until its fence(NOSUCCEED) enters the
    // put's epoch, which that fence declares empty: the put must be rejected then, exactly as in round 1.
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      write(win.memory(), 0, pattern(r, 64));
      byte[] before = pattern(r, 64);
      if (r == 0) {
        return win.fence()
            // round 1
            .compose(v -> win.fence(Mode.NOPRECEDE, Mode.NOSUCCEED))
            .compose(v -> token(world, 1))
            .compose(v -> win.fence())
            .map(v -> {
              assertBytes(before, read(win.memory(), 0, 64), "rank 0's window after a put into its NOSUCCEED epoch "
                  + "that arrived after its fence");
              return null;
            })
            // round 2
            .compose(v -> awaitToken(world, 1))
            .compose(v -> win.fence(Mode.NOPRECEDE, Mode.NOSUCCEED))
            .compose(v -> win.fence())
            .map(v -> {
              assertBytes(before, read(win.memory(), 0, 64), "rank 0's window after a put into its NOSUCCEED epoch "
                  + "that arrived before its fence (held, then applied although the epoch was declared empty)");
              return null;
            })
            .compose(v -> win.fence(Mode.NOSUCCEED))
            .compose(v -> win.free());
      }
      return win.fence()
          // round 1
          .compose(v -> awaitToken(world, 0))
          .compose(v -> win.fence(Mode.NOPRECEDE))
          .compose(v -> {
            Future<Void> put = win.put(Buf.of(new long[] {77}), 0, 1, Datatype.LONG, 0, 1);
            return mode == Jobs.Mode.EMBEDDED ? expectFailure("round 1 put (same JVM)", put, ErrorClass.RMA_SYNC,
                "rank 1", "rank 0", "NOSUCCEED") : put;
          })
          .compose(v -> expectFailure("round 1 fence after the rejected put", win.fence(), ErrorClass.RMA_SYNC,
              "rank 1", "NOSUCCEED"))
          // round 2
          .compose(v -> win.fence(Mode.NOPRECEDE))
          .compose(v -> {
            Future<Void> put = win.put(Buf.of(new long[] {88}), 0, 1, Datatype.LONG, 0, 2);
            return token(world, 0).compose(x -> mode == Jobs.Mode.EMBEDDED ? expectFailure("round 2 put (same JVM)",
                put, ErrorClass.RMA_SYNC, "rank 1", "rank 0") : put);
          })
          .compose(v -> expectFailure("round 2 fence after the put rank 0 should have rejected", win.fence(),
              ErrorClass.RMA_SYNC, "rank 1"))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void rejectedStartOrPostLeavesTheOpenFenceEpochAlone(Jobs.Mode mode) {
    // a start/post rejected for its group (RANK) must not change the synchronization state: the fence
    // epoch opened before it is still open, so operations in it work and the next fence completes them
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int other = 1 - r;
      return win.fence()
          .compose(v -> expectFailure("start with rank 5 in its group",
              win.start(Group.of(world.group().jobRank(r), world.group().jobRank(other), 5)),
              ErrorClass.RANK, "rank 5"))
          .compose(v -> win.put(Buf.of(new long[] {40 + r}), 0, 1, Datatype.LONG, other, 1).recover(e -> Future.failedFuture(
              new AssertionError("rank " + r + ": a put in the fence epoch failed after a start() rejected with "
                  + "RANK: " + e.getMessage(), e))))
          .compose(v -> expectFailure("post with rank 9 in its group",
              win.post(Group.of(world.group().jobRank(r), world.group().jobRank(other), 9)),
              ErrorClass.RANK, "rank 9"))
          .compose(v -> win.accumulate(Buf.of(new long[] {50 + r}), 0, 1, Datatype.LONG, other, 2, Op.SUM).recover(e ->
              Future.failedFuture(new AssertionError("rank " + r + ": an accumulate in the fence epoch failed after a "
                  + "post() rejected with RANK: " + e.getMessage(), e))))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .map(v -> {
            assertEquals(40L + other, win.memory().readLong(8));
            assertEquals(50L + other, win.memory().readLong(16));
            return null;
          })
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void windowCreationErrorsAreFailedFuturesAndLeakNothing(Jobs.Mode mode) {
    // every rank makes the same erroneous calls, so no collective part starts; afterwards a correct window
    // works. Problems are collected so that one run reports all of them.
    int liveBefore = WindowMemory.live();
    Jobs.run(mode, 2, (world, args) -> {
      int r = world.rank();
      List<String> problems = new ArrayList<>();
      BytesStore<?, ?> fixed = BytesStore.nativeStoreWithFixedCapacity(64);
      BytesStore<?, ?> released = BytesStore.nativeStoreWithFixedCapacity(64);
      released.releaseLast();
      Bytes<?> elastic = Bytes.allocateElasticDirect(64);
      BytesStore<?, ?> byteBufferBacked = BytesStore.wrap(ByteBuffer.allocate(64));
      Future<Void> chain = expectFailure("allocate of size -1", () -> Win.allocate(world, -1, 8, Info.NULL),
          ErrorClass.ARG, "-1")
          .compose(v -> expectFailure("allocate with disp unit 0", () -> Win.allocate(world, 64, 0, Info.NULL),
              ErrorClass.ARG, "0"))
          .compose(v -> expectFailure("create over a released store", () -> Win.create(world, released, 8, Info.NULL),
              ErrorClass.BUFFER, "released"))
          .compose(v -> expectFailure("create with disp unit -3", () -> Win.create(world, fixed, -3, Info.NULL),
              ErrorClass.ARG, "-3"))
          .map(v -> {
            if (fixed.refCount() != 1) {
              problems.add("create with disp unit -3 left the caller's store with refCount " + fixed.refCount());
            }
            return null;
          })
          .compose(v -> expectFailure("create over an elastic Bytes", () -> Win.create(world, elastic, 1, Info.NULL),
              ErrorClass.ARG, "Bytes"))
          .map(v -> {
            if (elastic.refCount() != 1) {
              problems.add("Win.create over an elastic Bytes failed with ARG but left the caller's store reserved: "
                  + "refCount " + elastic.refCount() + " instead of 1");
            }
            return null;
          })
          .compose(v -> expectFailure("create over a ByteBuffer-backed store", () -> Win.create(world,
              byteBufferBacked, 1, Info.NULL), ErrorClass.ARG))
          .map(v -> {
            if (byteBufferBacked.refCount() != 1) {
              problems.add("Win.create over a ByteBuffer-backed heap store failed with ARG but left it reserved: "
                  + "refCount " + byteBufferBacked.refCount() + " instead of 1");
            }
            return null;
          })
          .compose(v -> {
            // more memory than any machine has: a failed future (resource exhaustion), never a thrown Error
            Future<Win> huge;
            try {
              huge = Win.allocate(world, 1L << 60, 8, Info.NULL);
            } catch (Throwable t) {
              problems.add("Win.allocate(2^60 bytes) on the rank's event loop threw " + t + " instead of returning a "
                  + "failed future");
              return Future.succeededFuture();
            }
            return huge.transform(ar -> {
              RmaException e = ar.failed() ? RmaOpsTest.rmaCause(ar.cause()) : null;
              if (e == null || e.errorClass() != ErrorClass.NO_MEM) {
                problems.add("Win.allocate(2^60 bytes) completed with " + (ar.succeeded() ? "a window" : ar.cause())
                    + " instead of RmaException NO_MEM");
              }
              if (ar.succeeded()) {
                return ar.result().free();
              }
              return Future.succeededFuture();
            });
          })
          .compose(v -> offLoopAllocate(world, problems, "a worker thread of the rank's context (executeBlocking)",
              call -> world.vertx().executeBlocking(() -> {
                call.run();
                return null;
              })))
          .compose(v -> offLoopAllocate(world, problems, "a thread outside Vert.x", call -> new Thread(call,
              "h7q-off-loop").start()))
          // after all that, a correct window works
          .compose(v -> Win.allocate(world, 16, 8, Info.NULL))
          .compose(w -> w.fence()
              .compose(x -> w.put(Buf.of(new long[] {7 + r}), 0, 1, Datatype.LONG, 1 - r, 1))
              .compose(x -> w.fence(Mode.NOSUCCEED))
              .map(x -> {
                assertEquals(7L + 1 - r, w.memory().readLong(8));
                return null;
              })
              .compose(x -> w.free()))
          .map(v -> {
            for (BytesStore<?, ?> s : List.<BytesStore<?, ?>>of(fixed, elastic, byteBufferBacked)) {
              while (s.refCount() > 0) {
                s.release(ReferenceOwner.INIT);
              }
            }
            if (!problems.isEmpty()) {
              throw new AssertionError("rank " + r + ":\n  " + String.join("\n  ", problems));
            }
            return null;
          });
      return chain;
    });
    assertEquals(liveBefore, WindowMemory.live());
  }

  /**
   * Win.allocate(2^60 bytes) called from another thread: the call moves onto the rank's event loop and its
   * future must complete (failed, NO_MEM); a synchronous throw or no completion within 5 s is a problem.
   */
  static Future<Void> offLoopAllocate(dev.vertxrma.Comm world, List<String> problems, String where,
      java.util.function.Consumer<Runnable> runner) {
    Promise<String> outcome = Promise.promise();
    long timer = world.vertx().setTimer(5000, id -> outcome.tryComplete("no completion within 5 s"));
    runner.accept(() -> {
      try {
        Win.allocate(world, 1L << 60, 8, Info.NULL).onComplete(ar -> outcome.tryComplete(
            ar.succeeded() ? "a window" : String.valueOf(ar.cause())));
      } catch (Throwable t) {
        outcome.tryComplete("threw " + t + " synchronously on that thread");
      }
    });
    return outcome.future().map(s -> {
      world.vertx().cancelTimer(timer);
      if (!s.startsWith(RmaException.class.getName() + ": " + ErrorClass.NO_MEM)) {
        problems.add("Win.allocate(2^60 bytes) from " + where + ": " + s + " (expected a failed future with "
            + "RmaException NO_MEM)");
      }
      return null;
    });
  }

  // ------------------------------------------------------------------ malformed frames at the target

  static byte[] typeBytes(Datatype t) {
    Buffer b = Buffer.buffer();
    TypeMap.of(t).encode(b);
    return b.getBytes();
  }

  static Frame frame(byte type, byte[] typeBytes, long disp, int count, byte[] payload) {
    Frame f = Frame.of(type, 1, 7);
    f.tag = 1;
    f.typeBytes = typeBytes;
    f.disp = disp;
    f.count = count;
    f.payload = payload;
    return f;
  }

  static Frame acc(byte type, int op, Datatype t, int count, byte[] payload) {
    Frame f = frame(type, typeBytes(t), 0, count, payload);
    f.code = op;
    return f;
  }

  /** A derived type in wire form, written field by field. */
  static byte[] derived(long lb, long extent, long trueLb, long trueUb, long size, int n, long[] disps,
      BasicType[] types, int[] lens) {
    Buffer b = Buffer.buffer().appendByte((byte) 0).appendLong(lb).appendLong(extent).appendLong(trueLb)
        .appendLong(trueUb).appendLong(size).appendInt(n);
    for (int i = 0; i < disps.length; i++) {
      b.appendLong(disps[i]).appendByte((byte) types[i].code()).appendInt(lens[i]);
    }
    return b.getBytes();
  }

  @Test
  void malformedFramesAreRejectedBeforeTouchingTheWindow() {
    int liveBefore = WindowMemory.live();
    WindowMemory mem = WindowMemory.allocate(64);
    assertEquals(liveBefore + 1, WindowMemory.live());
    try {
      byte[] init = pattern(9, 64);
      write(mem.store(), 0, init);
      byte[] intT = typeBytes(Datatype.INT);
      byte[] longT = typeBytes(Datatype.LONG);
      byte[] doubleT = typeBytes(Datatype.DOUBLE);
      byte[] good2Int = typeBytes(Datatype.contiguous(2, Datatype.INT).commit());
      byte[] badSize = good2Int.clone();
      ByteBuffer.wrap(badSize).putLong(1 + 32, 12); // the size field: 12 instead of 8
      byte[] hugeSegments = good2Int.clone();
      ByteBuffer.wrap(hugeSegments).putInt(1 + 40, Integer.MAX_VALUE);
      byte[] zeroLength = good2Int.clone();
      ByteBuffer.wrap(zeroLength).putInt(1 + 44 + 9, 0);
      byte[] negativeSegment = derived(-8, 8, -8, 0, 8, 1, new long[] {-8}, new BasicType[] {BasicType.LONG},
          new int[] {1});
      byte[] mixed = typeBytes(Datatype.struct(new int[] {1, 1}, new long[] {0, 4},
          new Datatype[] {Datatype.INT, Datatype.DOUBLE}).commit());

      Object[][] cases = {
          {"PUT payload shorter than the type", frame(FrameType.PUT, intT, 0, 2, new byte[7]), 8, ErrorClass.TYPE,
              new String[] {"7", "8"}},
          {"PUT payload longer than the type", frame(FrameType.PUT, intT, 0, 2, new byte[9]), 8, ErrorClass.TYPE,
              new String[] {"9", "8"}},
          {"PUT without payload", frame(FrameType.PUT, intT, 0, 1, null), 8, ErrorClass.TYPE, new String[] {"0"}},
          {"unknown basic type code", frame(FrameType.PUT, new byte[] {0x7F}, 0, 1, new byte[4]), 8, ErrorClass.TYPE,
              new String[] {"127"}},
          {"negative type code byte", frame(FrameType.PUT, new byte[] {(byte) 0xF0}, 0, 1, new byte[4]), 8,
              ErrorClass.TYPE, new String[] {"240"}},
          {"truncated derived type", frame(FrameType.PUT, new byte[] {0, 1, 2, 3}, 0, 1, new byte[4]), 8,
              ErrorClass.TYPE, new String[0]},
          {"trailing bytes after the type", frame(FrameType.PUT, new byte[] {intT[0], 0}, 0, 1, new byte[4]), 8,
              ErrorClass.TYPE, new String[] {"trailing"}},
          {"no target type at all", frame(FrameType.PUT, null, 0, 1, new byte[4]), 8, ErrorClass.TYPE, new String[0]},
          {"derived type whose size is not its segments'", frame(FrameType.PUT, badSize, 0, 1, new byte[12]), 8,
              ErrorClass.TYPE, new String[] {"12"}},
          {"derived type with 2^31-1 segments", frame(FrameType.PUT, hugeSegments, 0, 1, new byte[8]), 8,
              ErrorClass.TYPE, new String[] {String.valueOf(Integer.MAX_VALUE)}},
          {"derived type with an empty segment", frame(FrameType.PUT, zeroLength, 0, 1, new byte[8]), 8,
              ErrorClass.TYPE, new String[0]},
          {"derived type reaching before the window", frame(FrameType.PUT, negativeSegment, 0, 1, new byte[8]), 8,
              ErrorClass.RMA_RANGE, new String[] {"window size 64", "rank 5"}},
          {"disp Long.MAX_VALUE", frame(FrameType.PUT, longT, Long.MAX_VALUE, 1, new byte[8]), 8,
              ErrorClass.RMA_RANGE, new String[] {String.valueOf(Long.MAX_VALUE), "window size 64", "rank 5"}},
          {"disp Long.MAX_VALUE / 8", frame(FrameType.PUT, longT, Long.MAX_VALUE / 8, 1, new byte[8]), 8,
              ErrorClass.RMA_RANGE, new String[] {String.valueOf(Long.MAX_VALUE / 8), "window size 64", "rank 5"}},
          {"negative disp", frame(FrameType.PUT, longT, -1, 1, new byte[8]), 8, ErrorClass.RMA_RANGE,
              new String[] {"-1", "window size 64", "rank 5"}},
          {"disp Long.MIN_VALUE", frame(FrameType.PUT, longT, Long.MIN_VALUE, 1, new byte[8]), 1,
              ErrorClass.RMA_RANGE, new String[] {String.valueOf(Long.MIN_VALUE), "window size 64", "rank 5"}},
          {"one byte past the end", frame(FrameType.PUT, intT, 15, 2, new byte[8]), 4, ErrorClass.RMA_RANGE,
              new String[] {"disp=15", "window size 64", "rank 5"}},
          {"negative count", frame(FrameType.PUT, intT, 0, -1, new byte[0]), 8, ErrorClass.COUNT,
              new String[] {"-1"}},
          {"huge count, short payload", frame(FrameType.PUT, intT, 0, Integer.MAX_VALUE, new byte[4]), 8,
              ErrorClass.RMA_RANGE, new String[] {String.valueOf(Integer.MAX_VALUE), "window size 64"}},
          {"GET with negative count", frame(FrameType.GET, intT, 0, -5, null), 8, ErrorClass.COUNT,
              new String[] {"-5"}},
          {"GET beyond the end", frame(FrameType.GET, longT, 8, 1, null), 8, ErrorClass.RMA_RANGE,
              new String[] {"disp=8", "window size 64"}},
          {"ACC with op code 99", acc(FrameType.ACC, 99, Datatype.INT, 1, new byte[4]), 8, ErrorClass.OP,
              new String[] {"99"}},
          {"ACC with op code 0", acc(FrameType.ACC, 0, Datatype.INT, 1, new byte[4]), 8, ErrorClass.OP,
              new String[] {"0"}},
          {"ACC BAND on DOUBLE", acc(FrameType.ACC, Op.BAND.code(), Datatype.DOUBLE, 1, new byte[8]), 8,
              ErrorClass.OP, new String[] {"MPI_BAND", "DOUBLE"}},
          {"ACC SUM on INT_INT", acc(FrameType.ACC, Op.SUM.code(), Datatype.INT_INT, 1, new byte[8]), 8,
              ErrorClass.OP, new String[] {"MPI_SUM", "INT_INT"}},
          {"ACC SUM on a mixed type", frameWithCode(FrameType.ACC, mixed, Op.SUM.code(), 1, new byte[12]), 8,
              ErrorClass.TYPE, new String[] {"MPI_SUM"}},
          {"ACC payload too short", acc(FrameType.ACC, Op.SUM.code(), Datatype.LONG, 2, new byte[15]), 8,
              ErrorClass.TYPE, new String[] {"15", "16"}},
          {"GET_ACC payload too short", acc(FrameType.GET_ACC, Op.SUM.code(), Datatype.LONG, 2, new byte[8]), 8,
              ErrorClass.TYPE, new String[] {"8", "16"}},
          {"GET_ACC with op code 77", acc(FrameType.GET_ACC, 77, Datatype.LONG, 1, new byte[8]), 8, ErrorClass.OP,
              new String[] {"77"}},
          {"CAS of two elements", frame(FrameType.CAS, longT, 0, 2, new byte[16]), 8, ErrorClass.COUNT,
              new String[] {"2"}},
          {"CAS payload of 15 bytes", frame(FrameType.CAS, longT, 0, 1, new byte[15]), 8, ErrorClass.OTHER,
              new String[] {"15", "16"}},
          {"CAS on DOUBLE", frame(FrameType.CAS, doubleT, 0, 1, new byte[16]), 8, ErrorClass.TYPE,
              new String[] {"DOUBLE"}},
          {"POST frame applied as an operation", frame(FrameType.POST, intT, 0, 1, new byte[4]), 8, ErrorClass.OTHER,
              new String[] {"POST"}},
          {"unknown frame type", frame((byte) 99, intT, 0, 1, new byte[4]), 8, ErrorClass.OTHER, new String[0]},
      };
      for (Object[] c : cases) {
        String what = (String) c[0];
        Frame f = (Frame) c[1];
        int unit = (Integer) c[2];
        ErrorClass cls = (ErrorClass) c[3];
        String[] parts = (String[]) c[4];
        RmaException e;
        try {
          RmaTarget.apply(OperationFrames.fromFrame(f), mem, unit, 5);
          fail(what + ": applied without error");
          return;
        } catch (RmaException ex) {
          e = ex;
        } catch (RuntimeException ex) {
          throw new AssertionError(what + ": failed with " + ex + " instead of an RmaException " + cls, ex);
        }
        assertEquals(cls, e.errorClass(), what + ": " + e.getMessage());
        for (String p : parts) {
          assertTrue(e.getMessage().contains(p), what + ": message \"" + e.getMessage() + "\" does not name " + p);
        }
        assertBytes(init, read(mem.store(), 0, 64), what + ": window changed");
      }
      // controls: well-formed frames do change the window (so the checks above could fail)
      byte[] eight = {1, 2, 3, 4, 5, 6, 7, 8};
      assertEquals(null, RmaTarget.apply(OperationFrames.fromFrame(frame(FrameType.PUT, longT, 1, 1, eight)), mem, 8, 5));
      byte[] expected = init.clone();
      System.arraycopy(eight, 0, expected, 8, 8);
      assertBytes(expected, read(mem.store(), 0, 64), "well-formed PUT");
      byte[] got = RmaTarget.apply(OperationFrames.fromFrame(frame(FrameType.GET, intT, 2, 2, null)), mem, 4, 5).toBytes();
      assertNotNull(got);
      assertArrayEquals(java.util.Arrays.copyOfRange(expected, 8, 16), got, "well-formed GET");
      byte[] old = RmaTarget.apply(OperationFrames.fromFrame(acc(FrameType.GET_ACC, Op.SUM.code(), Datatype.LONG, 1,
          longBytes(5))), mem, 8, 5).toBytes();
      assertArrayEquals(java.util.Arrays.copyOfRange(expected, 0, 8), old, "well-formed GET_ACC returns the old value");
      bb(expected).putLong(0, bb(expected).getLong(0) + 5);
      assertBytes(expected, read(mem.store(), 0, 64), "well-formed GET_ACC");
    } finally {
      mem.release();
    }
    assertEquals(liveBefore, WindowMemory.live());
  }

  static Frame frameWithCode(byte type, byte[] typeBytes, int code, int count, byte[] payload) {
    Frame f = frame(type, typeBytes, 0, count, payload);
    f.code = code;
    return f;
  }

  static byte[] longBytes(long v) {
    byte[] b = new byte[8];
    bb(b).putLong(0, v);
    return b;
  }
}
