package dev.vertxrma.impl.launch;

import dev.vertxrma.RankProgram;
import dev.vertxrma.WorldProgram;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * PROGRAM of {@code rmarun}, and of a job description, as a program to run: a sample name, a
 * class name from rmarun's class path or {@code -cp}, or a source file ({@link SourceProgram});
 * loaded (not initialized) and checked to be a public, concrete {@link RankProgram} or
 * {@link WorldProgram} with a public no-argument constructor, before any rank starts.
 */
final class ProgramLoader {

  private ProgramLoader() {
  }

  /**
   * A program ready to run.
   *
   * @param className its class
   * @param instance a {@link RankProgram} (one instance per rank) or {@link WorldProgram} (one per JVM)
   * @param loader the loader of its class (the user's class path after rmarun's own, or a source file's)
   * @param source the source file, absolute, if PROGRAM is one (what the job's other JVMs compile), else null
   * @param warnings javac's warnings about that file, or null
   */
  record Program(String className, Object instance, ClassLoader loader, Path source, String warnings) {
    /** What a job description names: the source file, or the class. */
    String described() {
      return source != null ? source.toString() : className;
    }
  }

  /**
   * The program {@code program} names on rmarun's command line.
   *
   * @param classpath {@code -cp} as given (for messages), or null
   * @param userClasspath its entries, checked ({@link #classpathEntries})
   * @throws RmaRunCommand.UsageError saying what is wrong with it
   */
  static Program resolve(String program, String classpath, List<Path> userClasspath) {
    ClassLoader loader = userClasspath.isEmpty() ? ProgramLoader.class.getClassLoader() : userLoader(userClasspath);
    if (SourceProgram.isSource(program)) {
      return compile(program, loader, classpathText(userClasspath));
    }
    Class<?> c;
    if (!program.contains(".")) {
      String sample = SampleCatalog.sampleClass(program, loader);
      c = sample == null ? null : load(sample, loader);
      if (c == null) {
        c = load(program, loader); // a class of the default package
      }
      if (c == null) {
        List<String> samples = SampleCatalog.samples(loader);
        String near = nearest(program, samples);
        throw new RmaRunCommand.UsageError("unknown program '" + program + "': "
            + (near != null ? "did you mean " + near + "? " : "")
            + "no sample of that name (the samples are " + String.join(", ", samples) + ") and no class of that name"
            + (classpath == null ? " (a program of yours: its class name, and -cp for where it is)" : " in -cp"));
      }
    } else {
      c = load(program, loader);
      if (c == null) {
        throw new RmaRunCommand.UsageError("unknown program '" + program + "': no class of that name in "
            + (classpath == null ? "rmarun's class path (give -cp PATH for where your classes are)" : "-cp " + classpath
            + " or rmarun's class path"));
      }
    }
    return checked(c, "", loader, null, null);
  }

  /**
   * The program a job description names ({@link JobDescription#getProgram()}): a class of this
   * JVM's class path, by its exact name, or a source file.
   *
   * @throws RmaRunCommand.UsageError saying what is wrong with it
   */
  static Program described(String program) {
    ClassLoader loader = ProgramLoader.class.getClassLoader();
    if (SourceProgram.isSource(program)) {
      return compile(program, loader, "");
    }
    Class<?> c = load(program, loader);
    if (c == null) {
      throw new RmaRunCommand.UsageError("unknown program '" + program + "': no class of that name in this JVM's class "
          + "path " + System.getProperty("java.class.path"));
    }
    return checked(c, "", loader, null, null);
  }

  private static Program compile(String program, ClassLoader parent, String userClasspath) {
    SourceProgram.Compiled compiled = SourceProgram.compile(Path.of(program), SourceProgram.classpath(userClasspath),
        parent);
    Class<?> c = load(compiled.className(), compiled.loader());
    if (c == null || c.getClassLoader() != compiled.loader()) {
      throw new RmaRunCommand.UsageError(compiled.className() + " (the first class of " + program + ") is also a class "
          + "of rmarun's class path or -cp, which would run instead: rename it");
    }
    return checked(c, " (the first class of " + program + ")", compiled.loader(),
        Path.of(program).toAbsolutePath().normalize(), compiled.warnings().isEmpty() ? null : compiled.warnings());
  }

  private static Program checked(Class<?> c, String origin, ClassLoader loader, Path source, String warnings) {
    String name = c.getName();
    if (!RankProgram.class.isAssignableFrom(c) && !WorldProgram.class.isAssignableFrom(c)) {
      throw new RmaRunCommand.UsageError(name + origin + " is not a program: it implements neither "
          + RankProgram.class.getName() + " nor " + WorldProgram.class.getName());
    }
    if (!Modifier.isPublic(c.getModifiers()) || Modifier.isAbstract(c.getModifiers()) || c.isInterface()) {
      throw new RmaRunCommand.UsageError(name + origin + " must be a public, concrete class");
    }
    try {
      if (!Modifier.isPublic(c.getConstructor().getModifiers())) {
        throw new NoSuchMethodException();
      }
    } catch (NoSuchMethodException e) {
      throw new RmaRunCommand.UsageError(name + origin + " needs a public no-argument constructor");
    } catch (LinkageError e) {
      throw new RmaRunCommand.UsageError("cannot load " + name + ": " + e);
    }
    return new Program(name, instantiating(c), loader, source, warnings);
  }

  /** Class {@code name} from {@code loader}, not initialized; {@code null} if there is none. */
  private static Class<?> load(String name, ClassLoader loader) {
    try {
      return Class.forName(name, false, loader);
    } catch (ClassNotFoundException e) {
      return null;
    } catch (LinkageError e) {
      throw new RmaRunCommand.UsageError("cannot load " + name + ": " + e);
    }
  }

  /**
   * The program class {@code c} stands for, creating one instance per rank (a
   * {@link RankProgram}) or per JVM (a {@link WorldProgram}).
   */
  static Object instantiating(Class<?> c) {
    String name = c.getName();
    if (WorldProgram.class.isAssignableFrom(c)) {
      return (WorldProgram) (vertx, world, args) -> {
        try {
          return ((WorldProgram) c.getConstructor().newInstance()).run(vertx, world, args);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot instantiate " + name + ": " + e, e);
        }
      };
    }
    return (RankProgram) (world, args) -> {
      try {
        return ((RankProgram) c.getConstructor().newInstance()).run(world, args);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot instantiate " + name + ": " + e, e);
      }
    };
  }

  /**
   * The entries of {@code -cp} {@code classpath} (null: none), checked: each exists, and
   * {@code DIR/*} is every jar in DIR.
   *
   * @throws RmaRunCommand.UsageError naming the entry that is wrong
   */
  static List<Path> classpathEntries(String classpath) {
    if (classpath == null) {
      return List.of();
    }
    if (classpath.isBlank()) {
      throw new RmaRunCommand.UsageError("-cp needs a class path, got ''");
    }
    List<Path> entries = new ArrayList<>();
    for (String e : classpath.split(Pattern.quote(File.pathSeparator))) {
      if (e.isEmpty()) {
        continue;
      }
      if (e.equals("*") || e.endsWith(File.separator + "*")) {
        Path dir = Path.of(e.substring(0, e.length() - 1).isEmpty() ? "." : e.substring(0, e.length() - 1));
        if (!Files.isDirectory(dir)) {
          throw new RmaRunCommand.UsageError("-cp: " + dir + " (of " + e + ") is not a directory");
        }
        try (Stream<Path> jars = Files.list(dir)) {
          jars.filter(p -> p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jar")).sorted()
              .forEach(entries::add);
        } catch (IOException x) {
          throw new RmaRunCommand.UsageError("-cp: cannot list " + dir + ": " + x.getMessage());
        }
        continue;
      }
      Path p = Path.of(e);
      if (!Files.exists(p)) {
        throw new RmaRunCommand.UsageError("-cp: " + e + " does not exist");
      }
      entries.add(p.toAbsolutePath());
    }
    return entries;
  }

  private static ClassLoader userLoader(List<Path> userClasspath) {
    URL[] urls = new URL[userClasspath.size()];
    for (int i = 0; i < urls.length; i++) {
      try {
        urls[i] = userClasspath.get(i).toAbsolutePath().toUri().toURL();
      } catch (MalformedURLException e) {
        throw new RmaRunCommand.UsageError("-cp: " + userClasspath.get(i) + " cannot be used: " + e.getMessage());
      }
    }
    return new URLClassLoader("rmarun -cp", urls, ProgramLoader.class.getClassLoader());
  }

  /** The class path of the user's JVMs: entries, absolute, as given (a JVM expands DIR/* itself). */
  static String classpathText(List<Path> userClasspath) {
    List<String> parts = new ArrayList<>();
    for (Path p : userClasspath) {
      parts.add(p.toAbsolutePath().toString());
    }
    return String.join(File.pathSeparator, parts);
  }

  /**
   * The sample whose name is nearest to {@code name} (a typo: at most two edits, or a third of its
   * length), or {@code null} if none is near.
   */
  static String nearest(String name, List<String> samples) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String s : samples) {
      int d = editDistance(name.toLowerCase(java.util.Locale.ROOT), s.toLowerCase(java.util.Locale.ROOT));
      if (d < bestDistance) {
        best = s;
        bestDistance = d;
      }
    }
    return bestDistance <= Math.max(2, name.length() / 3) ? best : null;
  }

  /** Levenshtein distance (insertions, deletions, substitutions). */
  private static int editDistance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int subst = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(subst, Math.min(prev[j] + 1, cur[j - 1] + 1));
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
