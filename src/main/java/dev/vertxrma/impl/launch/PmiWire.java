package dev.vertxrma.impl.launch;

import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The client side of PMI-1's wire protocol, which MPICH's Hydra ({@code mpiexec}) speaks with each
 * process it starts over the socket whose descriptor number {@code PMI_FD} gives: one line per
 * request, {@code cmd=NAME key=value ...}, answered by one line. What {@code rmarun} needs of it:
 * {@code init}, the job's key-value space name ({@code get_my_kvsname}, unique per job), {@code put},
 * {@code barrier_in} (every process of the job), {@code get}, and {@code finalize}. A process that
 * has sent {@code init} and ends without {@code finalize} is taken by Hydra for a failed one: it
 * kills the job's other processes (as {@code MPI_Abort} would), which is what a failed rank wants.
 *
 * <p>Calls block: they are made by the launcher's main thread before the job's Vert.x starts, and
 * after it has ended.
 */
final class PmiWire {

  /** The longest answer line taken (Hydra's values are at most 1024 bytes). */
  private static final int MAX_LINE = 4096;

  private final InputStream in;
  private final OutputStream out;

  private PmiWire(InputStream in, OutputStream out) {
    this.in = in;
    this.out = out;
  }

  /**
   * The connection over inherited descriptor {@code fd}, used as it is (a JVM cannot open a
   * descriptor by number: java.io's {@link FileDescriptor} is given it, which needs
   * {@code --add-opens java.base/java.io=ALL-UNNAMED}, one of {@code conf/jvm.options}' flags).
   *
   * @throws IOException when the descriptor cannot be taken
   */
  static PmiWire inherited(int fd) throws IOException {
    FileDescriptor d = new FileDescriptor();
    try {
      java.lang.reflect.Field number = FileDescriptor.class.getDeclaredField("fd");
      number.setAccessible(true);
      number.setInt(d, fd);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IOException("cannot use descriptor " + fd + " (this JVM needs --add-opens java.base/java.io=ALL-UNNAMED, "
          + "as bin/rmarun gives it from conf/jvm.options): " + e, e);
    }
    return new PmiWire(new FileInputStream(d), new FileOutputStream(d));
  }

  /** A connection over the given streams (tests). */
  static PmiWire over(InputStream in, OutputStream out) {
    return new PmiWire(in, out);
  }

  /** {@code cmd=init pmi_version=1 pmi_subversion=1}; fails unless the answer's {@code rc} is 0. */
  void init() throws IOException {
    call("init pmi_version=1 pmi_subversion=1", "response_to_init");
  }

  /** The job's key-value space name: the same in every process of the job, another in every job. */
  String kvsName() throws IOException {
    return value(call("get_my_kvsname", "my_kvsname"), "kvsname");
  }

  /** Puts {@code key}={@code value} (no blanks, no {@code =} in either) into space {@code kvs}. */
  void put(String kvs, String key, String value) throws IOException {
    call("put kvsname=" + word(kvs) + " key=" + word(key) + " value=" + word(value), "put_result");
  }

  /** Waits until every process of the job has entered the barrier: puts before it are visible after it. */
  void barrier() throws IOException {
    call("barrier_in", "barrier_out");
  }

  /** The value of {@code key} in space {@code kvs}; fails when there is none. */
  String get(String kvs, String key) throws IOException {
    return value(call("get kvsname=" + word(kvs) + " key=" + word(key), "get_result"), "value");
  }

  /** {@code cmd=finalize}: this process leaves the job in order (then it may end with any status). */
  void finalizeJob() throws IOException {
    call("finalize", "finalize_ack");
  }

  private static String word(String s) {
    if (s.isEmpty() || s.chars().anyMatch(c -> c <= ' ' || c == '=' || c > '~')) {
      throw new IllegalArgumentException("'" + s + "' cannot travel in a PMI line");
    }
    return s;
  }

  private static String value(Map<String, String> answer, String key) throws IOException {
    String v = answer.get(key);
    if (v == null) {
      throw new IOException("the process manager's answer " + answer + " has no " + key);
    }
    return v;
  }

  /** Sends {@code cmd=REQUEST} and reads the answer, which must be {@code cmd=expected} with rc 0 if it has one. */
  private Map<String, String> call(String request, String expected) throws IOException {
    out.write(("cmd=" + request + "\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    Map<String, String> answer = parse(readLine());
    if (!expected.equals(answer.get("cmd"))) {
      throw new IOException("the process manager answered '" + answer + "' to cmd=" + request.split(" ", 2)[0]
          + " (expected cmd=" + expected + ")");
    }
    String rc = answer.get("rc");
    if (rc != null && !rc.equals("0")) {
      String msg = answer.get("msg");
      throw new IOException("the process manager refused cmd=" + request.split(" ", 2)[0] + ": rc=" + rc
          + (msg == null ? "" : " " + msg));
    }
    return answer;
  }

  /** The words {@code key=value} of a line (a value runs to the next blank). */
  static Map<String, String> parse(String line) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String w : line.trim().split(" +")) {
      int eq = w.indexOf('=');
      if (eq > 0) {
        m.put(w.substring(0, eq), w.substring(eq + 1));
      }
    }
    return m;
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("the process manager closed the connection");
      }
      if (line.size() >= MAX_LINE) {
        throw new IOException("the process manager's answer is longer than " + MAX_LINE + " bytes");
      }
      line.write(b);
    }
    return line.toString(StandardCharsets.US_ASCII);
  }
}
