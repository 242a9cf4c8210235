package dev.vertxrma.impl.transport;

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
 * Vert.x's native epoll transport with event loops that never sleep: when it has no task to run,
 * a loop polls its sockets again (Netty's {@link SelectStrategy#BUSY_WAIT}) instead of waiting in
 * {@code epoll_wait} to be woken, as MPICH's progress engine polls. A round trip between two JVMs
 * then costs no thread wake-up (on this project's VM a loopback ping-pong took 7 µs instead of
 * 70), at the price of one core per event loop, busy all the time. Opt-in
 * ({@code -Drma.busyPoll=true}); Vert.x's acceptor loop keeps sleeping.
 */
public final class BusyPollTransport implements Transport {

  /** The system property that turns it on for the clustered Vert.x nodes of this JVM. */
  public static final String PROPERTY = "rma.busyPoll";

  private static final BusyPollTransport INSTANCE = new BusyPollTransport();

  private BusyPollTransport() {
  }

  /** Whether {@code -Drma.busyPoll=true} asks for it. */
  public static boolean requested() {
    return Boolean.getBoolean(PROPERTY);
  }

  /** The busy-polling transport, or {@code null} where native epoll does not load (Vert.x then picks its own). */
  public static Transport ifAvailable() {
    return Transport.EPOLL.available() ? INSTANCE : null;
  }

  /** Whether {@code vertx}'s event loops busy-poll (it was built with this transport). */
  public static boolean isBusy(io.vertx.core.Vertx vertx) {
    return vertx instanceof io.vertx.core.internal.VertxInternal
        && ((io.vertx.core.internal.VertxInternal) vertx).transport() instanceof Busy;
  }

  @Override
  public String name() {
    return "epoll-busy-poll";
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
    return new Busy(Transport.EPOLL.implementation());
  }

  /** Epoll, everything delegated except the event loops' I/O handler. */
  private static final class Busy implements io.vertx.core.spi.transport.Transport {

    private final io.vertx.core.spi.transport.Transport epoll;

    Busy(io.vertx.core.spi.transport.Transport epoll) {
      this.epoll = epoll;
    }

    @Override
    public IoHandlerFactory ioHandlerFactory() {
      // with tasks queued, a plain non-blocking poll (as Netty's default strategy); else poll on
      return EpollIoHandler.newFactory(0, () -> (now, hasTasks) -> hasTasks ? now.get() : SelectStrategy.BUSY_WAIT);
    }

    @Override
    public EventLoopGroup eventLoopGroup(int type, int nThreads, ThreadFactory threadFactory, int ioRatio) {
      if (type == ACCEPTOR_EVENT_LOOP_GROUP) {
        return epoll.eventLoopGroup(type, nThreads, threadFactory, ioRatio); // accepts rarely: let it sleep
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
