package dev.vertxrma.artifact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The artifacts as a user gets them, after {@code package}: the library jar holds the library
 * only, and a project of a user's ({@code samples/consumer}) that depends on it builds, compiles
 * every sample against it and passes its own tests (no duplicate classes, no Chronicle analytics
 * though it runs without the flag that turns it off, its own cluster.xml untouched, the
 * counter-service sample served from an embedded world). Runs in the {@code integration-test}
 * phase, where the jars exist.
 */
@Tag("consumer")
class ConsumerProjectTest {

  private static final Path HOME = Path.of(System.getProperty("rma.home", "."));
  private static final String VERSION = System.getProperty("rma.version", "0.1.0-SNAPSHOT");

  private static Path jar(String classifier) {
    return HOME.resolve("target/vertx-rma-" + VERSION + (classifier.isEmpty() ? "" : "-" + classifier) + ".jar");
  }

  @Test
  void theLibraryJarHoldsTheLibraryOnly() throws IOException {
    List<String> names = new ArrayList<>();
    try (ZipFile zip = new ZipFile(jar("").toFile())) {
      for (ZipEntry e : Collections.list(zip.entries())) {
        names.add(e.getName());
      }
    }
    assertTrue(names.contains("dev/vertxrma/Win.class"), "the API is in it");
    assertTrue(names.contains("dev/vertxrma/cluster.xml"), "the default cluster configuration, under its own name");
    List<String> foreign = names.stream().filter(n -> n.startsWith("dev/vertxrma/samples/")
        || n.startsWith("dev/vertxrma/bench/") || n.equals("cluster.xml") || n.startsWith("org/slf4j/")
        || n.startsWith("io/vertx/core/") || n.startsWith("com/hazelcast/")).toList();
    assertEquals(List.of(), foreign, "the library jar must not carry samples, benchmark, root cluster.xml or dependencies");
    try (java.util.jar.JarFile jar = new java.util.jar.JarFile(jar("").toFile())) {
      assertEquals("dev.vertxrma", jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"),
          "the library jar names its module");
    }
    for (String classifier : List.of("all", "samples", "sources", "javadoc")) {
      assertTrue(Files.isRegularFile(jar(classifier)), jar(classifier) + " is built");
    }
  }

  @Test
  void aConsumerProjectBuildsAndRunsAgainstTheLibraryJar() throws Exception {
    String mvn = Path.of(System.getProperty("maven.home", "/usr/share/maven"), "bin", "mvn").toString();
    // offline when the outer build is (-o), else the nested builds may fetch a plugin the outer one never needed
    String offline = "offline=true".equals(System.getProperty("rma.maven.offline")) ? "-o" : "-ntp";
    run(List.of(mvn, offline, "-B", "-q", "-f", HOME.resolve("pom.xml").toString(), "install:install-file",
        "-Dfile=" + jar(""), "-DpomFile=" + HOME.resolve("pom.xml")), "install the library jar");
    String out = run(List.of(mvn, offline, "-B", "-f", HOME.resolve("samples/consumer/pom.xml").toString(),
        "-Drma.version=" + VERSION, "clean", "verify"), "build the consumer project");
    assertTrue(out.contains("Tests run: 4, Failures: 0, Errors: 0, Skipped: 0"), out);
  }

  private static String run(List<String> cmd, String what) throws Exception {
    File log = File.createTempFile("consumer", ".log");
    log.deleteOnExit();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log).start();
    boolean ended = p.waitFor(8, TimeUnit.MINUTES);
    if (!ended) {
      p.destroyForcibly();
    }
    String out = Files.readString(log.toPath(), StandardCharsets.UTF_8);
    assertTrue(ended && p.exitValue() == 0, what + " failed (" + String.join(" ", cmd) + "):\n" + out);
    return out;
  }
}
