package dev.vertxrma.impl.launch;

import dev.vertxrma.impl.runtime.JobRuntime;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Standard output and error of a JVM that runs ranks under {@code rmarun}, with lines kept whole:
 * a thread's output is held until its newline (or until {@link #uninstall}), then written in one
 * piece, so lines of different ranks never mix. With {@code --tag-output} every line is prefixed
 * by who printed it, {@code [R] } for a line printed on rank R's context (its program, its
 * callbacks, its timers, blocking code it runs through {@code executeBlocking}), {@code [jvm K] }
 * for any other line of the JVM (a {@code WorldProgram}'s own threads, Vert.x and Hazelcast logs).
 */
final class TaggedOutput extends OutputStream {

  private final PrintStream target;
  private final String job;
  private final String other;
  private final boolean tagged;
  private final Map<Thread, ByteArrayOutputStream> partial = new ConcurrentHashMap<>();

  private TaggedOutput(PrintStream target, String job, String other, boolean tagged) {
    this.target = target;
    this.job = job;
    this.other = other;
    this.tagged = tagged;
  }

  /** What {@link #install} replaced, to put back. */
  record Installed(PrintStream out, PrintStream err, TaggedOutput taggedOut, TaggedOutput taggedErr) {
  }

  /**
   * Replaces {@code System.out} and {@code System.err} with line-keeping streams for job
   * {@code job}; when {@code tagged}, each line is prefixed, and {@code jvmTag} is the prefix of
   * lines printed elsewhere than on a rank's context.
   */
  static Installed install(String job, String jvmTag, boolean tagged) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    TaggedOutput o = new TaggedOutput(out, job, jvmTag, tagged);
    TaggedOutput e = new TaggedOutput(err, job, jvmTag, tagged);
    Charset cs = Charset.defaultCharset();
    System.setOut(new PrintStream(o, true, cs));
    System.setErr(new PrintStream(e, true, cs));
    return new Installed(out, err, o, e);
  }

  /** Writes what is left of unfinished lines and puts the original streams back. */
  static void uninstall(Installed i) {
    System.out.flush();
    System.err.flush();
    System.setOut(i.out());
    System.setErr(i.err());
    i.taggedOut().drain();
    i.taggedErr().drain();
  }

  @Override
  public void write(int b) {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) {
    Thread me = Thread.currentThread();
    ByteArrayOutputStream line = partial.get(me);
    int start = off;
    for (int i = off; i < off + len; i++) {
      if (b[i] == '\n') {
        if (line == null) {
          emit(b, start, i + 1 - start);
        } else {
          line.write(b, start, i + 1 - start);
          emit(line.toByteArray(), 0, line.size());
          line.reset();
        }
        start = i + 1;
      }
    }
    if (start < off + len) {
      if (line == null) {
        line = new ByteArrayOutputStream();
        partial.put(me, line);
      }
      line.write(b, start, off + len - start);
    } else if (line != null) {
      partial.remove(me);
    }
  }

  @Override
  public void flush() {
    target.flush();
  }

  /**
   * Writes one line, its tag and text in one write: the JVMs of a {@code --jvms} job share
   * rmarun's standard output, and a tag written apart could land before another JVM's line.
   */
  private void emit(byte[] b, int off, int len) {
    byte[] whole = b;
    int from = off;
    int length = len;
    if (tagged) {
      byte[] prefix = tag().getBytes(StandardCharsets.UTF_8);
      whole = new byte[prefix.length + len];
      System.arraycopy(prefix, 0, whole, 0, prefix.length);
      System.arraycopy(b, off, whole, prefix.length, len);
      from = 0;
      length = whole.length;
    }
    synchronized (target) {
      target.write(whole, from, length);
      target.flush();
    }
  }

  /** Unfinished lines of every thread, each ended with a newline. */
  private void drain() {
    for (ByteArrayOutputStream line : partial.values()) {
      line.write('\n');
      emit(line.toByteArray(), 0, line.size());
    }
    partial.clear();
  }

  /** The prefix of a line printed by the current thread. */
  private String tag() {
    int rank = JobRuntime.currentRank(job);
    return rank >= 0 ? "[" + rank + "] " : other;
  }
}
