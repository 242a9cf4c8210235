package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Status;
import dev.vertxrma.impl.comm.CommImpl;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * Frames that cross the data plane are delivered inline when the socket's thread is the
 * destination rank's event loop and nothing waits in that rank's queue, queued otherwise: a
 * flood of messages from every rank to every other arrives complete, with the right values, in
 * each source's order (MPI's non-overtaking rule with {@code ANY_SOURCE}/{@code ANY_TAG}); then a
 * ping-pong with nothing else in flight. Embedded, no frame crosses a network. Clustered with one
 * rank per node, the data plane shares that rank's event loop: inline and queued deliveries
 * interleave in the flood, the ping-pong takes the inline path, and each rank received frames
 * inline. With two ranks per node (local and remote senders at once) the data plane runs on an
 * event loop of its own, so every frame is queued, in order.
 */
class NetworkDeliveryOrderTest {

  private static final int NP = 4;
  private static final int FLOOD = 2_000;
  private static final int ROUNDS = 200;

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> jobs() {
    return java.util.stream.Stream.of(org.junit.jupiter.params.provider.Arguments.of(Mode.EMBEDDED, NP),
        org.junit.jupiter.params.provider.Arguments.of(Mode.CLUSTERED, 2),
        org.junit.jupiter.params.provider.Arguments.of(Mode.CLUSTERED, NP));
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("jobs")
  void framesFromTheNetworkKeepEachSourcesOrderInlineOrQueued(Mode mode, int np) {
    Map<Integer, Long> inline = new ConcurrentHashMap<>();
    Jobs.run(mode, np, (world, args) -> {
      int me = world.rank();
      int n = world.size();
      // the flood: every rank sends FLOOD numbered messages to every other one, without waiting
      // for them, a chunk per task (receives run in between)
      List<Future<Void>> sends = new ArrayList<>();
      Promise<Void> issued = Promise.promise();
      sendChunk(world, sends, 0, issued);
      long[] next = new long[n];
      return receiveAll(world, next, (n - 1) * FLOOD)
          .map(v -> {
            for (int s = 0; s < n; s++) {
              int src = s;
              assertEquals(s == me ? 0 : FLOOD, next[s], () -> "messages from rank " + src + " at rank " + me);
            }
            return null;
          })
          .compose(v -> issued.future())
          .compose(v -> Future.all(sends))
          .compose(v -> world.barrier())
          .compose(v -> pingPongs(world))
          .map(v -> {
            inline.put(me, ((CommImpl) world).process().inlineFromNetwork());
            return null;
          });
    });
    assertEquals(np, inline.size());
    if (mode == Mode.EMBEDDED) {
      inline.forEach((r, count) -> assertEquals(0L, count, "rank " + r + ": no data plane in one Vert.x"));
    } else if (np == 2) {
      // one rank per node: the data plane of each shares its event loop
      assertTrue(inline.get(0) > 0 && inline.get(1) > 0, "inline deliveries at both ranks: " + inline);
    } else {
      // ranks 0 and 1 on one node, 2 and 3 on the other: each node's data plane has a loop of its own
      inline.forEach((r, count) -> assertEquals(0L, count, "rank " + r + " shares no loop with the data plane"));
    }
  }

  private static final int CHUNK = 50;

  /** Sends messages {@code [from, from + CHUNK)} to every other rank, then the next chunk in a task of its own. */
  private static void sendChunk(Comm world, List<Future<Void>> sends, int from, Promise<Void> issued) {
    int me = world.rank();
    int n = world.size();
    int to = Math.min(FLOOD, from + CHUNK);
    for (int i = from; i < to; i++) {
      for (int d = 1; d < n; d++) {
        long[] msg = {me, i, (long) me * 1_000_003L + i};
        sends.add(world.isend(Buf.of(msg), 0, 3, Datatype.LONG, (me + d) % n, 100 + i % 7));
      }
    }
    if (to == FLOOD) {
      issued.complete();
    } else {
      io.vertx.core.Vertx.currentContext().runOnContext(v -> sendChunk(world, sends, to, issued));
    }
  }

  /** Receives {@code left} messages from any source, checking each source's sequence and values. */
  private static Future<Void> receiveAll(Comm world, long[] next, int left) {
    Promise<Void> done = Promise.promise();
    receiveNext(world, next, left, done);
    return done.future();
  }

  private static void receiveNext(Comm world, long[] next, int left, Promise<Void> done) {
    if (left == 0) {
      done.complete();
      return;
    }
    long[] in = new long[3];
    world.recv(Buf.of(in), 0, 3, Datatype.LONG, Comm.ANY_SOURCE, Comm.ANY_TAG).onComplete(ar -> {
      try {
        if (ar.failed()) {
          done.fail(ar.cause());
          return;
        }
        Status st = ar.result();
        int src = st.source();
        long i = next[src]++;
        if (in[0] != src || in[1] != i || in[2] != src * 1_000_003L + i || st.tag() != 100 + i % 7) {
          assertArrayEquals(new long[] {src, i, src * 1_000_003L + i}, in,
              "message " + i + " from rank " + src + " at rank " + world.rank());
          assertEquals(100 + i % 7, st.tag(), "tag of message " + i + " from rank " + src);
        }
      } catch (Throwable t) {
        done.tryFail(t);
        return;
      }
      // through the context, so that a long run of already-arrived messages does not nest
      io.vertx.core.Vertx.currentContext().runOnContext(v -> receiveNext(world, next, left - 1, done));
    });
  }

  /** Each rank of the first half plays ping-pong with each of the second half, one pair at a time. */
  private static Future<Void> pingPongs(Comm world) {
    int n = world.size();
    int half = n / 2;
    Future<Void> f = Future.succeededFuture();
    for (int a = 0; a < half; a++) {
      for (int b = half; b < n; b++) {
        int pa = a;
        int pb = b;
        f = f.compose(v -> world.rank() == pa ? pingPong(world, pb, true, ROUNDS)
            : world.rank() == pb ? pingPong(world, pa, false, ROUNDS) : Future.succeededFuture())
            .compose(v -> world.barrier());
      }
    }
    return f;
  }

  private static Future<Void> pingPong(Comm world, int peer, boolean serve, int rounds) {
    if (rounds == 0) {
      return Future.succeededFuture();
    }
    long[] out = {rounds};
    long[] in = new long[1];
    Future<Void> round = serve
        ? world.send(Buf.of(out), 0, 1, Datatype.LONG, peer, 9).compose(v -> world.recv(Buf.of(in), 0, 1, Datatype.LONG,
            peer, 9)).mapEmpty()
        : world.recv(Buf.of(in), 0, 1, Datatype.LONG, peer, 9).compose(st -> world.send(Buf.of(in), 0, 1,
            Datatype.LONG, peer, 9));
    return round.compose(v -> {
      assertEquals(rounds, in[0], () -> "ping-pong round between " + world.rank() + " and " + peer);
      return pingPong(world, peer, serve, rounds - 1);
    });
  }
}
