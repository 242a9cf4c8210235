package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.HolderMark;
import dev.vertxrma.impl.runtime.JobRuntime;
import dev.vertxrma.impl.transport.FrameCodec;
import dev.vertxrma.impl.transport.InboundBudget;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Bounded at the receiver (issue 43): 48 MiB of 256 KiB puts from another JVM (a clustered node of
 * the test JVM, over the data plane) at a target whose owner is stalled (its word held, as by an
 * origin in another JVM) no longer pile up in the target's owner queue while the connection keeps
 * reading: once {@link InboundBudget#LIMIT} bytes wait, the connection stops reading, so the
 * origin's puts wait, unpacked, in its own buffers (their futures not complete); once the owner
 * runs again every put lands, its values checked.
 */
class InboundBudgetTest {

  private static final int PUT_BYTES = 256 * 1024;
  private static final int PUTS = 192;

  @Test
  void aFloodAtAStalledTargetStopsTheReadingAndEveryPutLandsAfterwards() {
    JobOptions options = Jobs.options(2).setWaitTimeoutMs(60_000);
    options.getTransportOptions().setSharedMemory(false);
    // the word held as by a live process of another JVM (this JVM's parent stands for it)
    long mark = HolderMark.of(ProcessHandle.current().parent().orElseThrow().pid());
    CompletableFuture<Integer> issuedAndPending = new CompletableFuture<>();
    CompletableFuture<Void> stalled = new CompletableFuture<>();
    int longs = PUT_BYTES / 8;
    Jobs.await(Jobs.start(Jobs.Mode.CLUSTERED, options, (world, args) ->
        Win.allocate(world, world.rank() == 1 ? (long) PUTS * PUT_BYTES : 0, 8, Info.NULL).compose(win -> {
          if (world.rank() == 0) {
            List<Future<Void>> puts = new ArrayList<>();
            long[][] data = new long[PUTS][];
            // the lock is granted before the target stalls (its grant needs the target's owner)
            return win.lockAll().compose(v -> world.barrier())
                .compose(v -> Future.fromCompletionStage(stalled, Vertx.currentContext())).compose(v -> {
              for (int i = 0; i < PUTS; i++) {
                data[i] = new long[longs];
                java.util.Arrays.fill(data[i], i * 1_000_003L + 7);
                puts.add(win.put(Buf.of(data[i]), 0, longs, Datatype.LONG, 1, (long) i * longs));
              }
              Future<Void> flushed = win.flush(1);
              issuedAndPending.complete((int) puts.stream().filter(p -> !p.isComplete()).count());
              return flushed;
            }).compose(v -> {
              assertTrue(puts.stream().allMatch(Future::succeeded), "every put completed");
              return win.unlockAll();
            }).compose(v -> world.barrier()).compose(v -> win.free());
          }
          TargetWindow target = ((WinImpl) win).targetWindow();
          Vertx vertx = Vertx.currentContext().owner();
          InboundBudget.Totals inbound = JobRuntime.find(vertx, world.jobName()).dataPlane().inbound();
          return world.barrier()
              .compose(v -> {
                assertTrue(target.control().tryAcquireAs(mark), "the owner word was free");
                stalled.complete(null);
                return Future.fromCompletionStage(issuedAndPending, Vertx.currentContext());
              })
              .compose(pending -> {
                assertTrue(pending > 0, "the origin's puts were held back, not all packed at once");
                return stopped(vertx, inbound);
              })
              .compose(v -> {
                long bound = InboundBudget.LIMIT + PUT_BYTES + FrameCodec.HEADER_BYTES;
                assertTrue(inbound.most() <= bound, "at most " + bound + " bytes of operations waited at the stalled "
                    + "target: " + inbound.most());
                assertTrue(inbound.most() >= InboundBudget.LIMIT, "the budget filled: " + inbound.most());
                assertTrue(target.reclaimOwnerWordFrom(mark), "the owner word given back");
                return world.barrier();
              })
              .compose(v -> {
                for (int i = 0; i < PUTS; i++) {
                  long want = i * 1_000_003L + 7;
                  long at = (long) i * PUT_BYTES;
                  assertEquals(want, win.memory().readLong(at), "put " + i + "'s first value");
                  assertEquals(want, win.memory().readLong(at + PUT_BYTES - 8), "put " + i + "'s last value");
                }
                return win.free();
              });
        })), 120);
  }

  /**
   * Completes once a connection of this node stopped reading for its budget, or once more than the
   * bound waited (the reading did not stop: the test fails on it); looked at every 10 ms.
   */
  private static Future<Void> stopped(Vertx vertx, InboundBudget.Totals inbound) {
    long over = InboundBudget.LIMIT + PUT_BYTES + FrameCodec.HEADER_BYTES;
    Promise<Void> p = Promise.promise();
    long[] id = new long[1];
    id[0] = vertx.setPeriodic(10, t -> {
      if (inbound.pauses() > 0 || inbound.most() > over) {
        vertx.cancelTimer(id[0]);
        p.tryComplete();
      }
    });
    return p.future();
  }
}
