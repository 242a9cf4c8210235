package dev.vertxrma.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Mode;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Micrometer is optional: a JVM whose class path has no Micrometer (nor Prometheus client) loads
 * every class of the library but {@code dev.vertxrma.metrics} and reflects over their public
 * signatures without a {@link NoClassDefFoundError}, and runs a traced job.
 */
class WithoutMicrometerTest {

  @TempDir
  Path tmp;

  @Test
  void theLibraryLoadsAndRunsWithoutMicrometer() throws Exception {
    String cp = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(e -> !e.contains(File.separator + "micrometer") && !e.contains(File.separator + "prometheus"))
        .collect(Collectors.joining(File.pathSeparator));
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> !a.startsWith("-agentlib") && !a.startsWith("-javaagent")).forEach(cmd::add);
    cmd.addAll(List.of("-cp", cp, Main.class.getName(), tmp.resolve("t.html").toString(),
        Path.of(System.getProperty("rma.home", ".")).resolve("target/classes").toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("out").toFile()).start();
    boolean ended = p.waitFor(120, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly();
    }
    String out = Files.readString(tmp.resolve("out"), StandardCharsets.UTF_8);
    assertTrue(ended, "ended: " + out);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("without micrometer: ok"), out);
    assertTrue(Files.readString(tmp.resolve("t.html")).contains("<svg"), "traced");
  }

  /** Runs in the JVM without Micrometer: args {@code TRACE_FILE CLASSES_DIR}. */
  public static final class Main {
    public static void main(String[] args) throws Exception {
      try {
        Class.forName("io.micrometer.core.instrument.MeterRegistry");
        throw new AssertionError("Micrometer is on the class path");
      } catch (ClassNotFoundException expected) {
        // the point of the test
      }
      Path classes = Path.of(args[1]);
      int loaded = 0;
      try (Stream<Path> files = Files.walk(classes)) {
        for (Path f : files.filter(x -> x.toString().endsWith(".class")).toList()) {
          String name = classes.relativize(f).toString().replace(File.separatorChar, '.').replaceAll("\\.class$", "");
          if (name.startsWith("dev.vertxrma.metrics.") || name.equals("dev.vertxrma.samples.services.ServiceMetrics")) {
            continue; // the classes that need Micrometer, by design
          }
          Class<?> c = Class.forName(name, false, Main.class.getClassLoader());
          c.getMethods();
          c.getDeclaredMethods();
          c.getDeclaredConstructors();
          c.getDeclaredFields();
          loaded++;
        }
      }
      Path trace = Path.of(args[0]);
      Rma.run(new JobOptions().setNp(2).setTraceFile(trace.toString()), (world, a) ->
          Win.allocate(world, 16, 8, Info.NULL).compose(win -> win.fence(Mode.NOPRECEDE)
              .compose(v -> win.put(Buf.of(new long[] {world.rank()}), 0, 1, Datatype.LONG, 1 - world.rank(), 0))
              .compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> win.free())))
          .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      if (!Files.isRegularFile(trace)) {
        throw new AssertionError("no trace written");
      }
      System.out.println("without micrometer: ok (" + loaded + " classes reflected over, a traced job ran)");
      System.exit(0);
    }
  }
}
