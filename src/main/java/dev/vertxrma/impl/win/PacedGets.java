package dev.vertxrma.impl.win;

import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayDeque;

/**
 * Gets of large data from a rank in another JVM, paced per target: at most {@value #IN_FLIGHT_BYTES}
 * bytes of them are asked for at a time (always at least one), the rest are sent as replies come
 * back, in issue order. A target packs each get's data when it applies it, so 64 gets of 4 MiB
 * asked at once would make it pack 256 MiB before the first reply leaves; paced, it packs the
 * next while the previous is on the wire. Each get still counts in its epoch from its issue, so
 * flush, unlock and the rest wait for it as for any operation. Used on the rank's context only.
 */
final class PacedGets {

  /** Gets of fewer bytes go at once. */
  static final long PACED_FROM = 64 * 1024;
  /** Bytes of paced gets asked for from one target at a time. */
  static final long IN_FLIGHT_BYTES = 16L << 20;

  private record Waiting(Frame frame, long bytes, Promise<Frame> reply) {
  }

  private final Endpoint rp;
  private final long[] inFlight;
  private final ArrayDeque<Waiting>[] waiting;

  @SuppressWarnings("unchecked")
  PacedGets(Endpoint rp) {
    this.rp = rp;
    this.inFlight = new long[rp.size()];
    this.waiting = new ArrayDeque[rp.size()];
  }

  /** Sends get request {@code f} for {@code bytes} of data to {@code target} now, or once earlier ones have been answered. */
  Future<Frame> request(int target, Frame f, long bytes) {
    if (bytes < PACED_FROM) {
      return rp.request(target, f);
    }
    ArrayDeque<Waiting> q = waiting[target];
    if ((q == null || q.isEmpty()) && fits(target, bytes)) {
      return send(target, f, bytes);
    }
    if (q == null) {
      q = waiting[target] = new ArrayDeque<>();
    }
    Promise<Frame> reply = rp.context().promise();
    q.add(new Waiting(f, bytes, reply));
    return reply.future();
  }

  private boolean fits(int target, long bytes) {
    return inFlight[target] == 0 || inFlight[target] + bytes <= IN_FLIGHT_BYTES;
  }

  private Future<Frame> send(int target, Frame f, long bytes) {
    inFlight[target] += bytes;
    Future<Frame> reply = rp.request(target, f);
    reply.onComplete(ar -> {
      inFlight[target] -= bytes;
      next(target);
    });
    return reply;
  }

  /** Sends the waiting gets to {@code target} that fit now, in order. */
  private void next(int target) {
    ArrayDeque<Waiting> q = waiting[target];
    while (q != null && !q.isEmpty() && fits(target, q.peek().bytes())) {
      Waiting w = q.poll();
      send(target, w.frame(), w.bytes()).onComplete(w.reply());
    }
  }
}
