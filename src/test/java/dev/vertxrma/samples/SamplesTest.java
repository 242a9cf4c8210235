package dev.vertxrma.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.impl.launch.RmaRun;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every sample through the real launcher entry, {@code RmaRun.run(String[])} (the code
 * behind {@code bin/rmarun}, all ranks embedded in this JVM), and checks the exit status and the
 * sample's own {@code verified} line on standard output.
 */
class SamplesTest {

  /** One launcher invocation: {@code rmarun -np NP PROGRAM ARGS...} and what it must do. */
  record Case(String program, int np, List<String> args, boolean succeeds) {

    String[] argv() {
      List<String> argv = new ArrayList<>(List.of("--timeout", "60", "-np", String.valueOf(np), program));
      argv.addAll(args);
      return argv.toArray(new String[0]);
    }

    @Override
    public String toString() {
      return "rmarun -np " + np + " " + program + (args.isEmpty() ? "" : " " + String.join(" ", args))
          + (succeeds ? "" : " (must fail)");
    }
  }

  private static Case ok(String program, int np, String... args) {
    return new Case(program, np, List.of(args), true);
  }

  private static Case fails(String program, int np, String... args) {
    return new Case(program, np, List.of(args), false);
  }

  /**
   * The table of sample runs. Extend it when a sample is added: one {@code ok(...)} line per
   * interesting rank count / argument set (the sample must print a line containing
   * {@code verified} on success), and {@code fails(...)} for invocations it must refuse.
   */
  static Stream<Case> cases() {
    return Stream.of(
        ok("exchange", 2),
        ok("twisted", 1),
        ok("twisted", 3),
        ok("twisted", 4),
        ok("twisted", 4, "37", "23"),
        fails("exchange", 3),
        ok("semaphore", 4),
        ok("peterson", 2),
        ok("cas-mutex", 4),
        ok("shared-sync", 2),
        fails("peterson", 3),
        fails("shared-sync", 3),
        ok("request-pipeline", 2),
        ok("request-pipeline", 4),
        fails("request-pipeline", 1),
        ok("linked-list", 1),
        ok("linked-list", 4),
        ok("linked-list-rx", 1),
        ok("linked-list-rx", 4),
        ok("counter", 1),
        ok("counter", 4),
        ok("mcs-mutex", 4),
        ok("fence-put", 4),
        ok("fence-get", 4),
        ok("pscw-put", 4),
        ok("pscw-get", 4),
        ok("double-buffer", 4),
        ok("double-buffer-rx", 4),
        ok("fence-put", 1),
        ok("fence-put", 256), // a large embedded job: 256 rank verticles, one window each
        ok("pscw-get", 3),
        ok("double-buffer", 3),
        ok("double-buffer-rx", 3),
        ok("double-buffer-rx", 2, "4", "0", "0"), // converged before the first pass: the loop body never runs
        fails("double-buffer-rx", 2, "1"),
        fails("linked-list-rx", 2, "many"),
        ok("counter-service", 4),
        ok("counter-service", 1, "--requests", "50"),
        fails("counter-service", 2, "--requests", "x"),
        ok("resilient-heat", 4), // no rank dies: checkpoints, no recovery (ResilientHeatTest kills one)
        ok("resilient-heat", 1, "--iters", "7"),
        ok("resilient-heat", 3, "--points", "5", "--iters", "0"),
        fails("resilient-heat", 2, "--die", "1"),
        fails("resilient-heat", 4, "--die", "2", "--at", "3"), // every rank in this JVM: the rank may not die here
        ok("resilient-counter", 3),
        ok("resilient-counter", 1, "--requests", "50"),
        fails("resilient-counter", 2, "--requests", "0"),
        ok("soak", 4, "--seconds", "3"),
        ok("soak", 1, "--seconds", "0"),
        fails("soak", 2, "--seconds", "-1"),
        fails("soak", 2, "--seconds", "0", "--hold-rank", "0")); // fault points are test code (FaultPoints)
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sampleRunsThroughTheLauncher(Case c) throws Exception {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    int status;
    PrintStream original = System.out;
    PrintStream tee = new PrintStream(new TeeStream(original, captured), true, StandardCharsets.UTF_8);
    System.setOut(tee);
    try {
      status = launch(c.argv());
    } finally {
      System.setOut(original);
      tee.flush();
    }
    String out = captured.toString(StandardCharsets.UTF_8);
    if (c.succeeds()) {
      assertEquals(0, status, () -> c + " exited with status " + status + "; stdout:\n" + out);
      assertTrue(out.contains("verified"), () -> c + " exited 0 but printed no 'verified' line; stdout:\n" + out);
    } else {
      assertNotEquals(0, status, () -> c + " should have failed but exited 0; stdout:\n" + out);
      assertFalse(out.contains("verified"), () -> c + " failed but printed a 'verified' line; stdout:\n" + out);
    }
  }

  /** {@code RmaRun.run(String[])}: package-private in another package, so called reflectively. */
  private static int launch(String[] argv) throws Exception {
    Method run = RmaRun.class.getDeclaredMethod("run", String[].class);
    run.setAccessible(true);
    try {
      return (Integer) run.invoke(null, (Object) argv);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof Exception) {
        throw (Exception) e.getCause();
      }
      throw e;
    }
  }

  /** Writes to the real standard output and to a capture buffer. */
  private static final class TeeStream extends OutputStream {
    private final OutputStream first;
    private final OutputStream second;

    TeeStream(OutputStream first, OutputStream second) {
      this.first = first;
      this.second = second;
    }

    @Override
    public synchronized void write(int b) throws java.io.IOException {
      first.write(b);
      second.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws java.io.IOException {
      first.write(b, off, len);
      second.write(b, off, len);
    }

    @Override
    public synchronized void flush() throws java.io.IOException {
      first.flush();
      second.flush();
    }
  }
}
