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
 *
 * <p>Where native epoll does not load (its jars are optional dependencies of the library, so a
 * project that depends on it does not get them; macOS, Windows, another architecture), there is
 * nothing to poll with: Vert.x chooses its transport itself (NIO, or another native one it finds)
 * and every mode sleeps, as {@link Progress#SLEEP} does. That is logged once per JVM, at DEBUG for
 * the default {@link Progress#ADAPTIVE} (an idle adaptive loop sleeps anyway) and at INFO for
 * {@link Progress#BUSY}, which was asked for by name. Netty's NIO loops cannot poll:
 * {@code NioIoHandler} treats {@link SelectStrategy#BUSY_WAIT} as a plain select.
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
   * {@link Progress#SLEEP}, and where native epoll does not load (then every mode sleeps; logged
   * once, see the class comment).
   *
   * @param mode how the event loops wait
   * @return the transport, or {@code null}
   */
  public static Transport of(Progress mode) {
    return of(mode, epollAvailable());
  }

  /** As {@link #of(Progress)}, told whether native epoll loads here (the seam of its unit test). */
  static Transport of(Progress mode, boolean epoll) {
    if (mode == Progress.SLEEP) {
      return null;
    }
    if (!epoll) {
      noteSleeping(mode);
      return null;
    }
    return mode == Progress.BUSY ? BUSY : ADAPTIVE;
  }

  /**
   * Whether Netty's native epoll transport loads in this JVM. Vert.x's {@code Transport.EPOLL} is
   * {@code null} when Netty's epoll classes are not on the class path at all, and unavailable
   * when they are but the native library does not load (not Linux, another architecture).
   */
  static boolean epollAvailable() {
    Transport epoll = Transport.EPOLL;
    return epoll != null && epoll.available();
  }

  /** Why native epoll does not load here, for the log line. */
  static String epollUnavailability() {
    Transport epoll = Transport.EPOLL;
    if (epoll == null) {
      return "Netty's epoll classes are not on the class path (io.netty:netty-transport-native-epoll, "
          + "classifier linux-x86_64 or linux-aarch_64, is an optional dependency of vertx-rma)";
    }
    Throwable cause = epoll.unavailabilityCause();
    return cause == null ? "Netty says it is unavailable" : String.valueOf(cause);
  }

  /** Whether {@link #noteSleeping} has logged (once per JVM). */
  static final java.util.concurrent.atomic.AtomicBoolean NOTED = new java.util.concurrent.atomic.AtomicBoolean();

  /** Logs once per JVM that {@code mode} sleeps like {@link Progress#SLEEP} here, and why. */
  private static void noteSleeping(Progress mode) {
    if (NOTED.compareAndSet(false, true)) {
      System.getLogger(PollingTransport.class.getName()).log(
          mode == Progress.BUSY ? System.Logger.Level.INFO : System.Logger.Level.DEBUG,
          "progress " + mode.name().toLowerCase(java.util.Locale.ROOT) + " needs Netty's native epoll transport, "
              + "which does not load here (" + epollUnavailability() + "): the event loops sleep when idle, as "
              + "with progress sleep, on the transport Vert.x chooses (NIO)");
    }
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
    return epollAvailable();
  }

  @Override
  public Throwable unavailabilityCause() {
    return epollAvailable() ? null : new IllegalStateException(epollUnavailability());
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
