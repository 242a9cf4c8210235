package dev.vertxrma.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A trace-event JSON file read back with Vert.x's JSON parser, and checked the way its two
 * viewers read it: every event well formed, the complete slices of each thread nested (Perfetto
 * drops slices that cross), and each flow's start and end bound to a slice as Perfetto binds them
 * (the innermost slice open on the thread when the flow event is processed, events sorted by
 * time, longer slices first) and as {@code chrome://tracing} does (the innermost slice whose
 * closed interval holds the flow event's time), both the same slice.
 */
public final class ChromeTrace {

  /** An event; times in nanoseconds, read as Perfetto reads them (microseconds times 1000, cut). */
  public record Event(int index, String ph, String name, String cat, int pid, int tid, long ts, long dur, JsonObject json) {

    public long end() {
      return ts + dur;
    }

    public JsonObject args() {
      JsonObject a = json.getJsonObject("args");
      return a == null ? new JsonObject() : a;
    }
  }

  /** A flow: its start and end events and the slices they bind to. */
  public record Flow(long id, Event start, Event end, Event from, Event to) {
  }

  public final JsonObject root;
  public final List<Event> events = new ArrayList<>();
  /** Thread names by thread id, process names by process id, each thread's process. */
  public final Map<Integer, String> threadNames = new HashMap<>();
  public final Map<Integer, String> processNames = new HashMap<>();
  public final Map<Integer, Integer> processOfThread = new HashMap<>();
  public final List<Flow> flows = new ArrayList<>();

  private ChromeTrace(JsonObject root) {
    this.root = root;
  }

  /** Reads and checks {@code file}. */
  public static ChromeTrace read(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    for (char c : text.toCharArray()) {
      assertTrue(c == '\n' || c >= 0x20 && c < 0x7f, "ASCII only, no raw control character: " + (int) c);
    }
    ChromeTrace t = new ChromeTrace(new JsonObject(text));
    t.check();
    return t;
  }

  /** The thread id named {@code name}. */
  public int tid(String name) {
    return threadNames.entrySet().stream().filter(e -> e.getValue().equals(name)).mapToInt(Map.Entry::getKey)
        .findFirst().orElseThrow(() -> new AssertionError("no thread named " + name + ": " + threadNames));
  }

  /** The complete slices of thread {@code tid} (in file order) with category {@code cat}. */
  public List<Event> slices(int tid, String cat) {
    return events.stream().filter(e -> e.ph.equals("X") && e.tid == tid && e.cat.equals(cat)).toList();
  }

  private static long nanos(Object micros, String what) {
    assertTrue(micros instanceof Number, what + " is a number: " + micros);
    if (micros instanceof Integer || micros instanceof Long) {
      return ((Number) micros).longValue() * 1000;
    }
    return (long) (((Number) micros).doubleValue() * 1000.0);
  }

  private void check() {
    JsonArray list = root.getJsonArray("traceEvents");
    assertNotNull(list, "a traceEvents array");
    assertEquals("ns", root.getString("displayTimeUnit"));
    assertNotNull(root.getJsonObject("otherData"));
    for (int i = 0; i < list.size(); i++) {
      JsonObject e = list.getJsonObject(i);
      String ph = e.getString("ph");
      assertTrue(Set.of("M", "X", "i", "s", "f").contains(ph), "a phase this exporter uses: " + e);
      for (String k : e.fieldNames()) {
        assertTrue(!(e.getValue(k) instanceof JsonArray), "no array as an event's field (Perfetto refuses it): " + e);
      }
      int pid = e.getInteger("pid");
      int tid = e.getInteger("tid");
      assertTrue(pid > 0 && tid > 0, "positive ids: " + e);
      if (ph.equals("M")) {
        String value = e.getJsonObject("args").getValue(e.getString("name").endsWith("index") ? "sort_index" : "name")
            .toString();
        switch (e.getString("name")) {
          case "thread_name" -> {
            threadNames.put(tid, value);
            processOfThread.put(tid, pid);
          }
          case "process_name" -> processNames.put(pid, value);
          case "thread_sort_index", "process_sort_index" -> { }
          default -> fail("unknown metadata " + e);
        }
        continue;
      }
      long ts = nanos(e.getValue("ts"), "ts");
      long dur = ph.equals("X") ? nanos(e.getValue("dur"), "dur") : -1;
      assertTrue(ts >= 0, "times from the trace's start: " + e);
      assertTrue(!ph.equals("X") || dur >= 0, "non-negative durations: " + e);
      assertNotNull(e.getString("name"), "named: " + e);
      assertNotNull(e.getString("cat"), "a category: " + e);
      if (ph.equals("i")) {
        assertEquals("t", e.getString("s"), "thread-scoped instants: " + e);
      }
      if (ph.equals("f")) {
        assertEquals("e", e.getString("bp"), "a flow end binds to its enclosing slice: " + e);
      }
      events.add(new Event(i, ph, e.getString("name"), e.getString("cat"), pid, tid, ts, dur, e));
    }
    for (Event e : events) {
      assertTrue(threadNames.containsKey(e.tid), "every thread named: " + e);
      assertEquals(processOfThread.get(e.tid), e.pid, "a thread belongs to one process: " + e);
      assertTrue(processNames.containsKey(e.pid), "every process named: " + e);
    }
    Map<Integer, List<Event>> byThread = new HashMap<>();
    for (Event e : events) {
      byThread.computeIfAbsent(e.tid, k -> new ArrayList<>()).add(e);
    }
    Map<Long, Event[]> bound = new HashMap<>(); // flow id -> start, end, from, to
    for (List<Event> thread : byThread.values()) {
      checkThread(thread, bound);
    }
    for (Map.Entry<Long, Event[]> f : bound.entrySet()) {
      Event[] b = f.getValue();
      assertNotNull(b[0], "flow " + f.getKey() + " has a start");
      assertNotNull(b[1], "flow " + f.getKey() + " has an end");
      assertTrue(b[0].ts <= b[1].ts, "a flow ends after it starts: " + b[0] + " " + b[1]);
      flows.add(new Flow(f.getKey(), b[0], b[1], b[2], b[3]));
    }
    flows.sort(Comparator.comparingLong(Flow::id));
  }

  /** Nesting and flow binding on one thread, as both viewers do them. */
  private void checkThread(List<Event> thread, Map<Long, Event[]> bound) {
    List<Event> sorted = new ArrayList<>(thread);
    // Perfetto's order: time, then complete slices longest first, then the rest in file order
    sorted.sort(Comparator.comparingLong(Event::ts).thenComparingLong(e -> e.ph.equals("X") && e.dur > 0 ? -e.dur : 0)
        .thenComparingInt(Event::index));
    Deque<Event> stack = new ArrayDeque<>();
    long lastInstant = Long.MIN_VALUE;
    for (Event e : sorted) {
      switch (e.ph) {
        case "X", "i" -> {
          while (!stack.isEmpty() && stack.peek().end() <= e.ts) {
            stack.pop();
          }
          long end = e.ph.equals("X") ? e.end() : e.ts;
          Event top = stack.peek();
          assertTrue(top == null || top.end() >= end, () -> "slices of a thread nest, these cross: " + top.json
              + " and " + e.json);
          if (e.ph.equals("X")) {
            stack.push(e);
          }
        }
        case "s", "f" -> {
          long id = e.json.getLong("id");
          Event perfetto = stack.peek();
          Event chrome = innermost(thread, e.ts);
          assertNotNull(perfetto, "a slice open where flow " + id + " " + e.ph + " is: " + e.json);
          assertEquals(perfetto, chrome, "both viewers bind flow " + id + " " + e.ph + " to the same slice");
          assertEquals(e.ts, perfetto.ts, "flow " + id + " binds to the slice it starts with: " + perfetto.json);
          Event[] b = bound.computeIfAbsent(id, k -> new Event[4]);
          int at = e.ph.equals("s") ? 0 : 1;
          assertTrue(b[at] == null, "one " + e.ph + " for flow " + id);
          b[at] = e;
          b[at + 2] = perfetto;
        }
        default -> { }
      }
    }
    // instants in file order by time (chrome://tracing refuses one that goes back in time)
    for (Event e : thread) {
      if (e.ph.equals("i")) {
        assertTrue(e.ts >= lastInstant, "instants of a thread in time order: " + e.json);
        lastInstant = e.ts;
      }
    }
  }

  /** The innermost complete slice of the thread whose closed interval holds {@code ts}. */
  private static Event innermost(List<Event> thread, long ts) {
    Event best = null;
    for (Event e : thread) {
      if (e.ph.equals("X") && e.ts <= ts && ts <= e.end()
          && (best == null || e.ts > best.ts || e.ts == best.ts && e.dur < best.dur)) {
        best = e;
      }
    }
    return best;
  }
}
