package dev.vertxrma.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.BlockedThreadGuard.Report;
import dev.vertxrma.testing.BlockedThreadGuard.Verdict;
import io.vertx.core.Vertx;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guard itself: a task that blocks its event loop (sleeps, waits on a monitor or a lock, reads
 * a pipe nobody writes) or computes on it for {@link BlockedThreadGuard#MAX_EVENT_LOOP_MS} ms of
 * CPU fails the test with its stack; a task that took as long only because the machine did not
 * run it (CPU-bound threads beside it) is logged and does not.
 *
 * <p>Each blocking task waits until the guard has judged it (its report releases the task), so
 * no case depends on how fast the machine is.
 */
class BlockedThreadGuardTest {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private Vertx vertx;

  @BeforeEach
  void start() {
    vertx = BlockedThreadGuard.watch(Vertx.vertx(BlockedThreadGuard.options()));
    BlockedThreadGuard.takeReports();
  }

  @AfterEach
  void stop() throws Exception {
    BlockedThreadGuard.onReport = null;
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    BlockedThreadGuard.takeReports(); // this class's tasks are judged here, not by afterEach
  }

  /** Spins the calling thread for {@code ms} of its own CPU time. */
  private static void computeFor(long ms) {
    long end = THREADS.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    while (THREADS.getCurrentThreadCpuTime() < end) {
      Thread.onSpinWait();
    }
  }

  /** Runs {@code task} on an event loop and returns the guard's reports about it once it has ended. */
  private List<Report> onEventLoop(Runnable task) throws Exception {
    CountDownLatch done = new CountDownLatch(1);
    vertx.runOnContext(v -> {
      task.run();
      done.countDown();
    });
    assertTrue(done.await(30, TimeUnit.SECONDS), "the task ended");
    // a later task of the same loop runs once the long one has returned; a timer of a few check
    // intervals lets a check that sampled the long task finish reporting it
    CountDownLatch after = new CountDownLatch(1);
    vertx.runOnContext(v -> vertx.setTimer(BlockedThreadGuard.MAX_EVENT_LOOP_MS, id -> after.countDown()));
    assertTrue(after.await(30, TimeUnit.SECONDS));
    return BlockedThreadGuard.takeReports();
  }

  /** A latch counted down by the guard's first judgement of {@code verdict}. */
  private static CountDownLatch judged(Verdict verdict) {
    CountDownLatch judged = new CountDownLatch(1);
    BlockedThreadGuard.onReport = r -> {
      if (r.verdict() == verdict) {
        judged.countDown();
      }
    };
    return judged;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      assertTrue(latch.await(30, TimeUnit.SECONDS), "the guard judged the blocked task");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void assertOneFailure(List<Report> reports, Verdict verdict, String frame) {
    List<Report> failing = reports.stream().filter(r -> r.verdict().fails).toList();
    assertEquals(1, failing.size(), "one failing task: " + reports);
    assertEquals(verdict, failing.get(0).verdict(), failing.get(0).text());
    assertTrue(failing.get(0).text().contains(frame), "the stack names " + frame + ": " + failing.get(0).text());
  }

  @Test
  void aTaskComputingForTwiceTheLimitFailsWithItsStack() throws Exception {
    List<Report> reports = onEventLoop(() -> computeFor(2 * BlockedThreadGuard.MAX_EVENT_LOOP_MS));
    assertOneFailure(reports, Verdict.COMPUTED, BlockedThreadGuardTest.class.getName() + ".computeFor");
  }

  @Test
  void aTaskThatSleepsFails() throws Exception {
    List<Report> reports = onEventLoop(() -> {
      try {
        Thread.sleep(3 * BlockedThreadGuard.MAX_EVENT_LOOP_MS); // the blocking call under test
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    assertOneFailure(reports, Verdict.WAITED, "java.lang.Thread.sleep");
  }

  @Test
  void aTaskWaitingForAMonitorFails() throws Exception {
    Object monitor = new Object();
    CountDownLatch judged = judged(Verdict.WAITED);
    CountDownLatch held = new CountDownLatch(1);
    Thread holder = new Thread(() -> {
      synchronized (monitor) {
        held.countDown();
        awaitQuietly(judged);
      }
    });
    holder.start();
    assertTrue(held.await(30, TimeUnit.SECONDS));
    List<Report> reports = onEventLoop(() -> {
      synchronized (monitor) {
        monitor.notifyAll();
      }
    });
    holder.join();
    assertOneFailure(reports, Verdict.WAITED, "BLOCKED");
  }

  /** A class loader whose loading of any class waits for {@code release}, holding its loading lock. */
  private static final class SlowLoader extends ClassLoader {
    private final CountDownLatch release;

    SlowLoader(CountDownLatch release) {
      super(null);
      this.release = release;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      awaitQuietly(release);
      throw new ClassNotFoundException(name);
    }
  }

  @Test
  void aTaskWaitingForAnotherThreadToLoadAClassIsFirstUseNotAFailure() throws Exception {
    CountDownLatch judged = new CountDownLatch(1);
    BlockedThreadGuard.onReport = r -> judged.countDown();
    SlowLoader loader = new SlowLoader(judged);
    Thread first = new Thread(() -> {
      try {
        loader.loadClass("dev.vertxrma.NoSuchClass"); // holds the loader's lock in ClassLoader.loadClass
      } catch (ClassNotFoundException expected) {
        // the point is the lock it held
      }
    });
    first.start();
    while (first.getState() != Thread.State.TIMED_WAITING && first.isAlive()) {
      Thread.onSpinWait(); // until it holds the lock and waits inside it
    }
    List<Report> reports = onEventLoop(() -> {
      try {
        loader.loadClass("dev.vertxrma.NoSuchClass"); // blocked on the lock the loading thread holds
      } catch (ClassNotFoundException expected) {
        // loaded by neither
      }
    });
    first.join();
    assertTrue(!reports.isEmpty(), "the blocked task was judged");
    assertTrue(reports.stream().noneMatch(r -> r.verdict().fails), "a wait for the JVM's class loading fails no test: "
        + reports);
  }

  @Test
  void aTaskWaitingForALockFails() throws Exception {
    ReentrantLock lock = new ReentrantLock();
    CountDownLatch judged = judged(Verdict.WAITED);
    CountDownLatch done = new CountDownLatch(1);
    lock.lock();
    try {
      vertx.runOnContext(v -> {
        lock.lock();
        lock.unlock();
        done.countDown();
      });
      awaitQuietly(judged);
    } finally {
      lock.unlock();
    }
    assertTrue(done.await(30, TimeUnit.SECONDS));
    List<Report> reports = onEventLoop(() -> { });
    assertOneFailure(reports, Verdict.WAITED, "java.util.concurrent.locks.ReentrantLock.lock");
  }

  @Test
  void aTaskInABlockingFileReadFails(@TempDir Path dir) throws Exception {
    Path fifo = dir.resolve("fifo");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
    assertEquals(0, mkfifo.waitFor(), "mkfifo");
    CountDownLatch judged = judged(Verdict.WAITED);
    Thread writer = new Thread(() -> {
      awaitQuietly(judged);
      try (FileOutputStream out = new FileOutputStream(fifo.toFile())) {
        out.write(42);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    writer.start();
    List<Report> reports = onEventLoop(() -> {
      try (FileInputStream in = new FileInputStream(fifo.toFile())) { // blocks until the writer opens
        assertEquals(42, in.read());
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    writer.join();
    assertOneFailure(reports, Verdict.WAITED, "in blocking I/O");
    assertTrue(Files.exists(fifo));
  }

  /** Runs {@code body} beside {@code perCore} CPU-bound threads of normal priority per core. */
  private static void besideCpuHogs(int perCore, Callable<Void> body) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> hogs = new ArrayList<>();
    for (int i = 0; i < perCore * Runtime.getRuntime().availableProcessors(); i++) {
      Thread hog = new Thread(() -> {
        while (!stop.get()) {
          Thread.onSpinWait();
        }
      }, "cpu-hog-" + i);
      hog.setDaemon(true);
      hog.start();
      hogs.add(hog);
    }
    try {
      body.call();
    } finally {
      stop.set(true);
      for (Thread hog : hogs) {
        hog.join();
      }
    }
  }

  @Test
  void aShortTaskPreemptedByCpuBoundThreadsIsLoggedNotFailed() throws Exception {
    besideCpuHogs(4, () -> {
      // 20 ms of CPU takes about 5 times as long beside 4 hogs a core: a task the checker sees past
      // its 50 ms of wall time, which used less than the limit of CPU
      List<Report> reports = new ArrayList<>();
      for (int round = 0; round < 20 && reports.stream().noneMatch(r -> r.verdict() == Verdict.OFF_CPU); round++) {
        reports.addAll(onEventLoop(() -> computeFor(BlockedThreadGuard.MAX_EVENT_LOOP_MS / 2 - 5)));
      }
      assertTrue(reports.stream().anyMatch(r -> r.verdict() == Verdict.OFF_CPU), "a preempted task was judged: " + reports);
      assertTrue(reports.stream().noneMatch(r -> r.verdict().fails), "no preempted task fails: " + reports);
      return null;
    });
  }

  @Test
  void aTaskComputingForTwiceTheLimitBesideCpuBoundThreadsStillFails() throws Exception {
    besideCpuHogs(2, () -> {
      List<Report> reports = onEventLoop(() -> computeFor(2 * BlockedThreadGuard.MAX_EVENT_LOOP_MS));
      assertOneFailure(reports, Verdict.COMPUTED, BlockedThreadGuardTest.class.getName() + ".computeFor");
      return null;
    });
  }
}
