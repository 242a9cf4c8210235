package dev.vertxrma.impl.memory;

import dev.vertxrma.Progress;
import dev.vertxrma.RmaException;
import io.vertx.core.Context;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Large copies split across the cores: a copy of {@value #SPLIT_FROM} bytes or more is cut into
 * parts of {@value #PART} bytes that the calling thread and this JVM's copy threads claim one at a
 * time, so a put or get of megabytes between ranks of one JVM moves at the speed of several cores'
 * copies instead of one (on this project's 2-core VM a 4 MiB copy by two threads ran at 2.2-2.7x
 * the speed of one; {@code bench/native/build/copy_ceiling} measures a machine).
 *
 * <p>The caller never waits for a part nobody has started: it copies every part it can claim,
 * then waits only for the parts copy threads are copying at that moment. That wait is one part's
 * copy time (about 10 us for {@value #PART} bytes) only while the copy thread holds a core: the
 * caller cannot take a started part back (the copy thread would still write the destination, or
 * read a source, after the call returned), and the OS may take the core away mid-part. Measured on
 * this project's 2-core VM (4 MiB copies, one copy thread): the caller's wait was 0-8 us at the 99th
 * percentile but reached 4-12 ms with the machine otherwise quiet and 31-50 ms with two busy
 * threads, while the median copy was no faster shared (290-330 us) than alone (280-290 us).
 *
 * <p>So a copy is shared only by a thread that may wait: never on a Vert.x event loop (where
 * same-JVM puts and gets are applied while the caller owns the target window) nor on a
 * virtual-thread context. There the caller copies every part itself and the copy takes exactly its
 * own single-thread time, linear in its size (about 70 us per MiB here), and never waits for
 * another thread. A copy thread that is not running (the cores busy elsewhere) costs a sharing
 * caller nothing but the call that offered it the work.
 * Copy threads spin for {@value #SPIN_NANOS} ns after their last part (a run of large puts then
 * finds them awake), then sleep until offered more. There are {@code min(cores - 1, 3)} of them,
 * none on one core or with busy-polling event loops, or {@code -Drma.copyThreads=N} (0: every copy
 * on the caller's thread).
 */
final class ParallelCopy {

  /** Copies at least this long are split. */
  static final long SPLIT_FROM = 1L << 20;
  /** The size of one part. */
  static final int PART = 128 << 10;
  /** How long a copy thread looks for more work before it sleeps. */
  static final long SPIN_NANOS = 50_000;
  /** The system property that sets the number of copy threads. */
  static final String THREADS_PROPERTY = "rma.copyThreads";

  private static final int THREADS = threads();

  /** Tests only: run by a copy thread after it claims a part and before it copies it; {@code null} in use. */
  static volatile Runnable beforePart;

  private ParallelCopy() {
  }

  /** Whether this JVM's clustered event loops busy-poll by default ({@link Progress#jvmDefault()}). */
  static boolean busyPolling() {
    try {
      return Progress.jvmDefault() == Progress.BUSY;
    } catch (RmaException e) {
      return false; // named where a node starts with it
    }
  }

  private static int threads() {
    int cores = Runtime.getRuntime().availableProcessors();
    // busy-polling event loops (-Drma.progress=busy, see PollingTransport) keep their cores: a copy
    // thread would only take turns with them (4 MiB put bandwidth between two such JVMs on 2 cores:
    // 2.8-3.0 GB/s without copy threads, 2.0-2.1 with one)
    int n = busyPolling() ? 0 : Math.min(cores - 1, 3);
    String v = System.getProperty(THREADS_PROPERTY);
    if (v != null && !v.isBlank()) {
      try {
        n = Math.max(0, Math.min(Integer.parseInt(v.trim()), 64));
      } catch (NumberFormatException e) {
        System.getLogger(ParallelCopy.class.getName()).log(System.Logger.Level.WARNING,
            "-D" + THREADS_PROPERTY + "=" + v + " is not a number; using " + n + " copy threads");
      }
    }
    return Math.max(0, n);
  }

  /**
   * Whether a copy of {@code bytes} from {@code src} to {@code dst} is split (else: copy it on this
   * thread): large enough, ranges apart, and a caller that may wait for a copy thread.
   */
  static boolean splits(Object srcBase, long srcAddr, Object dstBase, long dstAddr, long bytes) {
    return bytes >= SPLIT_FROM && THREADS > 0
        && (srcBase != dstBase || srcAddr + bytes <= dstAddr || dstAddr + bytes <= srcAddr) // no overlap
        && callerMayWait();
  }

  /** Whether the calling thread may wait for a copy thread: not an event loop, not a virtual-thread context. */
  private static boolean callerMayWait() {
    if (Context.isOnEventLoopThread()) {
      return false;
    }
    Context ctx = Vertx.currentContext();
    return ctx == null || ctx.threadingModel() == ThreadingModel.WORKER;
  }

  /** Copies {@code bytes} (see {@link #splits}: at least {@value #SPLIT_FROM}, ranges apart) with the copy threads. */
  static void copy(Object srcBase, long srcAddr, Object dstBase, long dstAddr, long bytes) {
    Job job = new Job(srcBase, srcAddr, dstBase, dstAddr, bytes);
    Pool.INSTANCE.offer(job, Math.min(THREADS, job.parts - 1));
    job.copyParts(false);
    Pool.INSTANCE.withdraw(job);
    while (job.done.get() < job.parts) {
      Thread.onSpinWait(); // only parts being copied right now are left
    }
    Throwable failed = job.failure;
    if (failed instanceof RuntimeException) {
      throw (RuntimeException) failed;
    } else if (failed instanceof Error) {
      throw (Error) failed;
    }
  }

  /** One split copy: its parts are claimed in order by whoever copies. */
  private static final class Job {
    final Object srcBase;
    final long srcAddr;
    final Object dstBase;
    final long dstAddr;
    final long bytes;
    final int parts;
    final AtomicInteger next = new AtomicInteger();
    final AtomicInteger done = new AtomicInteger();
    /** What a part's copy threw, rethrown to the caller once every part is accounted for. */
    volatile Throwable failure;

    Job(Object srcBase, long srcAddr, Object dstBase, long dstAddr, long bytes) {
      this.srcBase = srcBase;
      this.srcAddr = srcAddr;
      this.dstBase = dstBase;
      this.dstAddr = dstAddr;
      this.bytes = bytes;
      this.parts = (int) ((bytes + PART - 1) / PART);
    }

    /** Copies parts until none is left to claim; a part that fails still counts as done (see {@link #failure}). */
    void copyParts(boolean helper) {
      int p;
      while ((p = next.getAndIncrement()) < parts) {
        long at = (long) p * PART;
        try {
          Runnable hook = helper ? beforePart : null;
          if (hook != null) {
            hook.run();
          }
          Memory.copyOnThisThread(srcBase, srcAddr + at, dstBase, dstAddr + at, Math.min(PART, bytes - at));
        } catch (RuntimeException | Error e) {
          failure = e;
        } finally {
          done.incrementAndGet(); // publishes the part's bytes to the thread that waits for it
        }
      }
    }
  }

  /** The copy threads, started on the first split copy. */
  private static final class Pool {
    static final Pool INSTANCE = new Pool();

    private final ConcurrentLinkedQueue<Job> offered = new ConcurrentLinkedQueue<>();
    private final CopyThread[] threads = new CopyThread[THREADS];

    private Pool() {
      for (int i = 0; i < threads.length; i++) {
        threads[i] = new CopyThread(this, i);
        threads[i].start();
      }
    }

    /** Offers {@code job} to {@code helpers} copy threads (one entry each) and wakes sleeping ones. */
    void offer(Job job, int helpers) {
      for (int i = 0; i < helpers; i++) {
        offered.add(job);
      }
      for (CopyThread t : threads) {
        if (t.sleeping) {
          LockSupport.unpark(t);
        }
      }
    }

    /** Takes back the entries of {@code job} no copy thread took (so they do not keep its buffers). */
    void withdraw(Job job) {
      while (offered.remove(job)) {
        // one entry per helper offered
      }
    }
  }

  /** A copy thread: takes offered jobs, spins a while when there are none, then sleeps. */
  private static final class CopyThread extends Thread {
    private final Pool pool;
    volatile boolean sleeping;

    CopyThread(Pool pool, int index) {
      super("rma-copy-" + index);
      this.pool = pool;
      setDaemon(true);
    }

    @Override
    public void run() {
      long lastWork = System.nanoTime();
      while (true) {
        Job job = pool.offered.poll();
        if (job != null) {
          job.copyParts(true);
          lastWork = System.nanoTime();
        } else if (System.nanoTime() - lastWork < SPIN_NANOS) {
          Thread.onSpinWait();
        } else {
          sleeping = true;
          if (pool.offered.isEmpty()) {
            LockSupport.park(this);
          }
          sleeping = false;
          lastWork = System.nanoTime();
        }
      }
    }
  }
}
