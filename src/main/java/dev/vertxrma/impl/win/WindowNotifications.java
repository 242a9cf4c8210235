package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.comm.CommImpl;
import dev.vertxrma.impl.ops.RmaOperation;
import dev.vertxrma.impl.runtime.ErrorHandling;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The notification counters of one rank's window (MPI 5.1 draft, "Notified Communication") and
 * what is done with them: MPI_Win_set_num_notify (collective: every rank learns every rank's
 * count, so an origin refuses an index its target lacks before a byte moves), the counters'
 * reads and fetch-and-zero, the target's check and increment of a notified operation (after its
 * data is in place), and {@code awaitNotify}: a future that completes once a counter reaches a
 * threshold. Where a writer can change a counter without waking the rank (another rank of the
 * window in this JVM, or origins of other JVMs writing this rank's page) and the machine has a
 * core per rank, a waiter spins {@link #SPIN_NANOS} in the call, then polls between the event
 * loop's passes over its sockets until {@link #POLL_NANOS}; then (at once elsewhere) it parks. An
 * increment made in this JVM schedules a check on the rank's context, one made by an origin of
 * another JVM in this rank's host segment sends one {@link FrameType#PAGE_WAKE} frame if the rank
 * is parked, and one that came as a frame is applied here. Waiters live on the rank's context;
 * counters are written by whichever thread owns the target window ({@link TargetWindow}) or by
 * on-node origins.
 */
final class WindowNotifications {

  /** How long {@code awaitNotify} spins in the call before it registers a waiter. */
  static final long SPIN_NANOS = 5_000;
  /** How long registered waiters poll on the rank's context before the rank parks. */
  static final long POLL_NANOS = 50_000;
  /** The info key that bounds setNumNotify (MPI 5.1 draft). */
  static final String MAX_NUM_NOTIFY = "mpi_assert_max_num_notify";

  private final Endpoint rp;
  private final CommImpl comm;
  private final ErrorHandling errors;
  private final WindowState state;
  private final TargetWindow target;
  private final Collectives coll;
  /** This rank's control page when its window is in a host segment, else {@code null}. */
  private final WindowControl page;
  private final int maxNumNotify;
  private SegmentPeers peers;
  /** This rank's counters (swapped by setNumNotify, as the target window's owner). */
  private volatile NotifyCounters local = NotifyCounters.onHeap(0);
  /** Every rank's number of counters, as agreed by the last setNumNotify (the rank's context). */
  private int[] counts;
  /** The counters of ranks of other JVMs in their mapped control pages, or {@code null} where not. */
  private NotifyCounters[] peerCounters;
  private final List<Waiter> waiters = new ArrayList<>();
  /** How many waiters are registered: read by writers of any thread. */
  private volatile int waiting;
  private final AtomicBoolean checkScheduled = new AtomicBoolean();
  private boolean polling;
  private long pollUntil;
  private final Runnable pollTask = this::poll;
  /** Whether another rank of the window lives in this JVM (it writes the counters in place). */
  private final boolean localPeer;
  /** Whether the machine has a core per rank of the window. */
  private final boolean fewRanks;
  /** Times this rank parked with waiters left, and PAGE_WAKE frames that woke it (tests; rank's context). */
  private long parks;
  private long wakeFrames;
  /** Completed the next time the rank parks with waiters left (tests), or {@code null}. */
  private Promise<Void> parkedHook;

  /** One awaitNotify: completes once counter {@code index} is at least {@code threshold}. */
  private record Waiter(int index, long threshold, Promise<Long> promise) {
  }

  WindowNotifications(Endpoint rp, CommImpl comm, ErrorHandling errors, WindowState state, TargetWindow target,
      Collectives coll, WindowControl page, Info info) {
    this.rp = rp;
    this.comm = comm;
    this.errors = errors;
    this.state = state;
    this.target = target;
    this.coll = coll;
    this.page = page;
    this.maxNumNotify = maxNumNotify(info);
    this.counts = new int[rp.size()];
    boolean peerHere = false;
    for (int r = 0; r < rp.size(); r++) {
      peerHere |= r != rp.rank() && rp.isLocal(r);
    }
    this.localPeer = peerHere;
    this.fewRanks = rp.size() <= Runtime.getRuntime().availableProcessors();
    this.peerCounters = new NotifyCounters[rp.size()];
    target.useNotifications(this);
  }

  /** {@link #MAX_NUM_NOTIFY} of the window's info, or Integer.MAX_VALUE; INFO if it is not a count. */
  static int maxNumNotify(Info info) {
    String v = info.get(MAX_NUM_NOTIFY);
    if (v == null) {
      return Integer.MAX_VALUE;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw RmaException.of(ErrorClass.INFO, "info %s=%s is not a count (an int >= 0)", MAX_NUM_NOTIFY, v);
  }

  /** The segments of ranks of other JVMs of this host (the on-node path); once, at creation. */
  void segmentPeers(SegmentPeers peers) {
    this.peers = peers;
  }

  /** MPI_Win_get_num_notify at this rank. */
  int count() {
    return local.count;
  }

  // ------------------------------------------------------------------ the calls, on the rank's context

  /** MPI_Win_set_num_notify, run on the rank's context under the window's error handler. */
  Future<Void> setNumNotifyCall(int n) {
    return comm.call(errors, () -> setNumNotify(n));
  }

  /** MPI_Win_get_notify_value, as {@link #setNumNotifyCall}. */
  Future<Long> valueCall(int index) {
    return comm.call(errors, () -> rp.context().succeededFuture(value(index)));
  }

  /** MPI_Win_reset_notify_value, as {@link #setNumNotifyCall}. */
  Future<Long> resetCall(int index) {
    return comm.call(errors, () -> rp.context().succeededFuture(reset(index)));
  }

  /** awaitNotify, as {@link #setNumNotifyCall}. */
  Future<Long> awaitCall(int index, long threshold) {
    return comm.call(errors, () -> await(index, threshold));
  }

  /** MPI_Win_set_num_notify: agree on every rank's count, reset this rank's counters, then a barrier. */
  Future<Void> setNumNotify(int n) {
    state.checkLive("setNumNotify");
    if (n < 0) {
      throw RmaException.of(ErrorClass.ARG, "setNumNotify(%d) on window %s: the number of counters is negative", n,
          state.name());
    }
    if (n > maxNumNotify) {
      throw RmaException.of(ErrorClass.ARG, "setNumNotify(%d) on window %s exceeds its info %s=%d", n, state.name(),
          MAX_NUM_NOTIFY, maxNumNotify);
    }
    return coll.allgather(ByteBuffer.allocate(4).putInt(n).array()).compose(blocks -> {
      int[] agreed = new int[blocks.size()];
      NotifyCounters[] views = new NotifyCounters[blocks.size()];
      int capacity = NotifyCounters.pageCapacity(blocks.size());
      for (int r = 0; r < agreed.length; r++) {
        agreed[r] = ByteBuffer.wrap(blocks.get(r)).getInt();
        WindowControl c = peers != null && peers.reaches(r) ? peers.control(r) : null;
        views[r] = c != null && agreed[r] <= capacity ? NotifyCounters.inPage(c, agreed[r]) : null;
      }
      counts = agreed;
      peerCounters = views;
      NotifyCounters fresh = page != null && n <= capacity ? NotifyCounters.inPage(page, n) : NotifyCounters.onHeap(n);
      return target.owned(() -> {
        fresh.zero(); // in the owner's turn: no operation is half applied
        local = fresh;
        return null;
      });
    }).compose(v -> {
      failWaiters(RmaException.of(ErrorClass.RMA_NOTIFICATION, "setNumNotify(%d) reset the counters of window %s "
          + "at rank %d while this awaitNotify waited", n, state.name(), state.rank));
      return coll.barrier(); // no rank notifies a target that has not switched yet
    });
  }

  /** MPI_Win_get_notify_value. */
  long value(int index) {
    NotifyCounters c = local;
    checkIndex(c, index, "notifyValue");
    return c.get(index);
  }

  /** MPI_Win_reset_notify_value: the counter's value, swapped for 0 atomically. */
  long reset(int index) {
    NotifyCounters c = local;
    checkIndex(c, index, "resetNotifyValue");
    return c.fetchAndZero(index);
  }

  /** awaitNotify: completes with the counter's value once it is at least {@code threshold}. */
  Future<Long> await(int index, long threshold) {
    state.checkLive("awaitNotify");
    NotifyCounters c = local;
    checkIndex(c, index, "awaitNotify");
    long v = c.get(index);
    // spin only where a writer can change the counter without waking the rank: a frame this rank
    // just sent one way leaves only once the call returns to the event loop
    long deadline = System.nanoTime() + (spinHelps() ? SPIN_NANOS : 0);
    while (v < threshold && System.nanoTime() - deadline < 0) {
      Thread.onSpinWait();
      v = c.get(index);
    }
    if (v >= threshold) {
      return rp.context().succeededFuture(v);
    }
    Waiter w = new Waiter(index, threshold, rp.context().promise());
    waiters.add(w);
    waiting = waiters.size();
    startPolling();
    Future<Long> f = rp.withTimeout(w.promise.future(), "awaitNotify");
    f.onFailure(e -> {
      if (waiters.remove(w)) {
        waiting = waiters.size();
      }
    });
    return f;
  }

  private void checkIndex(NotifyCounters c, int index, String call) {
    if (index < 0 || index >= c.count) {
      throw RmaException.of(ErrorClass.RMA_NOTIFICATION, "%s(%d) on window %s at rank %d: the notification index "
          + "must be in [0, %d) (setNumNotify sets the count)", call, index, state.name(), state.rank, c.count);
    }
  }

  // ------------------------------------------------------------------ origin side (rank's context)

  /**
   * Refuses a notified operation of call {@code call} to {@code target} before anything moves:
   * RMA_SYNC outside a passive-target epoch, RMA_NOTIFICATION for an index the target lacks.
   */
  void checkOrigin(String call, int target, int index, int issuedIn) {
    if (issuedIn != RmaOperation.SYNC_PASSIVE) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "%s to rank %d on window %s in a %s epoch: notified operations "
          + "are allowed in passive-target epochs only (lock or lockAll; MPI 5.1 draft)", call, target, state.name(),
          issuedIn == RmaOperation.SYNC_FENCE ? "fence" : "post/start");
    }
    if (index < 0 || index >= counts[target]) {
      throw RmaException.of(ErrorClass.RMA_NOTIFICATION, "%s to rank %d on window %s: notification index %d is "
          + "outside [0, %d), rank %d's count (setNumNotify)", call, target, state.name(), index, counts[target], target);
    }
  }

  /** Whether an origin here adds to rank {@code r}'s counters in its mapped control page. */
  boolean inPageAt(int r) {
    return peerCounters[r] != null;
  }

  /** Counter {@code index} of rank {@code r} in its mapped control page ({@link #inPageAt}). */
  NotifyCounters pageOf(int r) {
    return peerCounters[r];
  }

  /** After a notified operation applied in rank {@code r}'s segment: wakes it if it is parked. */
  void wakePeer(int r) {
    NotifyCounters c = peerCounters[r];
    if (c != null && c.takeWake()) {
      rp.send(r, Frame.of(FrameType.PAGE_WAKE, state.rank, state.id));
    }
  }

  // ------------------------------------------------------------------ target side (window's owner)

  /** The target's check of notified operation {@code op} (untrusted), before it is applied. */
  void checkTarget(RmaOperation op, int rank) {
    if (op.syncMode != RmaOperation.SYNC_PASSIVE) {
      throw TargetWindow.refused(ErrorClass.RMA_SYNC, "notified operation from rank %d outside a passive-target "
          + "epoch on window %s", op.origin, state.name());
    }
    int n = local.count;
    if (op.notifyIndex < 0 || op.notifyIndex >= n) {
      throw TargetWindow.refused(ErrorClass.RMA_NOTIFICATION, "notified operation from rank %d names counter %s of "
          + "window %s at rank %d, which has %d", op.origin, op.notifyIndex == RmaOperation.BAD_NOTIFY ? "(invalid)"
          : String.valueOf(op.notifyIndex), state.name(), rank, n);
    }
  }

  /** Notified operation's data is in place (or read): its counter grows, and waiters here learn of it. */
  void notified(int index) {
    NotifyCounters c = local;
    c.increment(index);
    if (c.shared) {
      c.takeWake(); // this JVM's own wake follows: the word is not left armed for a frame
    }
    if (waiting > 0 && checkScheduled.compareAndSet(false, true)) {
      rp.context().runOnContext(v -> {
        checkScheduled.set(false);
        onWake();
      });
    }
  }

  // ------------------------------------------------------------------ waiters (rank's context)

  /**
   * Whether spinning or polling can see an increment sooner than a wake would bring it: another
   * rank of the window in this JVM, or other JVMs writing this rank's page, and a core per rank.
   */
  private boolean spinHelps() {
    return fewRanks && (localPeer || local.shared);
  }

  /** A counter may have grown (a PAGE_WAKE frame, or a write in this JVM): completes the waiters it satisfies. */
  void onWake() {
    if (!rp.context().isRunningOnContext()) {
      rp.context().runOnContext(v -> onWake());
      return;
    }
    check();
    if (!waiters.isEmpty() && !polling) {
      park();
    }
  }

  /**
   * After the call's spin: polls until {@link #POLL_NANOS}, then parks; or parks at once when no
   * thread can change a counter here without waking the rank anyway (every increment comes as a
   * frame: no other rank of the window lives in this JVM and no other JVM writes this rank's
   * page), or when the window has more ranks than the machine has cores (polling would only take
   * the core a writer needs, as in {@link dev.vertxrma.impl.coll.HostBarrier}).
   */
  private void startPolling() {
    if (!spinHelps()) {
      if (!polling) {
        park();
      }
      return;
    }
    pollUntil = System.nanoTime() + POLL_NANOS;
    if (!polling) {
      polling = true;
      nextPoll();
    }
  }

  /**
   * The next poll, after the event loop's next pass over its sockets: a poll queued as a plain
   * task would run in the same pass, and a run of them would hold back the loop's reads and the
   * writes of frames this rank just sent (a wake frame to a parked peer) for the whole poll.
   */
  private void nextPoll() {
    io.netty.channel.EventLoop loop = rp.context().nettyEventLoop();
    if (loop == null) {
      rp.context().runOnContext(v -> pollTask.run());
    } else {
      loop.schedule(() -> rp.context().runOnContext(v -> pollTask.run()), 0, java.util.concurrent.TimeUnit.NANOSECONDS);
    }
  }

  private void poll() {
    check();
    if (waiters.isEmpty()) {
      polling = false;
    } else if (System.nanoTime() - pollUntil < 0) {
      nextPoll();
    } else {
      polling = false;
      park();
    }
  }

  /** Arms the waiter word, then looks once more: a write made before the word was armed is not missed. */
  private void park() {
    NotifyCounters c = local;
    c.arm();
    check();
    if (waiters.isEmpty()) {
      c.disarm();
      return;
    }
    parks++;
    Promise<Void> hook = parkedHook;
    if (hook != null) {
      parkedHook = null;
      hook.complete();
    }
  }

  /** A PAGE_WAKE frame reached this rank: a peer of another JVM counted a notification here. */
  void onWakeFrame() {
    rp.context().runOnContext(v -> {
      wakeFrames++;
      onWake();
    });
  }

  /** Completes once the rank next parks with a waiter left (tests; on the rank's context). */
  Future<Void> whenParked() {
    parkedHook = rp.context().promise();
    return parkedHook.future();
  }

  /** {parks, PAGE_WAKE frames received} (tests; on the rank's context). */
  long[] parkStats() {
    return new long[] {parks, wakeFrames};
  }

  private void check() {
    if (waiters.isEmpty()) {
      return;
    }
    NotifyCounters c = local;
    List<Waiter> done = null;
    for (int i = waiters.size() - 1; i >= 0; i--) {
      Waiter w = waiters.get(i);
      if (w.index < c.count && c.get(w.index) >= w.threshold) {
        waiters.remove(i);
        if (done == null) {
          done = new ArrayList<>(2);
        }
        done.add(w);
      }
    }
    waiting = waiters.size();
    if (done != null) {
      for (int i = done.size() - 1; i >= 0; i--) { // in registration order
        Waiter w = done.get(i);
        w.promise.tryComplete(c.get(w.index));
      }
    }
  }

  /** Fails every waiter with {@code cause} (setNumNotify, free, the job's failure); any thread. */
  void failWaiters(RmaException cause) {
    if (!rp.context().isRunningOnContext()) {
      rp.context().runOnContext(v -> failWaiters(cause));
      return;
    }
    List<Waiter> all = new ArrayList<>(waiters);
    waiters.clear();
    waiting = 0;
    for (Waiter w : all) {
      w.promise.tryFail(cause);
    }
  }
}
