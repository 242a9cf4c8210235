package dev.vertxrma.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.ChromeTrace;
import dev.vertxrma.testing.LaunchClassPath;
import dev.vertxrma.testing.Rmarun;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job over two JVMs traced as a user asks for it ({@code bin/rmarun --trace FILE -np 4 --jvms 2
 * linked-list}): each JVM writes its part, the last one to end renders the one file (the page, or
 * the trace-event JSON), with every rank and both JVMs, and no part is left behind.
 */
@Tag("multijvm")
class TraceJvmsTest {

  @TempDir
  Path tmp;

  /** Runs {@code bin/rmarun --trace FILE -np 4 --jvms 2 linked-list} and checks that it verified. */
  private void traceLinkedList(Path file) throws Exception {
    File home = Rmarun.home();
    ProcessBuilder pb = new ProcessBuilder(new File(home, "bin/rmarun").getAbsolutePath(), "--trace", file.toString(), "--timeout", "60", "-np", "4",
        "--jvms", "2", "linked-list").directory(home).redirectErrorStream(true)
        .redirectOutput(tmp.resolve("out.txt").toFile());
    Map<String, String> env = pb.environment();
    LaunchClassPath.into(env);
    Process p = pb.start();
    boolean ended = p.waitFor(180, TimeUnit.SECONDS);
    if (!ended) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    String out = Files.readString(tmp.resolve("out.txt"), StandardCharsets.UTF_8);
    assertTrue(ended && p.exitValue() == 0, "rmarun: " + out);
    assertTrue(out.contains("linked-list: verified"), out);
    try (Stream<Path> files = Files.list(tmp)) {
      assertEquals(List.of("out.txt", file.getFileName().toString()), files.map(f -> f.getFileName().toString())
          .sorted().toList(), "the trace and nothing else (no part, lock or temporary file)");
    }
  }

  @Test
  void twoJvmsMakeOneTimeline() throws Exception {
    Path file = tmp.resolve("t.html");
    traceLinkedList(file);
    String html = Files.readString(file, StandardCharsets.UTF_8);
    for (int r = 0; r < 4; r++) {
      List<String> t = TraceTest.totals(html, r);
      assertTrue(Long.parseLong(t.get(4)) >= 10, "rank " + r + " traced: " + t);
    }
    Matcher m = Pattern.compile("class=\"where\"[^>]*>(jvm \\d+)<").matcher(html);
    Set<String> jvms = m.results().map(r -> r.group(1)).collect(Collectors.toSet());
    assertEquals(2, jvms.size(), "the ranks of both JVMs in one page: " + jvms);
  }

  /**
   * The same over two JVMs to a {@code .json} file: one trace-event file with a process per JVM,
   * each holding its two ranks, and arrows between ranks of different JVMs bound on both sides.
   */
  @Test
  void twoJvmsMakeOneTraceEventFile() throws Exception {
    Path file = tmp.resolve("t.json");
    traceLinkedList(file);
    ChromeTrace t = ChromeTrace.read(file);
    assertEquals(2, t.processNames.size(), "a process per JVM: " + t.processNames);
    for (String name : t.processNames.values()) {
      assertTrue(name.matches("job rmarun-\\S+: jvm \\d+"), name);
    }
    Map<Integer, Integer> rankProcess = new java.util.HashMap<>();
    for (int r = 0; r < 4; r++) {
      int tid = t.tid("rank " + r);
      rankProcess.put(r, t.processOfThread.get(tid));
      assertFalse(t.slices(tid, "epoch").isEmpty(), "rank " + r + "'s epochs");
      assertTrue(t.slices(tid, "op").stream().filter(e -> e.name().equals("compare_and_swap")).count() >= 10,
          "rank " + r + " appended 10 elements with compare-and-swap");
    }
    assertEquals(2, Set.copyOf(rankProcess.values()).size(), "two JVMs: " + rankProcess);
    assertEquals(rankProcess.get(0), rankProcess.get(1), "ranks 0 and 1 in the first JVM");
    assertEquals(rankProcess.get(2), rankProcess.get(3), "ranks 2 and 3 in the second");
    long across = t.flows.stream().filter(f -> f.from().pid() != f.to().pid()).count();
    assertTrue(across > 0, "operations from one JVM's ranks to the other's: " + t.flows.size() + " arrows");
    assertEquals(0, t.root.getJsonObject("otherData").getLong("earliestEventsDropped"));
  }
}
