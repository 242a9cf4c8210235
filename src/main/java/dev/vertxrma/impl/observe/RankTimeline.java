package dev.vertxrma.impl.observe;

import dev.vertxrma.impl.transport.FrameType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one rank's recorded events mean, worked out once for both renderings of a trace
 * ({@link TimelineHtml}, {@link TraceJson}): its epochs (from the synchronization call that opens
 * one to the call that closes it), its synchronization calls with their waits, the operations it
 * issued (issue to completion), the instants (windows created and freed, failed calls) and its
 * totals. Times are the trace's wall-clock nanoseconds.
 */
final class RankTimeline {

  /** Operation kinds, in the order of {@link #opIndex}. */
  static final String[] OP_NAMES = {"put", "get", "accumulate", "get_accumulate", "compare_and_swap", "fetch_and_op",
      "put_notify", "get_notify", "accumulate_notify", "get_accumulate_notify", "send"};
  /** The index in {@link #OP_NAMES} of a point-to-point message, from its send to its receive. */
  static final int MESSAGE = 10;

  /** The collective calls a trace shows, by the index it records. */
  static final String[] COLLECTIVE_NAMES = {"barrier", "bcast", "gather", "gatherv", "allgather", "allgatherv",
      "scatter", "scatterv", "alltoall", "alltoallv", "alltoallw", "reduce", "allreduce", "reduce_scatter",
      "reduce_scatter_block", "scan", "exscan", "finalize", "collective"};

  /**
   * An epoch of window {@code win}: {@code kind} is {@code fence}, {@code access},
   * {@code exposure}, {@code lock} (then {@code peer} is the locked rank and {@code exclusive} its
   * type) or {@code lock_all}; from the completion of the call that opened it to the start of the
   * call that closed it (or the window's free, or the end of the trace).
   */
  record Epoch(String kind, int win, int peer, boolean exclusive, long t0, long t1) {
  }

  /** A synchronization call, from the call to its completion; {@code peer} -1 unless it names a rank. */
  record Call(Sync kind, int win, int peer, long t0, long t1, boolean failed) {
  }

  /**
   * An operation issued by {@code origin} to {@code target} ({@link #OP_NAMES} index {@code kind});
   * {@code t1} its completion, or the end of the trace if it was never answered ({@code done} false).
   * A point-to-point message ({@link #MESSAGE}) lasts from its send to its receive, and its
   * {@code win} is its tag.
   */
  record Op(int origin, int target, int kind, long bytes, long t0, long t1, boolean done, boolean failed, int win) {
  }

  /** A collective call ({@link #COLLECTIVE_NAMES}), from the call to its completion; {@code root} -1 if it has none. */
  record Collective(String name, int root, long t0, long t1, boolean failed) {
  }

  /**
   * An instant: {@link TraceRecorder#WIN_CREATED} ({@code extra} the flavor's index in
   * {@link TraceRecorder#FLAVORS}), {@link TraceRecorder#WIN_FREED} or {@link TraceRecorder#ERROR}
   * ({@code extra} the error class's code).
   */
  record Mark(long t, int type, int win, int extra) {
  }

  final TraceData.RankEvents events;
  final List<Epoch> epochs = new ArrayList<>();
  final List<Call> calls = new ArrayList<>();
  final List<Op> ops = new ArrayList<>();
  final List<Mark> marks = new ArrayList<>();
  final List<Collective> collectives = new ArrayList<>();
  /** Messages sent whose receive is not matched yet ({@link #matchMessages}): event index by destination and number. */
  private final Map<Long, Integer> sent = new HashMap<>();
  /** Messages received: event indices. */
  private final List<Integer> received = new ArrayList<>();
  /** Windows in the order they were created here. */
  final List<Integer> windows = new ArrayList<>();
  /** RMA operations issued, by the page's totals columns ({@link #countedColumn}; messages not included). */
  final long[] opCounts = new long[COUNTED_KINDS];
  long bytes;
  /** Point-to-point messages sent, and their bytes. */
  long messages;
  long messageBytes;
  long epochCount;
  long lockWaits;
  long lockWaitNanos;
  long flushes;
  long errors;

  private RankTimeline(TraceData.RankEvents events) {
    this.events = events;
  }

  int rank() {
    return events.rank;
  }

  /** The kinds the page's totals count apart: the plain ones (a notified one counts as its plain kind). */
  static final int COUNTED_KINDS = 6;

  /** The totals column of operation kind {@code index}: a notified operation's plain kind. */
  static int countedColumn(int index) {
    return index >= COUNTED_KINDS && index < COUNTED_KINDS + 4 ? index - COUNTED_KINDS : index;
  }

  /** Index of an operation kind in {@link #OP_NAMES}, from its frame type. */
  static int opIndex(int frameType) {
    switch (frameType) {
      case FrameType.PUT: return 0;
      case FrameType.GET: return 1;
      case FrameType.ACC: return 2;
      case FrameType.GET_ACC: return 3;
      case Observers.FETCH_AND_OP: return 5;
      case FrameType.PUT + Observers.NOTIFIED: return 6;
      case FrameType.GET + Observers.NOTIFIED: return 7;
      case FrameType.ACC + Observers.NOTIFIED: return 8;
      case FrameType.GET_ACC + Observers.NOTIFIED: return 9;
      case Observers.MESSAGE: return MESSAGE;
      default: return 4;
    }
  }

  /** The earliest and latest stamps of {@code data}, {@code {0, 0}} if it has no event. */
  static long[] span(TraceData data) {
    long t0 = Long.MAX_VALUE;
    long t1 = Long.MIN_VALUE;
    for (TraceData.RankEvents r : data.ranks) {
      for (int k = 0; k < r.size(); k++) {
        t0 = Math.min(t0, r.t[k]);
        int type = r.type(k);
        t1 = Math.max(t1, type == TraceRecorder.SYNC || type == TraceRecorder.COLLECTIVE ? r.a[k] : r.t[k]);
      }
    }
    return t0 == Long.MAX_VALUE ? new long[] {0, 0} : new long[] {t0, t1};
  }

  /** The timeline of {@code r}; epochs and operations still open at the end last until {@code end}. */
  static RankTimeline of(TraceData.RankEvents r, long end) {
    RankTimeline tl = new RankTimeline(r);
    Map<Long, Integer> issued = new HashMap<>();
    List<Integer> syncs = new ArrayList<>();
    Map<Integer, Long> freedAt = new HashMap<>();
    for (int k = 0; k < r.size(); k++) {
      int type = r.type(k);
      switch (type) {
        case TraceRecorder.OP:
          if (r.kind(k) == Observers.MESSAGE) {
            tl.sent.put(messageKey(r.peer[k], r.b[k]), k);
            tl.messages++;
            tl.messageBytes += r.a[k];
          } else {
            issued.put(opKey(r.win[k], r.peer[k], r.b[k]), k);
            tl.opCounts[countedColumn(opIndex(r.kind(k)))]++;
            tl.bytes += r.a[k];
          }
          break;
        case TraceRecorder.DONE: {
          Integer i = issued.remove(opKey(r.win[k], r.peer[k], r.b[k]));
          if (i != null) {
            tl.ops.add(new Op(r.rank, r.peer[i], opIndex(r.kind(i)), r.a[i], r.t[i], r.t[k], true, r.failed(k), r.win[i]));
          }
          break;
        }
        case TraceRecorder.SYNC:
          syncs.add(k);
          break;
        case TraceRecorder.WIN_CREATED:
          if (!tl.windows.contains(r.win[k])) {
            tl.windows.add(r.win[k]);
          }
          tl.marks.add(new Mark(r.t[k], type, r.win[k], r.kind(k)));
          break;
        case TraceRecorder.WIN_FREED:
          freedAt.put(r.win[k], r.t[k]);
          tl.marks.add(new Mark(r.t[k], type, r.win[k], 0));
          break;
        case TraceRecorder.RECEIVED:
          tl.received.add(k);
          break;
        case TraceRecorder.COLLECTIVE: {
          int c = r.kind(k);
          tl.collectives.add(new Collective(COLLECTIVE_NAMES[c >= 0 && c < COLLECTIVE_NAMES.length ? c
              : COLLECTIVE_NAMES.length - 1], r.peer[k], r.t[k], Math.max(r.t[k], r.a[k]), r.failed(k)));
          break;
        }
        case TraceRecorder.ERROR:
          tl.errors++;
          tl.marks.add(new Mark(r.t[k], type, r.win[k], r.kind(k)));
          break;
        default:
          break;
      }
    }
    // operations still unanswered at the end last until the end
    for (Integer i : issued.values()) {
      tl.ops.add(new Op(r.rank, r.peer[i], opIndex(r.kind(i)), r.a[i], r.t[i], Math.max(end, r.t[i]), false, true,
          r.win[i]));
    }
    tl.ops.sort(Comparator.comparingLong(Op::t0));
    tl.collectives.sort(Comparator.comparingLong(Collective::t0));
    syncs.sort(Comparator.comparingLong(k -> r.t[k]));
    tl.epochs(syncs, freedAt, end);
    return tl;
  }

  private void epochs(List<Integer> syncs, Map<Integer, Long> freedAt, long end) {
    TraceData.RankEvents r = events;
    Sync[] kinds = Sync.values();
    // open epochs by window/kind (lock epochs by window/lock/target): their start and opening call
    Map<String, Integer> open = new HashMap<>();
    for (int k : syncs) {
      Sync kind = kinds[r.kind(k)];
      int w = r.win[k];
      long start = r.t[k];
      long stop = r.a[k];
      calls.add(new Call(kind, w, kind.isLock() || kind == Sync.UNLOCK || kind == Sync.FLUSH ? r.peer[k] : -1, start,
          stop, r.failed(k)));
      if (kind.isLock()) {
        lockWaits++;
        lockWaitNanos += stop - start;
      }
      if (kind.meter() == Sync.Meter.FLUSH) {
        flushes++;
      }
      // the epoch this call closes
      switch (kind) {
        case FENCE:
        case FENCE_END:
          close(open, w + "/fence", start);
          break;
        case COMPLETE:
          close(open, w + "/access", start);
          break;
        case WAIT:
        case POST: // a test() that returned true ended the last exposure epoch
          close(open, w + "/exposure", start);
          break;
        case UNLOCK:
          close(open, w + "/lock/" + r.peer[k], start);
          break;
        case UNLOCK_ALL:
          close(open, w + "/lock_all", start);
          break;
        default:
          break;
      }
      // the epoch it opens, from its completion
      if (kind.opens() != null && !r.failed(k)) {
        open.put(w + "/" + kind.opens() + (kind.opens().equals("lock") ? "/" + r.peer[k] : ""), k);
        epochCount++;
      }
    }
    for (String key : new ArrayList<>(open.keySet())) {
      close(open, key, freedAt.getOrDefault(r.win[open.get(key)], end));
    }
    epochs.sort(Comparator.comparingLong(Epoch::t0));
  }

  private void close(Map<String, Integer> open, String key, long at) {
    Integer k = open.remove(key);
    if (k == null) {
      return;
    }
    TraceData.RankEvents r = events;
    Sync kind = Sync.values()[r.kind(k)];
    long start = r.a[k]; // the opening call's completion
    boolean lock = kind.opens().equals("lock");
    epochs.add(new Epoch(kind.opens(), r.win[k], lock ? r.peer[k] : -1, kind == Sync.LOCK_EXCLUSIVE, start,
        Math.max(start, at)));
  }

  /** The index in {@link #COLLECTIVE_NAMES} of a collective call's name (the last, "collective", if unknown). */
  static int collectiveIndex(String name) {
    for (int i = 0; i < COLLECTIVE_NAMES.length; i++) {
      if (COLLECTIVE_NAMES[i].equals(name)) {
        return i;
      }
    }
    return COLLECTIVE_NAMES.length - 1;
  }

  /**
   * Makes each message an operation of its sender's timeline ({@link #MESSAGE}), from its send to
   * its receive at the destination's timeline; a message whose receive is not in the trace lasts
   * until {@code end}, not completed (not a failure: it may be received after the trace ended, or
   * its destination's events were not kept). Call once the timelines of every rank traced are made.
   */
  static void matchMessages(Map<Integer, RankTimeline> timelines, long end) {
    for (RankTimeline dst : timelines.values()) {
      TraceData.RankEvents r = dst.events;
      for (int k : dst.received) {
        RankTimeline src = timelines.get(r.peer[k]);
        Integer i = src == null ? null : src.sent.remove(messageKey(dst.rank(), r.b[k]));
        if (i != null) {
          TraceData.RankEvents s = src.events;
          src.ops.add(new Op(src.rank(), dst.rank(), MESSAGE, s.a[i], s.t[i], Math.max(s.t[i], r.t[k]), true, false,
              s.win[i]));
        }
      }
    }
    for (RankTimeline src : timelines.values()) {
      TraceData.RankEvents s = src.events;
      for (int i : src.sent.values()) {
        src.ops.add(new Op(src.rank(), s.peer[i], MESSAGE, s.a[i], s.t[i], Math.max(end, s.t[i]), false, false,
            s.win[i]));
      }
      src.sent.clear();
      src.ops.sort(Comparator.comparingLong(Op::t0));
    }
  }

  private static long messageKey(int dst, long seq) {
    return ((long) dst << 40) ^ seq;
  }

  private static long opKey(int win, int target, long seq) {
    return ((long) win << 48) ^ ((long) target << 32) ^ seq;
  }
}
