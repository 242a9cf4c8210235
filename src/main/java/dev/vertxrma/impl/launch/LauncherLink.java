package dev.vertxrma.impl.launch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * A JVM started on a host by {@code rmarun --host} ({@code --secret-stdin}) and its launcher,
 * joined by the JVM's standard input (over ssh, or whatever the launch template runs): the job
 * secret is its first line (so that it appears on no command line and in no file), and its end
 * means that the launcher is gone (killed, or it stopped the job), upon which the JVM stops too:
 * a JVM on another host is never left behind.
 */
final class LauncherLink {

  /** The longest first line taken for a secret (a secret's Base64 is far shorter). */
  private static final int MAX_LINE = 1024;

  private LauncherLink() {
  }

  /**
   * The first line of {@code in}, read byte by byte (nothing past it is consumed).
   *
   * @throws IOException if {@code in} ends before a line, or the line is too long
   */
  static String readSecret(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("standard input ended before the secret's line");
      }
      if (line.size() >= MAX_LINE) {
        throw new IOException("the first line of standard input is longer than " + MAX_LINE + " bytes");
      }
      line.write(b);
    }
    return line.toString(StandardCharsets.US_ASCII).trim();
  }

  /**
   * Stops this JVM (status 1, after one line on {@code err}) when {@code in} ends: watched on a
   * daemon thread, which discards anything else that arrives.
   */
  static void stopWhenClosed(InputStream in, String job, int jvm, PrintStream err) {
    Thread watcher = new Thread(() -> {
      byte[] sink = new byte[256];
      try {
        while (in.read(sink) >= 0) {
          // nothing is expected after the secret
        }
      } catch (IOException e) {
        // as if closed
      }
      err.println("rmarun: JVM " + jvm + " of job " + job + " stops: its launcher is gone (standard input closed)");
      err.flush();
      Runtime.getRuntime().halt(1);
    }, "rmarun-launcher-link");
    watcher.setDaemon(true);
    watcher.start();
  }
}
