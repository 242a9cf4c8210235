package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * MPI semantics an MPI conformance run found missing, one section per defect. Every check runs
 * embedded and clustered, and checks windows and buffers value by value.
 */
class ConformanceTest {

  private static final int SLOTS = 6;

  private static long pattern(int rank, int slot) {
    return 1000L * (rank + 1) + slot;
  }

  /**
   * Runs {@code body} on a window of {@value #SLOTS} longs per rank filled with
   * {@link #pattern}, then frees it; every window memory is released afterwards.
   */
  private static void withWindow(Jobs.Mode mode, int np, BiFunction<Comm, Win, Future<Void>> body) {
    Jobs.run(mode, np, (world, args) -> Win.allocate(world, 8 * SLOTS, 8, Info.NULL).compose(win -> {
      for (int i = 0; i < SLOTS; i++) {
        win.memory().writeLong(8L * i, pattern(world.rank(), i));
      }
      return world.barrier()
          .compose(v -> body.apply(world, win))
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  /** Asserts this rank's window holds {@link #pattern} except at the given slots, which hold the given values. */
  private static void assertWindow(Win win, int rank, String when, long... slotValuePairs) {
    long[] expected = new long[SLOTS];
    for (int i = 0; i < SLOTS; i++) {
      expected[i] = pattern(rank, i);
    }
    for (int k = 0; k < slotValuePairs.length; k += 2) {
      expected[(int) slotValuePairs[k]] = slotValuePairs[k + 1];
    }
    for (int i = 0; i < SLOTS; i++) {
      assertEquals(expected[i], win.memory().readLong(8L * i), "rank " + rank + " slot " + i + " " + when);
    }
  }

  // ------------------------------------------------------------------ fence(NOPRECEDE) after passive target

  // The operations of a passive-target epoch are completed by its unlock or flush and belong to no
  // fence epoch: a fence(NOPRECEDE) after them is correct, awaited or issued right behind them.

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void fenceNoPrecedeAfterACompletedLockEpochSucceeds(Jobs.Mode mode) {
    withWindow(mode, 3, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      int left = (r + world.size() - 1) % world.size();
      return win.lock(LockType.EXCLUSIVE, right)
          .compose(v -> win.put(Buf.of(new long[] {100L + r}), 0, 1, Datatype.LONG, right, 1))
          .compose(v -> win.unlock(right))
          .compose(v -> win.fence(Mode.NOPRECEDE))
          .compose(v -> win.put(Buf.of(new long[] {200L + r}), 0, 1, Datatype.LONG, right, 2))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .map(v -> {
            assertWindow(win, r, "after lock/put/unlock, fence(NOPRECEDE), put, fence(NOSUCCEED)", 1, 100L + left,
                2, 200L + left);
            return null;
          });
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void fenceNoPrecedePipelinedAfterLockPutUnlockSucceeds(Jobs.Mode mode) {
    withWindow(mode, 3, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      int left = (r + world.size() - 1) % world.size();
      // every call issued at once, none awaited before the next
      List<Future<?>> calls = new ArrayList<>();
      calls.add(win.lock(LockType.EXCLUSIVE, right));
      calls.add(win.put(Buf.of(new long[] {100L + r}), 0, 1, Datatype.LONG, right, 1));
      calls.add(win.unlock(right));
      calls.add(win.fence(Mode.NOPRECEDE));
      calls.add(win.put(Buf.of(new long[] {200L + r}), 0, 1, Datatype.LONG, right, 2));
      calls.add(win.fence(Mode.NOSUCCEED));
      return Future.all(calls).map(v -> {
        assertWindow(win, r, "after the pipelined lock/put/unlock, fence(NOPRECEDE), put, fence(NOSUCCEED)", 1,
            100L + left, 2, 200L + left);
        return null;
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void fenceNoPrecedeAfterFenceEpochsAndALockAllEpochSucceeds(Jobs.Mode mode) {
    withWindow(mode, 3, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      int left = (r + world.size() - 1) % world.size();
      // a fence epoch with an operation, closed by NOSUCCEED; then lockAll/unlockAll; then NOPRECEDE
      return win.fence()
          .compose(v -> win.put(Buf.of(new long[] {300L + r}), 0, 1, Datatype.LONG, right, 3))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .compose(v -> win.lockAll())
          .compose(v -> win.accumulate(Buf.of(new long[] {5}), 0, 1, Datatype.LONG, right, 4, Op.SUM))
          .compose(v -> win.unlockAll())
          .compose(v -> win.fence(Mode.NOPRECEDE))
          .compose(v -> win.put(Buf.of(new long[] {200L + r}), 0, 1, Datatype.LONG, right, 2))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .map(v -> {
            assertWindow(win, r, "after fence epochs around a lockAll epoch", 2, 200L + left, 3, 300L + left, 4,
                pattern(r, 4) + 5);
            return null;
          });
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void fenceNoPrecedeAfterOperationsInTheFenceEpochStillFails(Jobs.Mode mode) {
    withWindow(mode, 3, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      int left = (r + world.size() - 1) % world.size();
      // a lock epoch first, then a fence epoch with a put: NOPRECEDE is wrong for that fence epoch
      return win.lock(LockType.SHARED, right)
          .compose(v -> win.unlock(right))
          .compose(v -> win.fence())
          .compose(v -> win.put(Buf.of(new long[] {100L + r}), 0, 1, Datatype.LONG, right, 1))
          .compose(v -> expectError(win.fence(Mode.NOPRECEDE), ErrorClass.RMA_SYNC, "NOPRECEDE", "rank " + r))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .map(v -> {
            assertWindow(win, r, "after the rejected fence(NOPRECEDE) and a correct fence", 1, 100L + left);
            return null;
          });
    });
  }

  // ------------------------------------------------------------------ PROC_NULL in passive-target synchronization

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void lockUnlockAndFlushOfProcNullAreNoOps(Jobs.Mode mode) {
    withWindow(mode, 3, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      int left = (r + world.size() - 1) % world.size();
      int pn = Comm.PROC_NULL;
      return win.lock(LockType.EXCLUSIVE, pn)
          .compose(v -> win.put(Buf.of(new long[] {-1}), 0, 1, Datatype.LONG, pn, 0))
          .compose(v -> win.flush(pn))
          .compose(v -> win.flushLocal(pn))
          .compose(v -> win.unlock(pn))
          .compose(v -> win.lock(LockType.SHARED, pn, Mode.NOCHECK))
          .compose(v -> win.unlock(pn))
          // lock(PROC_NULL) opened no epoch: a real target is outside any epoch
          .compose(v -> win.lock(LockType.SHARED, pn))
          .compose(v -> expectError(win.put(Buf.of(new long[] {-1}), 0, 1, Datatype.LONG, right, 0), ErrorClass.RMA_SYNC,
              "put to rank " + right, "outside an access epoch"))
          .compose(v -> win.unlock(pn))
          // inside lockAll
          .compose(v -> win.lockAll())
          .compose(v -> win.put(Buf.of(new long[] {-1}), 0, 1, Datatype.LONG, pn, 0))
          .compose(v -> win.flush(pn))
          .compose(v -> win.unlockAll())
          // inside a fence epoch with an operation: lock(PROC_NULL) does not leave the fence epoch
          .compose(v -> win.fence())
          .compose(v -> win.put(Buf.of(new long[] {100L + r}), 0, 1, Datatype.LONG, right, 1))
          .compose(v -> win.lock(LockType.EXCLUSIVE, pn))
          .compose(v -> win.unlock(pn))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .compose(v -> world.barrier())
          .map(v -> {
            assertWindow(win, r, "after the PROC_NULL calls and one fence epoch", 1, 100L + left);
            return null;
          })
          .compose(v -> world.barrier())
          // a real lock epoch still works
          .compose(v -> win.lock(LockType.EXCLUSIVE, right))
          .compose(v -> win.put(Buf.of(new long[] {200L + r}), 0, 1, Datatype.LONG, right, 2))
          .compose(v -> win.unlock(right))
          .compose(v -> world.barrier())
          .map(v -> {
            assertWindow(win, r, "after a lock epoch following the PROC_NULL calls", 1, 100L + left, 2, 200L + left);
            return null;
          });
    });
  }

  // ------------------------------------------------------------------ null buffers of count 0

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void nullBufferWithCountZeroIsAnEmptyOperation(Jobs.Mode mode) {
    withWindow(mode, 3, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      int left = (r + world.size() - 1) % world.size();
      Datatype l = Datatype.LONG;
      return win.fence()
          .compose(v -> win.put(null, 0, 0, l, right, 0))
          .compose(v -> win.get(null, 0, 0, l, right, 1))
          .compose(v -> win.accumulate(null, 0, 0, l, right, 2, Op.SUM))
          .compose(v -> win.getAccumulate(null, 0, 0, l, null, 0, 0, l, right, 3, 0, l, Op.SUM))
          .compose(v -> win.put(null, 5, 0, l, Comm.PROC_NULL, 0))
          .compose(v -> expectError(win.put(null, 0, 1, l, right, 0), ErrorClass.BUFFER, "null"))
          .compose(v -> expectError(win.get(null, 0, 1, l, right, 0), ErrorClass.BUFFER, "null"))
          .compose(v -> expectError(win.accumulate(null, 0, 2, l, right, 0, Op.SUM), ErrorClass.BUFFER, "null"))
          .compose(v -> win.put(Buf.of(new long[] {100L + r}), 0, 1, l, right, 4))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .compose(v -> win.lockAll())
          .compose(v -> win.rput(null, 0, 0, l, right, 0))
          .compose(v -> win.rget(null, 0, 0, l, right, 1))
          .compose(v -> win.raccumulate(null, 0, 0, l, right, 2, 0, l, Op.SUM))
          .compose(v -> expectError(win.rput(null, 0, 1, l, right, 0), ErrorClass.BUFFER, "null"))
          .compose(v -> expectError(win.rget(null, 0, 1, l, right, 0), ErrorClass.BUFFER, "null"))
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .map(v -> {
            assertWindow(win, r, "after the empty operations", 4, 100L + left);
            return null;
          });
    });
  }

  // ------------------------------------------------------------------ NO_MEM

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void allocatingMoreThanMemoryFailsWithNoMemOnEveryRank(Jobs.Mode mode) {
    int liveBefore = WindowMemory.live();
    Jobs.run(mode, 3, (world, args) -> {
      int r = world.rank();
      int n = world.size();
      String max = String.valueOf(Long.MAX_VALUE);
      String huge = String.valueOf(1L << 60);
      // only rank 1 asks for too much: the others fail too, told which rank and size
      long mixed = r == 1 ? 1L << 60 : 64;
      String[] mixedParts = r == 1 ? new String[] {huge} : new String[] {huge, "rank 1"};
      return expectError(Win.allocate(world, Long.MAX_VALUE, 8, Info.NULL), ErrorClass.NO_MEM, max)
          .compose(v -> expectError(Win.allocate(world, 1L << 60, 1, Info.NULL), ErrorClass.NO_MEM, huge))
          .compose(v -> expectError(Win.allocate(world, mixed, 8, Info.NULL), ErrorClass.NO_MEM, mixedParts))
          // a negative size stays an argument error
          .compose(v -> expectError(Win.allocate(world, -5, 8, Info.NULL), ErrorClass.ARG, "-5"))
          // shared windows: more than one mapping holds, or more than a long can count
          .compose(v -> expectError(Win.allocateShared(world, Long.MAX_VALUE, 8, Info.NULL), ErrorClass.NO_MEM,
              max, "rank " + r))
          .compose(v -> expectError(Win.allocateShared(world, mixed, 8, Info.NULL), ErrorClass.NO_MEM,
              String.valueOf(mixed), huge))
          // the ranks still agree on windows afterwards
          .compose(v -> Win.allocate(world, 16, 8, Info.NULL))
          .compose(w -> w.fence()
              .compose(v -> w.put(Buf.of(new long[] {70L + r}), 0, 1, Datatype.LONG, (r + 1) % n, 1))
              .compose(v -> w.fence(Mode.NOSUCCEED))
              .map(v -> {
                assertEquals(0L, w.memory().readLong(0));
                assertEquals(70L + (r + n - 1) % n, w.memory().readLong(8));
                return null;
              })
              .compose(v -> w.free()));
    });
    assertEquals(liveBefore, WindowMemory.live());
  }

  // ------------------------------------------------------------------ array element type against datatype

  /** One call whose origin, result or compare array contradicts its datatype. */
  private record Mismatch(String what, Supplier<Future<?>> call, String... parts) {
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void arraysWhoseElementTypeContradictsTheDatatypeFailWithType(Jobs.Mode mode) {
    withWindow(mode, 3, (world, win) -> {
      int r = world.rank();
      int right = (r + 1) % world.size();
      int left = (r + world.size() - 1) % world.size();
      Datatype l = Datatype.LONG;
      Datatype twoLongs = Datatype.contiguous(2, Datatype.LONG).commit();
      Datatype intDouble = Datatype.struct(new int[] {1, 1}, new long[] {0, 4},
          new Datatype[] {Datatype.INT, Datatype.DOUBLE}).commit();
      double[] d = {1.5, 2.5};
      long[] got = {-7, -7};
      double[] gotD = {-7, -7};
      List<Mismatch> fence = List.of(
          new Mismatch("put double[] as LONG", () -> win.put(Buf.of(d), 0, 1, l, right, 0), "double[]", "LONG"),
          new Mismatch("put long[] as DOUBLE", () -> win.put(Buf.of(new long[] {3}), 0, 1, Datatype.DOUBLE, right, 0),
              "long[]", "DOUBLE"),
          new Mismatch("put int[] as LONG", () -> win.put(Buf.of(new int[] {1, 2}), 0, 1, l, right, 0), "int[]", "LONG"),
          new Mismatch("put double[] as contiguous(2, LONG)", () -> win.put(Buf.of(d), 0, 1, twoLongs, right, 0),
              "double[]", "LONG"),
          new Mismatch("put int[] as struct(INT, DOUBLE)", () -> win.put(Buf.of(new int[] {1, 2, 3}), 0, 1, intDouble,
              right, 1), "int[]", "byte[]"),
          new Mismatch("get into double[] as LONG", () -> win.get(Buf.of(gotD), 0, 1, l, right, 0), "double[]", "LONG"),
          new Mismatch("accumulate double[] as LONG", () -> win.accumulate(Buf.of(d), 0, 1, l, right, 0, Op.SUM),
              "double[]"),
          new Mismatch("getAccumulate into a double[] result as LONG", () -> win.getAccumulate(Buf.of(new long[] {1}), 0, 1,
              l, Buf.of(gotD), 0, 1, l, right, 0, 1, l, Op.SUM), "double[]", "LONG"),
          new Mismatch("fetchAndOp of a double[] as LONG", () -> win.fetchAndOp(Buf.of(d), 0, Buf.of(got), 0, l, right, 0,
              Op.SUM), "double[]"),
          new Mismatch("fetchAndOp into a double[] result as LONG", () -> win.fetchAndOp(Buf.of(new long[] {1}), 0, Buf.of(gotD),
              0, l, right, 0, Op.SUM), "double[]"),
          new Mismatch("compareAndSwap with an int[] result as LONG", () -> win.compareAndSwap(Buf.of(new long[] {1}), 0,
              Buf.of(new long[] {2}), 0, Buf.of(new int[2]), 0, l, right, 0), "int[]", "LONG"),
          new Mismatch("compareAndSwap with a double[] compare as LONG", () -> win.compareAndSwap(Buf.of(new long[] {1}), 0,
              Buf.of(d), 0, Buf.of(got), 0, l, right, 0), "double[]"),
          // the fixed-width types: each in the Java array of its width (Datatype's table), C_BOOL in a boolean[]
          new Mismatch("put int[] as UINT64", () -> win.put(Buf.of(new int[] {1, 2}), 0, 1, Datatype.UINT64, right, 0),
              "int[]", "UINT64", "long[]"),
          new Mismatch("accumulate char[] as UINT16", () -> win.accumulate(Buf.of(new char[] {1}), 0, 1, Datatype.UINT16,
              right, 0, Op.MAX), "char[]", "UINT16", "short[]"),
          new Mismatch("get into a short[] as INT8", () -> win.get(Buf.of(new short[1]), 0, 1, Datatype.INT8, right, 0),
              "short[]", "INT8", "byte[]"),
          new Mismatch("fetchAndOp into a long[] result as UINT32", () -> win.fetchAndOp(Buf.of(new int[] {1}), 0,
              Buf.of(got), 0, Datatype.UINT32, right, 0, Op.SUM), "long[]", "UINT32", "int[]"),
          new Mismatch("compareAndSwap with an int[] compare as C_BOOL", () -> win.compareAndSwap(
              Buf.of(new boolean[] {true}), 0, Buf.of(new int[] {1}), 0, Buf.of(new boolean[1]), 0, Datatype.C_BOOL,
              right, 0), "int[]", "C_BOOL", "boolean[]"));
      List<Mismatch> passive = List.of(
          new Mismatch("rput double[] as LONG", () -> win.rput(Buf.of(d), 0, 1, l, right, 0), "double[]", "LONG"),
          new Mismatch("rget into double[] as LONG", () -> win.rget(Buf.of(gotD), 0, 1, l, right, 0), "double[]"),
          new Mismatch("raccumulate long[] as DOUBLE", () -> win.raccumulate(Buf.of(new long[] {1}), 0, 1,
              Datatype.DOUBLE, right, 0, 1, Datatype.DOUBLE, Op.SUM), "long[]", "DOUBLE"),
          new Mismatch("raccumulate long[] as INT32", () -> win.raccumulate(Buf.of(new long[] {1}), 0, 1,
              Datatype.INT32, right, 0, 1, Datatype.INT32, Op.SUM), "long[]", "INT32"));
      Future<Void> chain = win.fence();
      for (Mismatch m : fence) {
        chain = chain.compose(v -> expectError(m.call().get(), ErrorClass.TYPE, m.parts()).recover(e ->
            Future.failedFuture(new AssertionError(m.what() + ": " + e.getMessage(), e))));
      }
      chain = chain.compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> win.lockAll());
      for (Mismatch m : passive) {
        chain = chain.compose(v -> expectError(m.call().get(), ErrorClass.TYPE, m.parts()).recover(e ->
            Future.failedFuture(new AssertionError(m.what() + ": " + e.getMessage(), e))));
      }
      BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(8);
      byte[] raw = new byte[12];
      java.nio.ByteBuffer.wrap(raw).order(java.nio.ByteOrder.nativeOrder()).putInt(0, 40 + r).putDouble(4, 0.5 + r);
      return chain
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .map(v -> {
            assertWindow(win, r, "after the rejected calls");
            assertArrayEquals(new long[] {-7, -7}, got, "rejected fetches leave the long[] alone");
            assertArrayEquals(new double[] {-7, -7}, gotD, "rejected fetches leave the double[] alone");
            return null;
          })
          .compose(v -> world.barrier())
          // byte[] and BytesStore are raw memory: any datatype, also one that mixes INT and DOUBLE
          .compose(v -> win.lock(LockType.EXCLUSIVE, right))
          .compose(v -> win.put(Buf.of(raw), 0, 1, intDouble, right, 1))
          .compose(v -> win.get(Buf.of(store), 0, 1, Datatype.DOUBLE, right, 0))
          .compose(v -> win.unlock(right))
          .compose(v -> world.barrier())
          .map(v -> {
            assertEquals(pattern(right, 0), Double.doubleToRawLongBits(store.readDouble(0)),
                "a BytesStore takes DOUBLE elements");
            store.releaseLast();
            java.nio.ByteBuffer w = java.nio.ByteBuffer.allocate(8 * SLOTS).order(java.nio.ByteOrder.nativeOrder());
            for (int i = 0; i < SLOTS; i++) {
              w.putLong(8 * i, pattern(r, i));
            }
            w.putInt(8, 40 + left).putDouble(12, 0.5 + left);
            for (int i = 0; i < SLOTS; i++) {
              assertEquals(w.getLong(8 * i), win.memory().readLong(8L * i), "rank " + r + " slot " + i
                  + " after the byte[] put of struct(INT, DOUBLE)");
            }
            return null;
          });
    });
  }

  // ------------------------------------------------------------------ which synchronization reports an error

  /** A dynamic window with nothing attached: every access is rejected at the target with RMA_RANGE. */
  private static void withEmptyDynamicWindow(Jobs.Mode mode, int np, BiFunction<Comm, Win, Future<Void>> body) {
    Jobs.run(mode, np, (world, args) -> Win.createDynamic(world, Info.NULL).compose(win ->
        world.barrier()
            .compose(v -> body.apply(world, win))
            .compose(v -> world.barrier())
            .compose(v -> win.free())));
    assertEquals(0, WindowMemory.live());
  }

  /**
   * A put's own future fails with the target's RMA_RANGE when it waits for the target (same JVM)
   * and succeeds when its data left at once (another JVM): either is right.
   */
  private static Future<Void> rangeErrorOrDone(Future<?> put, int target) {
    return put.transform(ar -> ar.succeeded() ? Future.succeededFuture()
        : expectError(Future.failedFuture(ar.cause()), ErrorClass.RMA_RANGE, "at rank " + target));
  }

  /** An error is reported by the flush of its own target, not by a flush of another target, and only once. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void flushReportsTheErrorsOfItsOwnTargetOnceAndUnlockAllNothingMore(Jobs.Mode mode) {
    // three ranks: in CLUSTERED mode every rank has one target in its JVM and one in the other
    withEmptyDynamicWindow(mode, 3, (world, win) -> {
      int r = world.rank();
      int a = (r + 1) % 3;
      int b = (r + 2) % 3;
      return win.lockAll()
          .compose(v -> rangeErrorOrDone(win.put(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, a, 64), a))
          .compose(v -> rangeErrorOrDone(win.put(Buf.of(new long[] {2}), 0, 1, Datatype.LONG, b, 128), b))
          // nothing was issued to this rank itself: its flush has nothing to report
          .compose(v -> win.flush(r))
          .compose(v -> expectError(win.flush(a), ErrorClass.RMA_RANGE, "at rank " + a))
          .compose(v -> expectError(win.flush(b), ErrorClass.RMA_RANGE, "at rank " + b))
          .compose(v -> win.flush(a))
          .compose(v -> win.flushAll())
          .compose(v -> win.unlockAll());
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void anErrorIsReportedByTheFirstSynchronizationThatCompletesItOnly(Jobs.Mode mode) {
    withEmptyDynamicWindow(mode, 3, (world, win) -> {
      int r = world.rank();
      int a = (r + 1) % 3;
      int b = (r + 2) % 3;
      long[] got = {-7};
      return win.lockAll()
          // flush reports it, unlockAll does not again
          .compose(v -> rangeErrorOrDone(win.rput(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, a, 64), a))
          .compose(v -> expectError(win.flush(a), ErrorClass.RMA_RANGE, "at rank " + a))
          .compose(v -> win.unlockAll())
          // flushAll reports it, unlock does not again
          .compose(v -> win.lock(LockType.SHARED, b))
          .compose(v -> rangeErrorOrDone(win.put(Buf.of(new long[] {2}), 0, 1, Datatype.LONG, b, 128), b))
          .compose(v -> expectError(win.flushAll(), ErrorClass.RMA_RANGE, "at rank " + b))
          .compose(v -> win.unlock(b))
          // the unlock of the failed operation's target reports it, not the unlock of another target
          .compose(v -> win.lock(LockType.SHARED, a))
          .compose(v -> win.lock(LockType.SHARED, b))
          .compose(v -> rangeErrorOrDone(win.accumulate(Buf.of(new long[] {3}), 0, 1, Datatype.LONG, b, 64, Op.SUM), b))
          .compose(v -> win.unlock(a))
          .compose(v -> expectError(win.unlock(b), ErrorClass.RMA_RANGE, "at rank " + b))
          // the operation's own future and the unlock that completes it report it
          .compose(v -> win.lock(LockType.EXCLUSIVE, a))
          .compose(v -> expectError(win.rget(Buf.of(got), 0, 1, Datatype.LONG, a, 64), ErrorClass.RMA_RANGE, "at rank " + a))
          .compose(v -> expectError(win.unlock(a), ErrorClass.RMA_RANGE, "at rank " + a))
          .compose(v -> win.lock(LockType.SHARED, a))
          .compose(v -> win.unlock(a))
          // a fence reports it once, the next fence does not
          .compose(v -> win.fence())
          .compose(v -> rangeErrorOrDone(win.put(Buf.of(new long[] {4}), 0, 1, Datatype.LONG, a, 64), a))
          .compose(v -> expectError(win.fence(), ErrorClass.RMA_RANGE, "at rank " + a))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .map(v -> {
            assertEquals(-7L, got[0], "the rejected rget wrote nothing");
            return null;
          });
    });
  }
}
