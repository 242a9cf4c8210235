package dev.vertxrma.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A running {@code bin/rmarun} started by a test, with its output read line by line as it comes
 * (each line stamped with when it arrived), so a test can wait for a line, act on one of the job's
 * JVMs (kill it, stop it) and time what follows. Waiting is done with futures, never by sleeping.
 */
public final class Rmarun implements AutoCloseable {

  /** One output line and when it was read ({@link System#nanoTime()}). */
  public record Line(long nanos, boolean stderr, String text) {
  }

  private static final ScheduledExecutorService POLLER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "rmarun-test-poller");
    t.setDaemon(true);
    return t;
  });

  private final Process process;
  private final List<Line> lines = new ArrayList<>();
  private final List<Waiter> waiters = new ArrayList<>();

  private record Waiter(Predicate<Line> match, CompletableFuture<Line> found) {
  }

  private Rmarun(Process process) {
    this.process = process;
    reader(process.getInputStream(), false).start();
    reader(process.getErrorStream(), true).start();
  }

  /** The project directory (holding {@code bin/rmarun}). */
  public static File home() {
    String home = System.getProperty("rma.home");
    if (home == null || home.isEmpty()) {
      home = System.getProperty("user.dir");
    }
    File f = new File(home);
    assertTrue(new File(f, "bin/rmarun").isFile(), "bin/rmarun not found under " + f.getAbsolutePath());
    return f;
  }

  /** Starts {@code bin/rmarun ARGS...} on the test class path. */
  public static Rmarun start(String... args) throws IOException {
    return startWith("", args);
  }

  /**
   * {@link #start} with {@code javaOpts} after {@link LaunchClassPath#JVM_FLAGS} as
   * {@code RMA_JAVA_OPTS} (the launcher's JVM flags, which its JVMs inherit), on
   * {@link LaunchClassPath#jar()}.
   */
  public static Rmarun startWith(String javaOpts, String... args) throws IOException {
    return startIn(home(), javaOpts, args);
  }

  /** {@link #startWith} in the working directory {@code dir}. */
  public static Rmarun startIn(File dir, String javaOpts, String... args) throws IOException {
    return startWrapped(List.of(), dir, javaOpts, args);
  }

  /**
   * {@link #startIn}, the launcher's command line after {@code wrapper} (a command that runs its
   * arguments, e.g. {@code unshare ... sh -c '...; exec "$@"' sh}).
   */
  public static Rmarun startWrapped(List<String> wrapper, File dir, String javaOpts, String... args)
      throws IOException {
    File home = home();
    List<String> cmd = new ArrayList<>(wrapper);
    cmd.add(new File(home, "bin/rmarun").getAbsolutePath());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir);
    Map<String, String> env = pb.environment();
    env.put("RMA_CLASSPATH", LaunchClassPath.jar());
    env.put("JAVA", System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    env.put("RMA_JAVA_OPTS", (LaunchClassPath.JVM_FLAGS + " " + javaOpts).trim());
    return new Rmarun(pb.start());
  }

  private Thread reader(InputStream in, boolean stderr) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        String s;
        while ((s = r.readLine()) != null) {
          add(new Line(System.nanoTime(), stderr, s));
        }
      } catch (IOException e) {
        // the process is gone
      }
    }, "rmarun-test-" + (stderr ? "err" : "out"));
    t.setDaemon(true);
    return t;
  }

  private synchronized void add(Line line) {
    lines.add(line);
    for (Waiter w : new ArrayList<>(waiters)) {
      if (w.match.test(line)) {
        waiters.remove(w);
        w.found.complete(line);
      }
    }
  }

  /** The first line (already read or still to come) that contains {@code text}. */
  public synchronized CompletableFuture<Line> line(String text) {
    Predicate<Line> match = l -> l.text().contains(text);
    for (Line l : lines) {
      if (match.test(l)) {
        return CompletableFuture.completedFuture(l);
      }
    }
    CompletableFuture<Line> f = new CompletableFuture<>();
    waiters.add(new Waiter(match, f));
    return f;
  }

  /** Waits for {@code f} at most {@code seconds}; fails the test with the output so far if it does not come. */
  public <T> T await(CompletableFuture<T> f, long seconds, String what) {
    try {
      return f.get(seconds, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(what + " did not happen within " + seconds + " s (" + e + ")\n" + output());
    }
  }

  /**
   * The JVM of the job that runs ranks {@code first} to {@code first + count - 1}, once it runs
   * (found among the launcher's descendants by the label of its command line,
   * {@code JobJvm - job=J,jvm=K,ranks=FIRST..LAST}; polled every 20 ms).
   */
  public CompletableFuture<ProcessHandle> rankJvm(int first, int count) {
    String ranks = first + ".." + (first + count - 1);
    CompletableFuture<ProcessHandle> found = new CompletableFuture<>();
    ScheduledFuture<?>[] task = new ScheduledFuture<?>[1];
    task[0] = POLLER.scheduleWithFixedDelay(() -> {
      Optional<ProcessHandle> jvm = process.descendants()
          .filter(p -> isJvmOf(commandLine(p), ranks)).findFirst();
      if (jvm.isPresent() || !process.isAlive()) {
        if (jvm.isPresent()) {
          found.complete(jvm.get());
        } else {
          found.completeExceptionally(new IllegalStateException("rmarun ended before its JVM " + ranks + " ran"));
        }
        task[0].cancel(false);
      }
    }, 0, 20, TimeUnit.MILLISECONDS);
    return found;
  }

  /**
   * Whether {@code cmdline} (NUL-separated) is that of the JVM of ranks {@code ranks}: its words
   * {@code -} and the label, not a shell line that holds them.
   */
  private static boolean isJvmOf(String cmdline, String ranks) {
    int at = cmdline.indexOf("\0-\0job=");
    return at >= 0 && cmdline.indexOf(",ranks=" + ranks + "\0", at) > 0;
  }

  /** The NUL-separated command line of {@code p} (Linux {@code /proc}), or "" if it is gone. */
  private static String commandLine(ProcessHandle p) {
    try {
      return new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc", String.valueOf(p.pid()),
          "cmdline")), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** The launcher's process (the wrapper's, if it was started {@link #startWrapped wrapped}). */
  public ProcessHandle launcher() {
    return process.toHandle();
  }

  /** Sends {@code signal} (e.g. "STOP", "KILL") to {@code jvm}. */
  public static void signal(ProcessHandle jvm, String signal) throws IOException, InterruptedException {
    int rc = new ProcessBuilder("kill", "-" + signal, String.valueOf(jvm.pid())).inheritIO().start().waitFor();
    assertTrue(rc == 0, "kill -" + signal + " " + jvm.pid() + " failed");
  }

  /** The launcher's exit, as a future of its status. */
  public CompletableFuture<Integer> exit() {
    return process.onExit().thenApply(Process::exitValue);
  }

  /** Every line read so far, stdout and stderr interleaved as they came. */
  public synchronized String output() {
    StringBuilder sb = new StringBuilder();
    for (Line l : lines) {
      sb.append(l.stderr() ? "err| " : "out| ").append(l.text()).append('\n');
    }
    return sb.toString();
  }

  /** Kills the launcher and every JVM it started (stopped ones too). */
  @Override
  public void close() throws InterruptedException {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }
}
