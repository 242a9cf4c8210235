package dev.vertxrma.impl.observe;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.impl.observe.RankTimeline.Call;
import dev.vertxrma.impl.observe.RankTimeline.Epoch;
import dev.vertxrma.impl.observe.RankTimeline.Mark;
import dev.vertxrma.impl.observe.RankTimeline.Op;
import dev.vertxrma.impl.observe.TraceEventWriter.Micros;
import java.io.IOException;
import java.io.Writer;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes a job's trace in the trace-event JSON format that ui.perfetto.dev and
 * {@code chrome://tracing} open. One process per JVM of the job (named {@code job JOB: jvm PID},
 * as the ranks' trace parts say where they ran), each rank a thread of it named {@code rank N}
 * (thread id N + 1). On a rank's thread: its epochs (category {@code epoch}) and its
 * synchronization calls from call to completion (category {@code sync}) as complete slices;
 * every operation it issued as a short slice at its issue (category {@code op}, named by its kind,
 * its latency and target in the arguments), with a flow arrow to a short slice on the target's
 * thread ({@code incoming put}, ...) at the time the origin learned it complete; windows created
 * and freed and failed calls as instants; a point-to-point message as a slice {@code send}
 * (category {@code p2p}) with a flow arrow to a slice {@code recv} on the receiver's thread at its
 * receive; a collective call as a slice named for it (category {@code collective}) from the call
 * to its completion. Times are microseconds from the first event
 * ({@code otherData.start} says when that was).
 *
 * <p>Both viewers drop or misplace slices of one thread that overlap without nesting, and bind a
 * flow's ends to the slice around them. So: a rank's calls and epochs that would cross one
 * another (two lock epochs released in the order they were granted, calls issued without
 * awaiting each other) go to a further thread of that rank named {@code rank N (overlapping)};
 * the operations' slices last 1 µs at most, end before the next boundary of their thread, never
 * touch one another and never start where another slice starts or ends, so each flow binds to
 * its own slice; equal start times are written longest first.
 */
final class TraceJson {

  /** The longest an operation's slice lasts on a thread. */
  static final long LEAF_NANOS = 1_000;

  private TraceJson() {
  }

  /** A complete slice of a rank's calls or epochs: category, name, start, end, arguments (name, value pairs). */
  private record Slice(String cat, String name, long t0, long t1, Object[] args) {
  }

  /** An issued operation, where its slices landed (origin's at s0, target's at s1) and its flow's id. */
  private static final class Placed {
    final Op op;
    long s0;
    long e0;
    long s1 = -1;
    long e1;
    long id;

    Placed(Op op) {
      this.op = op;
    }
  }

  /** One rank's tracks. */
  private static final class Rank {
    final RankTimeline tl;
    /** Slices per track: index 0 the rank's own thread, then the overlapping ones. */
    final List<List<Slice>> lanes = new ArrayList<>();
    /** Starts and ends of the slices and instants of track 0, sorted. */
    long[] bounds;
    /** The operations' slices on track 0: start to end. */
    final TreeMap<Long, Long> leaves = new TreeMap<>();
    /** The times the operations' slices on track 0 would start at, sorted. */
    long[] wants;
    /** The operations it issued, and those it was the target of, placed. */
    final List<Placed> issued = new ArrayList<>();
    final List<Placed> arriving = new ArrayList<>();
    /** The thread id of each track. */
    int[] tids;

    Rank(RankTimeline tl) {
      this.tl = tl;
    }
  }

  /** Writes {@code data} to {@code out} (which it does not close), streaming: no event is held as text. */
  static void write(TraceData data, Writer out) throws IOException {
    long[] span = RankTimeline.span(data);
    long origin = span[0];
    long end = Math.max(span[1], origin);
    Map<Integer, Rank> ranks = new TreeMap<>();
    for (TraceData.RankEvents r : data.ranks) {
      Rank rank = new Rank(RankTimeline.of(r, end));
      layOut(rank);
      ranks.put(r.rank, rank);
    }
    Map<Integer, RankTimeline> timelines = new TreeMap<>();
    ranks.forEach((n, rank) -> timelines.put(n, rank.tl));
    RankTimeline.matchMessages(timelines, end);
    placeOperations(ranks);

    // thread ids: N + 1 for rank N's own track, then its overlapping ones after every rank's;
    // process ids after them: one per JVM (where the ranks' parts say they ran), first rank first
    int nextTid = data.np + 1;
    Map<String, Integer> jvms = new LinkedHashMap<>();
    for (Rank r : ranks.values()) {
      jvms.putIfAbsent(r.tl.events.label, jvms.size());
      r.tids = new int[r.lanes.size()];
      for (int lane = 0; lane < r.tids.length; lane++) {
        r.tids[lane] = lane == 0 ? r.tl.rank() + 1 : nextTid++;
      }
    }
    int firstPid = Math.max(nextTid, data.np + 1);
    TraceEventWriter w = new TraceEventWriter(out);
    for (Map.Entry<String, Integer> jvm : jvms.entrySet()) {
      int pid = firstPid + jvm.getValue();
      w.metadata("process_name", pid, pid, "name", "job " + data.job + ": " + jvm.getKey());
      w.metadata("process_sort_index", pid, pid, "sort_index", jvm.getValue());
    }
    for (Rank r : ranks.values()) {
      int pid = firstPid + jvms.get(r.tl.events.label);
      for (int lane = 0; lane < r.tids.length; lane++) {
        w.metadata("thread_name", pid, r.tids[lane], "name", "rank " + r.tl.rank()
            + (lane == 0 ? "" : " (overlapping" + (lane == 1 ? "" : " " + lane) + ")"));
        w.metadata("thread_sort_index", pid, r.tids[lane], "sort_index", r.tl.rank() * 64 + Math.min(lane, 63));
      }
    }
    for (Rank r : ranks.values()) {
      int pid = firstPid + jvms.get(r.tl.events.label);
      writeTrack(w, r, pid, origin);
      for (int lane = 1; lane < r.lanes.size(); lane++) {
        for (Slice s : r.lanes.get(lane)) {
          w.complete(s.name(), s.cat(), pid, r.tids[lane], s.t0() - origin, s.t1() - s.t0(), s.args());
        }
      }
    }
    long events = 0;
    long dropped = 0;
    StringBuilder missing = new StringBuilder();
    for (TraceData.RankEvents r : data.ranks) {
      events += r.size();
      dropped += r.dropped;
    }
    for (int r = 0; r < data.np; r++) {
      if (!ranks.containsKey(r)) {
        missing.append(missing.length() == 0 ? "" : ", ").append(r);
      }
    }
    w.end("source", "vertx-rma", "job", data.job, "np", data.np, "start", Instant.ofEpochSecond(0, origin).toString(),
        "eventsRecorded", events, "earliestEventsDropped", dropped, "ranksWithoutTrace", missing.toString());
  }

  /** Puts a rank's epochs and calls on tracks where every slice nests in the one it starts in. */
  private static void layOut(Rank r) {
    List<Slice> slices = new ArrayList<>();
    for (Epoch e : r.tl.epochs) {
      Object[] args = e.kind().equals("lock")
          ? new Object[] {"win", e.win(), "target", e.peer(), "lock", e.exclusive() ? "exclusive" : "shared"}
          : new Object[] {"win", e.win()};
      slices.add(new Slice("epoch", e.kind() + " epoch", e.t0(), e.t1(), args));
    }
    for (Call c : r.tl.calls) {
      List<Object> args = new ArrayList<>(List.of("win", c.win()));
      if (c.peer() >= 0) {
        args.addAll(List.of("target", c.peer()));
      }
      if (c.failed()) {
        args.addAll(List.of("failed", true));
      }
      slices.add(new Slice("sync", c.kind().label(), c.t0(), c.t1(), args.toArray()));
    }
    for (RankTimeline.Collective c : r.tl.collectives) {
      List<Object> args = new ArrayList<>();
      if (c.root() >= 0) {
        args.addAll(List.of("root", c.root()));
      }
      if (c.failed()) {
        args.addAll(List.of("failed", true));
      }
      slices.add(new Slice("collective", c.name(), c.t0(), c.t1(), args.toArray()));
    }
    slices.sort(Comparator.comparingLong(Slice::t0).thenComparing(Comparator.comparingLong(Slice::t1).reversed()));
    List<Deque<Long>> open = new ArrayList<>();
    for (Slice s : slices) {
      int lane = 0;
      for (;; lane++) {
        if (lane == open.size()) {
          open.add(new ArrayDeque<>());
          r.lanes.add(new ArrayList<>());
        }
        Deque<Long> stack = open.get(lane);
        while (!stack.isEmpty() && stack.peek() <= s.t0()) {
          stack.pop(); // ended before it starts (or as it starts)
        }
        if (stack.isEmpty() || stack.peek() >= s.t1()) {
          stack.push(s.t1());
          r.lanes.get(lane).add(s);
          break;
        }
      }
    }
    if (r.lanes.isEmpty()) {
      r.lanes.add(new ArrayList<>());
    }
    List<Slice> own = r.lanes.get(0);
    long[] b = new long[own.size() * 2 + r.tl.marks.size()];
    int n = 0;
    for (Slice s : own) {
      b[n++] = s.t0();
      b[n++] = s.t1();
    }
    for (Mark m : r.tl.marks) {
      b[n++] = m.t();
    }
    Arrays.sort(b);
    r.bounds = b;
  }

  /** Places the operations' slices: at their origins first, then at their targets, each after its start. */
  private static void placeOperations(Map<Integer, Rank> ranks) {
    Map<Integer, List<Long>> wants = new TreeMap<>();
    for (Rank r : ranks.values()) {
      for (Op op : r.tl.ops) {
        wants.computeIfAbsent(r.tl.rank(), k -> new ArrayList<>()).add(op.t0());
        if (op.done() && ranks.containsKey(op.target())) {
          wants.computeIfAbsent(op.target(), k -> new ArrayList<>()).add(Math.max(op.t1(), op.t0() + 1));
        }
      }
    }
    for (Rank r : ranks.values()) {
      r.wants = wants.getOrDefault(r.tl.rank(), List.of()).stream().mapToLong(Long::longValue).sorted().toArray();
    }
    List<Placed> arriving = new ArrayList<>();
    for (Rank r : ranks.values()) {
      for (Op op : r.tl.ops) {
        Placed p = new Placed(op);
        p.s0 = place(r, op.t0());
        p.e0 = r.leaves.get(p.s0);
        r.issued.add(p);
        if (op.done() && ranks.containsKey(op.target())) {
          arriving.add(p);
        }
      }
    }
    arriving.sort(Comparator.comparingLong(p -> Math.max(p.op.t1(), p.s0 + 1)));
    long id = 0;
    for (Placed p : arriving) {
      Rank target = ranks.get(p.op.target());
      p.s1 = place(target, Math.max(p.op.t1(), p.s0 + 1));
      p.e1 = target.leaves.get(p.s1);
      p.id = ++id;
      target.arriving.add(p);
    }
  }

  /**
   * Finds the first time from {@code wanted} where a short slice fits on rank {@code r}'s own
   * track: not on a start or end of another slice or an instant (it ends by the next one, so it
   * nests in whatever encloses it), not touching another operation's slice; records it and
   * returns its start. It leaves room for the slices that want to start at the same time or soon
   * after, so that a burst stays where it happened.
   */
  private static long place(Rank r, long wanted) {
    int from = lowerBound(r.wants, wanted);
    int to = lowerBound(r.wants, wanted + 1);
    long room = LEAF_NANOS;
    if (to < r.wants.length) {
      room = Math.min(room, (r.wants[to] - wanted) / Math.max(1, to - from) - 1);
    }
    room = Math.max(1, room);
    long t = wanted;
    while (true) {
      Map.Entry<Long, Long> before = r.leaves.floorEntry(t);
      if (before != null && before.getValue() + 1 > t) {
        t = before.getValue() + 1; // inside or touching the previous one
        continue;
      }
      int i = Arrays.binarySearch(r.bounds, t);
      if (i >= 0) {
        t++;
        continue;
      }
      long next = -i - 1 < r.bounds.length ? r.bounds[-i - 1] : Long.MAX_VALUE;
      Map.Entry<Long, Long> after = r.leaves.higherEntry(t);
      long stop = Math.min(t + room, next);
      if (after != null) {
        if (after.getKey() - 1 <= t) {
          t = after.getValue() + 1;
          continue;
        }
        stop = Math.min(stop, after.getKey() - 1);
      }
      r.leaves.put(t, stop);
      return t;
    }
  }

  /** The index of the first of {@code sorted} not below {@code v}. */
  private static int lowerBound(long[] sorted, long v) {
    int i = Arrays.binarySearch(sorted, v);
    if (i < 0) {
      return -i - 1;
    }
    while (i > 0 && sorted[i - 1] == v) {
      i--;
    }
    return i;
  }

  /** One event of a track, to be written in time order. */
  private record Item(long ts, long dur, int seq, Slice slice, Placed op, boolean arriving, Mark mark) {
  }

  /** Writes the rank's own track: its slices, its operations' slices and flows, its instants. */
  private static void writeTrack(TraceEventWriter w, Rank r, int pid, long origin) throws IOException {
    List<Item> items = new ArrayList<>();
    for (Slice s : r.lanes.get(0)) {
      items.add(new Item(s.t0(), s.t1() - s.t0(), items.size(), s, null, false, null));
    }
    for (Placed p : r.issued) {
      items.add(new Item(p.s0, p.e0 - p.s0, items.size(), null, p, false, null));
    }
    for (Placed p : r.arriving) {
      items.add(new Item(p.s1, p.e1 - p.s1, items.size(), null, p, true, null));
    }
    for (Mark m : r.tl.marks) {
      items.add(new Item(m.t(), -1, items.size(), null, null, false, m));
    }
    // time order; at one time the longest first (it encloses the others), instants last
    items.sort(Comparator.comparingLong(Item::ts).thenComparing(Comparator.comparingLong(Item::dur).reversed())
        .thenComparingInt(Item::seq));
    int tid = r.tids[0];
    for (Item it : items) {
      long ts = it.ts() - origin;
      if (it.slice() != null) {
        Slice s = it.slice();
        w.complete(s.name(), s.cat(), pid, tid, ts, it.dur(), s.args());
      } else if (it.mark() != null) {
        mark(w, it.mark(), pid, tid, ts);
      } else {
        Op op = it.op().op;
        String kind = RankTimeline.OP_NAMES[op.kind()];
        boolean message = op.kind() == RankTimeline.MESSAGE;
        List<Object> args = new ArrayList<>(List.of(it.arriving() ? (message ? "source" : "origin")
            : (message ? "dest" : "target"), it.arriving() ? op.origin() : op.target(), "bytes", op.bytes(),
            message ? "tag" : "win", op.win()));
        if (op.done()) {
          args.addAll(List.of("latency_us", new Micros(op.t1() - op.t0())));
        } else {
          args.addAll(List.of("completed", false));
        }
        if (op.failed() && op.done()) {
          args.addAll(List.of("failed", true));
        }
        String cat = message ? "p2p" : "op";
        String name = !it.arriving() ? kind : message ? "recv" : "incoming " + kind;
        w.complete(name, cat, pid, tid, ts, it.dur(), args.toArray());
        if (it.op().s1 >= 0) {
          w.flow(it.arriving() ? 'f' : 's', message ? "message" : kind, cat, it.op().id, pid, tid, ts);
        }
      }
    }
  }

  private static void mark(TraceEventWriter w, Mark m, int pid, int tid, long ts) throws IOException {
    if (m.type() == TraceRecorder.ERROR) {
      ErrorClass ec = ErrorClass.ofCode(m.extra());
      w.instant("error", "error", pid, tid, ts, "win", m.win(), "class", ec == null ? "error " + m.extra() : ec.name());
    } else if (m.type() == TraceRecorder.WIN_CREATED) {
      w.instant("window created", "window", pid, tid, ts, "win", m.win(), "flavor", TraceRecorder.FLAVORS[m.extra()]);
    } else {
      w.instant("window freed", "window", pid, tid, ts, "win", m.win());
    }
  }
}
