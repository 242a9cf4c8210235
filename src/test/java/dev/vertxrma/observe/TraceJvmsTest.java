package dev.vertxrma.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * linked-list}): each JVM writes its part, the last one to end renders the one page, with every
 * rank and both JVMs, and no part is left behind.
 */
@Tag("multijvm")
class TraceJvmsTest {

  @TempDir
  Path tmp;

  @Test
  void twoJvmsMakeOneTimeline() throws Exception {
    Path file = tmp.resolve("t.html");
    File home = Rmarun.home();
    ProcessBuilder pb = new ProcessBuilder(new File(home, "bin/rmarun").getAbsolutePath(), "--trace", file.toString(), "--timeout", "60", "-np", "4",
        "--jvms", "2", "linked-list").directory(home).redirectErrorStream(true)
        .redirectOutput(tmp.resolve("out.txt").toFile());
    Map<String, String> env = pb.environment();
    env.put("RMA_CLASSPATH", System.getProperty("java.class.path"));
    env.put("JAVA", System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
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
      assertEquals(List.of("out.txt", "t.html"), files.map(f -> f.getFileName().toString()).sorted().toList(),
          "the page and nothing else (no part, lock or temporary file)");
    }
    String html = Files.readString(file, StandardCharsets.UTF_8);
    for (int r = 0; r < 4; r++) {
      List<String> t = TraceTest.totals(html, r);
      assertTrue(Long.parseLong(t.get(4)) >= 10, "rank " + r + " traced: " + t);
    }
    Matcher m = Pattern.compile("class=\"where\"[^>]*>(jvm \\d+)<").matcher(html);
    Set<String> jvms = m.results().map(r -> r.group(1)).collect(Collectors.toSet());
    assertEquals(2, jvms.size(), "the ranks of both JVMs in one page: " + jvms);
  }
}
