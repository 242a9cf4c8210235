package dev.vertxrma.impl.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The launcher's one-line report of a multi-JVM job's startup on stderr: how many of its JVMs
 * are in the cluster, how many ranks have been heard of, and when all have joined. The JVMs
 * report to it through {@link dev.vertxrma.impl.runtime.StartupProgress#reportTo} (a connection to {@link #port()} on
 * loopback, or, for a job on hosts, on this machine's address that faces each host; connections
 * from anywhere else are closed unread). On a terminal the line is redrawn in place and ended when every rank has joined (or
 * before rmarun prints anything else); elsewhere each new state is a line of its own.
 *
 * <pre>
 * rmarun: starting 2 JVMs for 4 ranks of job demo...
 * rmarun: 2/2 JVMs in the cluster, joined 3/4 ranks...
 * rmarun: all 4 ranks joined (9.8 s)
 * </pre>
 *
 * "Joined" counts the rank instances the JVMs' handshakes have heard of; once all are, the
 * report ends (the handshakes then complete in a moment, or fail the job with a reason).
 */
final class LaunchProgress implements AutoCloseable {

  private final PrintStream err;
  private final boolean tty;
  private final int np;
  private final int[] ranksOf;
  private final boolean[] inCluster;
  private final int[] joined;
  private final long start = System.nanoTime();
  private final ServerSocket server;
  /** The addresses of the job's hosts, whose connections are read (null: loopback only). */
  private final java.util.Set<java.net.InetAddress> hosts;
  private int heard;
  private String shown;
  /** A line drawn on the terminal and not yet ended. */
  private boolean open;
  private boolean finished;
  /** Whether every rank joined: the job started. */
  private boolean allJoined;
  /** {@code rmarun -q}: the state is kept, nothing is shown. */
  private final boolean quiet;

  /**
   * @param ranksOf the number of ranks of each JVM
   * @param tty whether {@code err} is a terminal
   * @param quiet whether nothing is shown ({@code -q}; the state is kept for {@link #allJoined})
   * @param hosts the addresses of the job's hosts, null for a job on this host (then only loopback listens)
   */
  LaunchProgress(PrintStream err, boolean tty, boolean quiet, int np, int[] ranksOf, String job, java.util.Set<String> hosts)
      throws IOException {
    this.err = err;
    this.tty = tty;
    this.quiet = quiet;
    this.np = np;
    this.ranksOf = ranksOf.clone();
    this.inCluster = new boolean[ranksOf.length];
    this.joined = new int[ranksOf.length];
    if (hosts == null) {
      this.hosts = null;
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } else {
      this.hosts = new java.util.HashSet<>();
      for (String h : hosts) {
        this.hosts.add(InetAddress.getByName(h));
      }
      this.server = new ServerSocket(0, 50);
    }
    Thread acceptor = new Thread(this::accept, "rmarun-progress-accept");
    acceptor.setDaemon(true);
    acceptor.start();
    show("starting " + ranksOf.length + " JVMs " + (hosts == null ? "" : "on " + hosts.size() + " host"
        + (hosts.size() == 1 ? " " : "s ")) + "for " + np + " ranks of job " + job + "...");
  }

  /** The port the JVMs report to. */
  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        InetAddress peer = s.getInetAddress();
        if (hosts != null && !peer.isLoopbackAddress() && !hosts.contains(peer)) {
          s.close(); // not a JVM of the job
          continue;
        }
        Thread reader = new Thread(() -> read(s), "rmarun-progress-read");
        reader.setDaemon(true);
        reader.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void read(Socket s) {
    try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
      int jvm = -1;
      String line;
      while ((line = in.readLine()) != null) {
        String[] w = line.split(" ");
        try {
          if (w.length == 2 && w[0].equals("jvm")) {
            int k = Integer.parseInt(w[1]);
            jvm = k >= 0 && k < ranksOf.length ? k : -1;
          } else if (jvm >= 0) {
            update(jvm, w[0], w.length == 2 ? Integer.parseInt(w[1]) : 0);
          }
        } catch (NumberFormatException junk) {
          // progress only: ignore what is not a report
        }
      }
    } catch (IOException e) {
      // the JVM ended
    }
  }

  private synchronized void update(int jvm, String what, int n) {
    switch (what) {
      case "cluster" -> inCluster[jvm] = true;
      case "heard" -> heard = Math.max(heard, Math.min(n, np));
      case "joined" -> {
        inCluster[jvm] = true;
        joined[jvm] = Math.max(joined[jvm], Math.min(n, ranksOf[jvm]));
      }
      default -> {
        return;
      }
    }
    int clustered = 0;
    int ready = 0;
    for (int k = 0; k < ranksOf.length; k++) {
      clustered += inCluster[k] ? 1 : 0;
      ready += joined[k];
    }
    // every rank heard of is the end of the report: the ranks finish their handshake and start
    // printing at once, so a line still open on the terminal would run into theirs
    if (ready == np || heard == np) {
      allJoined = true;
      show(String.format(Locale.ROOT, "all %d ranks joined (%.1f s)", np, (System.nanoTime() - start) / 1e9));
      end();
      finished = true;
    } else if (heard == 0) {
      show(clustered + "/" + ranksOf.length + " JVMs in the cluster...");
    } else {
      show(clustered + "/" + ranksOf.length + " JVMs in the cluster, joined " + heard + "/" + np + " ranks...");
    }
  }

  /** Whether every rank of the job joined: the job started, and a JVM that fails from now on fails a running job. */
  synchronized boolean allJoined() {
    return allJoined;
  }

  private void show(String text) {
    if (quiet || finished || text.equals(shown)) {
      return;
    }
    shown = text;
    if (tty) {
      err.print("\r" + "rmarun: " + text + "\033[K");
      err.flush();
      open = true;
    } else {
      err.println("rmarun: " + text);
    }
  }

  /** Ends the line drawn on a terminal, so that what comes next starts on a line of its own. */
  synchronized void end() {
    if (open) {
      err.println();
      open = false;
    }
  }

  /** Ends the report: no more lines. */
  @Override
  public synchronized void close() {
    end();
    finished = true;
    try {
      server.close();
    } catch (IOException e) {
      // nothing to do
    }
  }
}
