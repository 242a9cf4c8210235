package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.FailurePolicy;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Mode;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.ops.OperationFrames;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Latch;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Bounded at the receiver, fence epochs (issue 43): an origin in another JVM (a clustered node of
 * the test JVM, over the data plane) calls {@code fence()} and, without awaiting it, issues 48 MiB
 * of 256 KiB puts to a target that has not called its own fence yet. The target holds them for
 * its next epoch; it holds at most {@link FenceCredit#DEFAULT_CREDIT_BYTES} (it held all 48 MiB
 * before the credit), the rest waits at the origin, unpacked; once the target fences every put
 * lands, its value checked, and each put's future has completed when the closing fence's has.
 */
class FenceCreditTest {

  private static final int PUT_BYTES = 256 * 1024;
  private static final int PUTS = 192;

  @Test
  void anOriginAFenceAheadSendsATargetThatHasNotFencedAtMostItsCredit() {
    long perPut = OperationFrames.heldBytes(PUT_BYTES, TypeMap.of(Datatype.LONG).wireBytes().length);
    long fits = FenceCredit.DEFAULT_CREDIT_BYTES / perPut; // the puts the credit lets go before the answer
    Latch issued = new Latch();
    AtomicInteger pendingAtIssue = new AtomicInteger(-1);
    int longs = PUT_BYTES / 8;
    Jobs.await(Jobs.start(Jobs.Mode.CLUSTERED, Jobs.overDataPlane(2).setWaitTimeoutMs(60_000), (world, args) ->
        Win.allocate(world, world.rank() == 1 ? (long) PUTS * PUT_BYTES : 0, 8, Info.NULL)
            .compose(win -> win.fence(Mode.NOPRECEDE).map(win)).compose(win -> {
          if (world.rank() == 0) {
            // the next epoch starts now, while rank 1 still computes in this one
            Future<Void> opened = win.fence();
            List<Future<Void>> puts = new ArrayList<>();
            for (int i = 0; i < PUTS; i++) {
              long[] data = new long[longs];
              Arrays.fill(data, i * 1_000_003L + 7);
              puts.add(win.put(Buf.of(data), 0, longs, Datatype.LONG, 1, (long) i * longs));
            }
            Future<Void> closing = win.fence(Mode.NOSUCCEED);
            pendingAtIssue.set((int) puts.stream().filter(p -> !p.isComplete()).count());
            issued.open();
            return closing.map(v -> {
              assertTrue(opened.succeeded(), "the opening fence completed before the closing one");
              for (int i = 0; i < PUTS; i++) {
                assertTrue(puts.get(i).succeeded(), "put " + i + " complete when the closing fence is: " + puts.get(i));
              }
              return null;
            }).compose(v -> win.free());
          }
          TargetWindow target = ((WinImpl) win).targetWindow();
          Vertx vertx = Vertx.currentContext().owner();
          return issued.opened().compose(v -> creditUsed(vertx, target, fits * perPut)).compose(held -> {
            assertTrue(held[1] <= FenceCredit.DEFAULT_CREDIT_BYTES, "at most the credit, "
                + FenceCredit.DEFAULT_CREDIT_BYTES + " bytes, held for the next epoch: " + held[1]);
            assertEquals(fits * perPut, held[0], "the credit's puts are held");
            assertEquals(1L, held[2], "the origin asked whether the epoch is open");
            assertTrue(pendingAtIssue.get() >= PUTS - fits, "the puts past the credit waited at the origin, unpacked: "
                + pendingAtIssue.get() + " not complete when issued");
            return win.fence();
          }).compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> target.exposure().heldBytes()).map(held -> {
            assertTrue(held[1] <= FenceCredit.DEFAULT_CREDIT_BYTES, "at most the credit held at any time: " + held[1]);
            assertEquals(0L, held[0], "nothing held after the epoch");
            for (int i = 0; i < PUTS; i++) {
              long want = i * 1_000_003L + 7;
              long at = (long) i * PUT_BYTES;
              assertEquals(want, win.memory().readLong(at), "put " + i + "'s first value");
              assertEquals(want, win.memory().readLong(at + PUT_BYTES - 8), "put " + i + "'s last value");
            }
            return null;
          }).compose(v -> win.free());
        })), 120);
  }

  @Test
  void aTimedOutFenceFailsTheOperationsItsOriginHeldBackAndNoneOfThemLands() {
    // only rank 0's fence waits its 1 s out: rank 1 fences once it has failed (a latch, no wait of
    // the job); the puts past the credit were never sent, the others wait at rank 1 until then
    int heldBack = 8;
    long perPut = OperationFrames.heldBytes(PUT_BYTES, TypeMap.of(Datatype.LONG).wireBytes().length);
    int fits = (int) (FenceCredit.DEFAULT_CREDIT_BYTES / perPut);
    int puts = fits + heldBack;
    int longs = PUT_BYTES / 8;
    Latch fenceFailed = new Latch();
    Jobs.await(Jobs.start(Jobs.Mode.CLUSTERED, Jobs.overDataPlane(2).setWaitTimeoutMs(1000), (world, args) ->
        Win.allocate(world, world.rank() == 1 ? (long) puts * PUT_BYTES : 0, 8, Info.NULL).compose(win -> {
          if (world.rank() == 1) {
            // opens the epoch of rank 0's puts without a barrier, then meets rank 0's abandoned one
            return fenceFailed.opened().compose(v -> win.fence(Mode.NOPRECEDE)).compose(v -> win.fence(Mode.NOSUCCEED))
                .map(v -> {
                  for (int i = 0; i < puts; i++) {
                    long want = i < fits ? i + 1 : 0;
                    assertEquals(want, win.memory().readLong((long) i * PUT_BYTES), "put " + i + "'s first value");
                    assertEquals(want, win.memory().readLong((long) (i + 1) * PUT_BYTES - 8), "put " + i + "'s last");
                  }
                  return null;
                }).compose(v -> win.free());
          }
          return win.fence(Mode.NOPRECEDE).compose(v -> {
            List<Future<Void>> sent = new ArrayList<>();
            for (int i = 0; i < puts; i++) {
              long[] data = new long[longs];
              Arrays.fill(data, i + 1);
              sent.add(win.put(Buf.of(data), 0, longs, Datatype.LONG, 1, (long) i * longs));
            }
            return win.fence().transform(ar -> {
              fenceFailed.open();
              assertTrue(ar.failed(), "a fence whose target never fenced succeeded");
              assertEquals(ErrorClass.TIMEOUT, ((RmaException) ar.cause()).errorClass(), ar.cause().toString());
              for (int i = 0; i < puts; i++) {
                Future<Void> put = sent.get(i);
                if (i < fits) {
                  assertTrue(put.succeeded(), "put " + i + " within the credit was sent: " + put);
                } else {
                  assertTrue(put.failed(), "put " + i + " held back did not fail with the fence: " + put);
                  assertEquals(ErrorClass.TIMEOUT, ((RmaException) put.cause()).errorClass(), put.cause().toString());
                }
              }
              return Future.<Void>succeededFuture();
            });
          }).compose(v -> win.free());
        })), 120);
  }

  /**
   * Under {@code FailurePolicy.CONTINUE} the target's node leaves while its origin holds puts back
   * for it (the target never fenced): those fail with PROC_FAILED naming it, as does the fence that
   * waits for them, and the origin frees its window locally.
   */
  @Test
  void theTargetsDeathFailsTheOperationsItsOriginHeldBackWithProcFailed() throws Exception {
    Vertx[] nodes = Jobs.clusterNodes();
    String cluster = ((io.vertx.spi.cluster.hazelcast.HazelcastClusterManager) ((io.vertx.core.internal.VertxInternal)
        nodes[0]).clusterManager()).getHazelcastInstance().getConfig().getClusterName();
    Vertx doomed = BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(cluster, BlockedThreadGuard.options()), 120));
    JobOptions options = Jobs.overDataPlane(2).setWaitTimeoutMs(60_000).setFailurePolicy(FailurePolicy.CONTINUE);
    long perPut = OperationFrames.heldBytes(PUT_BYTES, TypeMap.of(Datatype.LONG).wireBytes().length);
    int fits = (int) (FenceCredit.DEFAULT_CREDIT_BYTES / perPut);
    int puts = fits + 4;
    int longs = PUT_BYTES / 8;
    CompletableFuture<Void> heldBack = new CompletableFuture<>();
    Future<Void> origin = Rma.run(nodes[0], new JobOptions(options).setLocalRanks(0, 1), (w, args) ->
        Win.allocate(w, 0, 8, Info.NULL).compose(win -> win.fence(Mode.NOPRECEDE).compose(v -> {
          List<Future<Void>> sent = new ArrayList<>();
          for (int i = 0; i < puts; i++) {
            sent.add(win.put(Buf.of(new long[longs]), 0, longs, Datatype.LONG, 1, (long) i * longs));
          }
          Future<Void> fence = win.fence();
          heldBack.complete(null);
          return fence.transform(ar -> {
            assertTrue(ar.failed(), "a fence whose target died succeeded");
            assertProcFailed(ar.cause());
            for (int i = fits; i < puts; i++) {
              assertTrue(sent.get(i).failed(), "put " + i + ", held back, did not fail: " + sent.get(i));
              assertProcFailed(sent.get(i).cause());
            }
            return win.free();
          });
        })));
    Rma.run(doomed, new JobOptions(options).setLocalRanks(1, 1), (w, args) -> Win.allocate(w, (long) puts * PUT_BYTES,
        8, Info.NULL).compose(win -> Promise.<Void>promise().future())); // never fences: its node leaves
    heldBack.get(120, TimeUnit.SECONDS);
    doomed.close();
    Jobs.await(origin, 120);
  }

  private static void assertProcFailed(Throwable t) {
    assertTrue(t instanceof RmaException, String.valueOf(t));
    assertEquals(ErrorClass.PROC_FAILED, ((RmaException) t).errorClass(), t.toString());
    assertTrue(t.getMessage().contains("[1]"), t.getMessage() + " does not name rank 1");
  }

  /**
   * Completes with {@link ExposureEpochs#heldBytes} once {@code filled} bytes are held and the
   * origin's request waits, or once more than the credit was held (the test then fails on it);
   * looked at every 5 ms.
   */
  private static Future<long[]> creditUsed(Vertx vertx, TargetWindow target, long filled) {
    Promise<long[]> p = Promise.promise();
    vertx.setPeriodic(5, id -> target.exposure().heldBytes().onSuccess(held -> {
      if (held[0] >= filled && held[2] == 1 || held[1] > FenceCredit.DEFAULT_CREDIT_BYTES) {
        vertx.cancelTimer(id);
        p.tryComplete(held);
      }
    }));
    return p.future();
  }
}
