package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.vertxrma.Comm;
import dev.vertxrma.Progress;
import dev.vertxrma.Rma;
import dev.vertxrma.World;
import dev.vertxrma.impl.transport.PollingTransport;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The clustered nodes of a job poll adaptively by default ({@link Progress#ADAPTIVE}): they run a
 * job's traffic, and once the job waits on nothing their event loops fall back to sleeping, so
 * that two seconds of an idle job cost the event loops of the JVM's two nodes less than 5 % of a
 * core each (a loop that never went back to sleep would take a whole core).
 */
class AdaptiveProgressTest {

  @Test
  void clusteredNodesPollAdaptivelyAndSleepWhenIdle() {
    assumeTrue(io.vertx.core.transport.Transport.EPOLL.available(), "needs Netty's native epoll");
    Vertx[] nodes = Jobs.clusterNodes();
    for (Vertx v : nodes) {
      assertEquals(Progress.ADAPTIVE, PollingTransport.modeOf(v), "the default mode of a clustered node");
    }
    List<World> worlds = Jobs.worlds(Jobs.Mode.CLUSTERED, Jobs.options(2));
    Comm r0 = worlds.get(0).rank(0);
    Comm r1 = worlds.get(1).rank(1);
    AtomicInteger rounds = new AtomicInteger();
    Jobs.await(Future.all(Rma.repeat(300, i -> r0.barrier().onSuccess(v -> rounds.incrementAndGet())),
        Rma.repeat(300, i -> r1.barrier())), 60);
    assertEquals(300, rounds.get());

    timer(nodes[0], 50); // past every loop's polling window
    long before = eventLoopCpuNanos();
    long start = System.nanoTime();
    timer(nodes[0], 2_000);
    long cpu = eventLoopCpuNanos() - before;
    long wall = System.nanoTime() - start;
    assertTrue(cpu < wall / 10, "the event loops of 2 idle nodes took " + cpu / 1_000_000 + " ms of CPU in "
        + wall / 1_000_000 + " ms");

    Jobs.await(Future.all(r0.barrier(), r1.barrier()), 60);
    Jobs.await(Future.all(worlds.get(0).close(), worlds.get(1).close()), 60);
  }

  private static void timer(Vertx vertx, long ms) {
    Promise<Void> p = Promise.promise();
    vertx.setTimer(ms, id -> p.complete());
    Jobs.await(p.future(), 30);
  }

  /** The CPU time so far of every Vert.x event-loop thread of this JVM. */
  private static long eventLoopCpuNanos() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (t != null && t.getThreadName().startsWith("vert.x-eventloop-thread")) {
        sum += Math.max(0, mx.getThreadCpuTime(t.getThreadId()));
      }
    }
    return sum;
  }
}
