package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.LockType;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.HolderMark;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The target side of a window on the on-node path (its owner word in its segment) whose owner word
 * another process holds and does not give back (a stopped JVM): every kind of owner task queued
 * behind it — a fence's advance, post, test, wait, setInfo's no_locks, a lock request from the
 * other JVM — fails with the rank's failure (PROC_FAILED naming the dead ranks) once the rank
 * fails, instead of staying queued for ever; the window is then still freed, locally. The two
 * clustered nodes of the test JVM stand for the two JVMs; a {@code sleep} process's mark in the
 * word stands for the stopped one.
 */
class OwnerTasksBehindAHeldWordTest {

  private Process holder;

  @AfterEach
  void stopHolder() throws Exception {
    if (holder != null) {
      holder.destroyForcibly().waitFor();
    }
  }

  @Test
  void everyQueuedOwnerTaskFailsWithTheRanksFailure() throws Exception {
    holder = new ProcessBuilder("sleep", "600").start();
    long mark = HolderMark.of(holder.pid());
    JobOptions options = Jobs.options(2);
    options.getTransportOptions().setSharedMemory(true);
    RmaException dead = new RmaException(ErrorClass.PROC_FAILED, "rank(s) [3] of job j left: their cluster node n "
        + "is gone");
    Jobs.await(Jobs.start(Jobs.Mode.CLUSTERED, options, (world, args) -> Win.allocate(world, 64, 8, Info.NULL)
        .compose(win -> {
          WinImpl w = (WinImpl) win;
          assertEquals(1, w.onNodePeers(), "the other node's rank is reached in its segment");
          TargetWindow target = w.targetWindow();
          if (world.rank() == 1) {
            return world.barrier() // rank 0's word is held
                .compose(v -> {
                  // its segment's word is taken: the request goes over the data plane, and queues there
                  Future<Void> lock = win.lock(LockType.EXCLUSIVE, 0);
                  world.send(Buf.of(new int[] {1}), 0, 1, Datatype.INT, 0, 9); // after the request
                  return lock.transform(ar -> {
                    assertTrue(ar.failed(), "the lock was granted behind a held word");
                    RmaException e = (RmaException) ar.cause();
                    assertEquals(ErrorClass.PROC_FAILED, e.errorClass(), e.getMessage());
                    assertTrue(e.getMessage().contains("rank(s) [3]"), e.getMessage());
                    return Future.<Void>succeededFuture();
                  });
                })
                .compose(v -> world.barrier())
                .compose(v -> win.free());
          }
          assertTrue(target.control().tryAcquireAs(mark), "the word was free");
          assertEquals(mark, target.ownerWordHolder());
          return world.barrier()
              .compose(v -> world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 1, 9)) // its lock request is queued
              .compose(st -> {
                Map<String, Future<?>> queued = new LinkedHashMap<>();
                queued.put("a fence's advance", target.exposure().advanceFence(true));
                queued.put("post", target.exposure().post(world.group().incl(1)));
                queued.put("test", target.exposure().test());
                queued.put("wait", target.exposure().waitFor());
                queued.put("setInfo's no_locks check", target.noLocksRefusal(true));
                queued.put("setInfo's no_locks", target.setNoLocks(true));
                queued.put("held count", target.exposure().heldCount());
                for (Map.Entry<String, Future<?>> e : queued.entrySet()) {
                  assertTrue(!e.getValue().isComplete(), e.getKey() + " ran behind a held word");
                }
                target.fail(dead); // what the rank's failure listener does
                return Future.join(java.util.List.copyOf(queued.values())).transform(ar -> {
                  for (Map.Entry<String, Future<?>> e : queued.entrySet()) {
                    assertTrue(e.getValue().failed(), e.getKey() + " did not fail");
                    assertSame(dead, e.getValue().cause(), e.getKey() + "'s failure");
                  }
                  return target.exposure().heldCount().transform(later -> {
                    assertSame(dead, later.cause(), "a later owner task fails at once");
                    return Future.<Void>succeededFuture();
                  });
                });
              })
              .compose(v -> world.barrier())
              .compose(v -> win.free()) // completes: the memory is given back here
              .map(v -> {
                assertEquals(mark, target.ownerWordHolder(), "the live holder's word was never taken from it");
                return null;
              });
        })), 120);
  }
}
