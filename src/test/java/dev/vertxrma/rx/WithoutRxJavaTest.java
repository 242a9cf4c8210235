package dev.vertxrma.rx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Mode;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RxJava is optional: a JVM whose class path has no RxJava (nor Reactive Streams, which comes with
 * it) loads every class of the library but {@code dev.vertxrma.rx} and the Rx samples, reflects
 * over their public signatures without a {@link NoClassDefFoundError}, and runs a job with a
 * window; each entry of the Rx facade, and only when called, fails with an error that says to add
 * RxJava, every time it is called.
 */
class WithoutRxJavaTest {

  @TempDir
  Path tmp;

  @Test
  void theLibraryLoadsAndRunsWithoutRxJavaAndTheFacadeSaysWhatIsMissing() throws Exception {
    String cp = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(e -> !e.contains(File.separator + "reactivex" + File.separator)
            && !e.contains(File.separator + "reactivestreams" + File.separator))
        .collect(Collectors.joining(File.pathSeparator));
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> !a.startsWith("-agentlib") && !a.startsWith("-javaagent")).forEach(cmd::add);
    cmd.addAll(List.of("-cp", cp, Main.class.getName(),
        Path.of(System.getProperty("rma.home", ".")).resolve("target/classes").toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("out").toFile()).start();
    boolean ended = p.waitFor(120, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly();
    }
    String out = Files.readString(tmp.resolve("out"), StandardCharsets.UTF_8);
    assertTrue(ended, "ended: " + out);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("without rxjava: ok"), out);
  }

  /** Runs in the JVM without RxJava: args {@code CLASSES_DIR}. */
  public static final class Main {
    public static void main(String[] args) throws Exception {
      for (String name : List.of("io.reactivex.rxjava3.core.Completable", "org.reactivestreams.Publisher")) {
        try {
          Class.forName(name);
          throw new AssertionError(name + " is on the class path");
        } catch (ClassNotFoundException expected) {
          // the point of the test
        }
      }
      Path classes = Path.of(args[0]);
      int loaded = 0;
      try (Stream<Path> files = Files.walk(classes)) {
        for (Path f : files.filter(x -> x.toString().endsWith(".class")).toList()) {
          String name = classes.relativize(f).toString().replace(File.separatorChar, '.').replaceAll("\\.class$", "");
          if (name.startsWith("dev.vertxrma.rx.") || name.matches("dev\\.vertxrma\\.samples\\.(\\w+\\.)?[A-Za-z]+Rx(\\$.*)?")) {
            continue; // the classes that need RxJava, by design
          }
          Class<?> c = Class.forName(name, true, Main.class.getClassLoader());
          c.getMethods();
          c.getDeclaredMethods();
          c.getDeclaredConstructors();
          c.getDeclaredFields();
          loaded++;
        }
      }
      Rma.run(new JobOptions().setNp(2), (world, a) ->
          Win.allocate(world, 16, 8, Info.NULL).compose(win -> win.fence(Mode.NOPRECEDE)
              .compose(v -> win.put(Buf.of(new long[] {world.rank()}), 0, 1, Datatype.LONG, 1 - world.rank(), 0))
              .compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> win.free())))
          .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);

      // the facade: every entry fails when called, twice in a row, with the error that says what to add
      // (no argument of an Rx type: a lambda of one could not even be made without RxJava)
      Map<String, Runnable> entries = new LinkedHashMap<>();
      entries.put("RxRma.run", () -> RxRma.run(new JobOptions().setNp(1), (w, a) -> Future.succeededFuture()));
      entries.put("RxRma.program", () -> RxRma.program(null));
      entries.put("RxRma.world", () -> RxRma.world(null, new JobOptions()));
      entries.put("RxRma.clusteredVertx", () -> RxRma.clusteredVertx("c"));
      entries.put("RxRma.repeat", () -> RxRma.repeat(1, null));
      entries.put("RxRma.repeatUntil", () -> RxRma.repeatUntil(null));
      entries.put("RxComm.of", () -> RxComm.of(null));
      entries.put("RxWin.of", () -> RxWin.of(null));
      entries.put("RxWorld.of", () -> RxWorld.of(null));
      for (int round = 0; round < 2; round++) {
        for (Map.Entry<String, Runnable> e : entries.entrySet()) {
          try {
            e.getValue().run();
            throw new AssertionError(e.getKey() + " ran without RxJava");
          } catch (NoClassDefFoundError expected) {
            String m = String.valueOf(expected.getMessage());
            if (!m.contains("io.reactivex.rxjava3:rxjava") || !m.contains("optional")) {
              throw new AssertionError(e.getKey() + ": an unclear error without RxJava", expected);
            }
          }
        }
      }
      System.out.println("without rxjava: ok (" + loaded + " classes initialized and reflected over, a job ran, "
          + entries.size() + " facade entries failed clearly)");
      System.exit(0);
    }
  }
}
