package dev.vertxrma.impl.transport;

import dev.vertxrma.Progress;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.SelectStrategy;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.ClientOptionsBase;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.transport.Transport;
import java.util.concurrent.ThreadFactory;

/**
 * Vert.x's native epoll transport with event loops that poll instead of sleeping, as MPICH's
 * progress engine polls ({@link Progress}): {@link Progress#BUSY} never sleeps (Netty's
 * {@link SelectStrategy#BUSY_WAIT}); {@link Progress#ADAPTIVE} polls while its loop has just been
 * busy and then sleeps ({@link BackoffSelectStrategy}). A round trip between two JVMs whose loops
 * poll costs no thread wake-up (on this project's VM a loopback ping-pong took 7 µs instead of
 * 70). Vert.x's acceptor loop keeps sleeping.
 */
public final class PollingTransport implements Transport {

  private static final PollingTransport BUSY = new PollingTransport(Progress.BUSY);
  private static final PollingTransport ADAPTIVE = new PollingTransport(Progress.ADAPTIVE);

  private final Progress mode;

  private PollingTransport(Progress mode) {
    this.mode = mode;
  }

  /**
   * The transport that gives {@code mode}, or {@code null} for Vert.x's own choice: for
   * {@link Progress#SLEEP}, and where native epoll does not load.
   *
   * @param mode how the event loops wait
   * @return the transport, or {@code null}
   */
  public static Transport of(Progress mode) {
    if (mode == Progress.SLEEP || !Transport.EPOLL.available()) {
      return null;
    }
    return mode == Progress.BUSY ? BUSY : ADAPTIVE;
  }

  /**
   * How {@code vertx}'s event loops wait: the mode of the transport it was built with,
   * {@link Progress#SLEEP} for any other.
   *
   * @param vertx a Vert.x instance
   * @return its mode
   */
  public static Progress modeOf(io.vertx.core.Vertx vertx) {
    if (vertx instanceof io.vertx.core.internal.VertxInternal
        && ((io.vertx.core.internal.VertxInternal) vertx).transport() instanceof Polling) {
      return ((Polling) ((io.vertx.core.internal.VertxInternal) vertx).transport()).mode;
    }
    return Progress.SLEEP;
  }

  @Override
  public String name() {
    return mode == Progress.BUSY ? "epoll-busy-poll" : "epoll-adaptive-poll";
  }

  @Override
  public boolean available() {
    return Transport.EPOLL.available();
  }

  @Override
  public Throwable unavailabilityCause() {
    return Transport.EPOLL.unavailabilityCause();
  }

  @Override
  public io.vertx.core.spi.transport.Transport implementation() {
    return new Polling(Transport.EPOLL.implementation(), mode);
  }

  /** Epoll, everything delegated except the event loops' I/O handler. */
  private static final class Polling implements io.vertx.core.spi.transport.Transport {

    private final io.vertx.core.spi.transport.Transport epoll;
    private final Progress mode;

    Polling(io.vertx.core.spi.transport.Transport epoll, Progress mode) {
      this.epoll = epoll;
      this.mode = mode;
    }

    @Override
    public IoHandlerFactory ioHandlerFactory() {
      if (mode == Progress.ADAPTIVE) {
        // one strategy per loop: its state belongs to that loop's thread
        return EpollIoHandler.newFactory(0, BackoffSelectStrategy::new);
      }
      // with tasks queued, a plain non-blocking poll (as Netty's default strategy); else poll on
      return EpollIoHandler.newFactory(0, () -> (now, hasTasks) -> hasTasks ? now.get() : SelectStrategy.BUSY_WAIT);
    }

    @Override
    public EventLoopGroup eventLoopGroup(int type, int nThreads, ThreadFactory threadFactory, int ioRatio) {
      if (type == ACCEPTOR_EVENT_LOOP_GROUP) {
        // it accepts rarely, but the data plane of a JVM with several ranks runs there (DataPlane's
        // home): it polls adaptively in either mode, and sleeps when the plane is idle
        return new io.netty.channel.MultiThreadIoEventLoopGroup(nThreads, threadFactory,
            EpollIoHandler.newFactory(0, BackoffSelectStrategy::new));
      }
      return io.vertx.core.spi.transport.Transport.super.eventLoopGroup(type, nThreads, threadFactory, ioRatio);
    }

    @Override
    public boolean supportsDomainSockets() {
      return epoll.supportsDomainSockets();
    }

    @Override
    public boolean supportFileRegion() {
      return epoll.supportFileRegion();
    }

    @Override
    public boolean isAvailable() {
      return epoll.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
      return epoll.unavailabilityCause();
    }

    @Override
    public java.net.SocketAddress convert(io.vertx.core.net.SocketAddress address) {
      return epoll.convert(address);
    }

    @Override
    public io.vertx.core.net.SocketAddress convert(java.net.SocketAddress address) {
      return epoll.convert(address);
    }

    @Override
    public DatagramChannel datagramChannel() {
      return epoll.datagramChannel();
    }

    @Override
    public DatagramChannel datagramChannel(InternetProtocolFamily family) {
      return epoll.datagramChannel(family);
    }

    @Override
    public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
      return epoll.channelFactory(domainSocket);
    }

    @Override
    public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
      return epoll.serverChannelFactory(domainSocket);
    }

    @Override
    public void configure(DatagramChannel channel, DatagramSocketOptions options) {
      epoll.configure(channel, options);
    }

    @Override
    public void configure(ClientOptionsBase options, int connectTimeout, boolean domainSocket, Bootstrap bootstrap) {
      epoll.configure(options, connectTimeout, domainSocket, bootstrap);
    }

    @Override
    public void configure(NetServerOptions options, boolean domainSocket, ServerBootstrap bootstrap) {
      epoll.configure(options, domainSocket, bootstrap);
    }
  }
}
