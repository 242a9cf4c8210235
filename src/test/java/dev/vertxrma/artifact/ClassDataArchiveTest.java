package dev.vertxrma.artifact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/rmarun}'s class-data archive as a user meets it, with the runnable jar (after
 * {@code package}): the first job over two JVMs leaves {@code JAR.jsa} beside the jar and no
 * temporary file, the next job maps it (the file is not written again) and both verify; its JVMs
 * print nothing about the archive; with {@code -Drma.cds=false} none is made.
 */
@Tag("consumer")
class ClassDataArchiveTest {

  private static final Path HOME = Path.of(System.getProperty("rma.home", "."));
  private static final String VERSION = System.getProperty("rma.version", "0.1.0-SNAPSHOT");

  @TempDir
  Path dir;

  @Test
  void theFirstJobWritesTheArchiveAndTheNextMapsIt() throws Exception {
    Path jar = copyJar("a");
    Path archive = jar.resolveSibling(jar.getFileName() + ".jsa");
    String first = run(jar, "");
    assertTrue(Files.isRegularFile(archive), "the first job left " + archive + "\n" + first);
    assertEquals(List.of(jar, archive), files(jar.getParent()), "nothing else is left beside the jar");
    FileTime written = Files.getLastModifiedTime(archive);
    String second = run(jar, "");
    assertEquals(written, Files.getLastModifiedTime(archive), "the second job mapped the archive, it did not write it");
    for (String out : List.of(first, second)) {
      assertFalse(out.toLowerCase(java.util.Locale.ROOT).contains("cds"), "no word about the archive\n" + out);
    }
  }

  /**
   * The documented own-program path after a rebuild (issue 42): the archive is older than the
   * jar, and the JVMs' class path ends with the user's class directory, for which the JDK
   * refuses to write an archive. The job must end well (before, JVM 0 exited 1 with "Cannot have
   * non-empty directory in paths" after every rank had verified, at every run until a job
   * without a directory ran), and the stale archive is left for such a job to replace.
   */
  @Test
  void aStaleArchiveAndAClassDirectoryBreakNoJob() throws Exception {
    Path jar = copyJar("c");
    Path archive = jar.resolveSibling(jar.getFileName() + ".jsa");
    Files.writeString(archive, "an archive of the jar before its rebuild");
    FileTime stale = FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 60_000);
    Files.setLastModifiedTime(archive, stale);
    Path classes = dev.vertxrma.testing.UserProgram.compile(dir.resolve("user"));
    String out = runProgram(jar, classes);
    assertTrue(out.contains("hello from rank 1 of 2"), out);
    assertEquals(stale, Files.getLastModifiedTime(archive), "no archive written for a class path with a directory");
  }

  @Test
  void noArchiveWhenTurnedOff() throws Exception {
    Path jar = copyJar("b");
    run(jar, "-Drma.cds=false");
    assertEquals(List.of(jar), files(jar.getParent()), "no archive with -Drma.cds=false");
  }

  private Path copyJar(String sub) throws IOException {
    Path jar = dir.resolve(sub).resolve("vertx-rma-" + VERSION + "-all.jar");
    Files.createDirectories(jar.getParent());
    Files.copy(HOME.resolve("target/vertx-rma-" + VERSION + "-all.jar"), jar);
    return jar;
  }

  private static List<Path> files(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    }
  }

  /** Runs {@code bin/rmarun -np 2 --jvms 2 -cp CLASSES cli.user.Hello} on {@code jar}; its output, once it ended well. */
  private static String runProgram(Path jar, Path classes) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(HOME.resolve("bin/rmarun").toString(), "-np", "2", "--jvms", "2", "-q",
        "-cp", classes.toString(), dev.vertxrma.testing.UserProgram.CLASS).redirectErrorStream(true);
    pb.environment().remove("RMA_CLASSPATH");
    pb.environment().put("RMA_JAR", jar.toString());
    pb.environment().put("RMA_JAVA_OPTS", "");
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the job ends");
    String text = new String(out, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), text);
    return text;
  }

  /** Runs {@code bin/rmarun -np 2 --jvms 2 counter} on {@code jar}; its output, once it verified. */
  private static String run(Path jar, String javaOpts) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(HOME.resolve("bin/rmarun").toString(), "-np", "2", "--jvms", "2", "-q",
        "counter", "50").redirectErrorStream(true);
    pb.environment().remove("RMA_CLASSPATH");
    pb.environment().put("RMA_JAR", jar.toString());
    pb.environment().put("RMA_JAVA_OPTS", javaOpts);
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the job ends");
    String text = new String(out, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), text);
    assertTrue(text.contains("counter: verified"), text);
    return text;
  }
}
