package dev.vertxrma.impl.observe;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One rank's trace: the observer that records every event with a {@link System#nanoTime()} stamp
 * into a ring of fixed capacity (bounded memory: when it is full, the oldest events are
 * overwritten and counted as dropped). Columns of primitive arrays, nothing allocated per event
 * but the completion callback of a synchronization call that has not completed yet.
 *
 * <p>Events come from the rank's context; the slot index is taken atomically all the same, so a
 * callback that runs elsewhere cannot corrupt the ring. The ring is read once, by
 * {@link #snapshot}, after the rank has ended.
 */
final class TraceRecorder implements RankObserver {

  /** Event types (the high byte of {@code meta}). */
  static final int OP = 1;
  static final int DONE = 2;
  static final int SYNC = 3;
  static final int WIN_CREATED = 4;
  static final int WIN_FREED = 5;
  static final int ERROR = 6;
  /** A message received: {@code peer} its source, {@code win} its tag, {@code a} its bytes, {@code b} its sender's number. */
  static final int RECEIVED = 7;
  /** A collective call: {@code kind} its index in {@link RankTimeline#COLLECTIVE_NAMES}, {@code peer} its root, {@code a} its end. */
  static final int COLLECTIVE = 8;
  /** Flag bit of {@code meta}: the operation or call failed. */
  static final int FAILED = 1;

  private final int rank;
  private final int mask;
  private final long[] t;
  private final long[] a;
  private final long[] b;
  private final int[] meta;
  private final int[] win;
  private final int[] peer;
  private final AtomicLong next = new AtomicLong();

  /**
   * A recorder for {@code rank} keeping the last {@code capacity} events (rounded up to a power
   * of two, at most 2^24).
   */
  public TraceRecorder(int rank, int capacity) {
    int wanted = Math.max(16, Math.min(1 << 24, capacity));
    int cap = Integer.bitCount(wanted) == 1 ? wanted : Integer.highestOneBit(wanted) << 1;
    this.rank = rank;
    this.mask = cap - 1;
    this.t = new long[cap];
    this.a = new long[cap];
    this.b = new long[cap];
    this.meta = new int[cap];
    this.win = new int[cap];
    this.peer = new int[cap];
  }

  /** The rank recorded. */
  public int rank() {
    return rank;
  }

  private void record(int type, int kind, int flags, int w, int p, long time, long x, long y) {
    int i = (int) (next.getAndIncrement() & mask);
    t[i] = time;
    a[i] = x;
    b[i] = y;
    meta[i] = type << 24 | (kind & 0xffff) << 8 | flags;
    win[i] = w;
    peer[i] = p;
  }

  @Override
  public void windowCreated(int w, String flavor, long size) {
    record(WIN_CREATED, flavorCode(flavor), 0, w, -1, System.nanoTime(), size, 0);
  }

  @Override
  public void windowFreed(int w) {
    record(WIN_FREED, 0, 0, w, -1, System.nanoTime(), 0, 0);
  }

  @Override
  public void opIssued(int w, byte kind, int target, long bytes, long seq) {
    record(OP, kind, 0, w, target, System.nanoTime(), bytes, seq);
  }

  @Override
  public void opCompleted(int w, int target, long seq, boolean failed) {
    record(DONE, 0, failed ? FAILED : 0, w, target, System.nanoTime(), 0, seq);
  }

  /** A message sent is an {@link #OP} of kind {@link Observers#MESSAGE} whose {@code win} is its tag. */
  @Override
  public void messageSent(int dst, int tag, long bytes, long seq) {
    record(OP, Observers.MESSAGE, 0, tag, dst, System.nanoTime(), bytes, seq);
  }

  @Override
  public void messageReceived(int src, int tag, long bytes, long seq) {
    record(RECEIVED, 0, 0, tag, src, System.nanoTime(), bytes, seq);
  }

  @Override
  public <T> Future<T> collective(String name, int root, Future<T> done) {
    int kind = RankTimeline.collectiveIndex(name);
    long start = System.nanoTime();
    if (done.isComplete()) {
      record(COLLECTIVE, kind, done.failed() ? FAILED : 0, -1, root, start, start, 0);
      return done;
    }
    return done.onComplete(ar -> record(COLLECTIVE, kind, ar.failed() ? FAILED : 0, -1, root, start,
        System.nanoTime(), 0));
  }

  @Override
  public <T> Future<T> sync(int w, Sync kind, int p, Future<T> done) {
    long start = System.nanoTime();
    if (done.isComplete()) {
      record(SYNC, kind.ordinal(), done.failed() ? FAILED : 0, w, p, start, start, 0);
      return done;
    }
    return done.onComplete(ar -> record(SYNC, kind.ordinal(), ar.failed() ? FAILED : 0, w, p, start,
        System.nanoTime(), 0));
  }

  @Override
  public <T> Future<T> failures(int w, Future<T> call) {
    if (call.isComplete()) {
      if (call.failed()) {
        error(w, call.cause());
      }
      return call;
    }
    return call.onFailure(e -> error(w, e));
  }

  private void error(int w, Throwable e) {
    ErrorClass ec = e instanceof RmaException ? ((RmaException) e).errorClass() : ErrorClass.OTHER;
    record(ERROR, ec.code(), FAILED, w, -1, System.nanoTime(), 0, 0);
  }

  static final String[] FLAVORS = {"create", "allocate", "dynamic", "shared"};

  private static int flavorCode(String flavor) {
    for (int i = 0; i < FLAVORS.length; i++) {
      if (FLAVORS[i].equalsIgnoreCase(flavor)) {
        return i;
      }
    }
    return 0;
  }

  /**
   * The events recorded, oldest first, their stamps moved to wall-clock nanoseconds by
   * {@code offsetNanos}; call it once the rank has ended.
   */
  TraceData.RankEvents snapshot(String label, long offsetNanos) {
    long total = next.get();
    int n = (int) Math.min(total, mask + 1L);
    TraceData.RankEvents r = new TraceData.RankEvents(rank, label, total - n, n);
    for (int k = 0; k < n; k++) {
      int i = (int) ((total - n + k) & mask);
      r.t[k] = t[i] + offsetNanos;
      r.meta[k] = meta[i];
      r.win[k] = win[i];
      r.peer[k] = peer[i];
      int type = meta[i] >>> 24;
      // a SYNC's and a COLLECTIVE's end stamp is a time too
      r.a[k] = type == SYNC || type == COLLECTIVE ? a[i] + offsetNanos : a[i];
      r.b[k] = b[i];
    }
    return r;
  }
}
