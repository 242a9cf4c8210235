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

  static List<Row> run(String impl, List<String> cmd, Map<String, String> env, int timeoutSeconds, Progress progress)
      throws RmaBench.BenchFailure {
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
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        throw new RmaBench.BenchFailure(impl + " did not finish within " + timeoutSeconds + " s (--timeout)");
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
