package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Shared-memory windows (MPI_Win_allocate_shared, MPI_Win_shared_query): direct loads and stores
 * into every rank's segment, ordered with lockAll + sync + barrier (the MPI-3 shared-memory
 * idiom), RMA operations on the same window, a size-0 segment, the memory of allocate and create
 * windows that a rank reaches by load and store, and RMA_FLAVOR on dynamic windows.
 */
class SharedWindowTest {

  /** Every rank's segment, in rank order. */
  private static Future<List<Win.SharedSegment>> segments(Win win) {
    List<Future<Win.SharedSegment>> all = new ArrayList<>();
    for (int p = 0; p < win.comm().size(); p++) {
      all.add(win.sharedQuery(p));
    }
    return Future.all(all).map(cf -> cf.list());
  }

  /** MPI-3 shared-memory synchronization inside a lockAll epoch: sync, barrier, sync. */
  private static Future<Void> syncBarrierSync(Win win) {
    return win.sync().compose(v -> win.comm().barrier()).compose(v -> win.sync());
  }

  // ------------------------------------------------------------------

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void loadsAndStoresIntoPeersSegmentsOfDifferentSizes(Jobs.Mode mode) {
    long[] sizes = {24, 64, 0, 40};
    Jobs.run(mode, 4, (world, args) -> Win.allocateShared(world, sizes[world.rank()], 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      int right = (r + 1) % n;
      int left = (r + n - 1) % n;
      List<Win.SharedSegment> segs = new ArrayList<>();
      return segments(win)
          .map(list -> {
            segs.addAll(list);
            assertEquals(Win.Flavor.SHARED, win.flavor());
            assertEquals(sizes[r], win.size());
            for (int p = 0; p < n; p++) {
              assertEquals(sizes[p], win.size(p), "size(" + p + ")");
              assertEquals(8, win.dispUnit(p), "dispUnit(" + p + ")");
              assertEquals(sizes[p], segs.get(p).size(), "sharedQuery(" + p + ").size");
              assertEquals(8, segs.get(p).dispUnit(), "sharedQuery(" + p + ").dispUnit");
              for (long b = 0; b < sizes[p]; b += 8) {
                assertEquals(0, segs.get(p).memory().readLong(b), "allocateShared zeroes segment " + p);
              }
            }
            return null;
          })
          .compose(v -> win.lockAll())
          .compose(v -> syncBarrierSync(win)) // all checked the zeroes before anyone stores
          .map(v -> {
            // every rank stores into its own segment
            for (int i = 0; i < sizes[r] / 8; i++) {
              win.memory().writeLong(8L * i, 100L * r + i);
            }
            return null;
          })
          .compose(v -> syncBarrierSync(win))
          .map(v -> {
            for (int p = 0; p < n; p++) {
              for (int i = 0; i < sizes[p] / 8; i++) {
                assertEquals(100L * p + i, segs.get(p).memory().readLong(8L * i), "rank " + r + " loads segment "
                    + p + " slot " + i);
              }
            }
            return null;
          })
          .compose(v -> syncBarrierSync(win))
          .map(v -> {
            // every rank stores into its right neighbour's segment
            for (int i = 0; i < sizes[right] / 8; i++) {
              segs.get(right).memory().writeLong(8L * i, 1000L * r + i);
            }
            return null;
          })
          .compose(v -> syncBarrierSync(win))
          .map(v -> {
            for (int i = 0; i < sizes[r] / 8; i++) {
              assertEquals(1000L * left + i, win.memory().readLong(8L * i), "own segment slot " + i
                  + " stored by rank " + left);
              assertEquals(1000L * left + i, segs.get(r).memory().readLong(8L * i), "same memory by sharedQuery");
            }
            return null;
          })
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void rmaOperationsOnASharedWindowAreVisibleThroughTheSegments(Jobs.Mode mode) {
    Jobs.run(mode, 4, (world, args) -> Win.allocateShared(world, 8L * (world.rank() + 2), 8, Info.NULL)
        .compose(win -> {
          int r = world.rank();
          int n = world.size();
          int right = (r + 1) % n;
          long[] got = new long[2];
          List<Win.SharedSegment> segs = new ArrayList<>();
          return segments(win)
              .compose(list -> {
                segs.addAll(list);
                return win.lockAll();
              })
              .compose(v -> win.put(Buf.of(new long[] {500L + r}), 0, 1, Datatype.LONG, right, 0))
              .compose(v -> win.accumulate(Buf.of(new long[] {r + 1}), 0, 1, Datatype.LONG, 0, 1, Op.SUM))
              .compose(v -> win.flushAll())
              .compose(v -> syncBarrierSync(win))
              .map(v -> {
                for (int p = 0; p < n; p++) {
                  assertEquals(500L + (p + n - 1) % n, segs.get(p).memory().readLong(0), "segment " + p + " slot 0");
                }
                assertEquals((long) n * (n + 1) / 2, segs.get(0).memory().readLong(8), "accumulated at rank 0");
                return null;
              })
              .compose(v -> syncBarrierSync(win))
              .map(v -> {
                // a direct store, then a get of it from another rank
                segs.get(right).memory().writeLong(8L * (right + 1), 7000L + r);
                return null;
              })
              .compose(v -> syncBarrierSync(win))
              .compose(v -> win.get(Buf.of(got), 0, 1, Datatype.LONG, (r + 2) % n, (r + 2) % n + 1))
              .compose(v -> win.fetchAndOp(0, right, 0, Op.NO_OP))
              .map(old -> {
                assertEquals(7000L + (r + 1) % n, got[0], "stored directly by rank " + (r + 1) % n + ", read by get");
                assertEquals(500L + r, old, "fetchAndOp(NO_OP) reads this rank's put");
                return null;
              })
              .compose(v -> win.unlockAll())
              .compose(v -> world.barrier())
              // an exclusive-lock read-modify-write through RMA, checked through the segment
              .compose(v -> win.lock(LockType.EXCLUSIVE, 0))
              .compose(v -> win.get(Buf.of(got), 1, 1, Datatype.LONG, 0, 0))
              .compose(v -> win.put(Buf.of(new long[] {got[1] + 1}), 0, 1, Datatype.LONG, 0, 0))
              .compose(v -> win.unlock(0))
              .compose(v -> world.barrier())
              .compose(v -> win.lock(LockType.SHARED, r))
              .compose(v -> win.sync())
              .map(v -> {
                assertEquals(500L + (n - 1) + n, segs.get(0).memory().readLong(0), "n increments of rank 0 slot 0");
                return null;
              })
              .compose(v -> win.unlock(r))
              .compose(v -> world.barrier())
              .compose(v -> win.free());
        }));
    assertEquals(0, WindowMemory.live());
  }

  /**
   * MPI_Win_shared_query with MPI_PROC_NULL: the segment of the lowest rank whose size is not
   * zero, with that rank's size and displacement unit (issue 43: it failed with RANK).
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void sharedQueryOfProcNullIsTheLowestNonEmptySegment(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.allocateShared(world, world.rank() == 0 ? 0 : 16L * world.rank(),
        world.rank() == 0 ? 4 : 8, Info.NULL).compose(win -> win.sharedQuery(dev.vertxrma.Comm.PROC_NULL)
        .compose(first -> win.sharedQuery(1).map(one -> {
          assertEquals(16, first.size(), "rank 1's size");
          assertEquals(8, first.dispUnit(), "rank 1's unit");
          assertEquals(one.memory().addressForRead(0), first.memory().addressForRead(0), "rank 1's segment");
          return null;
        })).compose(v -> world.barrier()).compose(v -> win.free())));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void sizeZeroSegmentAtOneRank(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.allocateShared(world, world.rank() == 1 ? 0 : 16, 8, Info.NULL)
        .compose(win -> {
          int r = world.rank();
          List<Win.SharedSegment> segs = new ArrayList<>();
          return segments(win)
              .map(list -> {
                segs.addAll(list);
                assertEquals(0, segs.get(1).size(), "rank 1's segment is empty");
                assertEquals(0, win.size(1));
                assertEquals(16, segs.get(0).size());
                assertEquals(16, segs.get(2).size());
                assertEquals(r == 1 ? 0 : 16, win.size());
                return null;
              })
              .compose(v -> win.lockAll())
              // RMA into the empty segment is out of range and changes nothing
              .compose(v -> expectError(win.put(Buf.of(new long[] {-1}), 0, 1, Datatype.LONG, 1, 0), ErrorClass.RMA_RANGE,
                  "window size 0 at rank 1"))
              .compose(v -> expectError(win.accumulate(Buf.of(new long[] {-1}), 0, 1, Datatype.LONG, 1, 0, Op.SUM),
                  ErrorClass.RMA_RANGE, "rank 1"))
              // the ranks around it are not affected: every rank (rank 1 too) writes both non-empty segments
              .compose(v -> win.accumulate(Buf.of(new long[] {r + 1, 10L * (r + 1)}), 0, 2, Datatype.LONG, 0, 0, Op.SUM))
              .compose(v -> win.accumulate(Buf.of(new long[] {r + 1, 10L * (r + 1)}), 0, 2, Datatype.LONG, 2, 0, Op.SUM))
              .compose(v -> win.flushAll())
              .compose(v -> syncBarrierSync(win))
              .map(v -> {
                for (int p : new int[] {0, 2}) {
                  assertEquals(6, segs.get(p).memory().readLong(0), "segment " + p + " slot 0");
                  assertEquals(60, segs.get(p).memory().readLong(8), "segment " + p + " slot 1");
                }
                return null;
              })
              .compose(v -> syncBarrierSync(win))
              .map(v -> {
                if (r == 1) {
                  // the rank with the empty segment stores directly into its neighbours' segments
                  segs.get(0).memory().writeLong(0, 111);
                  segs.get(2).memory().writeLong(8, 222);
                }
                return null;
              })
              .compose(v -> syncBarrierSync(win))
              .map(v -> {
                assertEquals(111, segs.get(0).memory().readLong(0));
                assertEquals(222, segs.get(2).memory().readLong(8));
                assertEquals(60, segs.get(0).memory().readLong(8));
                assertEquals(6, segs.get(2).memory().readLong(0));
                return null;
              })
              .compose(v -> win.unlockAll())
              .compose(v -> world.barrier())
              .compose(v -> win.free());
        }));
    assertEquals(0, WindowMemory.live());
  }

  /**
   * MPI 4.1's MPI_Win_shared_query on {@code allocate} and {@code create} windows (issue 43: it
   * failed with RMA_FLAVOR): the memory of every rank this rank can load from and store to — its
   * own, a same-JVM rank's, an {@code allocate} window's host segment of another JVM of the host —
   * and size 0 with no memory for the others (the clustered node's {@code create} memory; its
   * {@code allocate} memory too when the on-node path is off). Stores through the views land in
   * the peers' windows; a dynamic window is still refused with RMA_FLAVOR.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void sharedQueryOnAllocateAndCreateWindowsGivesTheReachableMemory(Jobs.Mode mode) {
    Jobs.run(mode, 4, (world, args) -> {
      int r = world.rank();
      BytesStore<?, ?> mine = BytesStore.nativeStoreWithFixedCapacity(16);
      mine.zeroOut(0, 16);
      return Win.allocate(world, 16, 8, Info.NULL)
          .compose(win -> storesThroughQueriedViews(win, mode, true).compose(v -> win.free()))
          .compose(v -> Win.create(world, mine, 8, Info.NULL))
          .compose(win -> storesThroughQueriedViews(win, mode, false).compose(v -> win.free()))
          .compose(v -> Win.createDynamic(world, Info.NULL))
          .compose(dyn -> expectError(dyn.sharedQuery(r), ErrorClass.RMA_FLAVOR, "sharedQuery", "DYNAMIC", "dynamic")
              .compose(v -> dyn.free()))
          .onComplete(ar -> mine.releaseLast());
    });
    assertEquals(0, WindowMemory.live());
  }

  /**
   * Every rank writes its word, queries every rank's memory, checks what it reaches and stores
   * into its right neighbour's through the view (or puts, where it reaches none).
   */
  private static Future<Void> storesThroughQueriedViews(Win win, Jobs.Mode mode, boolean allocated) {
    Comm world = win.comm();
    int r = world.rank();
    int n = world.size();
    int right = (r + 1) % n;
    int left = (r + n - 1) % n;
    win.memory().writeLong(0, 100L + r);
    List<Win.SharedSegment> segs = new ArrayList<>();
    return win.lockAll().compose(v -> syncBarrierSync(win)).compose(v -> segments(win)).compose(list -> {
      segs.addAll(list);
      for (int p = 0; p < n; p++) {
        // clustered: ranks 0, 1 on one node and 2, 3 on the other, which stands for another JVM
        boolean sameJvm = mode == Jobs.Mode.EMBEDDED || (p < n / 2) == (r < n / 2);
        boolean reached = sameJvm || allocated && Jobs.ON_NODE;
        Win.SharedSegment s = segs.get(p);
        assertEquals(8, s.dispUnit(), "rank " + p + "'s unit");
        if (reached) {
          assertEquals(16, s.size(), "rank " + p + "'s memory is reachable from rank " + r);
          assertEquals(100L + p, s.memory().readLong(0), "rank " + p + "'s word, loaded by rank " + r);
        } else {
          assertEquals(0, s.size(), "rank " + p + "'s memory is not reachable from rank " + r);
          assertEquals(null, s.memory());
        }
      }
      Win.SharedSegment next = segs.get(right);
      if (next.size() > 0) {
        next.memory().writeLong(8, 1000L + r);
        return Future.<Void>succeededFuture();
      }
      return win.put(Buf.of(new long[] {1000L + r}), 0, 1, Datatype.LONG, right, 1).compose(v -> win.flush(right));
    }).compose(v -> syncBarrierSync(win)).map(v -> {
      assertEquals(1000L + left, win.memory().readLong(8), "stored by rank " + left);
      return null;
    }).compose(v -> win.unlockAll()).compose(v -> world.barrier());
  }
}
