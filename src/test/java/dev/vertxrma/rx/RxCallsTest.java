package dev.vertxrma.rx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.reactivex.rxjava3.core.Completable;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Optional;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The calls of the Rx facade with values checked: collectives and point-to-point of
 * {@link RxComm}, the fetching and request-based operations of {@link RxWin}, and its dynamic,
 * shared and caller-memory windows, embedded and clustered.
 */
class RxCallsTest {

  @BeforeAll
  static void loadRxJava() {
    RxWarmup.load();
  }

  /** Completes when {@code failing} fails with {@code expected}; errors otherwise. */
  private static Completable failsWith(ErrorClass expected, Completable failing) {
    return failing.andThen(Completable.error(new AssertionError("expected " + expected + ", the call succeeded")))
        .onErrorResumeNext(e -> e instanceof RmaException r && r.errorClass() == expected ? Completable.complete()
            : Completable.error(e));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void collectivesAndPointToPoint(Jobs.Mode mode) {
    Jobs.run(mode, 4, RxRma.program((comm, args) -> {
      int me = comm.rank();
      int np = comm.size();
      int right = (me + 1) % np;
      int left = (me + np - 1) % np;
      long[] reduced = new long[2];
      int[] gathered = new int[np];
      int[] allGathered = new int[np];
      int[] blocks = new int[2 * np];
      for (int i = 0; i < blocks.length; i++) {
        blocks[i] = 50 + i;
      }
      int[] scattered = new int[2];
      int[] toAll = new int[np];
      for (int j = 0; j < np; j++) {
        toAll[j] = 100 * me + j;
      }
      int[] fromAll = new int[np];
      int[] ring = new int[1];
      int[] buffered = new int[1];
      byte[] bsendBuffer = new byte[256];
      Object[] detached = new Object[1];
      return comm.reduce(Buf.of(new long[] {me, 10L * me}), 0, Buf.of(reduced), 0, 2, Datatype.LONG, Op.SUM, 1)
          .andThen(comm.gather(Buf.of(new int[] {me * me}), 0, 1, Datatype.INT, Buf.of(gathered), 0, 1, Datatype.INT, 0))
          .andThen(comm.allgather(Buf.of(new int[] {me + 7}), 0, 1, Datatype.INT, Buf.of(allGathered), 0, 1, Datatype.INT))
          .andThen(comm.scatter(Buf.of(blocks), 0, 2, Datatype.INT, Buf.of(scattered), 0, 2, Datatype.INT, 2))
          .andThen(comm.alltoall(Buf.of(toAll), 0, 1, Datatype.INT, Buf.of(fromAll), 0, 1, Datatype.INT))
          .andThen(Completable.mergeArray(
              comm.isend(Buf.of(new int[] {1000 + me}), 0, 1, Datatype.INT, right, 5),
              comm.irecv(Buf.of(ring), 0, 1, Datatype.INT, left, 5)
                  .doOnSuccess(status -> assertEquals(left, status.source(), "irecv status source")).ignoreElement()))
          .andThen(comm.bufferAttach(Buf.of(bsendBuffer), bsendBuffer.length))
          .andThen(Completable.mergeArray(
              comm.bsend(Buf.of(new int[] {2000 + me}), 0, 1, Datatype.INT, right, 6),
              comm.recv(Buf.of(buffered), 0, 1, Datatype.INT, left, 6).ignoreElement()))
          .andThen(comm.bufferDetach().doOnSuccess(b -> detached[0] = b.memory()).ignoreElement())
          .andThen(Completable.fromAction(() -> {
            if (me == 1) {
              assertArrayEquals(new long[] {np * (np - 1) / 2, 10L * np * (np - 1) / 2}, reduced, "reduce at root 1");
            }
            if (me == 0) {
              assertArrayEquals(new int[] {0, 1, 4, 9}, gathered, "gather at root 0");
            }
            assertArrayEquals(new int[] {7, 8, 9, 10}, allGathered, "allgather");
            assertArrayEquals(new int[] {50 + 2 * me, 51 + 2 * me}, scattered, "scatter from root 2");
            for (int i = 0; i < np; i++) {
              assertEquals(100 * i + me, fromAll[i], "alltoall block from rank " + i);
            }
            assertEquals(1000 + left, ring[0], "isend/irecv ring");
            assertEquals(2000 + left, buffered[0], "bsend/recv ring");
            assertSame(bsendBuffer, detached[0], "bufferDetach returns the attached buffer");
            assertEquals(np, comm.group().size());
            assertEquals(comm.delegate().jobName(), comm.jobName());
            assertSame(comm.delegate().vertx(), comm.vertx());
          }));
    }));
  }

  /**
   * The Rx twins of probe/iprobe, sendrecv, sendrecvReplace, scan, exscan, reduceScatter(Block)
   * and bufferDetach's size, with values checked, IN_PLACE through the facade, and an error.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void probesSendrecvAndPrefixReductions(Jobs.Mode mode) {
    Jobs.run(mode, 3, RxRma.program((comm, args) -> {
      int me = comm.rank();
      int np = comm.size();
      int right = (me + 1) % np;
      int left = (me + np - 1) % np;
      int[] got = new int[2];
      int[] ring = {me};
      int[] back = {-1};
      int[] sc = {me + 1};
      int[] ex = {-5};
      int[] rs = new int[1];
      int[] rsv = new int[1];
      Status[] probed = new Status[1];
      Optional<?>[] polled = new Optional<?>[1];
      int[] detachedSize = new int[1];
      byte[] attach = new byte[128];
      return comm.send(Buf.of(new int[] {me, me * me}), 0, 2, Datatype.INT, right, 3)
          .andThen(comm.probe(Comm.ANY_SOURCE, Comm.ANY_TAG).doOnSuccess(st -> probed[0] = st).ignoreElement())
          .andThen(comm.iprobe(left, 3).doOnSuccess(st -> polled[0] = st).ignoreElement())
          .andThen(comm.recv(Buf.of(got), 0, 2, Datatype.INT, left, 3).ignoreElement())
          .andThen(comm.sendrecvReplace(Buf.of(ring), 0, 1, Datatype.INT, right, 4, left, 4).ignoreElement())
          .andThen(comm.sendrecv(Buf.of(ring), 0, 1, Datatype.INT, left, 5, Buf.of(back), 0, 1, Datatype.INT, right, 5)
              .doOnSuccess(st -> assertEquals(new Status(right, 5, 1, 4), st)).ignoreElement())
          .andThen(comm.scan(Comm.IN_PLACE, 0, Buf.of(sc), 0, 1, Datatype.INT, Op.SUM))
          .andThen(comm.exscan(Buf.of(new int[] {me + 1}), 0, Buf.of(ex), 0, 1, Datatype.INT, Op.PROD))
          .andThen(comm.reduceScatterBlock(Buf.of(new int[] {me, 10 * me, 100 * me}), 0, Buf.of(rs), 0, 1,
              Datatype.INT, Op.SUM))
          .andThen(comm.reduceScatter(Buf.of(new int[] {1, 2, 3}), 0, Buf.of(rsv), 0, new int[] {1, 1, 1},
              Datatype.INT, Op.MAX))
          .andThen(comm.bufferAttach(Buf.of(attach), 100))
          .andThen(comm.bufferDetach().doOnSuccess(d -> detachedSize[0] = d.size()).ignoreElement())
          .andThen(failsWith(ErrorClass.BUFFER, comm.scan(Buf.of(sc), 0, Comm.IN_PLACE, 0, 1, Datatype.INT, Op.SUM)))
          .andThen(failsWith(ErrorClass.RANK, comm.probe(np, 0).ignoreElement()))
          .andThen(Completable.fromAction(() -> {
            assertEquals(new Status(left, 3, 8, 8), probed[0], "Rx probe");
            assertEquals(Optional.of(probed[0]), polled[0], "Rx iprobe: the message was still there");
            assertArrayEquals(new int[] {left, left * left}, got);
            assertEquals(left, ring[0], "sendrecvReplace from the left");
            assertEquals(me, back[0], "sendrecv back: the right neighbour held our value");
            assertEquals((me + 1) * (me + 2) / 2, sc[0], "Rx scan in place");
            assertEquals(me == 0 ? -5 : me == 1 ? 1 : 2, ex[0], "Rx exscan");
            assertEquals(new int[] {3, 30, 300}[me], rs[0], "Rx reduceScatterBlock");
            assertEquals(me + 1, rsv[0], "Rx reduceScatter");
            assertEquals(100, detachedSize[0], "bufferDetach's size");
          }));
    }));
  }

  /**
   * Every rank adds its increment to one counter with getAccumulate (and with fetchAndOp on raw
   * buffers): sorted by the value each fetched, the fetches must form the chain 0, a, a+b, ...
   * of the increments in the order they were applied, ending at their sum. rgetAccumulate
   * REPLACEs a slot at the right neighbour and fetches its initial value; raccumulate sums into
   * one slot; compareAndSwap on raw buffers lets exactly one rank in; getAccumulate NO_OP fetches
   * with a null origin.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void fetchingAndRequestBasedOperations(Jobs.Mode mode) {
    int np = 4;
    Jobs.run(mode, np, RxRma.program((comm, args) -> {
      int me = comm.rank();
      int right = (me + 1) % np;
      int left = (me + np - 1) % np;
      long inc = me + 1;
      // slots: 0 getAccumulate counter, 1 fetchAndOp counter, 2 raccumulate sum, 3 compareAndSwap,
      // 4 + src: rgetAccumulate REPLACE by rank src (initially 1000 + owner)
      long[] fetched = new long[4]; // getAccumulate, fetchAndOp, compareAndSwap, rgetAccumulate
      long[] final0 = new long[1];
      long[] all = new long[4 * np];
      return RxWin.allocate(comm, 8L * (4 + np), 8, Info.NULL).flatMapCompletable(win -> Completable.fromAction(() ->
              win.memory().writeLong(8L * (4 + left), 1000 + me))
          .andThen(comm.barrier())
          .andThen(win.lockAll())
          .andThen(win.getAccumulate(Buf.of(new long[] {inc}), 0, 1, Datatype.LONG, Buf.of(fetched), 0, 1, Datatype.LONG, 0, 0, 1,
              Datatype.LONG, Op.SUM))
          .andThen(win.fetchAndOp(Buf.of(new long[] {inc}), 0, Buf.of(fetched), 1, Datatype.LONG, 0, 1, Op.SUM))
          .andThen(win.compareAndSwap(Buf.of(new long[] {me + 1}), 0, Buf.of(new long[] {0}), 0, Buf.of(fetched), 2, Datatype.LONG, 0, 3))
          .andThen(Completable.mergeArray(
              win.rgetAccumulate(Buf.of(new long[] {2000 + me}), 0, 1, Datatype.LONG, Buf.of(fetched), 3, 1, Datatype.LONG, right,
                  4 + me, 1, Datatype.LONG, Op.REPLACE),
              win.raccumulate(Buf.of(new long[] {inc}), 0, 1, Datatype.LONG, 0, 2, 1, Datatype.LONG, Op.SUM)))
          .andThen(win.flushAll())
          .andThen(win.unlockAll())
          .andThen(comm.barrier())
          .andThen(win.lockAll())
          .andThen(win.getAccumulate(null, 0, 0, Datatype.LONG, Buf.of(final0), 0, 1, Datatype.LONG, 0, 0, 1, Datatype.LONG,
              Op.NO_OP))
          .andThen(win.unlockAll())
          .andThen(comm.allgather(Buf.of(fetched), 0, 4, Datatype.LONG, Buf.of(all), 0, 4, Datatype.LONG))
          .andThen(Completable.fromAction(() -> {
            long sum = (long) np * (np + 1) / 2;
            assertEquals(sum, final0[0], "getAccumulate NO_OP fetches the counter");
            assertEquals(1000 + right, fetched[3], "rgetAccumulate fetched the target's initial value");
            assertEquals(2000 + left, win.memory().readLong(8L * (4 + left)), "rgetAccumulate REPLACE by the left");
            assertIncrementChain(all, 0, np, sum, "getAccumulate");
            assertIncrementChain(all, 1, np, sum, "fetchAndOp");
            long winners = 0;
            long winner = -1;
            for (int r = 0; r < np; r++) {
              if (all[4 * r + 2] == 0) {
                winners++;
                winner = r;
              }
            }
            assertEquals(1, winners, "exactly one compareAndSwap finds 0");
            for (int r = 0; r < np; r++) {
              if (r != winner) {
                assertEquals(winner + 1, all[4 * r + 2], "the others find the winner's value");
              }
            }
            if (me == 0) {
              assertEquals(sum, win.memory().readLong(8), "fetchAndOp counter");
              assertEquals(sum, win.memory().readLong(16), "raccumulate sum");
              assertEquals(winner + 1, win.memory().readLong(24), "compareAndSwap slot");
            }
          }))
          .andThen(comm.barrier())
          .andThen(win.free()));
    }));
  }

  /** Sorted by fetched value, rank r's fetch must be the sum of the increments (r + 1) applied before it. */
  private static void assertIncrementChain(long[] all, int column, int np, long sum, String what) {
    Integer[] order = new Integer[np];
    for (int r = 0; r < np; r++) {
      order[r] = r;
    }
    Arrays.sort(order, Comparator.comparingLong(r -> all[4 * r + column]));
    long expected = 0;
    for (int r : order) {
      assertEquals(expected, all[4 * r + column], what + " of rank " + r + " in " + Arrays.toString(all));
      expected += r + 1;
    }
    assertEquals(sum, expected);
  }

  /**
   * A dynamic window: every rank attaches a store, the addresses are allgathered, each rank puts
   * into its right neighbour's store and gets it back, then checks its own store. sharedQuery on
   * it fails with RMA_FLAVOR.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void dynamicWindowAttachPutGet(Jobs.Mode mode) {
    Jobs.run(mode, 3, RxRma.program((comm, args) -> {
      int me = comm.rank();
      int np = comm.size();
      int right = (me + 1) % np;
      int left = (me + np - 1) % np;
      BytesStore<?, ?> mine = BytesStore.nativeStoreWithFixedCapacity(16);
      mine.writeLong(0, -1);
      mine.writeLong(8, -1);
      long[] addresses = new long[np];
      long[] back = new long[2];
      return RxWin.createDynamic(comm, Info.NULL).flatMapCompletable(win -> win.attach(mine)
          .andThen(comm.allgather(Buf.of(new long[] {RxWin.address(mine, 0)}), 0, 1, Datatype.AINT, Buf.of(addresses), 0, 1,
              Datatype.AINT))
          .andThen(win.lockAll())
          // the addresses are known only now: build the calls that use them on subscription
          .andThen(Completable.defer(() -> win.put(Buf.of(new long[] {100 + me}), 0, 1, Datatype.LONG, right,
              addresses[right] + 8)))
          .andThen(Completable.defer(() -> win.rput(Buf.of(new long[] {200 + me}), 0, 1, Datatype.LONG, right,
              addresses[right], 1, Datatype.LONG)))
          .andThen(win.flushLocal(right))
          .andThen(win.flushLocalAll())
          .andThen(win.flush(right))
          .andThen(Completable.defer(() -> win.get(Buf.of(back), 0, 2, Datatype.LONG, right, addresses[right], 2,
              Datatype.LONG)))
          .andThen(win.unlockAll())
          .andThen(comm.barrier())
          .andThen(failsWith(ErrorClass.RMA_FLAVOR, win.sharedQuery(0).ignoreElement()))
          .andThen(Completable.fromAction(() -> {
            assertArrayEquals(new long[] {200 + me, 100 + me}, back, "got back what was put at the right");
            assertEquals(200 + left, mine.readLong(0), "rput by the left neighbour");
            assertEquals(100 + left, mine.readLong(8), "put by the left neighbour");
            assertEquals(Win.Flavor.DYNAMIC, win.flavor());
          }))
          .andThen(comm.barrier())
          .andThen(win.detach(mine))
          .andThen(win.free())
          .andThen(Completable.fromAction(mine::releaseLast)));
    }));
  }

  /** A shared window: each rank stores into its segment and loads its right neighbour's through sharedQuery. */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void sharedWindowQuery(Jobs.Mode mode) {
    Jobs.run(mode, 3, RxRma.program((comm, args) -> {
      int me = comm.rank();
      int right = (me + 1) % comm.size();
      return RxWin.allocateShared(comm, 16, 8, Info.NULL).flatMapCompletable(win -> win.lockAll()
          .andThen(Completable.fromAction(() -> win.memory().writeLong(8, 500 + me)))
          .andThen(win.sync())
          .andThen(comm.barrier())
          .andThen(win.sync())
          .andThen(win.sharedQuery(right).doOnSuccess(segment -> {
            assertEquals(16, segment.size(), "segment size");
            assertEquals(8, segment.dispUnit(), "segment displacement unit");
            assertEquals(500 + right, segment.memory().readLong(8), "the right neighbour's store");
          }).ignoreElement())
          .andThen(win.unlockAll())
          .andThen(Completable.fromAction(() -> assertEquals(Win.Flavor.SHARED, win.flavor())))
          .andThen(comm.barrier())
          .andThen(win.free()));
    }));
  }

  /**
   * A window over the caller's memory, with the attributes, the two-datatype put/get/accumulate
   * forms and fence epochs.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void createdWindowAttributesAndFence(Jobs.Mode mode) {
    Jobs.run(mode, 2, RxRma.program((comm, args) -> {
      int me = comm.rank();
      int other = 1 - me;
      BytesStore<?, ?> memory = BytesStore.nativeStoreWithFixedCapacity(32);
      memory.zeroOut(0, 32);
      long[] got = new long[1];
      return RxWin.create(comm, memory, 8, Info.NULL).flatMapCompletable(win -> Completable.fromAction(() -> {
        assertEquals(Win.Flavor.CREATE, win.flavor());
        assertEquals(Win.MemoryModel.UNIFIED, win.model());
        assertEquals(32, win.size());
        assertEquals(32, win.size(other));
        assertEquals(8, win.dispUnit());
        assertEquals(8, win.dispUnit(other));
        assertEquals(me, win.comm().rank());
        assertEquals(2, win.group().size());
        assertNotNull(win.info());
        assertSame(memory, win.memory());
        win.setName("rx-window-" + me);
        assertEquals("rx-window-" + me, win.name());
      })
          .andThen(win.fence())
          .andThen(win.put(Buf.of(new long[] {7 + me}), 0, 1, Datatype.LONG, other, 1, 1, Datatype.LONG))
          .andThen(win.accumulate(Buf.of(new long[] {me + 1}), 0, 1, Datatype.LONG, 0, 2, 1, Datatype.LONG, Op.SUM))
          .andThen(win.fence())
          .andThen(win.get(Buf.of(got), 0, 1, Datatype.LONG, other, 1, 1, Datatype.LONG))
          .andThen(win.fence(Mode.NOSUCCEED))
          .andThen(Completable.fromAction(() -> {
            assertEquals(7 + me, got[0], "got back what was put at the other rank");
            assertEquals(7 + other, memory.readLong(8), "put by the other rank");
            if (me == 0) {
              assertEquals(3, memory.readLong(16), "accumulate SUM of both ranks");
            }
          }))
          .andThen(win.free())
          .andThen(Completable.fromAction(memory::releaseLast)));
    }));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void communicators(Jobs.Mode mode) {
    Jobs.run(mode, 4, RxRma.program((comm, args) -> {
      int me = comm.rank();
      RxComm self = comm.self();
      assertEquals(1, self.size());
      assertSame(comm.delegate().self(), self.delegate());
      return comm.split(me % 2 == 0 ? 0 : Comm.UNDEFINED, -me)
          .map(evens -> {
            assertEquals(0, me % 2, "only even ranks get a communicator");
            assertEquals(2, evens.size());
            assertEquals(1 - me / 2, evens.rank());
            return evens;
          })
          .flatMapCompletable(evens -> evens.allreduce((long) me, Op.SUM).doOnSuccess(sum -> assertEquals(2L, sum))
              .ignoreElement().andThen(evens.free()))
          .andThen(comm.dup()).flatMapCompletable(dup -> dup.barrier().andThen(dup.free())
              .andThen(failsWith(ErrorClass.COMM, dup.barrier())))
          .andThen(comm.create(comm.group().incl(3, 1)).isEmpty().flatMapCompletable(none -> {
            assertEquals(me % 2 == 0, none, "create: only ranks 3 and 1 get a communicator");
            return Completable.complete();
          }))
          .andThen(failsWith(ErrorClass.COMM, self.free()));
    }));
  }
}
