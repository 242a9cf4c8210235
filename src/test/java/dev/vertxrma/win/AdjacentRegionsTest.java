package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.assertError;
import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToLongFunction;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Accesses of a dynamic window that span attached regions touching end to end (one region ends
 * where the next begins, as MPICH accepts): every operation kind, contiguous and strided, with
 * elements that straddle a boundary between regions; an access reaching into a gap between
 * regions is refused whole; detach racing a spanning access never lets it apply in part.
 *
 * <p>Every rank attaches slices of one block of {@value #BYTES} bytes (longs {@code i} at bytes
 * {@code [8i, 8i + 8)}): regions R0..R7 touch end to end over {@code [0, 256)}, their boundaries
 * at 36, 64, 100, 128, 164, 192, 228 (those at 36, 100, 164 and 228 fall inside longs 4, 12, 20
 * and 28); {@code [256, 264)} is a gap; R8 is {@code [264, 320)}.
 */
class AdjacentRegionsTest {

  private static final int BYTES = 320;
  private static final long[] BOUNDS = {0, 36, 64, 100, 128, 164, 192, 228, 256};
  private static final long GAP_END = 264;

  private static long init(int rank, int i) {
    return 10_000L * rank + i;
  }

  /** The block, filled with {@link #init}, and its regions (R0..R7 adjacent, then R8 after the gap). */
  private static List<BytesStore<?, ?>> regions(BytesStore<?, ?> big, int rank) {
    for (int i = 0; i < BYTES / 8; i++) {
      big.writeLong(8L * i, init(rank, i));
    }
    long base = Win.address(big, 0);
    List<BytesStore<?, ?>> regions = new ArrayList<>();
    for (int j = 0; j + 1 < BOUNDS.length; j++) {
      regions.add(BytesStore.wrap(base + BOUNDS[j], BOUNDS[j + 1] - BOUNDS[j]));
    }
    regions.add(BytesStore.wrap(base + GAP_END, BYTES - GAP_END));
    return regions;
  }

  private static Future<Void> attachAll(Win win, List<BytesStore<?, ?>> regions) {
    Future<Void> f = Future.succeededFuture();
    for (BytesStore<?, ?> s : regions) {
      f = f.compose(v -> win.attach(s));
    }
    return f;
  }

  private static Future<Void> detachAll(Win win, List<BytesStore<?, ?>> regions) {
    Future<Void> f = Future.succeededFuture();
    for (BytesStore<?, ?> s : regions) {
      f = f.compose(v -> win.detach(s));
    }
    return f;
  }

  private static long[] longs(int from, int count, IntToLongFunction value) {
    long[] a = new long[count];
    for (int i = 0; i < count; i++) {
      a[i] = value.applyAsLong(from + i);
    }
    return a;
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void everyOperationKindSpansAdjacentRegions(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.createDynamic(world, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      int right = (r + 1) % n;
      int left = (r + n - 1) % n;
      BytesStore<?, ?> big = BytesStore.nativeStoreWithFixedCapacity(BYTES);
      List<BytesStore<?, ?>> regions = regions(big, r);
      long[] bases = new long[n];
      long[] got = new long[4];
      long[] gaccResult = new long[4];
      long[] fopResult = new long[1];
      long[] casResult = new long[1];
      long[] stridedGot = new long[3];
      Datatype strided = Datatype.vector(3, 1, 5, Datatype.LONG).commit(); // longs 0, 5, 10 of its start
      Datatype pair = Datatype.vector(2, 1, 6, Datatype.LONG).commit(); // longs 0 and 6
      return attachAll(win, regions)
          .compose(v -> world.allgather(Buf.of(new long[] {Win.address(big, 0)}), 0, 1, Datatype.AINT, Buf.of(bases),
              0, 1, Datatype.AINT))
          .compose(v -> win.lockAll())
          .compose(v -> {
            long t = bases[right];
            List<Future<Void>> ops = new ArrayList<>();
            // longs 2..5 over R0|R1, long 4 straddling byte 36
            ops.add(win.put(Buf.of(longs(2, 4, i -> 1000L * r + i)), 0, 4, Datatype.LONG, right, t + 16));
            // longs 6..9 over R1|R2 (boundary 64)
            ops.add(win.get(Buf.of(got), 0, 4, Datatype.LONG, right, t + 48));
            // longs 10..13 over R2|R3, long 12 straddling byte 100: every rank adds r + 1 at every rank
            for (int target = 0; target < n; target++) {
              ops.add(win.accumulate(Buf.of(longs(0, 4, i -> r + 1)), 0, 4, Datatype.LONG, target, bases[target] + 80,
                  Op.SUM));
            }
            // longs 14..17 over R3|R4 (boundary 128)
            ops.add(win.getAccumulate(Buf.of(longs(0, 4, i -> 7L * (r + 1))), 0, 4, Datatype.LONG, Buf.of(gaccResult),
                0, 4, Datatype.LONG, right, t + 112, 4, Datatype.LONG, Op.SUM));
            // long 20 straddling byte 164 (R4|R5)
            ops.add(win.fetchAndOp(Buf.of(new long[] {3}), 0, Buf.of(fopResult), 0, Datatype.LONG, right, t + 160,
                Op.SUM));
            // long 28 straddling byte 228 (R6|R7)
            ops.add(win.compareAndSwap(Buf.of(new long[] {-(1000L * r + 28)}), 0, Buf.of(new long[] {init(right, 28)}),
                0, Buf.of(casResult), 0, Datatype.LONG, right, t + 224));
            // strided: longs 21, 26, 31 in R5, R6, R7
            ops.add(win.put(Buf.of(new long[] {500L + r, 600L + r, 700L + r}), 0, 3, Datatype.LONG, right, t + 168, 1,
                strided));
            // strided accumulate from every rank: longs 18 (R4) and 24 (R6), the type's span over R4..R6
            for (int target = 0; target < n; target++) {
              ops.add(win.accumulate(Buf.of(new long[] {1, 1}), 0, 2, Datatype.LONG, target, bases[target] + 144, 1,
                  pair, Op.SUM));
            }
            return Future.all(ops);
          })
          .compose(v -> win.flushAll())
          .compose(v -> win.get(Buf.of(stridedGot), 0, 3, Datatype.LONG, right, bases[right] + 168, 1, strided))
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .map(v -> {
            assertArrayEquals(longs(6, 4, i -> init(right, i)), got, "get over R1|R2");
            assertArrayEquals(longs(14, 4, i -> init(right, i)), gaccResult, "getAccumulate's fetched values");
            assertEquals(init(right, 20), fopResult[0], "fetchAndOp's fetched value");
            assertEquals(init(right, 28), casResult[0], "compareAndSwap's fetched value");
            assertArrayEquals(new long[] {500L + r, 600L + r, 700L + r}, stridedGot, "strided get over R5..R7");
            for (int i = 0; i < BYTES / 8; i++) {
              long want = init(r, i);
              if (i >= 2 && i <= 5) {
                want = 1000L * left + i;
              } else if (i >= 10 && i <= 13) {
                want += (long) n * (n + 1) / 2;
              } else if (i >= 14 && i <= 17) {
                want += 7L * (left + 1);
              } else if (i == 18 || i == 24) {
                want += n;
              } else if (i == 20) {
                want += 3;
              } else if (i == 21 || i == 26 || i == 31) {
                want = 100L * (5 + (i - 21) / 5) + left;
              } else if (i == 28) {
                want = -(1000L * left + 28);
              }
              assertEquals(want, big.readLong(8L * i), "long " + i + " at rank " + r);
            }
            return null;
          })
          .compose(v -> detachAll(win, regions))
          .compose(v -> win.free())
          .onComplete(ar -> big.releaseLast());
    }));
    assertEquals(0, WindowMemory.live());
  }

  /** The operation's own future may fail (same JVM, or it returns data); the flush must report it. */
  private static Future<Void> refused(Future<?> op, Win win, int target, String... fragments) {
    return op.transform(ar -> {
      if (ar.failed()) {
        assertError(ar.cause(), ErrorClass.RMA_RANGE, fragments);
      }
      return expectError(win.flush(target), ErrorClass.RMA_RANGE, fragments);
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void anAccessIntoAGapFailsWithRmaRangeAndChangesNoByte(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.createDynamic(world, Info.NULL).compose(win -> {
      int r = world.rank();
      int other = 1 - r;
      BytesStore<?, ?> big = BytesStore.nativeStoreWithFixedCapacity(BYTES);
      List<BytesStore<?, ?>> regions = regions(big, r);
      byte[] before = new byte[BYTES];
      big.read(0, before, 0, BYTES);
      long[] bases = new long[2];
      long[] getBuf = {-1, -2, -3};
      long[] resBuf = {-4, -5, -6};
      long[] one = {-7};
      Datatype acrossGap = Datatype.vector(2, 1, 4, Datatype.LONG).commit(); // longs 30 (R7) and 34 (R8)
      return attachAll(win, regions)
          .compose(v -> world.allgather(Buf.of(new long[] {Win.address(big, 0)}), 0, 1, Datatype.AINT, Buf.of(bases),
              0, 1, Datatype.AINT))
          .compose(v -> win.lockAll())
          .compose(v -> {
            long t = bases[other];
            String at = "at rank " + other;
            String outside = "not inside attached memory";
            String endsAtGap = String.format("ends at 0x%x", t + 256);
            return refused(win.put(Buf.of(new long[33]), 0, 33, Datatype.LONG, other, t), win, other, at, outside,
                endsAtGap) // R0..R7 then one long into the gap
                .compose(x -> refused(win.put(Buf.of(new long[4]), 0, 4, Datatype.LONG, other, t + 240), win, other,
                    outside, endsAtGap)) // R7, the gap, R8
                .compose(x -> refused(win.get(Buf.of(getBuf), 0, 3, Datatype.LONG, other, t + 248), win, other,
                    outside))
                .compose(x -> refused(win.accumulate(Buf.of(new long[] {9, 9}), 0, 2, Datatype.LONG, other, t + 248,
                    Op.SUM), win, other, outside))
                .compose(x -> refused(win.getAccumulate(Buf.of(new long[] {9, 9, 9}), 0, 3, Datatype.LONG,
                    Buf.of(resBuf), 0, 3, Datatype.LONG, other, t + 248, 3, Datatype.LONG, Op.SUM), win, other, outside))
                .compose(x -> refused(win.fetchAndOp(Buf.of(new long[] {9}), 0, Buf.of(one), 0, Datatype.LONG, other,
                    t + 252, Op.SUM), win, other, outside, endsAtGap)) // a long straddling R7's end
                .compose(x -> refused(win.compareAndSwap(Buf.of(new long[] {9}), 0, Buf.of(new long[] {0}), 0,
                    Buf.of(one), 0, Datatype.LONG, other, t + 260), win, other, outside,
                    String.format("byte 0x%x is in no attached region", t + 260))) // from the gap into R8
                .compose(x -> refused(win.put(Buf.of(new long[] {9, 9}), 0, 2, Datatype.LONG, other, t + 240, 1,
                    acrossGap), win, other, outside)); // both longs attached, the type's span is not
          })
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .map(v -> {
            assertArrayEquals(new long[] {-1, -2, -3}, getBuf, "a refused get leaves its buffer alone");
            assertArrayEquals(new long[] {-4, -5, -6}, resBuf, "a refused getAccumulate leaves its result alone");
            assertEquals(-7, one[0], "refused fetchAndOp and compareAndSwap leave their result alone");
            byte[] after = new byte[BYTES];
            big.read(0, after, 0, BYTES);
            assertArrayEquals(before, after, "regions and gap at rank " + r + " byte for byte");
            return null;
          })
          .compose(v -> detachAll(win, regions))
          .compose(v -> win.free())
          .onComplete(ar -> big.releaseLast());
    }));
    assertEquals(0, WindowMemory.live());
  }

  /** Used by {@link #detachRacingASpanningPutAppliesItWholeOrNotAtAll}: rounds and longs per round. */
  private static final int ROUNDS = 200;
  private static final int SLOTS = 8;
  private static final long POISON = 0xDEADBEEFCAFEF00DL;

  /**
   * Rank 0 puts {@value #SLOTS} longs over two adjacent regions A|B of rank 1 while rank 1
   * detaches B (in even rounds at once, in odd ones once rank 0 says the put is issued). The
   * target's owner runs the put and the detach one at a time: once detach(B) completes, the put
   * has written all of A|B or nothing, and it can write nothing after (MPI: an access to
   * detached memory is erroneous; here it fails with RMA_RANGE).
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void detachRacingASpanningPutAppliesItWholeOrNotAtAll(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.createDynamic(world, Info.NULL).compose(win -> {
      if (world.rank() == 1) {
        BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(8L * SLOTS);
        long base = Win.address(store, 0);
        BytesStore<?, ?> a = BytesStore.wrap(base, 8L * SLOTS / 2);
        BytesStore<?, ?> b = BytesStore.wrap(base + 8L * SLOTS / 2, 8L * SLOTS / 2);
        int[] outcomes = new int[2]; // [not applied, applied]
        return Rma.repeat(ROUNDS, round -> {
          for (int i = 0; i < SLOTS; i++) {
            store.writeLong(8L * i, -1);
          }
          Future<Void> sent = win.attach(a).compose(v -> win.attach(b))
              .compose(v -> world.send(Buf.of(new long[] {base}), 0, 1, Datatype.LONG, 0, 1));
          Future<Void> ready = round % 2 == 0 ? sent
              : sent.compose(v -> world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 0, 3).mapEmpty());
          return ready.compose(v -> win.detach(b))
              .map(v -> {
                long first = store.readLong(0);
                assertEquals(first == -1 ? -1 : round, first, "round " + round + ": slot 0");
                for (int i = 0; i < SLOTS; i++) {
                  assertEquals(first, store.readLong(8L * i), "round " + round + ": the put applied in part, slot " + i);
                  store.writeLong(8L * i, POISON);
                }
                outcomes[first == -1 ? 0 : 1]++;
                return null;
              })
              .compose(v -> win.detach(a))
              .compose(v -> world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 0, 2)) // the put is complete
              .map(v -> {
                for (int i = 0; i < SLOTS; i++) {
                  assertEquals(POISON, store.readLong(8L * i), "round " + round + ": slot " + i
                      + " written after detach(B) completed");
                }
                return null;
              });
        }).map(v -> {
          // both outcomes occur, or the race (and the spanning put) was never exercised
          assertTrue(outcomes[0] > 0 && outcomes[1] > 0,
              "puts not applied / applied: " + outcomes[0] + " / " + outcomes[1]);
          return (Void) null;
        }).eventually(() -> {
          store.releaseLast();
          return Future.succeededFuture();
        }).compose(v -> win.free());
      }
      long[] addr = new long[1];
      return win.lockAll().compose(v -> Rma.repeat(ROUNDS, round -> world.recv(Buf.of(addr), 0, 1,
          Datatype.LONG, 1, 1).compose(s -> {
            Future<Void> put = win.put(Buf.of(longs(0, SLOTS, i -> round)), 0, SLOTS, Datatype.LONG, 1, addr[0]);
            Future<Void> issued = round % 2 == 0 ? Future.succeededFuture()
                : world.send(Buf.of(new int[] {round}), 0, 1, Datatype.INT, 1, 3);
            Future<Void> flushed = issued.compose(x -> win.flush(1));
            return Future.join(put, issued, flushed).transform(ar -> {
              for (Future<Void> f : List.of(put, flushed)) {
                if (f.failed()) {
                  assertError(f.cause(), ErrorClass.RMA_RANGE, "at rank 1");
                }
              }
              return world.send(Buf.of(new int[] {round}), 0, 1, Datatype.INT, 1, 2);
            });
          }))).compose(v -> win.unlockAll()).compose(v -> win.free());
    }));
  }
}
