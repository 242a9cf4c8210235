package dev.vertxrma.impl.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The recorder's bounded ring, the parts of a trace over several JVMs, and the page made of them. */
class TraceRecorderTest {

  @TempDir
  Path tmp;

  @Test
  void noObserverUnlessAskedFor() {
    assertSame(RankObserver.NOOP, Observers.forWindow("job", 0, RankObserver.NOOP), "nothing bound, no trace");
    Future<Void> f = Future.succeededFuture();
    assertSame(f, RankObserver.NOOP.sync(1, Sync.FENCE, -1, f), "NOOP hands back the future it is given");
    assertSame(f, RankObserver.NOOP.failures(1, f));
  }

  @Test
  void theRingKeepsTheLastEventsAndCountsTheRest() {
    TraceRecorder r = new TraceRecorder(3, 16);
    for (int i = 0; i < 100; i++) {
      r.opIssued(1, FrameType.PUT, 0, 8, i + 1);
    }
    TraceData.RankEvents e = r.snapshot("here", 1000);
    assertEquals(16, e.size(), "bounded memory");
    assertEquals(84, e.dropped, "the oldest overwritten, counted");
    assertEquals(85, e.b[0], "the oldest kept is the 85th");
    assertEquals(100, e.b[15], "the newest last");
    assertEquals(TraceRecorder.OP, e.type(0));
    assertEquals(FrameType.PUT, e.kind(0));
  }

  @Test
  void aSyncCallIsRecordedWhenItCompletesWithItsWait() {
    TraceRecorder r = new TraceRecorder(0, 16);
    Promise<Void> p = Promise.promise();
    Future<Void> observed = r.sync(2, Sync.LOCK_EXCLUSIVE, 1, p.future());
    assertEquals(0, r.snapshot("x", 0).size(), "nothing until it completes");
    p.complete();
    assertTrue(observed.succeeded());
    TraceData.RankEvents e = r.snapshot("x", 0);
    assertEquals(1, e.size());
    assertEquals(TraceRecorder.SYNC, e.type(0));
    assertEquals(Sync.LOCK_EXCLUSIVE.ordinal(), e.kind(0));
    assertTrue(e.a[0] >= e.t[0], "the end after the start");
    assertEquals(1, e.peer[0]);
  }

  private static Trace traceWith(Path file, String job, int np, int... ranks) {
    Trace t = new Trace(file, job, np);
    for (int rank : ranks) {
      RankObserver o = t.recorder(rank);
      o.windowCreated(1, "ALLOCATE", 64);
      o.opIssued(1, FrameType.ACC, (rank + 1) % np, 16, 1);
      o.opCompleted(1, (rank + 1) % np, 1, false);
      o.windowFreed(1);
    }
    return t;
  }

  private List<String> files() throws IOException {
    try (Stream<Path> s = Files.list(tmp)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void theLastPartRendersEveryPart() throws IOException {
    Path file = tmp.resolve("t.html");
    traceWith(file, "j", 4, 0, 1).write();
    assertEquals(List.of("t.html.j.part-0"), files(), "a part, no page yet");
    traceWith(file, "j", 4, 2, 3).write();
    assertEquals(List.of("t.html"), files(), "the page, parts deleted");
    String html = Files.readString(file);
    for (int r = 0; r < 4; r++) {
      assertTrue(html.contains(">rank " + r + "<"), "lane " + r);
    }
    assertEquals(4, html.split("class=\"op").length - 1, "an arrow per rank");
  }

  @Test
  void partsLeftByADeadJvmAreRenderedOnRequestNamingTheMissingRanks() throws IOException {
    Path file = tmp.resolve("t.html");
    traceWith(file, "k", 4, 2, 3).write();
    traceWith(file, "other", 2, 0).write(); // another job's part, left alone
    assertFalse(Files.exists(file));
    assertTrue(Trace.renderParts(file, "k", 4));
    assertEquals(List.of("t.html", "t.html.other.part-0"), files());
    assertTrue(Files.readString(file).contains("no trace from ranks [0, 1]"));
    assertFalse(Trace.renderParts(file, "k", 4), "nothing left to render");
  }
}
