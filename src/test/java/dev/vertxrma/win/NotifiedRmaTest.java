package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Notified RMA (MPI 5.1 draft; issue 44): counters exact under pipelined notified operations from
 * every rank, the data of the counted operations visible whenever {@code awaitNotify} completes,
 * every kind of notified operation counted, refused indices and epochs leaving window and
 * counters unchanged, and fetch-and-zero racing incoming notifications without losing one. Each
 * runs embedded, clustered over the on-node path ({@code allocate} between the two nodes' JVM
 * segments) and clustered over the data plane.
 */
class NotifiedRmaTest {

  /** Where the job runs and how its clustered ranks reach each other. */
  enum Path { EMBEDDED, ON_NODE, DATA_PLANE }

  private static void run(Path path, int np, RankProgram program) {
    switch (path) {
      case EMBEDDED -> Jobs.run(Jobs.Mode.EMBEDDED, np, program);
      case ON_NODE -> Jobs.run(Jobs.Mode.CLUSTERED, np, program);
      default -> Jobs.runOverDataPlane(Jobs.Mode.CLUSTERED, np, program);
    }
    assertEquals(0, WindowMemory.live());
  }

  /** Notified puts per origin and target ({@link NotifiedRmaProgram}'s). */
  private static final int K = NotifiedRmaProgram.K;

  @ParameterizedTest
  @EnumSource(Path.class)
  void pipelinedNotifiedPutsAndAccumulatesFromEveryRankAreCountedExactlyAndTheirDataIsVisible(Path path) {
    run(path, 4, (world, args) -> Win.allocate(world, 8L * (4 * K + 1), 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      long total = (long) n * K;
      AtomicInteger completions = new AtomicInteger();
      List<Future<Long>> waits = new ArrayList<>();
      return win.setNumNotify(2).compose(v -> {
        assertEquals(2, win.numNotify());
        // several waiters on one counter, registered before anything arrives, each checking that
        // every operation it counts has its data in place when it completes
        for (long threshold : new long[] {1, K, total / 2, total - 1, total}) {
          waits.add(win.awaitNotify(0, threshold).map(seen -> {
            completions.incrementAndGet();
            assertTrue(seen >= threshold, "awaitNotify(0, " + threshold + ") completed with " + seen);
            int f = NotifiedRmaProgram.filled(win, n);
            assertTrue(f >= seen, "rank " + r + ": counter 0 at " + seen + " but only " + f + " puts landed");
            return seen;
          }));
        }
        return world.barrier();
      }).compose(v -> win.lockAll()).compose(v -> NotifiedRmaProgram.issueNotified(win, r, n))
          .compose(v -> win.unlockAll())
          .compose(v -> Future.all(waits))
          .compose(v -> win.awaitNotify(1, total))
          .compose(sum -> {
            assertEquals(total, win.memory().readLong(8L * n * K), "the accumulated ones, counter 1 at " + sum);
            return world.barrier();
          })
          .compose(v -> Future.all(win.notifyValue(0), win.notifyValue(1)))
          .compose(values -> {
            assertEquals(total, (long) values.<Long>resultAt(0), "counter 0 at rank " + r);
            assertEquals(total, (long) values.<Long>resultAt(1), "counter 1 at rank " + r);
            assertEquals(total, NotifiedRmaProgram.filled(win, n), "every put landed at rank " + r);
            assertEquals(5, completions.get(), "each awaitNotify completed once");
            return win.awaitNotify(0, 0); // reached already: completes at once
          })
          .compose(seen -> {
            assertEquals(total, seen);
            return world.barrier();
          })
          .compose(v -> win.free());
    }));
  }

  @ParameterizedTest
  @EnumSource(Path.class)
  void everyNotifiedKindAndRequestFormIsCounted(Path path) {
    // a window over the caller's memory (create): the data plane between the clustered nodes
    run(path, 3, (world, args) -> Win.create(world, BytesStore.wrap(new byte[64]), 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      int right = (r + 1) % n;
      long[] got = new long[2];
      long[] old = new long[2];
      win.memory().writeLong(0, 100L * r);
      win.memory().writeLong(8, 100L * r + 1);
      return win.setNumNotify(1)
          .compose(v -> win.lock(LockType.SHARED, right))
          .compose(v -> Future.all(List.of(
              win.getNotify(Buf.of(got), 0, 1, Datatype.LONG, right, 0, 1, Datatype.LONG, 0),
              win.rgetNotify(Buf.of(got), 1, 1, Datatype.LONG, right, 1, 1, Datatype.LONG, 0),
              win.getAccumulateNotify(Buf.of(new long[] {5}), 0, 1, Datatype.LONG, Buf.of(old), 0, 1, Datatype.LONG,
                  right, 2, 1, Datatype.LONG, Op.SUM, 0),
              win.rgetAccumulateNotify(Buf.of(new long[] {7}), 0, 1, Datatype.LONG, Buf.of(old), 1, 1, Datatype.LONG,
                  right, 2, 1, Datatype.LONG, Op.SUM, 0),
              win.rputNotify(Buf.of(new long[] {42}), 0, 1, Datatype.LONG, right, 3, 1, Datatype.LONG, 0),
              win.raccumulateNotify(Buf.of(new long[] {3}), 0, 1, Datatype.LONG, right, 4, 1, Datatype.LONG, Op.SUM, 0),
              win.putNotify(Buf.of(new long[] {9}), 0, 1, Datatype.LONG, Comm.PROC_NULL, 0, 0)))) // a no-op
          .compose(v -> win.unlock(right))
          .compose(v -> win.awaitNotify(0, 6))
          .compose(seen -> {
            assertEquals(6, seen, "six notified operations reached rank " + r);
            int left = (r + n - 1) % n;
            assertEquals(100L * right, got[0], "getNotify");
            assertEquals(100L * right + 1, got[1], "rgetNotify");
            assertTrue(old[0] == 0 && old[1] == 5 || old[0] == 7 && old[1] == 0, "fetched " + old[0] + ", " + old[1]);
            assertEquals(12, win.memory().readLong(16), "getAccumulateNotify SUM from rank " + left);
            assertEquals(42, win.memory().readLong(24), "rputNotify from rank " + left);
            assertEquals(3, win.memory().readLong(32), "raccumulateNotify from rank " + left);
            return world.barrier();
          })
          .compose(v -> win.notifyValue(0))
          .compose(seen -> {
            assertEquals(6, seen, "nothing more counted at rank " + r);
            return win.free();
          });
    }));
  }

  @ParameterizedTest
  @EnumSource(Path.class)
  void refusedIndicesAndEpochsLeaveWindowAndCountersUnchanged(Path path) {
    run(path, 3, (world, args) -> Win.allocate(world, 64, 8, Info.of("mpi_assert_max_num_notify", "4"))
        .compose(win -> {
          int r = world.rank();
          int n = world.size();
          int right = (r + 1) % n;
          Buf one = Buf.of(new long[] {77});
          return world.barrier()
              // before setNumNotify: no counter anywhere
              .compose(v -> win.lockAll())
              .compose(v -> expectError(win.putNotify(one, 0, 1, Datatype.LONG, right, 0, 0),
                  ErrorClass.RMA_NOTIFICATION, "putNotify", "rank " + right, "[0, 0)"))
              .compose(v -> win.unlockAll())
              .compose(v -> expectError(win.notifyValue(0), ErrorClass.RMA_NOTIFICATION, "notifyValue(0)", "[0, 0)"))
              .compose(v -> expectError(win.awaitNotify(0, 1), ErrorClass.RMA_NOTIFICATION, "awaitNotify(0)"))
              .compose(v -> expectError(win.setNumNotify(5), ErrorClass.ARG, "mpi_assert_max_num_notify=4"))
              .compose(v -> win.setNumNotify(r + 1)) // each rank its own count
              .compose(v -> win.lockAll())
              .compose(v -> expectError(win.putNotify(one, 0, 1, Datatype.LONG, right, 0, right + 1),
                  ErrorClass.RMA_NOTIFICATION, "index " + (right + 1), "[0, " + (right + 1) + ")"))
              .compose(v -> expectError(win.accumulateNotify(one, 0, 1, Datatype.LONG, right, 1, 1, Datatype.LONG,
                  Op.SUM, -1), ErrorClass.RMA_NOTIFICATION, "index -1"))
              .compose(v -> expectError(win.rgetNotify(Buf.of(new long[1]), 0, 1, Datatype.LONG, right, 1, 1,
                  Datatype.LONG, 7), ErrorClass.RMA_NOTIFICATION, "index 7"))
              .compose(v -> win.flushAll()) // nothing refused was sent: the flush has no error to report
              .compose(v -> win.unlockAll())
              // a fence epoch and a post/start epoch refuse notified operations
              .compose(v -> win.fence())
              .compose(v -> expectError(win.putNotify(one, 0, 1, Datatype.LONG, right, 0, 0), ErrorClass.RMA_SYNC,
                  "fence epoch", "passive-target"))
              .compose(v -> win.fence())
              .compose(v -> win.post(world.group()))
              .compose(v -> win.start(world.group()))
              .compose(v -> expectError(win.getNotify(Buf.of(new long[1]), 0, 1, Datatype.LONG, right, 0, 1,
                  Datatype.LONG, 0), ErrorClass.RMA_SYNC, "post/start epoch", "passive-target"))
              .compose(v -> win.complete())
              .compose(v -> win.waitFor())
              .compose(v -> world.barrier())
              .compose(v -> {
                for (int i = 0; i < 8; i++) {
                  assertEquals(0, win.memory().readLong(8L * i), "rank " + r + " slot " + i + " after refusals");
                }
                List<Future<Long>> counters = new ArrayList<>();
                for (int i = 0; i <= r; i++) {
                  counters.add(win.notifyValue(i));
                }
                return Future.all(counters).map(all -> {
                  for (int i = 0; i <= r; i++) {
                    assertEquals(0L, (long) all.<Long>resultAt(i), "rank " + r + " counter " + i);
                  }
                  return null;
                });
              })
              .compose(v -> world.barrier())
              .compose(v -> win.free());
        }));
  }

  @ParameterizedTest
  @EnumSource(Path.class)
  void resetRacesIncomingNotificationsAndLosesNone(Path path) {
    int perOrigin = 300;
    run(path, 3, (world, args) -> Win.allocate(world, 8L * 3, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      long total = (long) (n - 1) * perOrigin;
      return win.setNumNotify(1).compose(v -> {
        if (r != 0) {
          return win.lock(LockType.SHARED, 0).compose(x -> {
            List<Future<Void>> ops = new ArrayList<>();
            for (int k = 0; k < perOrigin; k++) {
              ops.add(win.putNotify(Buf.of(new long[] {k + 1}), 0, 1, Datatype.LONG, 0, r, 0));
            }
            return Future.all(ops);
          }).compose(x -> win.unlock(0)).compose(x -> world.barrier());
        }
        long[] sum = new long[1];
        int[] resets = new int[1];
        Promise<Void> drained = Promise.promise();
        drain(win, sum, resets, total, drained);
        return drained.future().compose(x -> world.barrier()).compose(x -> win.notifyValue(0)).map(last -> {
          assertEquals(total, sum[0] + last, "sum of " + resets[0] + " resets + the final value");
          assertTrue(resets[0] >= 1);
          return null;
        });
      }).compose(v -> win.free());
    }));
  }

  /** Fetch-and-zero until the counts taken add up to {@code total}, waiting for one more in between. */
  private static void drain(Win win, long[] sum, int[] resets, long total, Promise<Void> done) {
    win.resetNotifyValue(0).onComplete(ar -> {
      if (ar.failed()) {
        done.fail(ar.cause());
        return;
      }
      sum[0] += ar.result();
      resets[0]++;
      if (sum[0] >= total) {
        done.complete();
      } else {
        win.awaitNotify(0, 1).onComplete(w -> {
          if (w.failed()) {
            done.fail(w.cause());
          } else {
            drain(win, sum, resets, total, done);
          }
        });
      }
    });
  }

  @Test
  void waitersFailWhenTheCountersAreResetOrTheWindowIsFreed() {
    run(Path.EMBEDDED, 2, (world, args) -> Win.allocate(world, 16, 8, Info.NULL)
        .compose(win -> {
          Future<Long> early = win.setNumNotify(2).map(v -> 0L);
          return early.compose(v -> {
            Future<Long> stale = win.awaitNotify(1, 5);
            return win.setNumNotify(2).compose(x -> expectError(stale, ErrorClass.RMA_NOTIFICATION, "setNumNotify",
                "reset"));
          }).compose(v -> {
            Future<Long> orphan = win.awaitNotify(0, 1);
            return win.free().compose(x -> expectError(orphan, ErrorClass.WIN, "freed"));
          });
        }));
  }

  /** Metrics and traces name notified operations apart from the plain ones. */
  @Test
  void notifiedOperationsAreMeteredUnderTheirOwnNames() {
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    dev.vertxrma.JobOptions options = Jobs.options(2);
    try (dev.vertxrma.metrics.RmaMetrics metrics = new dev.vertxrma.metrics.RmaMetrics()) {
      metrics.bindTo(registry);
      Jobs.await(Jobs.start(Jobs.Mode.EMBEDDED, options, (world, args) -> Win.allocate(world, 64, 8, Info.NULL)
          .compose(win -> win.setNumNotify(1).compose(v -> {
            if (world.rank() != 0) {
              return win.awaitNotify(0, 5).mapEmpty();
            }
            Buf one = Buf.of(new long[] {1});
            Buf out = Buf.of(new long[1]);
            return win.lock(LockType.SHARED, 1).compose(x -> Future.all(List.of(
                win.putNotify(one, 0, 1, Datatype.LONG, 1, 0, 0),
                win.putNotify(one, 0, 1, Datatype.LONG, 1, 1, 0),
                win.getNotify(out, 0, 1, Datatype.LONG, 1, 0, 1, Datatype.LONG, 0),
                win.accumulateNotify(one, 0, 1, Datatype.LONG, 1, 2, 1, Datatype.LONG, Op.SUM, 0),
                win.getAccumulateNotify(one, 0, 1, Datatype.LONG, out, 0, 1, Datatype.LONG, 1, 3, 1, Datatype.LONG,
                    Op.SUM, 0),
                win.put(one, 0, 1, Datatype.LONG, 1, 4)))).compose(x -> win.unlock(1));
          }).compose(v -> world.barrier()).compose(v -> win.free()))), 120);
    }
    String job = options.getJobName();
    java.util.function.Function<String, Double> ops = kind -> {
      io.micrometer.core.instrument.Counter c = registry.find("rma.operations").tag("job", job).tag("rank", "0")
          .tag("kind", kind).counter();
      return c == null ? 0 : c.count();
    };
    assertEquals(2, ops.apply("put_notify"));
    assertEquals(1, ops.apply("get_notify"));
    assertEquals(1, ops.apply("accumulate_notify"));
    assertEquals(1, ops.apply("get_accumulate_notify"));
    assertEquals(1, ops.apply("put"), "the plain put only");
    assertEquals(0, ops.apply("get"));
  }

  /**
   * The shared-memory and dynamic flavors take notified operations too: a ring of notified puts,
   * each rank awaiting its left neighbour's, the value then in place (embedded and clustered).
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void sharedAndDynamicWindowsTakeNotifiedPuts(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocateShared(world, 16, 8, Info.NULL)
        .compose(shared -> ring(world, shared, 1).compose(v -> shared.free()))
        .compose(v -> Win.createDynamic(world, Info.NULL))
        .compose(dynamic -> {
          BytesStore<?, ?> region = BytesStore.nativeStoreWithFixedCapacity(16);
          region.zeroOut(0, 16);
          long[] addresses = new long[world.size()];
          return dynamic.attach(region)
              .compose(v -> world.allgather(Buf.of(new long[] {Win.address(region, 8)}), 0, 1, Datatype.AINT,
                  Buf.of(addresses), 0, 1, Datatype.AINT))
              .compose(v -> ring(world, dynamic, addresses[(world.rank() + 1) % world.size()]))
              .map(v -> {
                assertEquals(100L + (world.rank() + world.size() - 1) % world.size(), region.readLong(8),
                    "the left neighbour's notified put in the attached region");
                return null;
              })
              .compose(v -> world.barrier())
              .compose(v -> dynamic.detach(region))
              .compose(v -> dynamic.free())
              .onComplete(ar -> region.releaseLast());
        }));
  }

  /** Each rank putNotifies 100 + rank to its right neighbour at {@code disp}, then awaits its own counter. */
  private static Future<Void> ring(Comm world, Win win, long disp) {
    int r = world.rank();
    int right = (r + 1) % world.size();
    return win.setNumNotify(1)
        .compose(v -> win.lock(LockType.SHARED, right))
        .compose(v -> win.putNotify(Buf.of(new long[] {100L + r}), 0, 1, Datatype.LONG, right, disp, 0))
        .compose(v -> win.unlock(right))
        .compose(v -> win.awaitNotify(0, 1))
        .compose(seen -> {
          assertEquals(1L, seen);
          if (win.flavor() == Win.Flavor.SHARED) {
            int left = (r + world.size() - 1) % world.size();
            assertEquals(100L + left, win.memory().readLong(8), "the left neighbour's notified put");
          }
          return world.barrier();
        });
  }
}
