package dev.vertxrma.impl.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Class-data sharing for the JVMs that {@code rmarun} starts on its own host (the JDK's dynamic
 * AppCDS archive): a JVM of a job loads some 10,000 classes (Vert.x, Netty, Hazelcast, the engine)
 * and spends most of its first seconds doing so; mapped from an archive they cost a fraction of
 * that. The archive is {@code JAR.jsa} beside the runnable jar. While it is missing or older than
 * the jar, the first JVM of a job writes a new one when it exits ({@code -XX:ArchiveClassesAtExit},
 * to a temporary file that the launcher moves into place once that JVM has ended well, so that no
 * JVM ever maps a file being written); the JVMs of later jobs map it. A JVM that cannot use it
 * (another JDK, other flags) runs as it would without it. Only for a launcher whose class path is
 * the one runnable jar (the archive names its class path), and not with {@code -Drma.cds=false}.
 * The JVMs that {@code @RmaTest(jvms = K)} starts use it the same way when their class path is one
 * jar ({@code dev.vertxrma.junit.JvmJob}).
 */
public final class ClassDataArchive {

  /** The system property that turns it off ({@code -Drma.cds=false}). */
  static final String PROPERTY = "rma.cds";
  /** Log tags whose messages about the archive (classes it cannot hold) would clutter a job's output. */
  private static final String QUIET = "-Xlog:cds=off,cds+dynamic=off";

  private final Path archive;
  private final Path writing;

  private ClassDataArchive(Path archive, Path writing) {
    this.archive = archive;
    this.writing = writing;
  }

  /**
   * The archive for JVMs with {@code classPath}, or {@code null} when there is none to use: the
   * class path is not one jar file, the jar's directory cannot be written, or it is turned off.
   */
  public static ClassDataArchive forClassPath(String classPath) {
    return forClassPath(classPath, java.util.List.of());
  }

  /**
   * As {@link #forClassPath(String)} for JVMs whose class path is {@code classPath} followed by
   * {@code appended} (the user's {@code -cp}). The JDK maps an archive for a class path that
   * extends the one it was written for, but refuses to write one whose class path holds a
   * directory that is not empty ("Cannot have non-empty directory in paths"): while the archive
   * is missing or stale and {@code appended} has such a directory, there is none (those JVMs run
   * without it; the next job without a directory writes it).
   */
  public static ClassDataArchive forClassPath(String classPath, java.util.List<Path> appended) {
    ClassDataArchive a = forJar(classPath);
    if (a == null || a.writing == null) {
      return a;
    }
    for (Path p : appended) {
      if (Files.isDirectory(p) && !isEmptyDirectory(p)) {
        return null;
      }
    }
    return a;
  }

  private static boolean isEmptyDirectory(Path dir) {
    try (java.util.stream.Stream<Path> s = Files.list(dir)) {
      return s.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  private static ClassDataArchive forJar(String classPath) {
    if ("false".equalsIgnoreCase(System.getProperty(PROPERTY)) || classPath == null
        || classPath.contains(java.io.File.pathSeparator) || !classPath.endsWith(".jar")) {
      return null;
    }
    Path jar = Path.of(classPath).toAbsolutePath();
    Path archive = jar.resolveSibling(jar.getFileName() + ".jsa");
    try {
      if (!Files.isRegularFile(jar)) {
        return null;
      }
      if (Files.isRegularFile(archive)
          && Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(jar)) > 0) {
        return new ClassDataArchive(archive, null);
      }
      if (!Files.isWritable(jar.getParent())) {
        return null;
      }
    } catch (IOException e) {
      return null;
    }
    Path writing = jar.resolveSibling(jar.getFileName() + ".jsa." + Long.toHexString(ThreadLocalRandom.current().nextLong())
        + ".tmp");
    return new ClassDataArchive(archive, writing);
  }

  /**
   * The JVM flags of the job's JVM number {@code k}: map the archive, or (the first JVM, while
   * there is none) write one at exit.
   */
  public List<String> flags(int k) {
    List<String> flags = new ArrayList<>();
    if (writing == null) {
      flags.add("-XX:SharedArchiveFile=" + archive);
    } else if (k == 0) {
      flags.add("-XX:ArchiveClassesAtExit=" + writing);
    } else {
      return flags;
    }
    flags.add(QUIET);
    return flags;
  }

  /** Whether {@code arg}, a flag of this JVM, is one of the archive's (not to be handed on). */
  public static boolean isArchiveFlag(String arg) {
    return arg.startsWith("-XX:SharedArchiveFile=") || arg.startsWith("-XX:ArchiveClassesAtExit=") || arg.equals(QUIET);
  }

  /**
   * After the job: moves a newly written archive into place if the JVM that wrote it ended well
   * ({@code wroteWell}), else deletes what it left.
   */
  public void finish(boolean wroteWell) {
    if (writing == null) {
      return;
    }
    try {
      if (wroteWell && Files.isRegularFile(writing)) {
        Files.move(writing, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } else {
        Files.deleteIfExists(writing);
      }
    } catch (IOException e) {
      System.getLogger(ClassDataArchive.class.getName()).log(System.Logger.Level.DEBUG,
          "class-data archive " + archive + " not written: " + e);
      try {
        Files.deleteIfExists(writing);
      } catch (IOException gone) {
        // nothing left to do
      }
    }
  }
}
