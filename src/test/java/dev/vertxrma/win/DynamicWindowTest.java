package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.opentest4j.AssertionFailedError;

/**
 * Dynamic windows (MPI_Win_create_dynamic, MPI_Win_attach/detach, MPI_Get_address): several
 * regions per rank addressed by absolute addresses, RMA_RANGE outside attached memory,
 * RMA_FLAVOR and RMA_ATTACH misuse, and the life cycle of the attached stores.
 */
class DynamicWindowTest {

  private static Future<Void> check(Throwable e, ErrorClass ec, String... fragments) {
    if (!(e instanceof RmaException)) {
      return Future.failedFuture(new AssertionFailedError("expected RmaException " + ec + ", got " + e, e));
    }
    RmaException re = (RmaException) e;
    if (re.errorClass() != ec) {
      return Future.failedFuture(new AssertionFailedError("expected " + ec + ", got " + re.errorClass() + ": "
          + re.getMessage(), re));
    }
    for (String s : fragments) {
      if (!re.getMessage().contains(s)) {
        return Future.failedFuture(new AssertionFailedError("message of " + ec + " lacks '" + s + "': "
            + re.getMessage(), re));
      }
    }
    return Future.succeededFuture();
  }

  /**
   * An operation the target must reject with RMA_RANGE: its own future may fail with it (same
   * Vert.x, or an operation that returns data) and the following flush must report it.
   */
  private static Future<Void> rangeRejected(Future<?> op, boolean opMustFail, Win win, int target,
      String... fragments) {
    return op.transform(ar -> {
      if (ar.failed()) {
        return check(ar.cause(), ErrorClass.RMA_RANGE, fragments);
      }
      if (opMustFail) {
        return Future.failedFuture(new AssertionFailedError("operation returning data succeeded, expected RMA_RANGE"));
      }
      return Future.succeededFuture();
    }).compose(v -> expectError(win.flush(target), ErrorClass.RMA_RANGE, fragments));
  }

  private static BytesStore<?, ?> store(long bytes) {
    BytesStore<?, ?> s = BytesStore.nativeStoreWithFixedCapacity(bytes);
    s.zeroOut(0, bytes);
    return s;
  }

  private static void releaseIfOwned(BytesStore<?, ?> s) {
    if (s.refCount() == 1) {
      s.releaseLast();
    }
  }

  // ------------------------------------------------------------------

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void attachedRegionsTakePutGetAccumulateFromOtherRanks(Jobs.Mode mode) {
    long[] sizes = {64, 128, 40};
    int regions = sizes.length;
    Jobs.run(mode, 3, (world, args) -> Win.createDynamic(world, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      int right = (r + 1) % n;
      int left = (r + n - 1) % n;
      int across = (r + 2) % n; // written by its own left neighbour, which is this rank's right one
      List<BytesStore<?, ?>> mine = new ArrayList<>();
      for (long s : sizes) {
        mine.add(store(s));
      }
      long[] addr = new long[regions];
      long[] all = new long[regions * n];
      long[][] got = new long[regions][];
      long[] sum = new long[1];
      long[] offsetRead = new long[1];
      Future<Void> attached = Future.succeededFuture();
      for (BytesStore<?, ?> s : mine) {
        attached = attached.compose(v -> win.attach(s));
      }
      return attached
          .compose(v -> {
            assertEquals(Win.Flavor.DYNAMIC, win.flavor());
            assertEquals(1, win.dispUnit());
            for (int j = 0; j < regions; j++) {
              addr[j] = Win.address(mine.get(j), 0);
              assertEquals(addr[j] + 16, Win.address(mine.get(j), 16), "MPI_Get_address of an offset");
              assertEquals(2, mine.get(j).refCount(), "an attached store is reserved by the window");
            }
            return world.allgather(Buf.of(addr), 0, regions, Datatype.AINT, Buf.of(all), 0, regions, Datatype.AINT);
          })
          .compose(v -> win.lockAll())
          .compose(v -> {
            List<Future<Void>> ops = new ArrayList<>();
            for (int j = 0; j < regions; j++) {
              int slots = (int) (sizes[j] / 8) - 1; // every slot but the last
              long[] values = new long[slots];
              for (int i = 0; i < slots; i++) {
                values[i] = 1000L * r + 100L * j + i;
              }
              ops.add(win.put(Buf.of(values), 0, slots, Datatype.LONG, right, all[regions * right + j]));
            }
            for (int t = 0; t < n; t++) {
              long lastOfRegion0 = all[regions * t] + sizes[0] - 8;
              ops.add(win.accumulate(Buf.of(new long[] {r + 1}), 0, 1, Datatype.LONG, t, lastOfRegion0, Op.SUM));
            }
            return Future.all(ops);
          })
          .compose(v -> win.flushAll())
          .compose(v -> world.barrier())
          .compose(v -> {
            List<Future<Void>> ops = new ArrayList<>();
            for (int j = 0; j < regions; j++) {
              got[j] = new long[(int) (sizes[j] / 8) - 1];
              ops.add(win.get(Buf.of(got[j]), 0, got[j].length, Datatype.LONG, across, all[regions * across + j]));
            }
            ops.add(win.get(Buf.of(sum), 0, 1, Datatype.LONG, across, all[regions * across] + sizes[0] - 8));
            ops.add(win.get(Buf.of(offsetRead), 0, 1, Datatype.LONG, across, all[regions * across + 1] + 8 * 5));
            return Future.all(ops);
          })
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .map(v -> {
            int writer = right; // across's left neighbour
            for (int j = 0; j < regions; j++) {
              for (int i = 0; i < got[j].length; i++) {
                assertEquals(1000L * writer + 100L * j + i, got[j][i], "get of region " + j + " slot " + i
                    + " at rank " + across);
              }
            }
            assertEquals((long) n * (n + 1) / 2, sum[0], "accumulated into region 0 at rank " + across);
            assertEquals(1000L * writer + 100 + 5, offsetRead[0], "get at an address inside region 1");
            // this rank's own regions, by local loads
            for (int j = 0; j < regions; j++) {
              BytesStore<?, ?> s = mine.get(j);
              int slots = (int) (sizes[j] / 8);
              for (int i = 0; i < slots - 1; i++) {
                assertEquals(1000L * left + 100L * j + i, s.readLong(8L * i), "own region " + j + " slot " + i);
              }
              assertEquals(j == 0 ? (long) n * (n + 1) / 2 : 0, s.readLong(8L * (slots - 1)),
                  "own region " + j + " last slot");
            }
            return null;
          })
          .compose(v -> {
            Future<Void> f = Future.succeededFuture();
            for (BytesStore<?, ?> s : mine) {
              f = f.compose(x -> win.detach(s));
            }
            return f;
          })
          .compose(v -> win.free())
          .map(v -> {
            for (BytesStore<?, ?> s : mine) {
              assertEquals(1, s.refCount(), "detached: the window no longer reserves the store");
              s.releaseLast();
              assertEquals(0, s.refCount());
            }
            return null;
          })
          .onFailure(e -> mine.forEach(DynamicWindowTest::releaseIfOwned));
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void accessOutsideAttachedMemoryFailsWithRmaRangeAndChangesNothing(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.createDynamic(world, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      int right = (r + 1) % n;
      int left = (r + n - 1) % n;
      // one block: region A = [0, 64), a gap [64, 128), region B = [128, 192), unattached tail
      BytesStore<?, ?> big = store(256);
      long base = Win.address(big, 0);
      BytesStore<?, ?> regionA = BytesStore.wrap(base, 64);
      BytesStore<?, ?> regionB = BytesStore.wrap(base + 128, 64);
      BytesStore<?, ?> never = store(64);
      BytesStore<?, ?> detached = store(64);
      for (int i = 0; i < 32; i++) {
        big.writeLong(8L * i, 10_000L * r + i);
      }
      for (int i = 0; i < 8; i++) {
        never.writeLong(8L * i, 20_000L * r + i);
        detached.writeLong(8L * i, 30_000L * r + i);
      }
      long[] addr = {base, base + 128, Win.address(never, 0), Win.address(detached, 0)};
      long[] all = new long[4 * n];
      long[] getBuf = {-1, -2};
      long[] resBuf = {-3};
      long[] okGet = new long[2];
      return win.attach(regionA)
          .compose(v -> win.attach(regionB))
          .compose(v -> win.attach(detached))
          .compose(v -> world.allgather(Buf.of(addr), 0, 4, Datatype.AINT, Buf.of(all), 0, 4, Datatype.AINT))
          .compose(v -> world.barrier())
          .compose(v -> win.detach(detached))
          .compose(v -> world.barrier())
          .compose(v -> win.lockAll())
          .compose(v -> {
            long a = all[4 * right];
            long b = all[4 * right + 1];
            long c = all[4 * right + 2];
            long d = all[4 * right + 3];
            String at = "at rank " + right;
            String outside = "not inside attached memory";
            return rangeRejected(win.put(Buf.of(new long[] {-7, -7}), 0, 2, Datatype.LONG, right, a + 56), false, win, right,
                at, "disp=" + (a + 56), outside) // straddles the end of A
                .compose(x -> rangeRejected(win.get(Buf.of(getBuf), 0, 2, Datatype.LONG, right, b + 56), true, win, right,
                    at, "disp=" + (b + 56), outside)) // straddles the end of B
                .compose(x -> rangeRejected(win.accumulate(Buf.of(new long[] {5}), 0, 1, Datatype.LONG, right, a + 64,
                    Op.SUM), false, win, right, at, "disp=" + (a + 64), outside)) // in the gap between A and B
                .compose(x -> rangeRejected(win.put(Buf.of(new long[] {-7, -7}), 0, 2, Datatype.LONG, right, a + 120), false,
                    win, right, at, outside)) // from the gap into B
                .compose(x -> rangeRejected(win.put(Buf.of(new long[] {-7}), 0, 1, Datatype.LONG, right, b + 64), false, win,
                    right, at, outside)) // just past B
                .compose(x -> rangeRejected(win.put(Buf.of(new long[] {-7}), 0, 1, Datatype.LONG, right, c), false, win,
                    right, at, "disp=" + c, outside)) // never attached
                .compose(x -> rangeRejected(win.put(Buf.of(new long[] {-7}), 0, 1, Datatype.LONG, right, d + 8), false, win,
                    right, at, "disp=" + (d + 8), outside)) // detached
                .compose(x -> rangeRejected(win.getAccumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, Buf.of(resBuf), 0, 1,
                    Datatype.LONG, right, d, 1, Datatype.LONG, Op.SUM), true, win, right, at, outside))
                .compose(x -> rangeRejected(win.put(Buf.of(new long[] {-7}), 0, 1, Datatype.LONG, right, all[4 * r]),
                    false, win, right, at, outside)); // valid at this rank, not at the target
          })
          .compose(v -> world.barrier())
          .map(v -> {
            assertArrayEquals(new long[] {-1, -2}, getBuf, "rejected get left the origin buffer alone");
            assertEquals(-3, resBuf[0], "rejected getAccumulate left the result buffer alone");
            for (int i = 0; i < 32; i++) {
              assertEquals(10_000L * r + i, big.readLong(8L * i), "regions, gap and tail unchanged, long " + i);
            }
            for (int i = 0; i < 8; i++) {
              assertEquals(20_000L * r + i, never.readLong(8L * i), "never attached store unchanged");
              assertEquals(30_000L * r + i, detached.readLong(8L * i), "detached store unchanged");
            }
            return null;
          })
          .compose(v -> world.barrier()) // every rank checked before the neighbours write
          // the window still works: the first and the last long of each region
          .compose(v -> win.put(Buf.of(new long[] {-11}), 0, 1, Datatype.LONG, right, all[4 * right]))
          .compose(v -> win.put(Buf.of(new long[] {-12, -13}), 0, 2, Datatype.LONG, right, all[4 * right + 1] + 48))
          .compose(v -> win.flush(right))
          .compose(v -> world.barrier())
          .compose(v -> win.get(Buf.of(okGet), 0, 2, Datatype.LONG, right, all[4 * right + 1] + 48))
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .map(v -> {
            assertArrayEquals(new long[] {-12, -13}, okGet);
            assertEquals(-11, big.readLong(0));
            assertEquals(-12, big.readLong(128 + 48));
            assertEquals(-13, big.readLong(128 + 56));
            for (int i = 1; i < 22; i++) {
              assertEquals(10_000L * r + i, big.readLong(8L * i), "long " + i);
            }
            return null;
          })
          .compose(v -> win.detach(regionA))
          .compose(v -> win.detach(regionB))
          .compose(v -> win.free())
          .onComplete(ar -> {
            big.releaseLast();
            never.releaseLast();
            releaseIfOwned(detached);
          });
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void attachOnANonDynamicWindowFailsWithRmaFlavor(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 16, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int other = 1 - r;
      BytesStore<?, ?> s = store(32);
      BytesStore<?, ?> created = store(16);
      return expectError(win.attach(s), ErrorClass.RMA_FLAVOR, "attach", win.name(), "ALLOCATE")
          .compose(v -> expectError(win.detach(s), ErrorClass.RMA_FLAVOR, "detach", "ALLOCATE"))
          .map(v -> {
            assertEquals(1, s.refCount(), "a rejected attach does not reserve the store");
            return null;
          })
          // the window is unchanged and still works
          .compose(v -> win.lock(LockType.EXCLUSIVE, other))
          .compose(v -> win.put(Buf.of(new long[] {40L + r, 50L + r}), 0, 2, Datatype.LONG, other, 0))
          .compose(v -> win.unlock(other))
          .compose(v -> world.barrier())
          .map(v -> {
            assertEquals(40L + other, win.memory().readLong(0));
            assertEquals(50L + other, win.memory().readLong(8));
            return null;
          })
          .compose(v -> world.barrier())
          .compose(v -> win.free())
          // the same for a window over the caller's memory
          .compose(v -> Win.create(world, created, 8, Info.NULL))
          .compose(w2 -> expectError(w2.attach(s), ErrorClass.RMA_FLAVOR, "attach", "CREATE")
              .compose(v -> w2.free()))
          // and the dynamic window has no memory() of its own
          .compose(v -> Win.createDynamic(world, Info.NULL))
          .compose(w3 -> {
            RmaException e = assertThrows(RmaException.class, w3::memory);
            assertEquals(ErrorClass.RMA_FLAVOR, e.errorClass());
            assertTrue(e.getMessage().contains("memory of window " + w3.name()), e.getMessage());
            assertTrue(e.getMessage().contains("dynamic window has no memory of its own"), e.getMessage());
            assertEquals(0L, w3.size(), "MPI_WIN_SIZE of a dynamic window");
            return w3.free();
          })
          .map(v -> {
            assertEquals(1, created.refCount(), "Win.create's reservation was dropped by free");
            return null;
          })
          .onComplete(ar -> {
            s.releaseLast();
            releaseIfOwned(created);
          });
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void overlappingAttachAndDetachOfUnattachedMemoryFailWithRmaAttach(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.createDynamic(world, Info.NULL).compose(win -> {
      int r = world.rank();
      int other = 1 - r;
      BytesStore<?, ?> a = store(64);
      BytesStore<?, ?> big = store(128);
      BytesStore<?, ?> unattached = store(16);
      long aAddr = Win.address(a, 0);
      long bigAddr = Win.address(big, 0);
      BytesStore<?, ?> x = BytesStore.wrap(bigAddr, 64);
      BytesStore<?, ?> y = BytesStore.wrap(bigAddr + 64, 64); // adjacent to x: no overlap
      BytesStore<?, ?> straddle = BytesStore.wrap(bigAddr + 32, 64); // overlaps x and y
      BytesStore<?, ?> inside = BytesStore.wrap(aAddr + 8, 8); // inside a
      BytesStore<?, ?> tail = BytesStore.wrap(aAddr + 32, 64); // overlaps a's upper half
      BytesStore<?, ?> empty = BytesStore.wrap(bigAddr + 128, 0);
      BytesStore<?, ?> emptyTwin = BytesStore.wrap(bigAddr + 128, 0);
      long[] addrs = {aAddr, bigAddr};
      long[] all = new long[2 * world.size()];
      long[] got = new long[3];
      long[] spanning = new long[2];
      String overlaps = "overlaps the region";
      return win.attach(a)
          .compose(v -> expectError(win.attach(a), ErrorClass.RMA_ATTACH, overlaps, "at rank " + r))
          .compose(v -> expectError(win.attach(inside), ErrorClass.RMA_ATTACH, overlaps))
          .compose(v -> expectError(win.attach(tail), ErrorClass.RMA_ATTACH, overlaps))
          .compose(v -> win.attach(x))
          .compose(v -> win.attach(y))
          .compose(v -> expectError(win.attach(straddle), ErrorClass.RMA_ATTACH, overlaps))
          // two stores of 0 bytes at one address (y's end) would be one key of the region map
          .compose(v -> win.attach(empty))
          .compose(v -> expectError(win.attach(emptyTwin), ErrorClass.RMA_ATTACH, overlaps))
          .compose(v -> win.detach(empty))
          .compose(v -> expectError(win.detach(emptyTwin), ErrorClass.RMA_ATTACH, "not attached"))
          .map(v -> {
            assertEquals(1, emptyTwin.refCount(), "the refused store of 0 bytes was not reserved");
            return null;
          })
          .map(v -> {
            assertEquals(2, a.refCount(), "one reservation for one successful attach");
            return null;
          })
          .compose(v -> expectError(win.detach(unattached), ErrorClass.RMA_ATTACH, "not attached",
              "at rank " + r))
          .compose(v -> expectError(win.detach(straddle), ErrorClass.RMA_ATTACH, "not attached"))
          .compose(v -> expectError(win.detach(inside), ErrorClass.RMA_ATTACH, "not attached"))
          // the attached regions are intact and reachable
          .compose(v -> world.allgather(Buf.of(addrs), 0, 2, Datatype.AINT, Buf.of(all), 0, 2, Datatype.AINT))
          .compose(v -> win.lock(LockType.EXCLUSIVE, other))
          .compose(v -> win.put(Buf.of(new long[] {700L + r}), 0, 1, Datatype.LONG, other, all[2 * other] + 56))
          .compose(v -> win.put(Buf.of(new long[] {800L + r}), 0, 1, Datatype.LONG, other, all[2 * other + 1] + 56))
          .compose(v -> win.put(Buf.of(new long[] {900L + r}), 0, 1, Datatype.LONG, other, all[2 * other + 1] + 64))
          .compose(v -> win.get(Buf.of(got), 0, 1, Datatype.LONG, other, all[2 * other] + 56))
          .compose(v -> win.get(Buf.of(got), 1, 1, Datatype.LONG, other, all[2 * other + 1] + 56))
          .compose(v -> win.get(Buf.of(got), 2, 1, Datatype.LONG, other, all[2 * other + 1] + 64))
          // x and y touch end to end: one access may span them (AdjacentRegionsTest has the rest)
          .compose(v -> win.get(Buf.of(spanning), 0, 2, Datatype.LONG, other, all[2 * other + 1] + 56))
          .compose(v -> win.unlock(other))
          .compose(v -> world.barrier())
          .map(v -> {
            assertArrayEquals(new long[] {700L + r, 800L + r, 900L + r}, got, "put then get at the end of x, "
                + "the start of y");
            assertArrayEquals(new long[] {800L + r, 900L + r}, spanning, "one get over the end of x and the start of y");
            assertEquals(700L + other, a.readLong(56));
            assertEquals(800L + other, big.readLong(56));
            assertEquals(900L + other, big.readLong(64));
            return null;
          })
          .compose(v -> win.detach(a))
          .compose(v -> expectError(win.detach(a), ErrorClass.RMA_ATTACH, "not attached"))
          .compose(v -> win.detach(x))
          .compose(v -> win.detach(y))
          .compose(v -> world.barrier())
          .compose(v -> win.free())
          .map(v -> {
            assertEquals(1, a.refCount());
            a.releaseLast();
            return null;
          })
          .onComplete(ar -> {
            releaseIfOwned(a);
            big.releaseLast();
            unattached.releaseLast();
          });
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void detachAndFreeLetTheCallerReleaseTheStores(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.createDynamic(world, Info.NULL).compose(win -> {
      int r = world.rank();
      int other = 1 - r;
      BytesStore<?, ?> first = store(32);
      BytesStore<?, ?> second = store(32);
      long[] addrs = {Win.address(first, 0), Win.address(second, 0)};
      long[] all = new long[4];
      int liveDuring = WindowMemory.live();
      return win.attach(first)
          .compose(v -> win.attach(second))
          .compose(v -> world.allgather(Buf.of(addrs), 0, 2, Datatype.AINT, Buf.of(all), 0, 2, Datatype.AINT))
          .compose(v -> win.lockAll())
          .compose(v -> win.put(Buf.of(new long[] {61L + r}), 0, 1, Datatype.LONG, other, all[2 * other]))
          .compose(v -> win.put(Buf.of(new long[] {62L + r}), 0, 1, Datatype.LONG, other, all[2 * other + 1]))
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .map(v -> {
            assertEquals(61L + other, first.readLong(0));
            assertEquals(62L + other, second.readLong(0));
            assertEquals(2, first.refCount());
            assertEquals(2, second.refCount());
            assertEquals(liveDuring, WindowMemory.live(), "a dynamic window allocates no window memory");
            return null;
          })
          .compose(v -> win.detach(first))
          .map(v -> {
            assertEquals(1, first.refCount(), "detach drops the window's reservation");
            return null;
          })
          .compose(v -> world.barrier())
          // `second` is still attached when the window is freed: free detaches it
          .compose(v -> win.free())
          .map(v -> {
            assertEquals(1, second.refCount(), "free detached the remaining store");
            first.releaseLast();
            second.releaseLast();
            assertEquals(0, first.refCount());
            assertEquals(0, second.refCount());
            return null;
          })
          .compose(v -> {
            BytesStore<?, ?> late = store(8);
            return expectError(win.attach(late), ErrorClass.WIN, "attach", "after free")
                .onComplete(ar -> late.releaseLast());
          })
          .onFailure(e -> {
            releaseIfOwned(first);
            releaseIfOwned(second);
          });
    }));
    assertEquals(0, WindowMemory.live());
  }
}
