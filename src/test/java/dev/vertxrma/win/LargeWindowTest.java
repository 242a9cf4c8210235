package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Mode;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.HostMemory;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Context;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Big windows (issue 27), embedded and on two clustered nodes: a 256 MiB window is allocated,
 * zeroed and freed off the event loops (the blocked-thread guard at 50 ms watches them), and its
 * zeroing lets the JVM's other threads reach safepoints while it runs (a probe asks for one back
 * to back and counts those that complete during the zeroing); a 512 MiB shared window is created,
 * mapped and its file removed off the event loops; sizes the host cannot hold fail with NO_MEM
 * naming the size at every rank, and nothing hangs. The 4 GiB window over two JVMs is
 * {@code BigWindowMultiJvmTest}'s.
 */
class LargeWindowTest {

  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;

  /**
   * The fewest safepoints that must complete while a 256 MiB window is zeroed. Zeroing in one
   * native call (Chronicle's eager store, one {@code Unsafe.setMemory}) lets none complete until it
   * returns (it held safepoints 0.55-4 s per GiB on this project's machine); at most the few
   * requested in the instants of Java code just before and after that call can pass. In 1 MiB
   * steps ({@code Memory.zero}) a safepoint waits for at most one step (about a millisecond), so
   * the probe completes one every few milliseconds of the zeroing's 0.1-0.3 s: that count is an
   * order (requested and completed while the zeroing ran), not a time, and load only makes the
   * zeroing last longer.
   */
  private static final int MIN_SAFEPOINTS_DURING_ZEROING = 10;

  private static long available() {
    return HostMemory.available().orElse(0);
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aLargeWindowIsZeroedAndFreedOffTheEventLoops(Jobs.Mode mode) {
    // 256 MiB under the 50 ms guard: on this 2-core VM, zeroing 1-2 GiB of fresh pages (page
    // faults) stalled other threads of the JVM 55-82 ms (a thread start, a socket write), and
    // freeing is one native call that holds safepoints ~27 ms per GiB; 4 GiB, where the test is
    // that the job lives, is BigWindowMultiJvmTest's
    assumeTrue(available() >= 3 * GIB, "needs 3 GiB of available memory, the host has " + available() / MIB
        + " MiB");
    int liveBefore = WindowMemory.live();
    Jobs.run(mode, 2, new BigWindowProgram(256 * MIB));
    assertEquals(liveBefore, WindowMemory.live(), "the window's memory is released once free() completes");
  }

  /**
   * The allocation the windows above make on a worker, {@link WindowMemory#allocate}, watched by a
   * probe that asks for a safepoint back to back ({@link Thread#getAllStackTraces()} stops every
   * Java thread): a thread inside a long native call of the VM cannot reach a safepoint and holds
   * every other thread, event loops included, as long. Counted are the safepoints the probe both
   * requested and saw completed while the allocation (its zeroing) ran.
   */
  @Test
  void aLargeWindowIsZeroedInStepsTheJvmCanReachASafepointBetween() throws InterruptedException {
    assumeTrue(available() >= 3 * GIB, "needs 3 GiB of available memory, the host has " + available() / MIB
        + " MiB");
    // one small allocation first: the classes it loads and initializes (Chronicle's store, the
    // memory figures) would otherwise let safepoints pass before the zeroing starts
    WindowMemory.allocate(WindowMemory.OFF_LOOP_BYTES).release();
    AtomicInteger phase = new AtomicInteger(); // 0 before the allocation, 1 during it, 2 after
    AtomicInteger during = new AtomicInteger();
    AtomicInteger outside = new AtomicInteger();
    Thread probe = new Thread(() -> {
      while (phase.get() < 2) {
        boolean requestedDuring = phase.get() == 1;
        Thread.getAllStackTraces();
        (requestedDuring && phase.get() == 1 ? during : outside).incrementAndGet();
      }
    }, "safepoint-probe");
    probe.setDaemon(true);
    probe.start();
    phase.set(1);
    long t0 = System.nanoTime();
    WindowMemory memory;
    try {
      memory = WindowMemory.allocate(256 * MIB);
    } finally {
      phase.set(2);
    }
    long allocMs = (System.nanoTime() - t0) / 1_000_000;
    probe.join();
    memory.release();
    System.out.printf("LargeWindowTest: %d safepoints completed while a 256 MiB window was allocated and zeroed "
        + "(%d ms), %d outside%n", during.get(), allocMs, outside.get());
    assertTrue(during.get() >= MIN_SAFEPOINTS_DURING_ZEROING, during.get() + " safepoints completed while a 256 MiB "
        + "window was allocated and zeroed (at least " + MIN_SAFEPOINTS_DURING_ZEROING + "; " + outside.get()
        + " outside it; the allocation took " + allocMs + " ms): the zeroing holds the JVM's threads");
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void sizesTheHostCannotHoldFailWithNoMemAtEveryRank(Jobs.Mode mode) throws IOException {
    long available = available();
    assumeTrue(available > 0, "/proc/meminfo tells the memory available");
    // with the kernel's "always overcommit" policy a size beyond the memory would be reserved and
    // the OOM killer would end a process as the window is zeroed, should the check be missing
    assumeTrue(!Files.readString(Path.of("/proc/sys/vm/overcommit_memory")).trim().equals("1"),
        "the kernel refuses allocations beyond its memory (vm.overcommit_memory != 1)");
    long absurd = Long.MAX_VALUE / 2;
    long beyond = 4 * available;
    int liveBefore = WindowMemory.live();
    Jobs.run(mode, 3, (world, args) -> {
      int r = world.rank();
      String[] beyondParts = r == 1 ? new String[] {String.valueOf(beyond), "available"}
          : new String[] {String.valueOf(beyond), "available", "rank 1"};
      return expectError(Win.allocate(world, absurd, 1, Info.NULL), ErrorClass.NO_MEM, String.valueOf(absurd))
          // only rank 1 asks for more than the host has: every rank fails, told the size and the rank,
          // and the 64 MiB the others had zeroed are released (on a worker) before their calls fail
          .compose(v -> expectError(Win.allocate(world, r == 1 ? beyond : 64 * MIB, 1, Info.NULL), ErrorClass.NO_MEM,
              beyondParts))
          .compose(v -> world.barrier())
          .map(v -> {
            assertEquals(liveBefore, WindowMemory.live(), "no window memory left after the failed creation");
            return null;
          })
          .compose(v -> expectError(Win.allocateShared(world, absurd, 1, Info.NULL), ErrorClass.NO_MEM,
              String.valueOf(absurd)))
          // the ranks still agree on windows afterwards
          .compose(v -> Win.allocate(world, 16, 8, Info.NULL))
          .compose(w -> w.fence()
              .compose(v -> w.put(Buf.of(new long[] {40L + r}), 0, 1, Datatype.LONG, (r + 1) % 3, 1))
              .compose(v -> w.fence(Mode.NOSUCCEED))
              .map(v -> {
                assertEquals(40L + (r + 2) % 3, w.memory().readLong(8));
                return null;
              })
              .compose(v -> w.free()));
    });
    assertEquals(liveBefore, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aLargeSharedWindowIsMappedAndItsFileRemovedOffTheLoop(Jobs.Mode mode) throws IOException {
    long size = 512 * MIB;
    assumeTrue(available() >= 3 * size, "needs " + 3 * size / MIB + " MiB of available memory");
    JobOptions options = Jobs.options(2);
    Jobs.await(Jobs.start(mode, options, (world, args) -> Win.allocateShared(world, size, 1, Info.NULL)
        .compose(win -> {
          assertTrue(Context.isOnEventLoopThread(), "allocateShared completes on the rank's event loop");
          int r = world.rank();
          assertEquals(0, win.memory().readByte(0));
          assertEquals(0, win.memory().readByte(size / 2));
          assertEquals(0, win.memory().readByte(size - 1));
          win.memory().writeByte(size - 1, (byte) (10 + r));
          return win.lockAll()
              .compose(v -> win.sync())
              .compose(v -> world.barrier())
              .compose(v -> win.sync())
              .compose(v -> win.sharedQuery(1 - r))
              .map(seg -> {
                assertEquals(size, seg.size());
                assertEquals(10 + 1 - r, seg.memory().readByte(size - 1), "the last byte of the peer's segment");
                return null;
              })
              .compose(v -> win.unlockAll())
              .compose(v -> world.barrier())
              .compose(v -> win.free());
        })), 120);
    String job = "-" + options.getJobName() + "-";
    try (Stream<Path> files = Files.list(SharedMapping.directory())) {
      List<String> left = files.map(p -> p.getFileName().toString()).filter(n -> n.contains(job))
          .collect(Collectors.toList());
      assertTrue(left.isEmpty(), "segment files left behind: " + left);
    }
  }
}
