package dev.vertxrma.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one measuring process (a vertx-rma job or the native MPICH program) and collects the
 * {@code @row} lines it prints. Its other output goes to stderr, so that {@code rmabench}'s own
 * stdout holds only the report.
 */
final class MeasuringProcess {

  private MeasuringProcess() {
  }

  /** How long a process may linger after printing every row it was expected to print. */
  static final int LINGER_SECONDS = 3;

  static List<Row> run(String impl, List<String> cmd, Map<String, String> env, int timeoutSeconds, Progress progress)
      throws RmaBench.BenchFailure {
    return run(impl, cmd, env, timeoutSeconds, -1, progress);
  }

  /**
   * As {@link #run(String, List, Map, int, Progress)}; a process that has printed all
   * {@code expectedRows} rows but has not exited {@value #LINGER_SECONDS} s later is stopped and
   * its rows kept: MPICH 4.0 over UCX/TCP now and then hangs in {@code MPI_Finalize} after the
   * measurement is over.
   */
  static List<Row> run(String impl, List<String> cmd, Map<String, String> env, int timeoutSeconds, int expectedRows,
      Progress progress) throws RmaBench.BenchFailure {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().putAll(env);
    Process process;
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new RmaBench.BenchFailure("cannot start " + cmd.get(0) + ": " + e.getMessage());
    }
    List<Row> rows = Collections.synchronizedList(new ArrayList<>());
    List<String> bad = Collections.synchronizedList(new ArrayList<>());
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.startsWith(Row.WIRE_PREFIX)) {
            try {
              Row row = Row.parseWire(impl, line);
              rows.add(row);
              progress.step(impl + " " + row.bench() + " " + row.bytes() + " B");
            } catch (IllegalArgumentException e) {
              bad.add(e.getMessage());
            }
          } else {
            progress.clear();
            System.err.println(line);
          }
        }
      } catch (IOException e) {
        bad.add("reading its output: " + e.getMessage());
      }
    }, "rmabench-" + impl);
    reader.setDaemon(true);
    reader.start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
      long lingerSince = 0;
      boolean done = false;
      while (!process.waitFor(200, TimeUnit.MILLISECONDS)) {
        long now = System.nanoTime();
        if (!done && expectedRows >= 0 && rows.size() >= expectedRows) {
          done = true;
          lingerSince = now;
        }
        boolean lingering = done && now - lingerSince > TimeUnit.SECONDS.toNanos(LINGER_SECONDS);
        if (lingering || now > deadline) {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly();
          if (!lingering) {
            throw new RmaBench.BenchFailure(impl + " did not finish within " + timeoutSeconds + " s (--timeout)");
          }
          progress.clear();
          System.err.println("rmabench: " + cmd.get(0) + " had printed its results but did not exit " + LINGER_SECONDS
              + " s later (a known MPI_Finalize hang of MPICH over TCP); stopped it and kept the results");
          reader.join();
          return new ArrayList<>(rows);
        }
      }
      reader.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new RmaBench.BenchFailure("interrupted");
    }
    if (process.exitValue() != 0) {
      throw new RmaBench.BenchFailure("the " + impl + " measurement failed (exit " + process.exitValue()
          + "); its error is above");
    }
    if (!bad.isEmpty()) {
      throw new RmaBench.BenchFailure(bad.get(0));
    }
    return new ArrayList<>(rows);
  }
}
