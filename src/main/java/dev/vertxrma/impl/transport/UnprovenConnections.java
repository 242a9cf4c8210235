package dev.vertxrma.impl.transport;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds on the incoming data-plane connections of one job in one JVM whose peer has not proved
 * the job's secret yet. Anyone who can reach the data-plane port can open such connections; each
 * holds a socket, a reader and a proof timer for up to {@value DataLink#PROOF_TIMEOUT_MS} ms. At
 * most {@value #DEFAULT_MAX_PER_SOURCE} of them are open per source address and {@value
 * #DEFAULT_MAX_TOTAL} in all: a connection over either bound is closed at once, before its
 * challenge, and counted in the rejected-input log. A slot is held from the accept until the
 * connection proves the secret or closes, whichever comes first.
 *
 * <p>A job's own peers need one incoming connection each (one per pair of JVMs, proven within
 * milliseconds), so the bounds only matter to a job whose peers connect in the same instant from
 * more JVMs behind one address than {@value #DEFAULT_MAX_PER_SOURCE}. A stranger who keeps the
 * bounds full can delay or break the connection of a peer that has not connected yet (a failed
 * job, never a wrong result), as flooding the cluster's ports can.
 *
 * <p>Also counts the proof timers armed (both sides), so that tests can see a closed connection
 * keeps none. Any thread; no lock an event loop waits on for longer than a map update.
 */
final class UnprovenConnections {

  /** Unproven incoming connections one source address may hold open at a time. */
  static final int DEFAULT_MAX_PER_SOURCE = 32;
  /** Unproven incoming connections that may be open at a time, from all sources. */
  static final int DEFAULT_MAX_TOTAL = 256;

  private final int maxPerSource;
  private final int maxTotal;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger highWater = new AtomicInteger();
  private final AtomicInteger perSourceHighWater = new AtomicInteger();
  private final AtomicInteger timers = new AtomicInteger();
  private final ConcurrentHashMap<String, Integer> perSource = new ConcurrentHashMap<>();

  UnprovenConnections() {
    this(DEFAULT_MAX_PER_SOURCE, DEFAULT_MAX_TOTAL);
  }

  UnprovenConnections(int maxPerSource, int maxTotal) {
    if (maxPerSource < 1 || maxTotal < 1) {
      throw new IllegalArgumentException("bounds must be positive: " + maxPerSource + ", " + maxTotal);
    }
    this.maxPerSource = maxPerSource;
    this.maxTotal = maxTotal;
  }

  /**
   * Takes a slot for a new connection from {@code source}; {@code null} if it may proceed, else
   * why it may not (the bound it would exceed). A slot taken is given back with {@link #release}.
   */
  String admit(String source) {
    int n;
    do {
      n = open.get();
      if (n >= maxTotal) {
        return "over the bound of " + maxTotal + " unproven data-plane connections in all";
      }
    } while (!open.compareAndSet(n, n + 1));
    int[] held = {0};
    perSource.compute(source, (k, v) -> {
      int h = v == null ? 0 : v;
      if (h >= maxPerSource) {
        return v;
      }
      held[0] = h + 1;
      return h + 1;
    });
    if (held[0] == 0) {
      open.decrementAndGet();
      return "over the bound of " + maxPerSource + " unproven data-plane connections from one address";
    }
    highWater.accumulateAndGet(n + 1, Math::max);
    perSourceHighWater.accumulateAndGet(held[0], Math::max);
    return null;
  }

  /** Gives back the slot {@link #admit} gave a connection from {@code source}. Once per slot. */
  void release(String source) {
    perSource.computeIfPresent(source, (k, v) -> v <= 1 ? null : v - 1);
    open.decrementAndGet();
  }

  void timerArmed() {
    timers.incrementAndGet();
  }

  /** A proof timer fired or was cancelled. */
  void timerGone() {
    timers.decrementAndGet();
  }

  /** Unproven incoming connections open now. */
  int open() {
    return open.get();
  }

  /** The most unproven incoming connections ever open at a time. */
  int highWater() {
    return highWater.get();
  }

  /** The most unproven incoming connections one source address ever held open at a time. */
  int perSourceHighWater() {
    return perSourceHighWater.get();
  }

  /** Proof timers armed and neither fired nor cancelled (incoming and outgoing connections). */
  int timers() {
    return timers.get();
  }

  /** Source addresses holding a slot now. */
  int sources() {
    return perSource.size();
  }

  int maxPerSource() {
    return maxPerSource;
  }

  int maxTotal() {
    return maxTotal;
  }
}
