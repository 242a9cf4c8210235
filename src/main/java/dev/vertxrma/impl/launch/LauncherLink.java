package dev.vertxrma.impl.launch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * A JVM started on a host by {@code rmarun --host} and its launcher, joined by the JVM's standard
 * input (over ssh, or whatever the launch template runs; {@link JobDescription#isLauncherLink()}):
 * after the job description's line comes the job secret's (so that it appears on no command line
 * and in no file), and the input's end means that the launcher is gone (killed, or it stopped the
 * job), upon which the JVM stops too: a JVM on another host is never left behind.
 */
final class LauncherLink {

  /** The longest line taken for a secret (a secret's Base64 is far shorter). */
  private static final int MAX_SECRET_LINE = 1024;

  private LauncherLink() {
  }

  /**
   * The next line of {@code in}: the job secret, after the job description's line.
   *
   * @throws IOException if {@code in} ends before a line, or the line is too long
   */
  static String readSecret(InputStream in) throws IOException {
    return readLine(in, MAX_SECRET_LINE, "the secret's line").trim();
  }

  /**
   * The next line of {@code in} (UTF-8, without its newline), read byte by byte so that nothing
   * past it is consumed.
   *
   * @param what what the line is, for the message of an {@link IOException}
   * @throws IOException if {@code in} ends before a line, or the line is longer than {@code max} bytes
   */
  static String readLine(InputStream in, int max, String what) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("standard input ended before " + what);
      }
      if (line.size() >= max) {
        throw new IOException(what + " on standard input is longer than " + max + " bytes");
      }
      line.write(b);
    }
    return line.toString(StandardCharsets.UTF_8);
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
