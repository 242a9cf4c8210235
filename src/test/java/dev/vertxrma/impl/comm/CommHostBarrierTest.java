package dev.vertxrma.impl.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Op;
import dev.vertxrma.JobOptions;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Barriers of a communicator whose ranks span JVMs meet in shared memory when the JVMs share it
 * (ARCHITECTURE decision 16), with the clustered nodes of the test JVM standing for JVMs of one
 * host: the first barrier finds out and every later one meets in the ranks' barrier pages; they
 * keep MPI's meaning (no rank leaves barrier k before every rank entered it) and their call order
 * when issued without awaiting; a communicator split off the world takes the path on its own; with
 * the on-node path off the same program meets by messages; no page file is left behind.
 */
class CommHostBarrierTest {

  private static final int BARRIERS = 300;

  private static JobOptions options(int np, boolean shm) {
    JobOptions o = Jobs.options(np);
    // the longest job name there is: the page files carry it
    o.setJobName((o.getJobName() + "-" + "x".repeat(64)).substring(0, 64));
    o.getTransportOptions().setSharedMemory(shm);
    return o;
  }

  /**
   * Each rank enters barrier k after writing k in its slot of {@code entered} and, when barrier k
   * completes, checks that every rank has entered it. All barriers are issued at once.
   */
  private static Future<Void> barriersIssuedAtOnce(Comm comm, AtomicIntegerArray entered, int base) {
    int me = comm.rank();
    List<Future<Void>> done = new ArrayList<>();
    List<Integer> completed = new ArrayList<>();
    Future<Void> chain = comm.barrier(); // the first: finds out which path
    for (int k = 1; k <= BARRIERS; k++) {
      int n = k;
      // a rank enters barrier k only when its k-1 is done: the slot says what it entered
      Future<Void> prev = chain;
      Future<Void> b = prev.compose(v -> {
        entered.set(base + me, n);
        return Future.succeededFuture();
      }).compose(v -> comm.barrier());
      done.add(b.map(v -> {
        completed.add(n);
        for (int r = 0; r < comm.size(); r++) {
          assertTrue(entered.get(base + r) >= n, "rank " + r + " had not entered barrier " + n + " when rank " + me
              + " left it");
        }
        return null;
      }));
      chain = b;
    }
    // and barriers issued back to back, none awaited, complete in call order
    List<Future<Void>> burst = new ArrayList<>();
    List<Integer> order = new ArrayList<>();
    for (int k = 0; k < 50; k++) {
      int n = k;
      burst.add(comm.barrier().onSuccess(v -> order.add(n)));
    }
    return Future.all(done).compose(v -> Future.all(burst)).map(v -> {
      for (int k = 0; k < order.size(); k++) {
        assertEquals(k, order.get(k), "back-to-back barriers completed out of call order: " + order);
      }
      assertEquals(BARRIERS, completed.size());
      return null;
    });
  }

  private static boolean inMemory(Comm comm) {
    return ((CommImpl) comm).collectives().barriersInMemory();
  }

  @Test
  void barriersOfTheWorldAndOfASplitMeetInSharedMemory() throws Exception {
    AtomicIntegerArray entered = new AtomicIntegerArray(8);
    ConcurrentHashMap<String, Boolean> paths = new ConcurrentHashMap<>();
    JobOptions options = options(4, true);
    Jobs.await(Jobs.start(Jobs.Mode.CLUSTERED, options, (world, args) ->
        barriersIssuedAtOnce(world, entered, 0).compose(v -> {
          paths.put("world@" + world.rank(), inMemory(world));
          return world.split(world.rank() % 2, world.rank());
        }).map(java.util.Optional::get).compose(half -> barriersIssuedAtOnce(half, entered, 4 + 2 * (world.rank() % 2))
            .map(v -> {
              paths.put("split@" + world.rank(), inMemory(half));
              return half;
            })).compose(Comm::free)), 120);
    for (var e : paths.entrySet()) {
      // clustered: world rank i runs on node i % 2, so each half of the split spans both nodes
      assertTrue(e.getValue(), e.getKey() + " met by messages, not in shared memory: " + paths);
    }
    assertEquals(8, paths.size());
    assertNoPageLeft(options.getJobName());
  }

  @Test
  void withoutSharedMemoryTheSameBarriersMeetByMessages() throws Exception {
    AtomicIntegerArray entered = new AtomicIntegerArray(4);
    ConcurrentHashMap<Integer, Boolean> paths = new ConcurrentHashMap<>();
    JobOptions options = options(4, false);
    Jobs.await(Jobs.start(Jobs.Mode.CLUSTERED, options, (world, args) ->
        barriersIssuedAtOnce(world, entered, 0).map(v -> {
          paths.put(world.rank(), inMemory(world));
          return null;
        })), 120);
    assertEquals(4, paths.size());
    assertTrue(paths.values().stream().noneMatch(b -> b), "with rma.shm off: " + paths);
    assertNoPageLeft(options.getJobName());
  }

  /**
   * Allreduces and bcasts (from every root in turn) issued back to back without awaiting,
   * between barriers, small ones (in the pages) and large ones (by messages) mixed: each gets the
   * values of its own round.
   */
  @Test
  void allreducesAndBcastsIssuedAtOnceEachGetTheirOwnRound() throws Exception {
    ConcurrentHashMap<Integer, Boolean> paths = new ConcurrentHashMap<>();
    Jobs.await(Jobs.start(Jobs.Mode.CLUSTERED, options(4, true), (world, args) -> {
      int me = world.rank();
      int p = world.size();
      List<Future<Void>> all = new ArrayList<>();
      all.add(world.barrier());
      for (int k = 0; k < 60; k++) {
        int n = k % 20 == 7 ? 600 : 1 + k % 5; // 600 longs: 4800 bytes, more than a page's block
        long[] in = new long[n];
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
          in[i] = 1_000L * k + 10L * i + me;
        }
        int round = k;
        all.add(world.allreduce(Buf.of(in), 0, Buf.of(out), 0, n, Datatype.LONG, Op.SUM).map(v -> {
          for (int i = 0; i < n; i++) {
            long expected = p * (1_000L * round + 10L * i) + (long) p * (p - 1) / 2;
            assertEquals(expected, out[i], "allreduce " + round + " element " + i + " at rank " + me);
          }
          return null;
        }));
        int root = k % p;
        long[] shown = new long[n];
        if (me == root) {
          for (int i = 0; i < n; i++) {
            shown[i] = 7_000_000L * round + i;
          }
        }
        all.add(world.bcast(Buf.of(shown), 0, n, Datatype.LONG, root).map(v -> {
          for (int i = 0; i < n; i++) {
            assertEquals(7_000_000L * round + i, shown[i], "bcast " + round + " from " + root + " element " + i
                + " at rank " + me);
          }
          return null;
        }));
        if (k % 9 == 0) {
          all.add(world.barrier());
        }
      }
      return Future.all(all).map(v -> {
        paths.put(me, inMemory(world));
        return null;
      });
    }), 120);
    assertEquals(4, paths.size());
    assertTrue(paths.values().stream().allMatch(b -> b), "the world's barriers met in memory: " + paths);
  }

  /**
   * A rank whose first barrier of a communicator never meets the others' (its peer never called
   * one; it took the barrier's TIMEOUT and finished, as did its peer) leaves no page file once the
   * job is over (the job's finalizing barrier is the world's, not this one's): its
   * exchange, which waits without a timeout, ends when the rank finishes, and the page is removed.
   */
  @Test
  void aFirstBarrierNobodyMeetsLeavesNoPageWhenTheJobEnds() throws Exception {
    // Only rank 0's barrier is meant to wait the timeout out. The dup before it must succeed:
    // both ranks call it once both programs run (a latch, no wait of the job), so that it pays
    // the hops of the job's first collective, not the other cluster node's later start; 1 s (was
    // 300 ms) for those cold hops on 2 loaded cores, where a class load alone blocked a loop 90 ms
    JobOptions options = options(2, true).setWaitTimeoutMs(1000);
    dev.vertxrma.testing.Latch running = new dev.vertxrma.testing.Latch(2);
    dev.vertxrma.testing.Latch timedOut = new dev.vertxrma.testing.Latch(); // both finish (and finalize) after it
    Jobs.await(Jobs.start(Jobs.Mode.CLUSTERED, options, (world, args) -> running.arrive().compose(r -> world.dup())
        .compose(dup -> world.rank() != 0
        ? timedOut.opened().compose(v -> dup.free()) // rank 1 never calls barrier on it
        : dup.barrier().transform(ar -> {
          timedOut.open();
          assertTrue(ar.failed(), "a barrier only rank 0 called completed");
          return dup.free(); // rank 0 takes its TIMEOUT and finishes
        }))), 60);
    // the removal runs on a worker once the rank has finished: poll for it, bounded
    java.util.concurrent.CompletableFuture<Void> gone = new java.util.concurrent.CompletableFuture<>();
    java.util.concurrent.ScheduledExecutorService poll = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    try {
      poll.scheduleWithFixedDelay(() -> {
        if (pagesOf(options.getJobName()).isEmpty()) {
          gone.complete(null);
        }
      }, 0, 20, java.util.concurrent.TimeUnit.MILLISECONDS);
      gone.get(10, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      assertNoPageLeft(options.getJobName()); // names what is left
    } finally {
      poll.shutdownNow();
    }
  }

  /**
   * A program that makes and frees many communicators holds no mapping of a freed one's barrier
   * pages: each rank unmaps them once the communicator is freed and its barriers are done (not
   * when the garbage collector finds the communicator unreachable, which a program holding its
   * communicators would never let happen: the mappings would pile up to the kernel's limit).
   * Barriers, allreduces and bcasts of each are issued without awaiting, and free right after.
   */
  @Test
  void theBarrierPagesOfAFreedCommunicatorAreUnmapped() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(java.nio.file.Path.of("/proc/self/maps")),
        "needs /proc/self/maps to count this JVM's mappings");
    int comms = 40;
    JobOptions options = options(4, true);
    List<Comm> kept = java.util.Collections.synchronizedList(new ArrayList<>());
    long[] before = new long[1];
    Jobs.await(Jobs.start(Jobs.Mode.CLUSTERED, options, (world, args) -> world.barrier().compose(v -> {
      if (world.rank() == 0) {
        before[0] = mappedPages(options.getJobName());
      }
      return world.barrier();
    }).compose(v -> dev.vertxrma.Rma.repeat(comms, i -> world.split(0, world.rank()).map(java.util.Optional::get).compose(comm -> {
      kept.add(comm); // held by the program: only an explicit unmapping can release its pages
      Future<Void> first = comm.barrier();
      Future<Long> sum = comm.allreduce((long) comm.rank(), dev.vertxrma.Op.SUM);
      Future<Void> second = comm.barrier();
      Future<Void> freed = comm.free();
      return Future.all(first, sum, second, freed).map(x -> {
        assertTrue(((CommImpl) comm).collectives().barriersInMemory(), "a split's barriers in memory");
        assertEquals(6L, sum.result(), "allreduce of the split's ranks");
        return null;
      });
    }))).compose(v -> world.barrier())), 120);
    // each rank unmaps a freed communicator's pages as its last barrier there completes, before
    // its program goes on to the world's final barrier
    long now = mappedPages(options.getJobName());
    assertEquals(before[0], now, "barrier pages of " + comms + " freed communicators still mapped (the world's "
        + "own: " + before[0] + ")");
    assertEquals(4 * comms, kept.size());
  }

  /** How many barrier pages of {@code job} this JVM maps now. */
  private static long mappedPages(String job) {
    try (Stream<String> lines = Files.lines(java.nio.file.Path.of("/proc/self/maps"))) {
      return lines.filter(l -> l.contains("/barrier-") && l.contains("-" + job + "-")).count();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<String> pagesOf(String job) {
    try (Stream<java.nio.file.Path> files = Files.list(SharedMapping.directory())) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("barrier-") && n.contains("-" + job
          + "-")).toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void assertNoPageLeft(String job) {
    assertEquals(List.of(), pagesOf(job), "barrier page files of job " + job + " left behind");
  }
}
