package dev.vertxrma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The layering as the JDK's own tool sees it: {@code jdeps -verbose:package} over the library's
 * compiled classes (what the jar holds) finds no arrow between implementation packages that runs
 * up the layers README's Layout lists, bottom up, and hence no cycle among them. The API package
 * takes part in one cycle by design: the implementation implements its interfaces, and its entry
 * points ({@code Rma}, {@code RankVerticle}, {@code Win}, {@code Datatype}) are static factories
 * into the implementation, as Vert.x's are ({@link PackageRulesTest} checks that nothing else in
 * it reaches down).
 */
class JdepsLayeringTest {

  /** README's Layout, bottom up: a package may use only those before it. */
  private static final List<String> LAYERS = List.of("memory", "transport", "ops", "observe", "sync", "p2p", "coll",
      "runtime", "comm", "win", "job", "launch");
  private static final Pattern ARROW = Pattern.compile("^\\s*dev\\.vertxrma\\.impl\\.(\\w+)\\s+->\\s+"
      + "dev\\.vertxrma\\.impl\\.(\\w+)\\b.*$", Pattern.MULTILINE);

  @Test
  void noArrowBetweenImplementationPackagesRunsUpTheLayers() throws Exception {
    Path classes = Path.of("target", "classes");
    assertTrue(Files.isDirectory(classes.resolve("dev/vertxrma/impl")), "compiled classes at " + classes);
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("this JDK has no jdeps"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:package", "-filter:none",
        classes.toString());
    assertEquals(0, status, "jdeps failed: " + err);
    Matcher m = ARROW.matcher(out.toString());
    TreeSet<String> arrows = new TreeSet<>();
    List<String> upward = new ArrayList<>();
    while (m.find()) {
      String from = m.group(1);
      String to = m.group(2);
      if (from.equals(to)) {
        continue;
      }
      arrows.add(from + " -> " + to);
      int f = LAYERS.indexOf(from);
      int t = LAYERS.indexOf(to);
      assertTrue(f >= 0 && t >= 0, "a package README's Layout does not list: " + from + " -> " + to);
      if (t >= f) {
        upward.add(from + " -> " + to);
      }
    }
    assertTrue(arrows.size() >= 20, "jdeps reported the package arrows (" + arrows + ")");
    assertTrue(upward.isEmpty(), "arrows running up the layers: " + upward);
  }
}
