package dev.vertxrma.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The benches of {@code rmabench}, with the OSU micro-benchmark each follows. One-sided benches
 * run from rank 0 (origin) to the last rank (target), so that with {@code --jvms 2} the target is
 * in the other JVM; the other ranks only take part in fences and collectives.
 */
enum Bench {
  /** {@code osu_put_latency}: one put of {@code bytes}, completed by the sync mode. */
  PUT_LATENCY("put-latency", Kind.LATENCY, true),
  /** {@code osu_get_latency}: one get of {@code bytes}, completed by the sync mode. */
  GET_LATENCY("get-latency", Kind.LATENCY, true),
  /** {@code osu_acc_latency}: accumulate SUM of {@code bytes/8} longs + flush, under lockAll. */
  ACC_LATENCY("acc-latency", Kind.LATENCY, false),
  /** {@code osu_get_acc_latency}: getAccumulate SUM of {@code bytes/8} longs + flush, under lockAll. */
  GET_ACC_LATENCY("get-acc-latency", Kind.LATENCY, false),
  /** {@code osu_fop_latency}: fetchAndOp SUM of one long + flush, under lockAll (8 bytes only). */
  FOP_LATENCY("fop-latency", Kind.SINGLE_ELEMENT, false),
  /** {@code osu_cas_latency}: compareAndSwap of one long + flush, under lockAll (8 bytes only). */
  CAS_LATENCY("cas-latency", Kind.SINGLE_ELEMENT, false),
  /** {@code osu_put_bw}: 64 puts of {@code bytes} then one flush, under lockAll. */
  PUT_BW("put-bw", Kind.BANDWIDTH, false),
  /** {@code osu_get_bw}: 64 gets of {@code bytes} then one flush, under lockAll. */
  GET_BW("get-bw", Kind.BANDWIDTH, false),
  /** {@code osu_barrier}: one barrier of all ranks. */
  BARRIER("barrier", Kind.COLLECTIVE, false),
  /** {@code osu_allreduce}: allreduce SUM of {@code bytes/8} doubles over all ranks. */
  ALLREDUCE("allreduce", Kind.SIZED_COLLECTIVE, false),
  /** An empty fence epoch: one {@code fence} of all ranks. */
  FENCE("fence", Kind.COLLECTIVE, false),
  /**
   * The round trip beneath RMA, as {@code osu_latency} times it (there and back, not halved):
   * {@code bytes} sent from rank 0 to the last rank and echoed back over a bare Vert.x TCP
   * connection between the two ranks' threads, made by the ranks' Vert.x instance with the data
   * plane's transport and TCP options, with no RMA code and no framing in the path: the floor
   * under every operation that needs a reply. MPICH: {@code MPI_Send} and {@code MPI_Recv} there
   * and back.
   */
  NET_LATENCY("net-latency", Kind.ROUND_TRIP, false),
  /**
   * Notified RMA (MPI 5.1 draft): rank 0 puts {@code bytes} to the last rank with
   * {@code putNotify}, whose {@code awaitNotify} future completes and which answers likewise;
   * timed there and back (not halved), both ranks under lockAll ({@link NotifiedPingPong}).
   * MPICH, which has no notified RMA: put + flush + a zero-byte send/recv, there and back.
   */
  NOTIFY_LATENCY("notify-latency", Kind.ROUND_TRIP, false),
  /**
   * {@link #NOTIFY_LATENCY}'s exchange the way MPI 3 does it: put + flush + a zero-byte message
   * the other rank receives, there and back. MPICH: the same calls.
   */
  SIGNAL_LATENCY("signal-latency", Kind.ROUND_TRIP, false),
  /** {@code dev.vertxrma.sync.Counter.next()}, beside Vert.x's and Hazelcast's counters ({@link CoordinationProgram}). */
  COUNTER_NEXT("counter-next", Kind.COORDINATION, false),
  /** An uncontended {@code Mutex} lock + unlock, beside Vert.x's and Hazelcast's locks ({@link CoordinationProgram}). */
  MUTEX_LOCK("mutex-lock", Kind.COORDINATION, false);

  /** Operations per flush of the bandwidth benches (OSU's window size). */
  static final int BW_WINDOW = 64;
  /** The most window memory a bandwidth bench uses: its 64 operations wrap around this. */
  static final long MAX_WINDOW_BYTES = 64L << 20;

  enum Kind { LATENCY, SINGLE_ELEMENT, BANDWIDTH, COLLECTIVE, SIZED_COLLECTIVE, ROUND_TRIP, COORDINATION }

  final String id;
  final Kind kind;
  final boolean takesSync;

  Bench(String id, Kind kind, boolean takesSync) {
    this.id = id;
    this.kind = kind;
    this.takesSync = takesSync;
  }

  /** The bench named {@code id} ({@code put-latency}, ...). */
  static Bench of(String id) {
    for (Bench b : values()) {
      if (b.id.equals(id)) {
        return b;
      }
    }
    throw new IllegalArgumentException("unknown bench '" + id + "'; the benches are " + ids());
  }

  static String ids() {
    return Arrays.stream(values()).map(b -> b.id).collect(Collectors.joining(", "));
  }

  /** Whether this bench needs an origin and a distinct target rank. */
  boolean oneSided() {
    return kind == Kind.LATENCY || kind == Kind.SINGLE_ELEMENT || kind == Kind.BANDWIDTH || kind == Kind.ROUND_TRIP;
  }

  /** The message sizes this bench runs at, given the requested ones. */
  List<Long> sizes(List<Long> requested) {
    switch (kind) {
      case SINGLE_ELEMENT:
      case COORDINATION:
        return List.of(8L);
      case COLLECTIVE:
        return List.of(0L);
      default:
        return requested;
    }
  }

  /** The sync column of this bench's rows: the requested mode where it matters. */
  String syncColumn(Sync requested) {
    if (takesSync) {
      return requested.id;
    }
    return kind == Kind.COLLECTIVE || kind == Kind.SIZED_COLLECTIVE || kind == Kind.ROUND_TRIP ? "-" : Sync.LOCKALL.id;
  }

  /** Default measured iterations at {@code bytes} (OSU-like: fewer for large messages). */
  int defaultIterations(long bytes) {
    int base = kind == Kind.BANDWIDTH ? 200 : 5000;
    if (bytes > 256 * 1024) {
      return base / 50;
    }
    if (bytes > 8 * 1024) {
      return base / 5;
    }
    return base;
  }

  /** Window bytes a bandwidth bench of {@code bytes} wraps its 64 operations in. */
  static long bwWindowBytes(long bytes) {
    return Math.max(64, Math.min(BW_WINDOW * bytes, MAX_WINDOW_BYTES));
  }

  /** The synchronization of one put/get latency sample, as in OSU's {@code -s} option. */
  enum Sync {
    /** {@code lockAll} once; each sample is op + {@code flush(target)}. */
    LOCKALL("lockall"),
    /** each sample is {@code lock(SHARED)} + op + {@code unlock}. */
    LOCK("lock"),
    /** each sample is op + {@code fence} (all ranks fence). */
    FENCE("fence"),
    /** each sample is {@code start} + op + {@code complete}; the target {@code post}s and {@code waitFor}s. */
    PSCW("pscw");

    final String id;

    Sync(String id) {
      this.id = id;
    }

    static Sync of(String id) {
      for (Sync s : values()) {
        if (s.id.equals(id.toLowerCase(Locale.ROOT))) {
          return s;
        }
      }
      throw new IllegalArgumentException("unknown sync '" + id + "'; choose lockall, lock, fence or pscw");
    }
  }
}
