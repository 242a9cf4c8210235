package dev.vertxrma.testing;

import io.vertx.core.impl.VertxThread;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What an event loop's current task does, sampled every {@value #SAMPLE_MS} ms by one daemon
 * thread for every watched event-loop thread: the thread's own CPU time when the sampler first
 * saw the task (so that the CPU the task has used is known when Vert.x's checker reports it as
 * long), whether it was seen waiting (parked, waiting on a monitor or a lock, sleeping, or in a
 * blocking native read, open or write of {@code java.io}, {@code java.net} or {@code sun.nio}) in
 * two samples in a row, and how many of its samples were in the JVM's first-use work (loading or
 * initializing a class, linking a call site, or blocked on a monitor the JVM holds for that:
 * {@link #blockedByTheProgram}).
 *
 * <p>A task is Vert.x's: {@link VertxThread#startTime()} is non-zero from the start of a task on
 * the loop to its end. The sampler reads only that field and {@link Thread#getState()} for a
 * task younger than {@value #STACK_AFTER_MS} ms, so that a quiet sample costs a few hundred
 * nanoseconds a thread; it takes a stack only of a task older than that, or one seen waiting.
 */
final class EventLoopSampler {

  /** How often the sampler looks at every watched loop. */
  static final long SAMPLE_MS = 5;
  /** A task's age from which its samples take its stack (blocking I/O and first-use work show there). */
  static final long STACK_AFTER_MS = 20;

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final EventLoopSampler INSTANCE = new EventLoopSampler();

  /** One task of one loop, as the samples saw it. Guarded by itself. */
  static final class Task {
    final long startNanos;
    /** The thread's CPU time at the first sample of the task, and the task's age then. */
    final long cpuAtFirstSample;
    final long ageAtFirstSampleNanos;
    private int waitingInARow;
    /** The first wait seen twice in a row: its state (or "blocking I/O") and stack. */
    String waitedAs;
    StackTraceElement[] waitStack;
    /** The newest stack a sample took, and how many samples took one and saw first-use work in it. */
    StackTraceElement[] lastStack;
    int stackSamples;
    int firstUseSamples;

    Task(long startNanos, long cpuNow, long nowNanos) {
      this.startNanos = startNanos;
      this.cpuAtFirstSample = cpuNow;
      this.ageAtFirstSampleNanos = Math.max(0, nowNanos - startNanos);
    }
  }

  private final Map<Thread, Task> tasks = new WeakHashMap<>();

  private EventLoopSampler() {
    Thread t = new Thread(this::run, "rma-test-event-loop-sampler");
    t.setDaemon(true);
    t.setPriority(Thread.MAX_PRIORITY);
    t.start();
  }

  static EventLoopSampler get() {
    return INSTANCE;
  }

  /** Samples {@code thread} from now on (an event loop of a watched Vert.x instance). */
  void watch(Thread thread) {
    if (thread instanceof VertxThread) {
      synchronized (tasks) {
        tasks.putIfAbsent(thread, null);
      }
    }
  }

  /**
   * The current task of {@code thread} as the samples saw it, or {@code null} if the thread is
   * between tasks or the sampler has not seen this task yet (then it records it now).
   */
  Task currentTask(VertxThread thread) {
    long start = thread.startTime();
    if (start == 0) {
      return null;
    }
    synchronized (tasks) {
      Task t = tasks.get(thread);
      if (t == null || t.startNanos != start) {
        t = new Task(start, cpuTime(thread), System.nanoTime());
        tasks.put(thread, t);
      }
      return t;
    }
  }

  /**
   * What {@code thread}'s current task has done so far, or {@code null} if it is between tasks.
   *
   * @param task the task, as first seen
   * @param cpuNanos the thread's CPU time since the task's first sample (at most
   *     {@code task.ageAtFirstSampleNanos} less than the task's own)
   * @param waitedAs how the task was seen waiting twice in a row, or {@code null}
   * @param stack where it waited, else where it is now (else its newest sampled stack)
   * @param firstUse whether most of its sampled stacks were the JVM's first-use work
   */
  record Look(Task task, long cpuNanos, String waitedAs, StackTraceElement[] stack, boolean firstUse) {
  }

  Look look(VertxThread thread) {
    Task t = currentTask(thread);
    if (t == null) {
      return null;
    }
    long cpu = cpuTime(thread) - t.cpuAtFirstSample;
    StackTraceElement[] now = thread.getStackTrace();
    synchronized (tasks) {
      StackTraceElement[] stack = t.waitStack != null ? t.waitStack
          : thread.startTime() == t.startNanos || t.lastStack == null ? now : t.lastStack;
      boolean firstUse = t.stackSamples > 0 && 2 * t.firstUseSamples >= t.stackSamples;
      return new Look(t, cpu, t.waitedAs, stack, firstUse);
    }
  }

  /** The thread's own CPU time in nanoseconds (-1 if the JVM cannot tell). */
  static long cpuTime(Thread thread) {
    return THREADS.getThreadCpuTime(thread.getId());
  }

  private void run() {
    while (true) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(SAMPLE_MS));
      Thread[] threads;
      synchronized (tasks) {
        threads = tasks.keySet().toArray(new Thread[0]);
      }
      for (Thread th : threads) {
        if (th.isAlive()) {
          sample((VertxThread) th);
        } else {
          synchronized (tasks) {
            tasks.remove(th);
          }
        }
      }
    }
  }

  private void sample(VertxThread thread) {
    Task t = currentTask(thread);
    if (t == null) {
      return;
    }
    long ageNanos = System.nanoTime() - t.startNanos;
    Thread.State state = thread.getState();
    boolean waiting = state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING
        || state == Thread.State.BLOCKED && blockedByTheProgram(thread);
    StackTraceElement[] stack = null;
    if (waiting || ageNanos >= TimeUnit.MILLISECONDS.toNanos(STACK_AFTER_MS)) {
      stack = thread.getStackTrace();
      if (thread.startTime() != t.startNanos) {
        return; // the task ended while the stack was taken: the stack is another's
      }
    }
    // a class file read while the JVM loads a class for the first time is the JVM's first use,
    // not the program's blocking I/O (seen failing RepeatTest: 57 ms, 2 ms of CPU, in
    // UnixFileSystem.getLength under BuiltinClassLoader.defineClass)
    String waitedAs = waiting ? state.name()
        : stack != null && inBlockingIo(stack) && !inFirstUseWork(stack) ? "in blocking I/O" : null;
    synchronized (tasks) {
      if (stack != null) {
        t.lastStack = stack;
        t.stackSamples++;
        if (inFirstUseWork(stack) || state == Thread.State.BLOCKED && !waiting) {
          t.firstUseSamples++;
        }
      }
      t.waitingInARow = waitedAs == null ? 0 : t.waitingInARow + 1;
      if (t.waitingInARow >= 2 && t.waitedAs == null) {
        t.waitedAs = waitedAs;
        t.waitStack = stack;
      }
    }
  }

  /**
   * Whether {@code thread} is blocked on a monitor its program took: one that its owner holds in a
   * {@code synchronized} method or block, not in a class loader's. A monitor the JVM takes itself
   * (a class's constant pool while another thread links the same call site, a class's
   * initialization) is held in no Java frame of its owner: first-use work, not a wait of the
   * program's, and neither is a thread no longer blocked by the time it is looked at.
   */
  static boolean blockedByTheProgram(Thread thread) {
    ThreadInfo blocked = THREADS.getThreadInfo(thread.getId());
    if (blocked == null || blocked.getThreadState() != Thread.State.BLOCKED || blocked.getLockInfo() == null
        || blocked.getLockOwnerId() < 0) {
      return false;
    }
    LockInfo lock = blocked.getLockInfo();
    ThreadInfo[] owner = THREADS.getThreadInfo(new long[] {blocked.getLockOwnerId()}, true, false);
    if (owner.length == 1 && owner[0] != null) {
      for (MonitorInfo m : owner[0].getLockedMonitors()) {
        if (m.getIdentityHashCode() == lock.getIdentityHashCode()) {
          StackTraceElement f = m.getLockedStackFrame();
          return f != null && !inFirstUseWork(new StackTraceElement[] {f});
        }
      }
    }
    return false; // held, but in no Java frame of its owner: the JVM's own locker
  }

  /**
   * A native read, open, write or connect of the JDK's blocking I/O at the top of the stack. Not
   * the natives an event loop's non-blocking channels and selector use, which never wait: the
   * selector's poll and its wake-up (EPoll, EventFD, IOUtil's wake-up pipe) and the socket and
   * datagram reads and writes of channels in non-blocking mode (a loop's channels always are) —
   * a loop preempted in one of them is the machine's load, seen once as "in blocking I/O" at
   * EventFD.set0 beside other builds (128 ms of wall time, 4 ms of CPU).
   */
  static boolean inBlockingIo(StackTraceElement[] stack) {
    if (stack.length == 0 || !stack[0].isNativeMethod()) {
      return false;
    }
    String c = stack[0].getClassName();
    return c.startsWith("java.io.") || c.startsWith("java.net.") || c.startsWith("sun.nio.ch.")
        && !NON_BLOCKING_NIO.contains(c) || c.startsWith("sun.nio.fs.") || c.equals("java.lang.ProcessImpl");
  }

  private static final java.util.Set<String> NON_BLOCKING_NIO = java.util.Set.of("sun.nio.ch.EPoll",
      "sun.nio.ch.EventFD", "sun.nio.ch.IOUtil", "sun.nio.ch.SocketDispatcher", "sun.nio.ch.DatagramDispatcher");

  /** The JVM loading a class or linking a call site for the first time, anywhere on the stack. */
  static boolean inFirstUseWork(StackTraceElement[] stack) {
    for (StackTraceElement e : stack) {
      String c = e.getClassName();
      String m = e.getMethodName();
      if (c.equals("java.lang.ClassLoader") && (m.startsWith("loadClass") || m.startsWith("defineClass"))
          || c.startsWith("jdk.internal.loader.") && m.startsWith("loadClass")
          || c.equals("java.lang.invoke.MethodHandleNatives") && m.startsWith("link")
          || c.equals("java.lang.Class") && m.equals("forName0") || m.equals("<clinit>")) {
        return true;
      }
    }
    return false;
  }
}
