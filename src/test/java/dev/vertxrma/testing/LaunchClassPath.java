package dev.vertxrma.testing;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * The class path and JVM flags of the JVMs that tests start ({@code bin/rmarun} and its JVMs):
 * the test class path as <b>one jar</b>, so that the launcher's class-data archive
 * ({@code ClassDataArchive}, the JDK's dynamic AppCDS) serves them as it serves a user's runnable
 * jar, and the client compiler only ({@link #JVM_FLAGS}).
 *
 * <p>A test JVM's class path holds two directories ({@code target/classes},
 * {@code target/test-classes}); the JDK archives no class path with a directory, so every JVM a
 * test started loaded its 10,000 classes from scratch, and its C2 compiler threads competed for
 * the 2 cores with the job's own. On this project's 2-core machine one 2-JVM {@code twisted} job
 * took 6.3-8.0 s that way, 2.0 s from the one jar with the archive and C1 only; the suite starts
 * about a hundred such jobs.
 *
 * <p>The jar ({@code target/test-launch-FORK/launch.jar}, one directory per test JVM) holds
 * only a manifest whose {@code Class-Path} names a jar of each directory (made here, once per
 * test JVM) and the dependency jars where they are, by relative paths. A test that runs the engine's own class
 * path on purpose keeps {@code java.class.path}.
 */
public final class LaunchClassPath {

  /**
   * JVM flags for the JVMs tests start: the client compiler only. Their jobs last seconds, and
   * C2's compile threads would take the CPU the job's JVMs and the test JVM need.
   */
  public static final String JVM_FLAGS = "-XX:TieredStopAtLevel=1";

  private static String jar;
  private static String jarWithoutTestClasses;

  private LaunchClassPath() {
  }

  /** The one-jar class path of the test JVM's class path, made on first use. */
  public static synchronized String jar() {
    if (jar == null) {
      jar = make("launch", true);
    }
    return jar;
  }

  /** {@link #jar()} without the test classes: the engine and samples as a user's host has them. */
  public static synchronized String jarWithoutTestClasses() {
    if (jarWithoutTestClasses == null) {
      jarWithoutTestClasses = make("launch-main", false);
    }
    return jarWithoutTestClasses;
  }

  /**
   * Sets {@code env} up for {@code bin/rmarun} (or a script that runs it) on {@link #jar()}: its
   * class path, this JVM's {@code java}, and {@link #JVM_FLAGS} before any {@code RMA_JAVA_OPTS}
   * already there.
   */
  public static void into(java.util.Map<String, String> env) {
    env.put("RMA_CLASSPATH", jar());
    env.put("JAVA", System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    env.put("RMA_JAVA_OPTS", (JVM_FLAGS + " " + env.getOrDefault("RMA_JAVA_OPTS", "")).trim());
  }

  /**
   * {@link #JVM_FLAGS}, and the flags that map the class-data archive that {@code bin/rmarun}'s
   * JVMs wrote for {@link #jar()} if there is one newer than the jar (none before the first job):
   * for a JVM a test starts on {@link #jar()} without {@code bin/rmarun}.
   */
  public static List<String> jvmFlags() {
    List<String> flags = new ArrayList<>(List.of(JVM_FLAGS));
    Path launch = Path.of(jar());
    Path archive = launch.resolveSibling(launch.getFileName() + ".jsa");
    try {
      if (Files.isRegularFile(archive)
          && Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(launch)) > 0) {
        flags.add("-XX:SharedArchiveFile=" + archive);
        flags.add("-Xlog:cds=off,cds+dynamic=off");
      }
    } catch (IOException e) {
      // no archive: the JVM loads its classes itself
    }
    return flags;
  }

  private static String make(String name, boolean withTestClasses) {
    try {
      return make(System.getProperty("java.class.path"), name, withTestClasses).toString();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make the tests' launch jar " + name, e);
    }
  }

  private static Path make(String classPath, String name, boolean withTestClasses) throws IOException {
    List<Path> entries = new ArrayList<>();
    Path target = null;
    for (String e : classPath.split(File.pathSeparator)) {
      if (!e.isEmpty()) {
        Path p = Path.of(e).toAbsolutePath();
        entries.add(p);
        if (target == null && Files.isDirectory(p) && p.getFileName().toString().equals("test-classes")) {
          target = p.getParent();
        }
      }
    }
    if (target == null) {
      throw new IOException("no test-classes directory on the class path " + classPath);
    }
    // one directory per test JVM of a run (Surefire's fork number, else this JVM's pid): another's
    // jars and archive are never rewritten under JVMs that map them
    String fork = System.getProperty("vertxrma.test.fork", "");
    if (!fork.matches("[0-9]+")) {
      fork = "pid" + ProcessHandle.current().pid();
    }
    Path dir = Files.createDirectories(target.resolve("test-launch-" + fork));
    List<String> refs = new ArrayList<>();
    for (Path p : entries) {
      if (!withTestClasses && p.equals(target.resolve("test-classes"))) {
        continue;
      }
      if (Files.isDirectory(p)) {
        Path j = dir.resolve(p.getFileName() + ".jar");
        jarOf(p, j);
        refs.add(j.getFileName().toString());
      } else if (Files.isRegularFile(p)) {
        refs.add(dir.relativize(p).toString().replace(File.separatorChar, '/'));
      }
    }
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    m.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", refs));
    Path launch = dir.resolve(name + ".jar");
    Path tmp = dir.resolve(name + ".jar.tmp");
    try (OutputStream out = Files.newOutputStream(tmp); JarOutputStream jar = new JarOutputStream(out, m)) {
      jar.flush();
    }
    return Files.move(tmp, launch, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Writes the files under {@code dir} into the jar {@code to} (replaced whole). */
  private static void jarOf(Path dir, Path to) throws IOException {
    Path tmp = to.resolveSibling(to.getFileName() + ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp); JarOutputStream jar = new JarOutputStream(out);
         Stream<Path> files = Files.walk(dir)) {
      jar.setLevel(1);
      for (Path f : (Iterable<Path>) files.sorted()::iterator) {
        if (f.equals(dir)) {
          continue;
        }
        String name = dir.relativize(f).toString().replace(File.separatorChar, '/');
        if (Files.isDirectory(f)) {
          jar.putNextEntry(new JarEntry(name + "/"));
        } else {
          jar.putNextEntry(new JarEntry(name));
          Files.copy(f, jar);
        }
        jar.closeEntry();
      }
    }
    Files.move(tmp, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
