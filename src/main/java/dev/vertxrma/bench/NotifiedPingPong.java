package dev.vertxrma.bench;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.function.Supplier;

/**
 * The {@code notify-latency} and {@code signal-latency} benches: a ping-pong between rank 0 and
 * the last rank, timed at rank 0 there and back. {@code notify-latency}: a {@code putNotify} of
 * {@code bytes} whose counter the other rank's {@code awaitNotify} future waits for (spinning,
 * then polling, then parked), which then answers likewise. {@code signal-latency}: what MPI 3
 * needs for the same news, a put, a flush and a zero-byte message the other rank receives. Both
 * ranks hold lockAll for the whole point; the other ranks only take part in the warm-up's
 * agreement (and in setNumNotify, which is collective).
 */
final class NotifiedPingPong {

  private static final int TAG = 0x4e4f;

  private NotifiedPingPong() {
  }

  /** Runs the point at every rank: rank 0 measures into {@code lat}, {@code target} answers. */
  static Future<Void> run(Comm world, Win win, boolean notified, long bytes, int target, int iters,
      BenchProgram.Warmup warmup, Latencies lat) {
    int rank = world.rank();
    Future<Void> ready = notified ? win.setNumNotify(1) : Future.succeededFuture();
    if (rank != 0 && rank != target) {
      return ready.compose(v -> warmup.run(null));
    }
    int peer = rank == 0 ? target : 0;
    int n = (int) Math.max(1, bytes);
    byte[] data = new byte[n];
    long[] expected = {0};
    Supplier<Future<?>> send;
    Supplier<Future<?>> receive;
    if (notified) {
      send = () -> win.putNotify(Buf.of(data), 0, n, Datatype.BYTE, peer, 0, 0);
      receive = () -> win.awaitNotify(0, ++expected[0]);
    } else {
      send = BenchProgram.steps(() -> win.put(Buf.of(data), 0, n, Datatype.BYTE, peer, 0), () -> win.flush(peer),
          () -> world.send(null, 0, 0, Datatype.BYTE, peer, TAG));
      receive = () -> world.recv(null, 0, 0, Datatype.BYTE, peer, TAG);
    }
    Supplier<Future<?>> round = rank == 0 ? BenchProgram.steps(send, receive) : BenchProgram.steps(receive, send);
    return ready.compose(v -> win.lockAll())
        .compose(v -> warmup.run(round))
        .compose(v -> lat.measure(iters, round))
        .compose(v -> win.unlockAll());
  }
}
