package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.HolderMark;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A window's owner word held by another process (ARCHITECTURE decision 20), with the word's
 * holder written as that process's {@link HolderMark}: a holder whose process is gone (or whose
 * pid a later process got) is taken back at once and the queued owner tasks run; a live holder
 * is waited for at a small cost to the target's event loop, and once the rank fails the queued
 * tasks fail with the rank's failure; a word holding garbage is a named error of the window, never
 * cleared or followed.
 */
class OwnerWordTest {

  private Vertx vertx;
  private ContextInternal context;
  private final List<Process> children = new ArrayList<>();

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    context = (ContextInternal) vertx.getOrCreateContext();
  }

  @AfterEach
  void stop() throws Exception {
    for (Process p : children) {
      p.destroyForcibly().waitFor();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** A process that runs until the test ends (stands for a stopped JVM holding the word). */
  private Process liveProcess() throws Exception {
    Process p = new ProcessBuilder("sleep", "600").start();
    children.add(p);
    return p;
  }

  /** The pid of a process that has ended (and was reaped). */
  private static long deadPid() throws Exception {
    Process p = new ProcessBuilder("true").start();
    assertEquals(0, p.waitFor());
    return p.pid();
  }

  /** A queued owner task: completes its promise when run, fails it with the cause when abandoned. */
  private static final class Task implements SingleOwner.Abandonable {
    final Promise<Void> done = Promise.promise();
    final List<Integer> order;
    final int n;

    Task(List<Integer> order, int n) {
      this.order = order;
      this.n = n;
    }

    @Override
    public void run() {
      order.add(n);
      done.complete();
    }

    @Override
    public void abandon(RmaException cause) {
      done.fail(cause);
    }
  }

  private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Queues {@code n} tasks to {@code owner} from its home context; returns them. */
  private List<Task> queue(SingleOwner owner, int n, List<Integer> order) throws Exception {
    List<Task> tasks = new ArrayList<>();
    CompletableFuture<Void> queued = new CompletableFuture<>();
    context.runOnContext(v -> {
      for (int i = 0; i < n; i++) {
        Task t = new Task(order, i);
        tasks.add(t);
        owner.execute(t);
      }
      queued.complete(null);
    });
    queued.get(10, TimeUnit.SECONDS);
    return tasks;
  }

  /** The word's holder as the home context sees it once the task running now there (a drain) is done. */
  private long holderAfterDrain(WindowControl word) throws Exception {
    CompletableFuture<Long> h = new CompletableFuture<>();
    context.runOnContext(v -> h.complete(word.holder()));
    return h.get(10, TimeUnit.SECONDS);
  }

  private SingleOwner owner(WindowControl word, AtomicReference<RmaException> failure, List<RmaException> closedWith) {
    return new SingleOwner(context, word, true, failure::get, () -> "window w at rank 0", closedWith::add);
  }

  @Test
  void aWordWhoseHolderIsGoneIsTakenBackAndTheQueuedTasksRun() throws Exception {
    WindowControl word = WindowControl.onHeap(2);
    long dead = HolderMark.of(deadPid());
    assertTrue(word.tryAcquireAs(dead));
    assertEquals(HolderMark.Liveness.DEAD, HolderMark.judge(dead));
    List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
    long t0 = System.nanoTime();
    List<Task> tasks = queue(owner(word, new AtomicReference<>(), new ArrayList<>()), 5, order);
    for (Task t : tasks) {
      await(t.done.future());
    }
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertEquals(List.of(0, 1, 2, 3, 4), order, "the queued tasks ran, in order");
    assertEquals(0, holderAfterDrain(word), "the word is free again");
    assertTrue(ms < 1_000, "taken back after " + ms + " ms");
  }

  @Test
  void aPidReusedByALaterProcessIsNotTheHolder() throws Exception {
    WindowControl word = WindowControl.onHeap(2);
    Process later = liveProcess();
    long mark = HolderMark.of(later.pid());
    assertEquals(HolderMark.Liveness.ALIVE, HolderMark.judge(mark));
    // the holder had that pid but started at another time: the process now behind the pid is not it
    long start = mark & 0xFFFF;
    long other = (mark & ~0xFFFFL) | (start == 0xFFFF ? 1 : start + 1);
    assertEquals(HolderMark.Liveness.DEAD, HolderMark.judge(other));
    assertTrue(word.tryAcquireAs(other));
    List<Task> tasks = queue(owner(word, new AtomicReference<>(), new ArrayList<>()), 2, new ArrayList<>());
    for (Task t : tasks) {
      await(t.done.future());
    }
    assertEquals(0, holderAfterDrain(word));
  }

  @Test
  void aLiveHolderIsWaitedForCheaplyAndTheQueuedTasksFailWhenTheRankFails() throws Exception {
    WindowControl word = WindowControl.onHeap(2);
    long holder = HolderMark.of(liveProcess().pid());
    assertTrue(word.tryAcquireAs(holder));
    AtomicReference<RmaException> failure = new AtomicReference<>();
    List<RmaException> closedWith = new ArrayList<>();
    SingleOwner owner = owner(word, failure, closedWith);
    List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
    CompletableFuture<Long> loop = new CompletableFuture<>();
    context.runOnContext(v -> loop.complete(Thread.currentThread().getId()));
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long thread = loop.get(10, TimeUnit.SECONDS);
    List<Task> tasks = queue(owner, 4, order);
    long cpu0 = mx.getThreadCpuTime(thread);
    long t0 = System.nanoTime();
    // the loop waits for the holder: looked at again on growing timers, not on every turn
    CompletableFuture<Void> second = new CompletableFuture<>();
    vertx.setTimer(1_000, id -> second.complete(null));
    second.get(10, TimeUnit.SECONDS);
    double pct = 100.0 * (mx.getThreadCpuTime(thread) - cpu0) / (System.nanoTime() - t0);
    System.out.printf("OwnerWordTest: the target's loop used %.2f %% of a core while a live process held the word%n",
        pct);
    assertTrue(pct < 10, "the loop used " + pct + " % of a core while it waited");
    assertEquals(List.of(), order, "a task ran while another process held the word");
    for (Task t : tasks) {
      assertFalse(t.done.future().isComplete());
    }
    assertEquals(holder, word.holder(), "a live holder's word is never taken from it");

    // the rank fails (its JVM's peer was declared dead): the queued tasks fail with that failure
    RmaException dead = new RmaException(ErrorClass.PROC_FAILED, "rank(s) [1] of job j left: their cluster node n is gone");
    failure.set(dead);
    owner.rankFailed(dead);
    for (Task t : tasks) {
      Throwable e = t.done.future().transform(ar -> io.vertx.core.Future.succeededFuture(ar.cause()))
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertSame(dead, e, "a queued task's failure");
    }
    assertEquals(List.of(dead), closedWith, "the owner's state was told once");
    assertEquals(List.of(), order);
    // and later tasks fail at once, never run
    Task later = queue(owner, 1, order).get(0);
    boolean laterFailed = await(later.done.future().transform(ar -> io.vertx.core.Future.succeededFuture(ar.failed())));
    assertTrue(laterFailed, "a task queued after the failure ran");
    assertFalse(owner.tryAcquire(), "a closed owner is never taken");
    assertEquals(holder, word.holder());
  }

  @Test
  void aHolderDeclaredDeadIsTakenBackThroughTheHook() throws Exception {
    WindowControl word = WindowControl.onHeap(2);
    long stopped = HolderMark.of(liveProcess().pid()); // alive, but its ranks were declared dead
    assertTrue(word.tryAcquireAs(stopped));
    SingleOwner owner = owner(word, new AtomicReference<>(), new ArrayList<>());
    List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Task> tasks = queue(owner, 3, order);
    assertFalse(word.reclaimFrom(stopped + 1), "taken back only from the exact holder");
    assertTrue(word.reclaimFrom(stopped));
    owner.wake();
    for (Task t : tasks) {
      await(t.done.future());
    }
    assertEquals(List.of(0, 1, 2), order);
    assertEquals(0, holderAfterDrain(word));
  }

  @Test
  void garbageInTheWordIsANamedErrorOfTheWindowAndIsNotFollowed() throws Exception {
    WindowControl word = WindowControl.onHeap(2);
    long garbage = 1; // what the word held before it named its holder, or anything another process writes
    assertFalse(HolderMark.wellFormed(garbage));
    assertTrue(word.tryAcquireAs(garbage));
    List<Task> tasks = queue(owner(word, new AtomicReference<>(), new ArrayList<>()), 2, new ArrayList<>());
    for (Task t : tasks) {
      Throwable e = t.done.future().transform(ar -> io.vertx.core.Future.succeededFuture(ar.cause()))
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      RmaException r = (RmaException) e;
      assertEquals(ErrorClass.WIN, r.errorClass(), r.getMessage());
      assertTrue(r.getMessage().contains("window w at rank 0") && r.getMessage().contains("0x0000000000000001"),
          r.getMessage());
    }
    assertEquals(garbage, word.holder(), "garbage is left as it is, never cleared");
  }
}
