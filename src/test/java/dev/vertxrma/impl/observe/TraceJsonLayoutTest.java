package dev.vertxrma.impl.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.testing.ChromeTrace;
import dev.vertxrma.testing.ChromeTrace.Event;
import dev.vertxrma.testing.ChromeTrace.Flow;
import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trace-event JSON of made-up traces that real jobs produce only by chance: calls and epochs
 * that cross, operations issued and completed at the very same nanosecond, stamps that fall on
 * other slices' edges, strings that need escaping, operations never answered, a rank without a
 * trace. Each file is read back and checked as both viewers read it ({@link ChromeTrace}).
 */
class TraceJsonLayoutTest {

  @TempDir
  Path tmp;

  private static final long T0 = 1_700_000_000_000_000_000L; // wall-clock nanoseconds

  /** Builds one rank's events: {type, kind, flags, win, peer, t, a, b}, times relative to T0. */
  private static TraceData.RankEvents rank(int rank, String label, List<long[]> rows) {
    TraceData.RankEvents r = new TraceData.RankEvents(rank, label, 0, rows.size());
    for (int k = 0; k < rows.size(); k++) {
      long[] e = rows.get(k);
      r.meta[k] = (int) (e[0] << 24 | e[1] << 8 | e[2]);
      r.win[k] = (int) e[3];
      r.peer[k] = (int) e[4];
      r.t[k] = T0 + e[5];
      r.a[k] = e[0] == TraceRecorder.SYNC ? T0 + e[6] : e[6];
      r.b[k] = e[7];
    }
    return r;
  }

  private static long[] sync(Sync kind, int peer, long start, long end) {
    return new long[] {TraceRecorder.SYNC, kind.ordinal(), 0, 1, peer, start, end, 0};
  }

  private static long[] put(int target, long at, long seq) {
    return new long[] {TraceRecorder.OP, FrameType.PUT, 0, 1, target, at, 8, seq};
  }

  private static long[] done(int target, long at, long seq) {
    return new long[] {TraceRecorder.DONE, 0, 0, 1, target, at, 0, seq};
  }

  private ChromeTrace write(TraceData data) throws IOException {
    Path f = tmp.resolve("t.json");
    try (Writer out = Files.newBufferedWriter(f, StandardCharsets.UTF_8)) {
      TraceJson.write(data, out);
    }
    return ChromeTrace.read(f);
  }

  @Test
  void callsAndEpochsThatCrossGoToAFurtherThreadOfTheRank() throws IOException {
    TraceData d = new TraceData("cross", 3);
    List<long[]> r0 = new ArrayList<>();
    r0.add(sync(Sync.LOCK_EXCLUSIVE, 1, 100, 200)); // granted at 200: lock epoch on 1 from 200
    r0.add(sync(Sync.LOCK_SHARED, 2, 150, 300)); // its wait crosses the first's and its epoch
    r0.add(put(1, 400, 1));
    r0.add(done(1, 450, 1));
    r0.add(sync(Sync.UNLOCK, 1, 600, 650)); // lock epoch on 1: 200..600
    r0.add(sync(Sync.UNLOCK, 2, 800, 850)); // lock epoch on 2: 300..800, crosses 200..600
    d.ranks.add(rank(0, "jvm 1", r0));
    d.ranks.add(rank(1, "jvm 1", List.of()));
    d.ranks.add(rank(2, "jvm 1", List.of()));
    ChromeTrace t = write(d);
    int own = t.tid("rank 0");
    int more = t.tid("rank 0 (overlapping)");
    List<Event> all = t.events.stream().filter(e -> e.ph().equals("X") && (e.tid() == own || e.tid() == more)
        && !e.cat().equals("op")).toList();
    assertEquals(6, all.size(), "the 4 calls and 2 epochs, none dropped: " + all);
    assertTrue(all.stream().anyMatch(e -> e.tid() == more), "some on the further thread");
    assertEquals(t.processOfThread.get(own), t.processOfThread.get(more), "in the rank's process");
    assertEquals(1, t.flows.size());
    assertEquals(own, t.flows.get(0).from().tid(), "operations stay on the rank's own thread");
    assertEquals(t.tid("rank 1"), t.flows.get(0).to().tid());
  }

  @Test
  void operationsAtTheSameNanosecondEachGetTheirOwnSliceAndArrow() throws IOException {
    TraceData d = new TraceData("burst", 2);
    List<long[]> r0 = new ArrayList<>();
    r0.add(sync(Sync.FENCE, -1, 900, 1000)); // epoch opens at 1000, when all the puts leave
    for (int i = 1; i <= 50; i++) {
      r0.add(put(1, 1000, i));
    }
    r0.add(put(0, 1000, 1)); // one to itself
    for (int i = 1; i <= 50; i++) {
      r0.add(done(1, 1500, i)); // all answered at once
    }
    r0.add(done(0, 1500, 1));
    r0.add(sync(Sync.FENCE_END, -1, 1500, 1500)); // a call that did not wait, at that very time
    d.ranks.add(rank(0, "jvm 1", r0));
    List<long[]> r1 = new ArrayList<>();
    r1.add(sync(Sync.FENCE, -1, 950, 1000));
    r1.add(sync(Sync.FENCE_END, -1, 1200, 1500)); // ends when the answers arrive
    r1.add(new long[] {TraceRecorder.WIN_FREED, 0, 0, 1, -1, 1501, 0, 0});
    d.ranks.add(rank(1, "jvm 1", r1));
    ChromeTrace t = write(d);
    assertEquals(51, t.flows.size(), "every operation an arrow");
    Set<Event> from = new HashSet<>();
    Set<Event> to = new HashSet<>();
    for (Flow f : t.flows) {
      assertTrue(from.add(f.from()), "each flow leaves its own slice");
      assertTrue(to.add(f.to()), "and arrives at its own slice");
      assertTrue(f.from().dur() >= 1 && f.from().dur() <= TraceJson.LEAF_NANOS, "short slices: " + f.from());
    }
    assertEquals(2, t.threadNames.size(), "nothing overlapping: " + t.threadNames);
    Event epoch = t.slices(t.tid("rank 0"), "epoch").get(0);
    for (Flow f : t.flows) {
      assertTrue(f.from().ts() > epoch.ts() && f.from().end() <= epoch.end(), "the burst stays in its epoch "
          + epoch.json() + ": " + f.from().json());
    }
  }

  @Test
  void unansweredOperationsAndRanksWithoutTraceHaveNoArrow() throws IOException {
    TraceData d = new TraceData("gaps", 3);
    d.ranks.add(rank(0, "jvm 1", List.of(put(1, 10, 1), put(2, 20, 1), done(2, 30, 1))));
    d.ranks.add(rank(1, "jvm 2", List.of(new long[] {TraceRecorder.ERROR, ErrorClass.RMA_SYNC.code(), 1, 1, -1, 5,
        0, 0})));
    ChromeTrace t = write(d);
    assertEquals("2", t.root.getJsonObject("otherData").getString("ranksWithoutTrace"));
    assertTrue(t.flows.isEmpty(), "one never answered, one to a rank without a trace: " + t.flows);
    List<Event> puts = t.slices(t.tid("rank 0"), "op");
    assertEquals(2, puts.size());
    assertEquals(false, puts.get(0).args().getBoolean("completed"), "never answered: " + puts.get(0).json());
    assertEquals(0.01, puts.get(1).args().getDouble("latency_us"), 1e-9, "10 ns");
    assertEquals(2, t.processNames.size(), "one process per JVM: " + t.processNames);
    assertEquals("RMA_SYNC", t.events.stream().filter(e -> e.name().equals("error")).findFirst().orElseThrow()
        .args().getString("class"));
  }

  @Test
  void stringsAreEscapedToAsciiJson() throws IOException {
    String label = "jvm 7 @h\"o\\st\n\t\u0001\u007f\u00e9\u20ac\ud83d\ude00/";
    TraceData d = new TraceData("esc", 1);
    d.ranks.add(rank(0, label, List.of(new long[] {TraceRecorder.WIN_CREATED, 1, 0, 1, -1, 0, 64, 0})));
    ChromeTrace t = write(d);
    assertEquals("job esc: " + label, t.processNames.values().iterator().next(), "the name read back as it was");
    StringWriter s = new StringWriter();
    new TraceEventWriter(s).string("\u0000\u001f\"\\\u2028");
    assertEquals("{\"traceEvents\":[\"\\u0000\\u001f\\\"\\\\\\u2028\"", s.toString());
  }

  @Test
  void microsecondsReadBackToTheNanosecond() throws IOException {
    Random random = new Random(42);
    List<Long> values = new ArrayList<>(List.of(0L, 1L, 999L, 1000L, 1001L, 4_003L, 12_345_678L, 86_400_000_000_001L));
    for (int i = 0; i < 200_000; i++) {
      values.add(random.nextLong(1L << 46)); // up to about 19 hours
    }
    int biased = 0;
    for (long ns : values) {
      StringWriter s = new StringWriter();
      TraceEventWriter w = new TraceEventWriter(s);
      s.getBuffer().setLength(0);
      w.micros(ns);
      String text = s.toString();
      assertEquals(ns, (long) (Double.parseDouble(text) * 1000.0), "a double reader gets " + ns + " from " + text);
      int dot = text.indexOf('.');
      long exact = dot < 0 ? Long.parseLong(text) * 1000
          : Long.parseLong(text.substring(0, dot)) * 1000 + Long.parseLong(text.substring(dot + 1, dot + 4));
      assertEquals(ns, exact, "an exact reader (3 decimals) gets " + ns + " from " + text);
      if (text.length() - dot == 5 && dot >= 0) {
        biased++;
      }
    }
    assertTrue(biased > 0, "some values need the fourth decimal");
    assertFalse(values.isEmpty());
  }
}
