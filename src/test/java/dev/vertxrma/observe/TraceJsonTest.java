package dev.vertxrma.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.testing.ChromeTrace;
import dev.vertxrma.testing.ChromeTrace.Event;
import dev.vertxrma.testing.ChromeTrace.Flow;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code JobOptions.setTraceFile("….json")}: the job's trace in the trace-event JSON format of
 * Perfetto and {@code chrome://tracing}, read back with a JSON parser and checked event by event
 * for a known job, embedded and clustered (each Vert.x node writes its part, the last one merges
 * them, as for the HTML page).
 */
class TraceJsonTest {

  @TempDir
  Path tmp;

  /**
   * 3 ranks. A fence epoch in which every rank puts two longs to its right neighbour; a barrier;
   * rank 0 locks rank 1 exclusively, puts one long and unlocks; rank 2 puts outside any epoch
   * (fails with RMA_SYNC, rank 0's memory stays as it was); a barrier; free.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aKnownJobGivesItsThreadsEpochsCallsAndFlows(Jobs.Mode mode) throws IOException {
    Path file = tmp.resolve("trace-" + mode + ".json");
    JobOptions options = Jobs.options(3).setTraceFile(file.toString());
    Jobs.await(Jobs.start(mode, options, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int right = (r + 1) % 3;
      int left = (r + 2) % 3;
      Future<Void> f = win.fence(Mode.NOPRECEDE)
          .compose(v -> win.put(Buf.of(new long[] {r * 10 + 1}), 0, 1, Datatype.LONG, right, 0))
          .compose(v -> win.put(Buf.of(new long[] {r * 10 + 2}), 0, 1, Datatype.LONG, right, 1))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .compose(v -> {
            assertEquals(left * 10 + 1, win.memory().readLong(0), "rank " + r + " got its left neighbour's first put");
            assertEquals(left * 10 + 2, win.memory().readLong(8), "and its second");
            return world.barrier();
          });
      if (r == 0) {
        f = f.compose(v -> win.lock(LockType.EXCLUSIVE, 1))
            .compose(v -> win.put(Buf.of(new long[] {99}), 0, 1, Datatype.LONG, 1, 2))
            .compose(v -> win.unlock(1));
      } else if (r == 2) {
        f = f.compose(v -> win.put(Buf.of(new long[] {7}), 0, 1, Datatype.LONG, 0, 3).transform(ar -> {
          assertTrue(ar.failed(), "a put outside any epoch fails");
          assertEquals(ErrorClass.RMA_SYNC, ((RmaException) ar.cause()).errorClass());
          return Future.<Void>succeededFuture();
        }));
      }
      return f.compose(v -> world.barrier()).compose(v -> {
        if (r == 1) {
          assertEquals(99, win.memory().readLong(16), "rank 0's put under the lock arrived");
        }
        if (r == 0) {
          assertEquals(0, win.memory().readLong(24), "the refused put left rank 0's memory unchanged");
        }
        return win.free();
      });
    })), 120);

    try (Stream<Path> left = Files.list(tmp)) {
      assertEquals(List.of(file.getFileName().toString()), left.map(p -> p.getFileName().toString()).toList(),
          "the file and nothing else: no part, lock or temporary file");
    }
    ChromeTrace t = ChromeTrace.read(file);
    assertEquals(options.getJobName(), t.root.getJsonObject("otherData").getString("job"));
    assertEquals(3, t.root.getJsonObject("otherData").getInteger("np"));
    assertEquals("", t.root.getJsonObject("otherData").getString("ranksWithoutTrace"));
    assertEquals(3, t.threadNames.size(), "one thread per rank, none for overlapping calls: " + t.threadNames);
    assertEquals(1, t.processNames.size(), "one JVM, one process: " + t.processNames);
    assertTrue(t.processNames.values().iterator().next().matches("job " + options.getJobName() + ": jvm \\d+.*"),
        t.processNames.toString());

    for (int r = 0; r < 3; r++) {
      int tid = t.tid("rank " + r);
      assertEquals(r + 1, tid, "rank N is thread N + 1");
      List<Event> calls = t.slices(tid, "sync").stream().sorted(Comparator.comparingLong(Event::ts)).toList();
      List<String> names = calls.stream().map(Event::name).toList();
      assertEquals(r == 0 ? List.of("fence", "fence", "lock_exclusive", "unlock") : List.of("fence", "fence"), names,
          "rank " + r + "'s synchronization calls in order");
      for (int k = 1; k < calls.size(); k++) {
        assertTrue(calls.get(k).ts() >= calls.get(k - 1).end(), "each call after the one it waited for: " + calls);
      }
      List<Event> fence = t.slices(tid, "epoch").stream().filter(e -> e.name().equals("fence epoch")).toList();
      assertEquals(1, fence.size(), "one fence epoch at rank " + r);
      Event epoch = fence.get(0);
      assertEquals(calls.get(0).end(), epoch.ts(), "the epoch opens as the first fence completes");
      assertEquals(calls.get(1).ts(), epoch.end(), "and ends as the closing fence is called");
      int win = epoch.args().getInteger("win");

      // two puts to the right neighbour in the fence epoch, arriving on its thread
      int right = (r + 1) % 3;
      List<Flow> out = t.flows.stream().filter(f -> f.from().tid() == tid).toList();
      assertEquals(r == 0 ? 3 : 2, out.size(), "rank " + r + "'s puts, each an arrow: " + out);
      for (Flow f : out) {
        assertEquals("put", f.start().name());
        assertEquals("put", f.from().name(), "the flow leaves the put's slice");
        assertEquals("op", f.from().cat());
        assertEquals(right, f.from().args().getInteger("target"));
        assertEquals(8, f.from().args().getInteger("bytes"));
        assertEquals(win, f.from().args().getInteger("win"));
        assertTrue(f.from().args().getDouble("latency_us") > 0, "a latency: " + f.from().json());
        assertEquals(t.tid("rank " + right), f.end().tid(), "the arrow ends on the target's thread");
        assertEquals("incoming put", f.to().name());
        assertEquals(r, f.to().args().getInteger("origin"));
      }
      List<Flow> inEpoch = out.stream().filter(f -> f.start().ts() >= epoch.ts() && f.start().ts() <= epoch.end())
          .toList();
      assertEquals(2, inEpoch.size(), "two puts issued inside rank " + r + "'s fence epoch");
      List<String> instants = t.events.stream().filter(e -> e.ph().equals("i") && e.tid() == tid).map(Event::name)
          .toList();
      assertEquals(r == 2 ? List.of("window created", "error", "window freed") : List.of("window created",
          "window freed"), instants, "rank " + r + "'s instants");
    }
    Event lock = t.slices(1, "epoch").stream().filter(e -> e.name().equals("lock epoch")).findFirst()
        .orElseThrow(() -> new AssertionError("rank 0's lock epoch"));
    assertEquals(1, lock.args().getInteger("target"));
    assertEquals("exclusive", lock.args().getString("lock"));
    Flow locked = t.flows.stream().filter(f -> f.from().tid() == 1 && f.start().ts() >= lock.ts()).findFirst()
        .orElseThrow();
    assertTrue(locked.start().ts() <= lock.end(), "the put under the lock leaves inside the lock epoch");
    assertEquals(t.tid("rank 1"), locked.end().tid(), "to rank 1");
    Event error = t.events.stream().filter(e -> e.name().equals("error")).findFirst().orElseThrow();
    assertEquals("RMA_SYNC", error.args().getString("class"));
    assertEquals(7, t.flows.size(), "7 puts arrived, 7 arrows (the refused one is none)");
  }

  /**
   * Point-to-point messages and collectives are in the trace too (issue 43: a point-to-point
   * program's trace had 0 events): 3 ranks each send two messages of different tags and sizes to
   * their right neighbour without awaiting them, and receive them tag by tag in the reverse order
   * of their sending; then a bcast from root 1, an allreduce and a barrier. Each message is an
   * arrow from its send's slice to its receive's slice; each collective a slice named for it.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void messagesAreArrowsAndCollectivesAreSlices(Jobs.Mode mode) throws IOException {
    Path file = tmp.resolve("p2p-" + mode + ".json");
    JobOptions options = Jobs.options(3).setTraceFile(file.toString());
    Jobs.await(Jobs.start(mode, options, (world, args) -> {
      int r = world.rank();
      int right = (r + 1) % 3;
      int left = (r + 2) % 3;
      Future<Void> a = world.send(Buf.of(new long[] {r}), 0, 1, Datatype.LONG, right, 5);
      Future<Void> b = world.send(Buf.of(new long[] {r, r, r}), 0, 3, Datatype.LONG, right, 6);
      long[] three = new long[3];
      long[] one = new long[1];
      long[] root = {r == 1 ? 41 : 0};
      return world.recv(Buf.of(three), 0, 3, Datatype.LONG, left, 6)
          .compose(s -> world.recv(Buf.of(one), 0, 1, Datatype.LONG, left, 5))
          .compose(s -> Future.all(a, b))
          .compose(v -> {
            assertEquals(left, one[0], "rank " + r + " got its left neighbour's first message");
            assertEquals(List.of((long) left, (long) left, (long) left), List.of(three[0], three[1], three[2]));
            return world.bcast(Buf.of(root), 0, 1, Datatype.LONG, 1);
          })
          .compose(v -> {
            assertEquals(41, root[0], "the bcast from rank 1 arrived");
            return world.allreduce((long) r, dev.vertxrma.Op.SUM);
          })
          .compose(sum -> {
            assertEquals(3L, sum);
            return world.barrier();
          });
    }), 120);

    ChromeTrace t = ChromeTrace.read(file);
    List<Flow> messages = t.flows.stream().filter(f -> f.from().cat().equals("p2p")).toList();
    assertEquals(6, messages.size(), "6 messages, 6 arrows: " + t.flows);
    for (int r = 0; r < 3; r++) {
      int tid = t.tid("rank " + r);
      int right = (r + 1) % 3;
      List<Flow> out = new ArrayList<>(messages.stream().filter(f -> f.from().tid() == tid).toList());
      out.sort(Comparator.comparingLong(f -> f.from().ts()));
      assertEquals(2, out.size(), "rank " + r + "'s two messages: " + out);
      for (int k = 0; k < 2; k++) {
        Flow f = out.get(k);
        assertEquals("message", f.start().name());
        assertEquals("send", f.from().name(), "the arrow leaves the send's slice");
        assertEquals(right, f.from().args().getInteger("dest"));
        assertEquals(k == 0 ? 5 : 6, f.from().args().getInteger("tag"), "sent in program order");
        assertEquals(k == 0 ? 8 : 24, f.from().args().getInteger("bytes"));
        assertEquals(t.tid("rank " + right), f.end().tid(), "the arrow ends on the receiver's thread");
        assertEquals("recv", f.to().name());
        assertEquals(r, f.to().args().getInteger("source"));
        assertTrue(f.to().ts() >= f.from().ts(), "received after it was sent: " + f);
      }
      assertTrue(out.get(1).to().ts() < out.get(0).to().ts(), "tag 6 was received first: " + out);
      List<Event> colls = t.slices(tid, "collective").stream().sorted(Comparator.comparingLong(Event::ts)).toList();
      assertEquals(List.of("bcast", "allreduce", "barrier", "finalize"), colls.stream().map(Event::name).toList(),
          "rank " + r + "'s collectives in order, MPI_Finalize's barrier last");
      assertEquals(1, colls.get(0).args().getInteger("root"));
      for (int k = 1; k < colls.size(); k++) {
        assertTrue(colls.get(k).ts() >= colls.get(k - 1).end(), "each after the one it waited for: " + colls);
      }
    }
  }
}
