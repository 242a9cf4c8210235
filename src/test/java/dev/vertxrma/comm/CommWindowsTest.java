package dev.vertxrma.comm;

import static dev.vertxrma.comm.CommunicatorsTest.members;
import static dev.vertxrma.comm.CommunicatorsTest.run;
import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Windows over communicators other than the world, embedded and clustered: every RMA operation
 * under fence, lock and post/start/complete/wait on the rows of a 2x3 grid (keys reversing the
 * order, so window ranks differ from job ranks), every value checked; every window flavor on a
 * split communicator and on COMM_SELF; a window on a dup created while one on the world is in use,
 * and creations issued without awaiting each other; errors naming the communicator's ranks.
 */
class CommWindowsTest {

  /** Slots per rank: 0 put target, 1 accumulate target, 2 ticket counter, 3 compare-and-swap word. */
  private static final int SLOTS = 4;

  static long slot(Win w, int i) {
    return w.memory().readLong(8L * i);
  }

  /** The rows of a 2x3 grid, each ordered by decreasing job rank. */
  static Future<Comm> row(Comm world) {
    return world.split(world.rank() / 3, -world.rank()).map(Optional::orElseThrow);
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void everyOperationUnderEverySynchronizationOnARow(Jobs.Mode mode) {
    run(mode, 6, (world, args) -> row(world).compose(row -> Win.allocate(row, 8 * SLOTS, 8, Info.NULL)
        .compose(win -> checkAllSyncs(world, row, win).compose(v -> win.free()))));
  }

  /** Fence, then lock/lockAll, then PSCW on {@code win} over {@code c}, every value checked. */
  static Future<Void> checkAllSyncs(Comm world, Comm c, Win win) {
    int p = c.size();
    int me = c.rank();
    int[] m = members(c);
    int job = m[me];
    int next = (me + 1) % p;
    int prev = (me - 1 + p) % p;
    assertSame(c, win.comm());
    assertEquals(c.group(), win.group());
    for (int r = 0; r < p; r++) {
      assertEquals(8L * SLOTS, win.size(r));
      assertEquals(8, win.dispUnit(r));
    }
    win.memory().writeLong(8L * 3, 1000 + job);
    long[] got = new long[1];
    long[] fetched = new long[1];
    long[] before = new long[p];
    // ---- fence: put to the next rank, accumulate into rank 0, get from the previous, getAccumulate
    Future<Void> fence = c.barrier().compose(v -> win.fence(Mode.NOPRECEDE))
        .compose(v -> win.put(Buf.of(new long[] {job * 10L}), 0, 1, Datatype.LONG, next, 0))
        .compose(v -> win.accumulate(Buf.of(new long[] {me + 1}), 0, 1, Datatype.LONG, 0, 1, Op.SUM))
        .compose(v -> win.get(Buf.of(got), 0, 1, Datatype.LONG, prev, 3))
        .compose(v -> win.fence())
        .map(v -> {
          assertEquals(m[prev] * 10L, slot(win, 0), "put from the previous rank of the row");
          assertEquals(m[prev] + 1000L, got[0], "get from the previous rank of the row");
          if (me == 0) {
            assertEquals(p * (p + 1) / 2L, slot(win, 1), "accumulate from every rank of the row");
          }
          return null;
        })
        .compose(v -> win.getAccumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, Buf.of(fetched), 0, 1,
            Datatype.LONG, p - 1, 1, 1, Datatype.LONG, Op.SUM))
        .compose(v -> win.fence(Mode.NOSUCCEED))
        .compose(v -> c.allgather(Buf.of(fetched), 0, 1, Datatype.LONG, Buf.of(before), 0, 1,
            Datatype.LONG))
        .map(v -> {
          // the last rank's slot 1 was 0 (1 when it is also rank 0, of COMM_SELF); each rank added 1
          long base = p == 1 ? 1 : 0;
          Arrays.sort(before);
          for (int i = 0; i < p; i++) {
            assertEquals(base + i, before[i], "values seen by getAccumulate");
          }
          if (me == p - 1) {
            assertEquals(base + p, slot(win, 1), "every rank added 1 to the last rank's slot 1");
          }
          return null;
        });
    // ---- lock: tickets from an exclusive lock on rank 0; compare-and-swap under lockAll on the last rank
    long[] tickets = new long[p];
    long[] casResult = new long[1];
    Future<Void> locks = fence.compose(v -> win.lock(LockType.EXCLUSIVE, 0))
        .compose(v -> win.fetchAndOp(1, 0, 2, Op.SUM))
        .compose(ticket -> win.unlock(0).map(ticket))
        .compose(ticket -> c.allgather(Buf.of(new long[] {ticket}), 0, 1, Datatype.LONG, Buf.of(tickets), 0, 1,
            Datatype.LONG))
        .compose(v -> {
          long[] sorted = tickets.clone();
          Arrays.sort(sorted);
          for (int i = 0; i < p; i++) {
            assertEquals(i, sorted[i], "tickets " + Arrays.toString(tickets));
          }
          return win.lockAll();
        })
        .compose(v -> win.compareAndSwap(Buf.of(new long[] {job}), 0, Buf.of(new long[] {1000L + m[p - 1]}), 0,
            Buf.of(casResult), 0, Datatype.LONG, p - 1, 3))
        .compose(v -> win.flush(p - 1))
        .compose(v -> win.unlockAll())
        .compose(v -> c.allreduce(casResult[0] == 1000L + m[p - 1] ? 1L : 0L, Op.SUM))
        .compose(winners -> {
          assertEquals(1L, winners, "exactly one compare-and-swap saw the initial value");
          return c.barrier();
        })
        .compose(v -> win.lock(LockType.SHARED, p - 1))
        .compose(v -> win.get(Buf.of(got), 0, 1, Datatype.LONG, p - 1, 3))
        .compose(v -> win.unlock(p - 1))
        .compose(v -> c.allreduce(casResult[0] == 1000L + m[p - 1] ? job : -1L, Op.MAX))
        .map(winner -> {
          assertEquals(winner, got[0], "the winner's value is in the last rank's slot 3");
          if (me == 0) {
            assertEquals(p, slot(win, 2), "one ticket per rank");
          }
          return null;
        });
    // ---- PSCW: expose to the previous rank, access the next (groups of communicator ranks)
    return locks.compose(v -> c.barrier())
        .compose(v -> win.post(win.group().incl(prev)))
        .compose(v -> win.start(win.group().incl(next)))
        .compose(v -> win.put(Buf.of(new long[] {job * 7L}), 0, 1, Datatype.LONG, next, 0))
        .compose(v -> win.accumulate(Buf.of(new long[] {5}), 0, 1, Datatype.LONG, next, 1, Op.REPLACE))
        .compose(v -> win.fetchAndOp(3, next, 2, Op.SUM))
        .compose(prior -> {
          assertEquals(me == p - 1 ? p : 0L, (long) prior, "slot 2 of rank " + next + " before the fetch-and-op");
          return win.complete();
        })
        .compose(v -> win.waitFor())
        .map(v -> {
          assertEquals(m[prev] * 7L, slot(win, 0), "PSCW put from the previous rank");
          assertEquals(5L, slot(win, 1));
          assertEquals(me == 0 ? p + 3L : 3L, slot(win, 2));
          return null;
        })
        .compose(v -> c.barrier());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void errorsNameTheWindowsCommunicatorRanks(Jobs.Mode mode) {
    run(mode, 6, (world, args) -> row(world).compose(row -> Win.allocate(row, 8 * SLOTS, 8, Info.NULL)
        .compose(win -> {
          int outside = (members(row)[0] + 3) % 6; // a job rank of the other row
          long[] x = new long[1];
          return win.fence(Mode.NOPRECEDE)
              .compose(v -> expectError(win.put(Buf.of(x), 0, 1, Datatype.LONG, 3, 0), ErrorClass.RANK,
                  "target rank 3 is not in [0, 3)"))
              .compose(v -> expectError(win.get(Buf.of(x), 0, 1, Datatype.LONG, 1, SLOTS), ErrorClass.RMA_RANGE,
                  "at rank 1"))
              .compose(v -> win.fence(Mode.NOSUCCEED))
              .compose(v -> expectError(win.lock(LockType.EXCLUSIVE, 5), ErrorClass.RANK, "rank 5 is not in [0, 3)"))
              .compose(v -> expectError(win.flush(3), ErrorClass.RANK, "rank 3 is not in [0, 3)"))
              .compose(v -> expectError(win.start(world.group().incl(outside)), ErrorClass.GROUP,
                  "job rank " + outside + ", which is not in the communicator"))
              .compose(v -> expectError(win.post(world.group().incl(outside)), ErrorClass.GROUP,
                  "job rank " + outside))
              .compose(v -> row.barrier())
              .compose(v -> win.free());
        })));
  }

  /** Every flavor over {@code c}: a fence ring of puts and gets, values checked. */
  static Future<Void> everyFlavor(Comm c) {
    int p = c.size();
    int me = c.rank();
    int next = (me + 1) % p;
    int job = members(c)[me];
    BytesStore<?, ?> mine = BytesStore.nativeStoreWithFixedCapacity(16);
    mine.writeLong(0, 0);
    mine.writeLong(8, 0);
    List<Function<Comm, Future<Win>>> flavors = List.of(
        comm -> Win.allocate(comm, 16, 8, Info.NULL),
        comm -> Win.create(comm, mine, 8, Info.NULL),
        comm -> Win.allocateShared(comm, 16, 8, Info.NULL));
    Future<Void> chain = Future.succeededFuture();
    for (Function<Comm, Future<Win>> make : flavors) {
      chain = chain.compose(v -> make.apply(c)).compose(win -> {
        long[] got = new long[1];
        return win.fence()
            .compose(v -> win.put(Buf.of(new long[] {job + 1L}), 0, 1, Datatype.LONG, next, 1))
            .compose(v -> win.fence())
            .compose(v -> win.get(Buf.of(got), 0, 1, Datatype.LONG, next, 1))
            .compose(v -> win.fence())
            .map(v -> {
              assertEquals(members(c)[(me - 1 + p) % p] + 1L, slot(win, 1), win.flavor() + " put");
              assertEquals(job + 1L, got[0], win.flavor() + " get of what this rank put");
              return null;
            })
            .compose(v -> {
              if (win.flavor() != Win.Flavor.SHARED) {
                return Future.succeededFuture();
              }
              return win.sharedQuery(next).map(seg -> {
                assertEquals(16, seg.size());
                assertEquals(got[0], seg.memory().readLong(8), "shared segment of rank " + next);
                return null;
              });
            })
            .compose(v -> win.free());
      });
    }
    chain = chain.onComplete(ar -> mine.releaseLast());
    // dynamic: each rank attaches a store and tells the others its address
    return chain.compose(v -> Win.createDynamic(c, Info.NULL)).compose(win -> {
      BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(16);
      long[] addresses = new long[p];
      return win.attach(store)
          .compose(v -> c.allgather(Buf.of(new long[] {Win.address(store, 0)}), 0, 1, Datatype.LONG,
              Buf.of(addresses), 0, 1, Datatype.LONG))
          .compose(v -> win.lockAll())
          .compose(v -> win.put(Buf.of(new long[] {job * 3L}), 0, 1, Datatype.LONG, next, addresses[next] + 8))
          .compose(v -> win.unlockAll())
          .compose(v -> c.barrier())
          .map(v -> {
            assertEquals(members(c)[(me - 1 + p) % p] * 3L, store.readLong(8), "dynamic put");
            return null;
          })
          .compose(v -> win.detach(store))
          .compose(v -> win.free())
          .onComplete(ar -> store.releaseLast());
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void everyFlavorOnASplitCommunicatorAndOnCommSelf(Jobs.Mode mode) {
    run(mode, 4, (world, args) -> world.split(world.rank() % 2, -world.rank()).map(Optional::orElseThrow)
        .compose(sub -> everyFlavor(sub).compose(v -> everyFlavor(world.self())).compose(v -> sub.free())));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void commSelfWindowsTakeEverySynchronization(Jobs.Mode mode) {
    run(mode, 2, (world, args) -> {
      Comm self = world.self();
      return Win.allocate(self, 8 * SLOTS, 8, Info.NULL).compose(win -> checkAllSyncs(world, self, win)
          .compose(v -> win.free())).compose(v -> world.barrier());
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aWindowOnADupWhileOneOnTheWorldIsInUse(Jobs.Mode mode) {
    run(mode, 4, (world, args) -> {
      int me = world.rank();
      int p = world.size();
      return Win.allocate(world, 8 * SLOTS, 8, Info.NULL).compose(onWorld -> onWorld.lockAll()
          .compose(v -> onWorld.accumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, 0, 0, Op.SUM))
          .compose(v -> world.dup())
          // the world window's passive epoch stays open while the dup's window is made and used
          .compose(dup -> Win.allocate(dup, 8 * SLOTS, 8, Info.NULL).compose(onDup -> onDup.fence()
              .compose(v -> onDup.put(Buf.of(new long[] {100 + me}), 0, 1, Datatype.LONG, (me + 1) % p, 0))
              .compose(v -> onWorld.fetchAndOp(10, (me + 1) % p, 1, Op.SUM))
              .compose(v -> onDup.fence())
              .compose(v -> onWorld.flushAll())
              .compose(v -> onWorld.unlockAll())
              .compose(v -> world.barrier())
              .map(v -> {
                assertEquals(100L + (me - 1 + p) % p, slot(onDup, 0), "the dup's window got the dup's put");
                assertEquals(0L, slot(onDup, 1), "nothing of the world's window reached the dup's");
                assertEquals(me == 0 ? p : 0L, slot(onWorld, 0), "the world's window got the world's accumulates");
                assertEquals(10L, slot(onWorld, 1));
                return null;
              })
              .compose(v -> onDup.free())
              .compose(v -> dup.free())))
          .compose(v -> onWorld.free()));
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void windowCreationsIssuedWithoutAwaitingGetDistinctIds(Jobs.Mode mode) {
    run(mode, 4, (world, args) -> world.dup().compose(dup -> {
      int me = world.rank();
      int p = world.size();
      // back to back on one communicator, and on two, in the same order at every rank
      List<Future<Win>> made = List.of(Win.allocate(world, 8, 8, Info.NULL), Win.allocate(world, 8, 8, Info.NULL),
          Win.allocate(dup, 8, 8, Info.NULL), Win.allocate(world, 8, 8, Info.NULL));
      return Future.all(made).compose(v -> {
        List<Future<?>> all = new ArrayList<>();
        for (int i = 0; i < made.size(); i++) {
          Win w = made.get(i).result();
          long value = 1000L * (i + 1) + me;
          all.add(w.fence().compose(x -> w.put(Buf.of(new long[] {value}), 0, 1, Datatype.LONG, (me + 1) % p, 0))
              .compose(x -> w.fence()));
        }
        return Future.all(all);
      }).compose(v -> world.barrier()).compose(v -> {
        List<Future<?>> frees = new ArrayList<>();
        for (int i = 0; i < made.size(); i++) {
          Win w = made.get(i).result();
          assertEquals(1000L * (i + 1) + (me - 1 + p) % p, slot(w, 0), "window " + i + " got its own put");
          frees.add(w.free());
        }
        return Future.all(frees);
      }).compose(v -> dup.free());
    }));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aWindowOutlivesItsFreedCommunicator(Jobs.Mode mode) {
    run(mode, 3, (world, args) -> world.dup().compose(dup -> Win.allocate(dup, 8, 8, Info.NULL)
        .compose(win -> dup.free()
            .compose(v -> expectError(Win.allocate(dup, 8, 8, Info.NULL), ErrorClass.COMM, "was freed"))
            .compose(v -> win.fence())
            .compose(v -> win.accumulate(Buf.of(new long[] {world.rank() + 1}), 0, 1, Datatype.LONG, 0, 0, Op.SUM))
            .compose(v -> win.fence())
            .map(v -> {
              if (world.rank() == 0) {
                assertEquals(6L, slot(win, 0));
              }
              return null;
            })
            .compose(v -> win.free()))));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void groupsOfTheRowTranslateToTheWindowsRanks(Jobs.Mode mode) {
    run(mode, 6, (world, args) -> row(world).compose(row -> {
      int[] m = members(row);
      assertArrayEquals(m, row.group().translateRanks(world.group(), 0, 1, 2));
      return Win.allocate(row, 8, 8, Info.NULL).compose(win -> {
        // a post/start group built from the world's group names the same processes
        int next = (row.rank() + 1) % 3;
        int prev = (row.rank() + 2) % 3;
        return win.post(world.group().incl(m[prev]))
            .compose(v -> win.start(world.group().incl(m[next])))
            .compose(v -> win.put(Buf.of(new long[] {m[row.rank()]}), 0, 1, Datatype.LONG, next, 0))
            .compose(v -> win.complete())
            .compose(v -> win.waitFor())
            .map(v -> {
              assertEquals(m[prev], slot(win, 0));
              return null;
            })
            .compose(v -> win.free());
      });
    }));
  }
}
