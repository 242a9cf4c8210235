package dev.vertxrma.impl.observe;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The trace of one job in this JVM ({@code JobOptions.setTraceFile}): a {@link TraceRecorder} per
 * local rank and, when the job ends here, the file: the self-contained HTML timeline
 * ({@link TimelineHtml}), or the trace-event JSON format that ui.perfetto.dev and
 * {@code chrome://tracing} open ({@link TraceJson}) when the file's name ends in {@code .json}.
 * A JVM that hosts every rank of the job renders the file itself. A JVM that hosts some of them (a job over several JVMs) writes its
 * part next to the file ({@code FILE.JOB.part-R}, R its lowest rank) and then looks at the parts
 * there: the JVM that finds every rank of the job covered renders the file from all of them
 * and deletes the parts. Parts are written under a temporary name and moved into place, and every
 * JVM looks after writing its own, so the last one to finish always sees them all; a lock file
 * makes sure only one renders. The JVMs must share the file's directory (one host, or a shared
 * file system); their stamps are wall-clock times, comparable on one host.
 *
 * <p>If a JVM of the job died, its part is missing and nobody renders: {@link #renderParts} then
 * renders what is there (the launcher calls it when such a job ends).
 */
public final class Trace {

  private static final System.Logger LOG = System.getLogger(Trace.class.getName());
  /** Events kept per rank unless the job's trace options say otherwise. */
  public static final int DEFAULT_EVENTS = dev.vertxrma.TraceOptions.DEFAULT_EVENTS_PER_RANK;
  /** The nanoTime-to-wall-clock offset of this JVM, measured once. */
  private static volatile long wallOffset = Long.MIN_VALUE;

  private final Path file;
  private final String job;
  private final int np;
  private final int capacity;
  /** Where this JVM's ranks ran, for the trace: {@code jvm PID}, and {@code @HOST} when the job gave a host. */
  private final String where;
  private final Map<Integer, TraceRecorder> recorders = new ConcurrentHashMap<>();
  private final AtomicBoolean written = new AtomicBoolean();

  /** The trace of job {@code job} of {@code np} ranks, to be written to {@code file}; {@link #DEFAULT_EVENTS} per rank. */
  public Trace(Path file, String job, int np) {
    this(file, job, np, DEFAULT_EVENTS, null);
  }

  /**
   * The trace of job {@code job} of {@code np} ranks, to be written to {@code file}, keeping the
   * last {@code events} events of each rank (at least 16); {@code host} is this JVM's address for
   * the trace's labels, or {@code null}.
   */
  public Trace(Path file, String job, int np, int events, String host) {
    this.file = file.toAbsolutePath();
    this.job = job;
    this.np = np;
    this.capacity = Math.max(16, events);
    this.where = "jvm " + ProcessHandle.current().pid() + (host == null ? "" : " @" + host);
    wallOffset();
  }

  /** The file the trace goes to. */
  public Path file() {
    return file;
  }

  /** The recorder of local rank {@code rank}, created on first use; any thread. */
  public RankObserver recorder(int rank) {
    return recorders.computeIfAbsent(rank, r -> new TraceRecorder(r, capacity));
  }

  /**
   * Writes this JVM's trace (the file, or this JVM's part and then the file if every part
   * is there) on a worker thread, once; later calls do nothing. Never fails: a file that cannot be
   * written is logged.
   */
  public Future<Void> finish(Vertx vertx) {
    if (!written.compareAndSet(false, true)) {
      return Future.succeededFuture();
    }
    return vertx.executeBlocking(() -> {
      try {
        write();
      } catch (IOException | RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "cannot write the trace of job " + job + " to " + file + ": " + e, e);
      }
      return null;
    }, false).<Void>mapEmpty().recover(e -> Future.succeededFuture());
  }

  /** Writes the trace now, on the calling thread (blocking). */
  void write() throws IOException {
    TraceData mine = new TraceData(job, np);
    long offset = wallOffset();
    for (TraceRecorder r : recorders.values()) {
      mine.ranks.add(r.snapshot(where, offset));
    }
    mine.ranks.sort(java.util.Comparator.comparingInt(r -> r.rank));
    if (mine.ranks.size() == np) {
      render(mine, file);
      return;
    }
    if (mine.ranks.isEmpty()) {
      return;
    }
    Path part = partPath(file, job, mine.ranks.get(0).rank);
    Path tmp = part.resolveSibling(part.getFileName() + ".tmp");
    Files.createDirectories(file.getParent());
    try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(tmp))) {
      mine.write(out);
    }
    Files.move(tmp, part, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    mergeIfComplete(file, job, np);
  }

  /** Renders the file from every part of job {@code job} next to {@code file} once they cover all ranks. */
  static boolean mergeIfComplete(Path file, String job, int np) throws IOException {
    List<Path> parts = parts(file, job);
    TraceData all = read(parts, job, np);
    if (all.ranks.size() < np) {
      return false;
    }
    Path lock = file.resolveSibling(file.getFileName() + "." + job + ".merging");
    try {
      Files.createFile(lock);
    } catch (FileAlreadyExistsException another) {
      return false; // another JVM of the job renders it
    }
    try {
      render(all, file);
      for (Path p : parts) {
        Files.deleteIfExists(p);
      }
    } finally {
      Files.deleteIfExists(lock);
    }
    return true;
  }

  /**
   * Renders whatever parts of job {@code job} lie next to {@code file} (a job whose JVM died left
   * some out: the file names the ranks without a trace) and deletes them. For the launcher, after
   * every JVM of the job has ended; any thread, blocking.
   *
   * @return whether there was a part to render (none: the JVMs rendered it themselves, or traced nothing)
   */
  public static boolean renderParts(Path file, String job, int np) throws IOException {
    Path f = file.toAbsolutePath();
    List<Path> parts = parts(f, job);
    if (parts.isEmpty()) {
      return false;
    }
    render(read(parts, job, np), f);
    for (Path p : parts) {
      Files.deleteIfExists(p);
    }
    return true;
  }

  /**
   * {@code java -cp ... dev.vertxrma.impl.observe.Trace FILE JOB NP}: renders the parts of job
   * {@code JOB} (of {@code NP} ranks) left next to {@code FILE}, e.g. after a JVM of the job died,
   * or when the JVMs ran on hosts without a shared directory and their parts were copied into one.
   * {@code FILE}'s name chooses the format as for the job ({@code .json}: trace-event JSON, else
   * HTML). Exit status 0 when the file was written, 1 when there was no part, 2 for a usage error.
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 3 || !args[2].matches("[1-9][0-9]{0,8}")) {
      System.err.println("usage: Trace FILE JOB NP   (renders the parts FILE.JOB.part-* into FILE)");
      System.exit(2);
    }
    boolean rendered = renderParts(Path.of(args[0]), args[1], Integer.parseInt(args[2]));
    if (!rendered) {
      System.err.println("no part of job " + args[1] + " next to " + Path.of(args[0]).toAbsolutePath());
    }
    System.exit(rendered ? 0 : 1);
  }

  private static Path partPath(Path file, String job, int firstRank) {
    return file.resolveSibling(file.getFileName() + "." + job + ".part-" + firstRank);
  }

  private static List<Path> parts(Path file, String job) throws IOException {
    List<Path> parts = new ArrayList<>();
    Path dir = file.getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      return parts;
    }
    String prefix = file.getFileName() + "." + job + ".part-";
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, p -> {
      String n = p.getFileName().toString();
      return n.startsWith(prefix) && !n.endsWith(".tmp");
    })) {
      ds.forEach(parts::add);
    }
    return parts;
  }

  private static TraceData read(List<Path> parts, String job, int np) throws IOException {
    TraceData all = new TraceData(job, np);
    TreeSet<Integer> seen = new TreeSet<>();
    for (Path p : parts) {
      TraceData d;
      try (InputStream in = new java.io.BufferedInputStream(Files.newInputStream(p))) {
        d = TraceData.read(in);
      } catch (java.nio.file.NoSuchFileException gone) {
        continue; // rendered and deleted by another JVM meanwhile
      }
      if (!d.job.equals(job) || d.np != np) {
        throw new IOException(p + " is a part of job " + d.job + " with np=" + d.np + ", not of " + job);
      }
      for (TraceData.RankEvents r : d.ranks) {
        if (seen.add(r.rank)) {
          all.ranks.add(r);
        }
      }
    }
    all.ranks.sort(java.util.Comparator.comparingInt(r -> r.rank));
    return all;
  }

  /** Whether {@code file} gets the trace-event JSON format (its name ends in {@code .json}), else the HTML page. */
  static boolean isJson(Path file) {
    return file.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".json");
  }

  private static void render(TraceData data, Path file) throws IOException {
    Path dir = file.getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
    if (isJson(file)) {
      try (java.io.Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        TraceJson.write(data, out);
      }
    } else {
      Files.writeString(tmp, TimelineHtml.render(data), StandardCharsets.UTF_8);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    long events = data.ranks.stream().mapToLong(TraceData.RankEvents::size).sum();
    LOG.log(System.Logger.Level.INFO, "trace of job " + data.job + " (" + data.ranks.size() + " of " + data.np
        + " ranks, " + events + " events) written to " + file);
  }

  /**
   * Wall-clock nanoseconds minus {@link System#nanoTime()}: the best of a few readings (the
   * narrowest bracket), so that JVMs on one host agree to a few microseconds.
   */
  static long wallOffset() {
    long o = wallOffset;
    if (o != Long.MIN_VALUE) {
      return o;
    }
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 7; i++) {
      long before = System.nanoTime();
      Instant now = Instant.now();
      long after = System.nanoTime();
      if (after - before < best) {
        best = after - before;
        o = now.getEpochSecond() * 1_000_000_000L + now.getNano() - (before + (after - before) / 2);
      }
    }
    wallOffset = o;
    return o;
  }
}
