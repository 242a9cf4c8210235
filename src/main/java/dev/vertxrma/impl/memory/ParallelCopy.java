package dev.vertxrma.impl.memory;

import io.vertx.core.Closeable;
import io.vertx.core.Completable;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.shareddata.LocalMap;
import io.vertx.core.shareddata.Shareable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Large copies split across the cores: a copy of {@value #SPLIT_FROM} bytes or more is cut into
 * parts of {@value #PART} bytes that the calling thread and its Vert.x instance's copy threads
 * claim one at a time, so a put or get of megabytes between ranks of one JVM moves at the speed of several cores'
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
 * <p>So a copy is shared only by a thread that may wait, a Vert.x worker: never on an event loop (where
 * same-JVM puts and gets are applied while the caller owns the target window) nor on a
 * virtual-thread context. There the caller copies every part itself and the copy takes exactly its
 * own single-thread time, linear in its size (about 70 us per MiB here), and never waits for
 * another thread. A copy thread that is not running (the cores busy elsewhere) costs a sharing
 * caller nothing but the call that offered it the work.
 * Copy threads spin for {@value #SPIN_NANOS} ns after their last part (a run of large puts then
 * finds them awake), then sleep until offered more.
 *
 * <p>The copy threads belong to a Vert.x instance: {@link #install} gives an instance its pool (the
 * first job that starts there, with its {@code CopyOptions}), a copy on a worker thread of that
 * instance shares it, and closing the instance stops them (a close hook). A thread that belongs to
 * no Vert.x instance copies alone.
 */
public final class ParallelCopy implements Shareable, Closeable {

  /** Copies at least this long are split. */
  static final long SPLIT_FROM = 1L << 20;
  /** The size of one part. */
  static final int PART = 128 << 10;
  /** How long a copy thread looks for more work before it sleeps. */
  static final long SPIN_NANOS = 50_000;
  /** The most copy threads of one pool. */
  static final int MAX_THREADS = 64;

  /** The local map of a Vert.x instance that holds its pool. */
  private static final String MAP = "dev.vertxrma.copy";
  private static final String KEY = "pool";
  /** Numbers the pools of this JVM, for their threads' names. */
  private static final AtomicInteger POOLS = new AtomicInteger();

  /** Tests only: run by a copy thread after it claims a part and before it copies it; {@code null} in use. */
  static volatile Runnable beforePart;

  private final int threadCount;
  private final String name;
  private final ConcurrentLinkedQueue<Job> offered = new ConcurrentLinkedQueue<>();
  /** The copy threads, started on the first split copy; {@code null} before. */
  private volatile CopyThread[] threads;
  private volatile boolean closed;
  /** Copy threads that have not ended. */
  private final AtomicInteger live = new AtomicInteger();
  /** Completed once the pool is closed and its copy threads have ended. */
  private final Promise<Void> stopped = Promise.promise();

  /** A pool of {@code threads} copy threads (0 to {@value #MAX_THREADS}), started on its first split copy. */
  ParallelCopy(int threads) {
    this.threadCount = Math.max(0, Math.min(threads, MAX_THREADS));
    this.name = "rma-copy-" + POOLS.incrementAndGet() + "-";
  }

  /**
   * Gives {@code vertx} a pool of {@code threads} copy threads unless it has one (the first call
   * decides), closed with the instance.
   *
   * @return the number of copy threads of {@code vertx}'s pool
   */
  public static int install(Vertx vertx, int threads) {
    LocalMap<String, ParallelCopy> map = vertx.sharedData().getLocalMap(MAP);
    ParallelCopy pool = map.get(KEY);
    if (pool == null) {
      pool = map.computeIfAbsent(KEY, k -> {
        ParallelCopy created = new ParallelCopy(threads);
        ((VertxInternal) vertx).addCloseHook(created);
        return created;
      });
    }
    return pool.threadCount;
  }

  /**
   * The number of copy threads that serve {@code vertx}'s worker threads: 0 when it has no pool
   * (no job started there) or it is closed.
   */
  public static int threadsOf(Vertx vertx) {
    ParallelCopy pool = (ParallelCopy) vertx.sharedData().getLocalMap(MAP).get(KEY);
    return pool == null || pool.closed ? 0 : pool.threadCount;
  }

  /** The number of {@code vertx}'s copy threads that run now (started by a split copy, not ended). */
  public static int liveThreadsOf(Vertx vertx) {
    ParallelCopy pool = (ParallelCopy) vertx.sharedData().getLocalMap(MAP).get(KEY);
    return pool == null ? 0 : pool.live.get();
  }

  /**
   * The copy threads a machine gets when the job does not choose: {@code min(cores - 1, 3)}, none
   * when the Vert.x instance's event loops {@code busyPoll} (they keep their cores: a copy thread
   * would only take turns with them; 4 MiB put bandwidth between two such JVMs on 2 cores: 2.8-3.0
   * GB/s without copy threads, 2.0-2.1 with one).
   */
  public static int machineThreads(boolean busyPoll) {
    return busyPoll ? 0 : Math.max(0, Math.min(Runtime.getRuntime().availableProcessors() - 1, 3));
  }

  /**
   * The pool that shares a copy made by the calling thread: that of the Vert.x instance whose
   * worker thread it is (a worker verticle's, or {@code executeBlocking}'s); {@code null} on an
   * event loop, on a virtual-thread context (neither may wait for a copy thread) and on a thread
   * of no Vert.x instance.
   */
  static ParallelCopy forCaller() {
    if (!Context.isOnWorkerThread()) {
      return null; // an event loop, a virtual thread, a thread of no Vert.x instance
    }
    Context ctx = Vertx.currentContext();
    return ctx == null ? null : (ParallelCopy) ctx.owner().sharedData().getLocalMap(MAP).get(KEY);
  }

  /**
   * Whether this pool splits a copy of {@code bytes} from {@code src} to {@code dst} (else: copy
   * it on this thread): large enough, ranges apart, copy threads there and not closed.
   */
  boolean splits(Object srcBase, long srcAddr, Object dstBase, long dstAddr, long bytes) {
    return bytes >= SPLIT_FROM && threadCount > 0 && !closed
        && (srcBase != dstBase || srcAddr + bytes <= dstAddr || dstAddr + bytes <= srcAddr); // no overlap
  }

  /** Copies {@code bytes} (see {@link #splits}: at least {@value #SPLIT_FROM}, ranges apart) with the copy threads. */
  void copy(Object srcBase, long srcAddr, Object dstBase, long dstAddr, long bytes) {
    Job job = new Job(srcBase, srcAddr, dstBase, dstAddr, bytes);
    offer(job, Math.min(threadCount, job.parts - 1));
    job.copyParts(false);
    withdraw(job);
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

  /**
   * Stops the copy threads, each after the part it copies (a caller copies every part no thread
   * took); later copies are made by their callers alone. Completes once every copy thread ended.
   */
  @Override
  public void close(Completable<Void> completion) {
    CopyThread[] started;
    synchronized (this) {
      closed = true;
      started = threads;
    }
    stopped.future().onComplete(completion);
    if (started != null) {
      for (CopyThread t : started) {
        LockSupport.unpark(t);
      }
    }
    if (live.get() == 0) {
      stopped.tryComplete();
    }
  }

  /** A copy thread ends: the last one of a closed pool completes its close. */
  private void ended() {
    if (live.decrementAndGet() == 0 && closed) {
      stopped.tryComplete();
    }
  }

  /** Offers {@code job} to {@code helpers} copy threads (one entry each) and wakes sleeping ones. */
  private void offer(Job job, int helpers) {
    CopyThread[] started = started();
    for (int i = 0; i < helpers; i++) {
      offered.add(job);
    }
    for (CopyThread t : started) {
      if (t.sleeping) {
        LockSupport.unpark(t);
      }
    }
  }

  private CopyThread[] started() {
    CopyThread[] started = threads;
    if (started == null) {
      synchronized (this) {
        started = threads;
        if (started == null) {
          started = new CopyThread[closed ? 0 : threadCount];
          for (int i = 0; i < started.length; i++) {
            started[i] = new CopyThread(this, name + i);
            live.incrementAndGet();
            started[i].start();
          }
          threads = started;
        }
      }
    }
    return started;
  }

  /** Takes back the entries of {@code job} no copy thread took (so they do not keep its buffers). */
  private void withdraw(Job job) {
    while (offered.remove(job)) {
      // one entry per helper offered
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

  /** A copy thread: takes offered jobs, spins a while when there are none, then sleeps. */
  private static final class CopyThread extends Thread {
    private final ParallelCopy pool;
    volatile boolean sleeping;

    CopyThread(ParallelCopy pool, String name) {
      super(name);
      this.pool = pool;
      setDaemon(true);
    }

    @Override
    public void run() {
      try {
        serve();
      } finally {
        pool.ended();
      }
    }

    private void serve() {
      long lastWork = System.nanoTime();
      while (!pool.closed) {
        Job job = pool.offered.poll();
        if (job != null) {
          job.copyParts(true);
          lastWork = System.nanoTime();
        } else if (System.nanoTime() - lastWork < SPIN_NANOS) {
          Thread.onSpinWait();
        } else {
          sleeping = true;
          if (pool.offered.isEmpty() && !pool.closed) {
            LockSupport.park(this);
          }
          sleeping = false;
          lastWork = System.nanoTime();
        }
      }
    }
  }
}
