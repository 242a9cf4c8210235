package dev.vertxrma.impl.runtime;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How far the startup handshakes of this JVM's ranks have come, for {@code bin/rmarun}'s
 * progress line. The {@link Handshake} tells it three things: a handshake runs (this JVM is in
 * the cluster and its data plane listens), it has heard of N rank instances of the job, a rank
 * has joined (its handshake is done). Nothing listens unless a JVM started by {@code rmarun}
 * installs a {@link #reportTo reporter}; then it costs a volatile read per event.
 *
 * <p>A reporter sends one line per event to the {@code rmarun} process that started this JVM,
 * over a TCP connection to {@code 127.0.0.1:PORT} (or {@code HOST:PORT} for a JVM on another host): {@code jvm K} first, then {@code cluster},
 * {@code heard N}, {@code joined N} (N of this JVM's ranks). The lines are progress only: the
 * launcher shows them and nothing else depends on them.
 */
public final class StartupProgress {

  /** Told about startup events; called on a rank's context, so it must not block. */
  interface Listener {
    /** A handshake of job {@code job} runs in this JVM. */
    void started(String job);

    /** A handshake of job {@code job} knows {@code instances} rank instances (its own included). */
    void heard(String job, int instances);

    /** Rank {@code rank} of job {@code job}, in this JVM, completed its handshake. */
    void joined(String job, int rank);
  }

  private static volatile Listener listener;

  private StartupProgress() {
  }

  static void started(String job) {
    Listener l = listener;
    if (l != null) {
      try {
        l.started(job);
      } catch (RuntimeException ignored) {
        // progress only: never disturbs a startup
      }
    }
  }

  static void heard(String job, int instances) {
    Listener l = listener;
    if (l != null) {
      try {
        l.heard(job, instances);
      } catch (RuntimeException ignored) {
        // progress only
      }
    }
  }

  static void joined(String job, int rank) {
    Listener l = listener;
    if (l != null) {
      try {
        l.joined(job, rank);
      } catch (RuntimeException ignored) {
        // progress only
      }
    }
  }

  /** Installs {@code l} (or removes the listener with {@code null}). */
  static void listen(Listener l) {
    listener = l;
  }

  /** Stops reporting: what {@link #reportTo} installed is removed (the launcher's job in this JVM ended). */
  public static void stopReporting() {
    listen(null);
  }

  /**
   * Reports the startup of job {@code job} in this JVM (JVM number {@code jvm} of the launcher's
   * job) to the launcher listening on {@code host:port} (loopback if {@code host} is null).
   * Connection and writes happen on a daemon thread of their own; if the launcher cannot be
   * reached, nothing is reported.
   */
  public static void reportTo(String host, int port, int jvm, String job) {
    ExecutorService sender = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "rmarun-progress");
      t.setDaemon(true);
      return t;
    });
    OutputStream[] out = new OutputStream[1];
    sender.execute(() -> {
      try {
        @SuppressWarnings("resource") // open for the life of this JVM
        Socket s = host == null ? new Socket(InetAddress.getLoopbackAddress(), port)
            : new Socket(host.startsWith("[") ? host.substring(1, host.length() - 1) : host, port);
        out[0] = s.getOutputStream();
      } catch (IOException e) {
        out[0] = null;
      }
    });
    java.util.function.Consumer<String> line = text -> sender.execute(() -> {
      if (out[0] != null) {
        try {
          out[0].write((text + "\n").getBytes(StandardCharsets.UTF_8));
          out[0].flush();
        } catch (IOException e) {
          out[0] = null; // the launcher went away: report no more
        }
      }
    });
    line.accept("jvm " + jvm);
    AtomicInteger heard = new AtomicInteger();
    AtomicInteger joined = new AtomicInteger();
    AtomicInteger running = new AtomicInteger();
    listen(new Listener() {
      @Override
      public void started(String j) {
        if (j.equals(job) && running.getAndIncrement() == 0) {
          line.accept("cluster");
        }
      }

      @Override
      public void heard(String j, int instances) {
        if (j.equals(job) && heard.getAndAccumulate(instances, Math::max) < instances) {
          line.accept("heard " + instances);
        }
      }

      @Override
      public void joined(String j, int rank) {
        if (j.equals(job)) {
          line.accept("joined " + joined.incrementAndGet());
        }
      }
    });
  }
}
