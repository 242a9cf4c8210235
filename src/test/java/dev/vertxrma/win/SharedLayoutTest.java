package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.junit.RmaJob;
import dev.vertxrma.junit.RmaTest;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * How MPI_Win_allocate_shared lays the ranks' segments out (issue 43): contiguous by default
 * (rank r's segment starts right after rank r-1's last byte, so a store through rank 0's base past
 * its end lands in rank 1's segment), aligned per rank only with {@code alloc_shared_noncontig};
 * atomics on words the contiguous layout leaves unaligned; {@code mpi_minimum_memory_alignment}
 * honoured by allocate and allocateShared; {@code Win.info()} reports the values in use.
 */
class SharedLayoutTest {

  /** Odd sizes: rank 3's segment starts 52 bytes in, its longs 4 bytes off an 8-byte boundary. */
  private static final long[] SIZES = {32, 20, 0, 44};
  /** Fetch-and-ops each rank issues on one unaligned word, none awaited before the flush. */
  private static final int N = 50;

  private static Future<List<Win.SharedSegment>> segments(Win win) {
    List<Future<Win.SharedSegment>> all = new ArrayList<>();
    for (int p = 0; p < win.comm().size(); p++) {
      all.add(win.sharedQuery(p));
    }
    return Future.all(all).map(cf -> cf.list());
  }

  private static Future<Void> syncBarrierSync(Win win) {
    return win.sync().compose(v -> win.comm().barrier()).compose(v -> win.sync());
  }

  private static long base(Win.SharedSegment s) {
    return s.memory().addressForRead(0);
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void segmentsAreContiguousByDefaultAndAtomicsWorkOnUnalignedWords(Jobs.Mode mode) {
    Jobs.run(mode, 4, (world, args) -> Win.allocateShared(world, SIZES[world.rank()], 4, Info.NULL).compose(win -> {
      int r = world.rank();
      List<Win.SharedSegment> segs = new ArrayList<>();
      List<Future<Long>> fetched = new ArrayList<>();
      long[] swapped = new long[1];
      return segments(win).compose(list -> {
        segs.addAll(list);
        long at = base(segs.get(0));
        for (int p = 0; p < SIZES.length; p++) {
          assertEquals(at, base(segs.get(p)), "rank " + p + "'s segment starts right after rank " + (p - 1) + "'s");
          at += SIZES[p];
        }
        assertEquals(0, base(segs.get(0)) % 16, "the whole memory starts aligned");
        assertEquals(base(segs.get(r)), win.baseAddress(), "own base is own segment");
        assertEquals("false", win.info().get(Info.ALLOC_SHARED_NONCONTIG));
        assertEquals("16", win.info().get(Info.MINIMUM_MEMORY_ALIGNMENT));
        return win.lockAll();
      }).compose(v -> syncBarrierSync(win)).map(v -> {
        if (r == 0) {
          // a store through rank 0's base past the end of its segment (32 bytes) lands in the next ones
          BytesStore<?, ?> whole = BytesStore.wrap(base(segs.get(0)), 96);
          whole.writeLong(32, 0x1111L);
          whole.writeLong(52, 0x3333L);
        }
        return null;
      }).compose(v -> syncBarrierSync(win)).compose(v -> {
        assertEquals(0x1111L, segs.get(1).memory().readLong(0), "rank 1's first word, stored past rank 0's end");
        assertEquals(0x3333L, segs.get(3).memory().readLong(0), "rank 3's first word, stored past rank 0's end");
        if (r == 1) {
          assertEquals(0x1111L, win.memory().readLong(0), "rank 1 sees it in its own memory");
        }
        // atomics on rank 3's words, unaligned in the contiguous layout: raced by every rank
        for (int i = 0; i < N; i++) {
          fetched.add(win.fetchAndOp(1L, 3, 2, Op.SUM)); // bytes 8..16 of rank 3's segment
        }
        Future<Long> cas = win.compareAndSwap(0L, (long) r + 1, 3, 4); // bytes 16..24
        Future<Void> acc = win.accumulate(Buf.of(new long[] {r + 1}), 0, 1, Datatype.LONG, 3, 6, Op.SUM);
        return win.flushAll().map(x -> {
          assertTrue(cas.succeeded() && acc.succeeded(), "complete when the flush covering them completes");
          swapped[0] = cas.result();
          return null;
        });
      }).compose(v -> syncBarrierSync(win)).map(v -> {
        Set<Long> seen = new HashSet<>();
        for (Future<Long> f : fetched) {
          assertTrue(f.succeeded(), "a fetch-and-op's future was not complete when its flush completed");
          seen.add(f.result());
        }
        assertEquals(N, seen.size(), "every fetch of one rank saw a different count");
        BytesStore<?, ?> three = segs.get(3).memory();
        assertEquals(4L * N, three.readLong(8), "every increment of every rank landed once");
        long winner = three.readLong(16);
        assertTrue(winner >= 1 && winner <= 4, "one compare-and-swap won: " + winner);
        assertEquals(r + 1 == winner ? 0L : winner, swapped[0], "the winner saw 0, the others the winner's value");
        assertEquals(10L, three.readLong(24), "accumulates of 1+2+3+4");
        return null;
      }).compose(v -> win.unlockAll()).compose(v -> world.barrier()).compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void noncontigAlignsEverySegment(Jobs.Mode mode) {
    Info hints = Info.of(Info.ALLOC_SHARED_NONCONTIG, "true", Info.MINIMUM_MEMORY_ALIGNMENT, "128");
    Jobs.run(mode, 4, (world, args) -> Win.allocateShared(world, SIZES[world.rank()], 1, hints).compose(win -> {
      int r = world.rank();
      List<Win.SharedSegment> segs = new ArrayList<>();
      return segments(win).compose(list -> {
        segs.addAll(list);
        long[] offsets = {0, 128, 256, 256};
        for (int p = 0; p < SIZES.length; p++) {
          assertEquals(0, base(segs.get(p)) % 128, "rank " + p + "'s segment is aligned");
          assertEquals(base(segs.get(0)) + offsets[p], base(segs.get(p)), "rank " + p + "'s segment offset");
          assertEquals(SIZES[p], segs.get(p).size());
        }
        assertEquals("true", win.info().get(Info.ALLOC_SHARED_NONCONTIG));
        assertEquals("128", win.info().get(Info.MINIMUM_MEMORY_ALIGNMENT));
        return win.lockAll();
      }).map(v -> {
        if (SIZES[r] > 0) {
          win.memory().writeLong(SIZES[r] - 8, 500L + r);
        }
        return null;
      }).compose(v -> syncBarrierSync(win)).map(v -> {
        for (int p = 0; p < SIZES.length; p++) {
          if (SIZES[p] > 0) {
            assertEquals(500L + p, segs.get(p).memory().readLong(SIZES[p] - 8), "rank " + p + "'s last word");
          }
        }
        return null;
      }).compose(v -> win.unlockAll())
          // the layout is fixed at creation: setInfo keeps the values in use
          .compose(v -> win.setInfo(Info.of(Info.ALLOC_SHARED_NONCONTIG, "false")))
          .map(v -> {
            assertEquals("true", win.info().get(Info.ALLOC_SHARED_NONCONTIG));
            return null;
          })
          .compose(v -> world.barrier()).compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void allocateHonoursTheMinimumAlignmentAndInfoReportsTheValuesInUse(Jobs.Mode mode) {
    Info hints = Info.of(Info.MINIMUM_MEMORY_ALIGNMENT, "4096", Info.ACCUMULATE_GRANULARITY, "8");
    Jobs.run(mode, 4, (world, args) -> Win.allocate(world, 24, 8, hints).compose(win -> {
      assertEquals(0, win.baseAddress() % 4096, "rank " + world.rank() + "'s memory is page aligned");
      assertEquals("4096", win.info().get(Info.MINIMUM_MEMORY_ALIGNMENT));
      assertEquals("8", win.info().get(Info.ACCUMULATE_GRANULARITY));
      int right = (world.rank() + 1) % world.size();
      return win.fence()
          .compose(v -> win.put(Buf.of(new long[] {7L + world.rank()}), 0, 1, Datatype.LONG, right, 2))
          .compose(v -> win.fence())
          .map(v -> {
            assertEquals(7L + (world.rank() + 3) % 4, win.memory().readLong(16), "put from the left neighbour");
            return null;
          }).compose(v -> win.free());
    }).compose(v -> Win.allocate(world, 8, 8, Info.NULL)).compose(win -> {
      assertEquals("16", win.info().get(Info.MINIMUM_MEMORY_ALIGNMENT), "the default in use");
      assertEquals("0", win.info().get(Info.ACCUMULATE_GRANULARITY), "the default in use");
      assertEquals(0, win.baseAddress() % 16);
      return world.barrier().compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  /**
   * Two JVMs of this host ({@link SharedAcrossJvmsProgram}): the contiguous layout in each JVM's
   * mapping, and sharedQuery of an allocate window giving the other JVM's memory.
   */
  @Tag("multijvm")
  @RmaTest(ranks = 2, jvms = 2, timeoutSeconds = 120)
  void acrossTwoJvmsSegmentsAreContiguousAndAllocateWindowsAreShared(RmaJob job) {
    job.run(SharedAcrossJvmsProgram.class);
  }

  /** A bad value of a creation hint at one rank fails the creation at every rank with INFO. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aBadLayoutHintAtOneRankFailsEveryRankWithInfo(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      Info bad = world.rank() == 1 ? Info.of(Info.MINIMUM_MEMORY_ALIGNMENT, "24") : Info.NULL;
      Info badShared = world.rank() == 0 ? Info.of(Info.ALLOC_SHARED_NONCONTIG, "maybe") : Info.NULL;
      return expectInfo(Win.allocateShared(world, 16, 1, bad), Info.MINIMUM_MEMORY_ALIGNMENT)
          .compose(v -> expectInfo(Win.allocate(world, 16, 1, bad), Info.MINIMUM_MEMORY_ALIGNMENT))
          .compose(v -> expectInfo(Win.allocateShared(world, 16, 1, badShared), Info.ALLOC_SHARED_NONCONTIG))
          .compose(v -> expectInfo(Win.create(world, null, 1, world.rank() == 1
              ? Info.of(Info.ACCUMULATE_GRANULARITY, "-3") : Info.NULL), Info.ACCUMULATE_GRANULARITY))
          // and the next creation works
          .compose(v -> Win.allocateShared(world, 8, 1, Info.NULL)).compose(win -> win.free());
    });
    assertEquals(0, WindowMemory.live());
  }

  private static Future<Void> expectInfo(Future<Win> creation, String key) {
    return creation.transform(ar -> {
      assertTrue(ar.failed(), "the creation should fail");
      assertTrue(ar.cause() instanceof RmaException, String.valueOf(ar.cause()));
      assertEquals(ErrorClass.INFO, ((RmaException) ar.cause()).errorClass(), ar.cause().getMessage());
      assertTrue(ar.cause().getMessage().contains(key), ar.cause().getMessage());
      return Future.succeededFuture();
    });
  }
}
