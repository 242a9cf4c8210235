package dev.vertxrma.bench;

import dev.vertxrma.Comm;
import dev.vertxrma.Op;
import dev.vertxrma.impl.runtime.ClusterSupport;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import java.util.function.Supplier;

/**
 * The {@code net-latency} bench: the round trip of {@code bytes} between rank 0 and the last rank
 * over a bare Vert.x TCP connection, with nothing of vertx-rma in the path. The connection is made
 * as the data plane makes its own: by the ranks' Vert.x instance (so with its transport: epoll,
 * busy-polling with {@code -Drma.busyPoll=true}), from and to the ranks' own threads, with
 * {@code TCP_NODELAY}, reading and writing Netty buffers as they are (no copy into a Vert.x
 * {@code Buffer}). Plain TCP even when the job's data plane uses TLS.
 *
 * <p>The last rank echoes every byte it reads; rank 0 times each round from its write to the
 * last byte of the echo. Every rank takes part in the agreement on the port and in the warm-up's
 * agreement, as in every other bench.
 */
final class NetRoundTrip {

  private NetRoundTrip() {
  }

  /** Runs the point at every rank: {@code rank} 0 measures into {@code lat}, {@code target} echoes. */
  static Future<Void> run(Comm world, long bytes, int rank, int target, int iters, BenchProgram.Warmup warmup,
      Latencies lat) {
    Vertx vertx = Vertx.currentContext().owner();
    if (rank == target) {
      NetServer server = vertx.createNetServer(new NetServerOptions().setHost(ClusterSupport.host()).setPort(0)
          .setTcpNoDelay(true));
      server.connectHandler(s -> {
        NetSocketInternal socket = (NetSocketInternal) s;
        socket.messageHandler(msg -> socket.writeMessage(msg)); // the socket releases what it writes
      });
      return server.listen()
          .compose(srv -> world.allreduce((long) srv.actualPort(), Op.MAX))
          .compose(port -> warmup.run(null))
          .compose(v -> world.barrier()) // rank 0 has measured
          .compose(v -> server.close());
    }
    if (rank != 0) {
      return world.allreduce(0L, Op.MAX).compose(port -> warmup.run(null)).compose(v -> world.barrier());
    }
    NetClient client = vertx.createNetClient(new NetClientOptions().setTcpNoDelay(true).setConnectTimeout(5_000));
    return world.allreduce(0L, Op.MAX)
        .compose(port -> client.connect(port.intValue(), ClusterSupport.host()))
        .compose(s -> {
          Echo echo = new Echo((NetSocketInternal) s, (int) Math.max(1, bytes));
          return warmup.run(echo).compose(v -> lat.measure(iters, echo)).eventually(echo::close);
        })
        .compose(v -> world.barrier())
        .eventually(client::close);
  }

  /** One round at rank 0: writes the message and completes once all of its echo has arrived. */
  private static final class Echo implements Supplier<Future<?>> {
    private final NetSocketInternal socket;
    private final ByteBuf message;
    private final int length;
    private int received;
    private Promise<Void> round;

    Echo(NetSocketInternal socket, int length) {
      this.socket = socket;
      this.length = length;
      this.message = PooledByteBufAllocator.DEFAULT.directBuffer(length, length).writeZero(length);
      socket.messageHandler(this::read);
    }

    @Override
    public Future<?> get() {
      round = Promise.promise();
      received = 0;
      socket.writeMessage(message.retainedDuplicate()); // the socket releases its duplicate
      return round.future();
    }

    private void read(Object msg) {
      ByteBuf b = (ByteBuf) msg;
      received += b.readableBytes();
      b.release();
      if (received >= length && round != null) {
        Promise<Void> done = round;
        round = null;
        done.complete();
      }
    }

    Future<Void> close() {
      message.release();
      return socket.close();
    }
  }
}
