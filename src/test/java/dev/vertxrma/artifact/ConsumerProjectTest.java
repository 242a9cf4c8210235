package dev.vertxrma.artifact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.DocBlocks;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The artifacts as a user gets them, after {@code package}: the library jar holds the library
 * only, and a project of a user's ({@code samples/consumer}) that depends on it builds, compiles
 * every sample against it and passes its own tests (no duplicate classes, no Chronicle analytics
 * though it runs without the flag that turns it off, its own cluster.xml untouched, the
 * counter-service sample served from an embedded world); and the starter project of
 * docs/your-project.md, made from that page's blocks alone, builds and runs, across 2 JVMs too,
 * without Netty's epoll jars. Runs in the {@code integration-test} phase, where the jars exist.
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

  private static final String MVN = Path.of(System.getProperty("maven.home", "/usr/share/maven"), "bin", "mvn").toString();
  // offline when the outer build is (-o), else the nested builds may fetch a plugin the outer one never needed
  private static final String OFFLINE = "offline=true".equals(System.getProperty("rma.maven.offline")) ? "-o" : "-ntp";
  private static boolean installed;

  /** Installs the library jar into the local repository, once per test JVM, as {@code mvn install} would. */
  private static synchronized void installTheLibrary() throws Exception {
    if (!installed) {
      run(List.of(MVN, OFFLINE, "-B", "-q", "-f", HOME.resolve("pom.xml").toString(), "install:install-file",
          "-Dfile=" + jar(""), "-DpomFile=" + HOME.resolve("pom.xml")), "install the library jar");
      installed = true;
    }
  }

  @Test
  void aConsumerProjectBuildsAndRunsAgainstTheLibraryJar() throws Exception {
    installTheLibrary();
    String out = run(List.of(MVN, OFFLINE, "-B", "-f", HOME.resolve("samples/consumer/pom.xml").toString(),
        "-Drma.version=" + VERSION, "clean", "verify"), "build the consumer project");
    assertTrue(out.contains("Tests run: 4, Failures: 0, Errors: 0, Skipped: 0"), out);
  }

  /**
   * docs/your-project.md, followed literally: its files (the blocks marked {@code file PATH}: the
   * pom, the program, its main and its test) in an empty directory, then the page's commands.
   * {@code mvn package} runs the test whose job spans 2 JVMs, and the class path has no epoll jar
   * (the library declares them optional): before PollingTransport handled that, every clustered
   * node failed with a NullPointerException on {@code Transport.EPOLL}. {@code mvn -q exec:exec}
   * runs the main with the pom's JVM flags, which must be bin/rmarun's ({@code conf/jvm.options}).
   */
  @Test
  void theStarterProjectOfTheDocsBuildsAndRunsAcrossTwoJvmsWithoutEpoll(@TempDir Path project) throws Exception {
    Path page = HOME.resolve("docs/your-project.md");
    List<DocBlocks.Block> blocks = DocBlocks.of(HOME, page);
    List<String> written = new ArrayList<>();
    for (DocBlocks.Block b : blocks) {
      if (b.kind() == DocBlocks.Kind.FILE) {
        Path file = project.resolve(b.argument());
        Files.createDirectories(file.getParent());
        Files.writeString(file, b.code(), StandardCharsets.UTF_8);
        written.add(b.argument());
      }
    }
    assertTrue(written.contains("pom.xml") && written.contains("src/main/java/com/example/Main.java")
        && written.contains("src/test/java/com/example/RingTest.java"), "the page's files: " + written);

    String pom = Files.readString(project.resolve("pom.xml"));
    assertTrue(pom.contains("<maven.compiler.release>17</maven.compiler.release>"), "the pom compiles for Java 17");
    assertTrue(pom.contains("<artifactId>vertx-rma</artifactId>\n      <version>" + VERSION + "</version>"),
        "docs/your-project.md's pom must depend on this version of the library, " + VERSION);
    assertFalse(pom.contains("epoll"), "the starter project runs without Netty's epoll jars");
    Matcher flags = Pattern.compile("<rma.jvm.flags>(.*?)</rma.jvm.flags>", Pattern.DOTALL).matcher(pom);
    assertTrue(flags.find(), "the pom names the JVM flags in rma.jvm.flags");
    List<String> rmarunFlags = Files.readAllLines(HOME.resolve("conf/jvm.options")).stream()
        .map(String::strip).filter(l -> l.startsWith("--add-")).toList();
    assertEquals(rmarunFlags, List.of(flags.group(1).strip().split("\\s+")),
        "docs/your-project.md's rma.jvm.flags must be the --add-* lines of conf/jvm.options (bin/rmarun's)");

    List<DocBlocks.Block> shell = blocks.stream().filter(b -> b.language().equals("sh")).toList();
    assertFalse(shell.isEmpty(), "docs/your-project.md gives its commands in a ```sh block");
    List<String> commands = List.of(shell.get(0).code().strip().split("\n"));
    assertEquals(List.of("mvn package", "mvn -q exec:exec"), commands, "the commands this test runs");
    installTheLibrary();
    String built = run(mvn(commands.get(0)), "`" + commands.get(0) + "` in the starter project", project);
    assertTrue(built.contains("Tests run: 2, Failures: 0, Errors: 0, Skipped: 0"), built);
    String report = Files.readString(project.resolve("target/surefire-reports/TEST-com.example.RingTest.xml"));
    assertTrue(report.contains("<testcase name=\"acrossTwoJvms(RmaJob)\""), "the 2-JVM test ran:\n" + built);
    Matcher classPath = Pattern.compile("name=\"surefire.test.class.path\" value=\"([^\"]*)\"").matcher(report);
    assertTrue(classPath.find(), "surefire reports the test class path");
    assertTrue(classPath.group(1).contains("vertx-rma-" + VERSION + ".jar"), classPath.group(1));
    assertFalse(classPath.group(1).contains("epoll"), "no epoll jar on the class path: " + classPath.group(1));

    String ran = run(mvn(commands.get(1)), "`" + commands.get(1) + "` in the starter project", project);
    for (int r = 0; r < 4; r++) {
      assertTrue(ran.contains("rank " + r + " of 4: got " + (r + 3) % 4), ran);
    }
  }

  /** A documented {@code mvn ...} command as this build runs it: Maven of this build, offline if it is, batch mode. */
  private static List<String> mvn(String command) {
    List<String> words = new ArrayList<>(List.of(command.split(" ")));
    assertEquals("mvn", words.get(0), command);
    words.set(0, MVN);
    words.addAll(1, List.of(OFFLINE, "-B"));
    return words;
  }

  private static String run(List<String> cmd, String what) throws Exception {
    return run(cmd, what, null);
  }

  private static String run(List<String> cmd, String what, Path dir) throws Exception {
    File log = File.createTempFile("consumer", ".log");
    log.deleteOnExit();
    Process p = new ProcessBuilder(cmd).directory(dir == null ? null : dir.toFile()).redirectErrorStream(true)
        .redirectOutput(log).start();
    boolean ended = p.waitFor(8, TimeUnit.MINUTES);
    if (!ended) {
      p.destroyForcibly();
    }
    String out = Files.readString(log.toPath(), StandardCharsets.UTF_8);
    assertTrue(ended && p.exitValue() == 0, what + " failed (" + String.join(" ", cmd) + "):\n" + out);
    return out;
  }
}
