package dev.vertxrma.impl.launch;

import dev.vertxrma.RankProgram;
import dev.vertxrma.WorldProgram;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The samples {@code rmarun} runs by name: the public programs of the packages
 * {@code dev.vertxrma.samples.KIND}, one package per kind of sample ({@link #KINDS}). A sample's
 * name is its class's simple name in lower case with a dash before each inner capital
 * ({@code DoubleBufferRx} is {@code double-buffer-rx}), whatever its kind: the names are unique
 * across the kinds, and a sample that moves from one kind to another keeps its name.
 */
final class SampleCatalog {

  /** The package of the samples' kinds; it holds no program itself, only what the samples share. */
  static final String ROOT = "dev.vertxrma.samples";
  /** The kinds, in the order a name is looked up: each a sub-package of {@link #ROOT}. */
  static final List<String> KINDS = List.of("standard", "sync", "styles", "services", "resilience", "stress");

  private SampleCatalog() {
  }

  /**
   * The class a sample name stands for, among the classes {@code loader} can load (not
   * initialized): {@code double-buffer} is {@code dev.vertxrma.samples.standard.DoubleBuffer},
   * {@code double-buffer-rx} is {@code dev.vertxrma.samples.styles.DoubleBufferRx}; {@code null}
   * if no kind holds a class of that name.
   */
  static String sampleClass(String sample, ClassLoader loader) {
    String simple = simpleName(sample);
    for (String kind : KINDS) {
      String name = ROOT + "." + kind + "." + simple;
      try {
        Class.forName(name, false, loader);
        return name;
      } catch (ClassNotFoundException | LinkageError e) {
        // not of this kind
      }
    }
    return null;
  }

  /** The simple class name a sample name stands for: {@code double-buffer} is {@code DoubleBuffer}. */
  static String simpleName(String sample) {
    StringBuilder sb = new StringBuilder();
    for (String part : sample.split("-")) {
      if (!part.isEmpty()) {
        sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
      }
    }
    return sb.toString();
  }

  /** The sample name of a sample class: {@code DoubleBufferRx} is {@code double-buffer-rx}. */
  static String sampleName(String simpleName) {
    return simpleName.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  /**
   * The samples {@code loader} can load: the public programs of every kind's package with a
   * public no-argument constructor, by sample name, sorted; empty without the samples (the library
   * jar alone).
   */
  static List<String> samples(ClassLoader loader) {
    TreeSet<String> names = new TreeSet<>();
    for (String kind : KINDS) {
      String pkg = ROOT + "." + kind;
      String dir = pkg.replace('.', '/') + "/";
      TreeSet<String> classes = new TreeSet<>();
      try {
        for (URL u : Collections.list(loader.getResources(pkg.replace('.', '/')))) {
          listClasses(u, dir, classes);
        }
      } catch (IOException e) {
        continue;
      }
      for (String simple : classes) {
        if (isProgram(pkg + "." + simple, loader)) {
          names.add(sampleName(simple));
        }
      }
    }
    return new ArrayList<>(names);
  }

  /** Whether class {@code name} is a public, concrete program with a public no-argument constructor. */
  private static boolean isProgram(String name, ClassLoader loader) {
    try {
      Class<?> c = Class.forName(name, false, loader);
      int m = c.getModifiers();
      return (RankProgram.class.isAssignableFrom(c) || WorldProgram.class.isAssignableFrom(c)) && Modifier.isPublic(m)
          && !Modifier.isAbstract(m) && !c.isInterface() && Modifier.isPublic(c.getConstructor().getModifiers());
    } catch (ReflectiveOperationException | LinkageError e) {
      return false;
    }
  }

  private static void listClasses(URL u, String dir, TreeSet<String> classes) throws IOException {
    if (u.getProtocol().equals("file")) {
      try (Stream<Path> files = Files.list(Path.of(u.toURI()))) {
        files.map(p -> p.getFileName().toString()).forEach(n -> addClass(n, classes));
      } catch (java.net.URISyntaxException e) {
        // not a directory we can read
      }
    } else if (u.getProtocol().equals("jar")) {
      URLConnection conn = u.openConnection();
      conn.setUseCaches(false);
      if (conn instanceof JarURLConnection) {
        try (java.util.jar.JarFile jar = ((JarURLConnection) conn).getJarFile()) {
          for (java.util.jar.JarEntry e : Collections.list(jar.entries())) {
            String n = e.getName();
            if (n.startsWith(dir) && n.indexOf('/', dir.length()) < 0) {
              addClass(n.substring(dir.length()), classes);
            }
          }
        }
      }
    }
  }

  private static void addClass(String fileName, TreeSet<String> classes) {
    if (fileName.endsWith(".class") && fileName.indexOf('$') < 0) {
      classes.add(fileName.substring(0, fileName.length() - ".class".length()));
    }
  }
}
