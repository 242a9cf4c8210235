package dev.vertxrma.impl.runtime;

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
 * The samples {@code rmarun} runs by name: a sample's name is its class's simple name in lower
 * case with a dash before each inner capital ({@code DoubleBufferRx} is {@code double-buffer-rx}).
 */
final class SampleCatalog {

  private static final String SAMPLES = "dev.vertxrma.samples.";

  private SampleCatalog() {
  }

  /** The class a sample name stands for: {@code double-buffer} is {@code dev.vertxrma.samples.DoubleBuffer}. */
  static String sampleClass(String sample) {
    StringBuilder sb = new StringBuilder(SAMPLES);
    for (String part : sample.split("-")) {
      if (!part.isEmpty()) {
        sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
      }
    }
    return sb.toString();
  }

  /** The sample name of a class of the samples package: {@code DoubleBufferRx} is {@code double-buffer-rx}. */
  static String sampleName(String simpleName) {
    return simpleName.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  /**
   * The samples {@code loader} can load: the public programs of package {@code dev.vertxrma.samples}
   * with a public no-argument constructor, by sample name; empty without the samples (the library
   * jar alone).
   */
  static List<String> samples(ClassLoader loader) {
    TreeSet<String> classes = new TreeSet<>();
    String dir = SAMPLES.replace('.', '/');
    try {
      for (URL u : Collections.list(loader.getResources(dir.substring(0, dir.length() - 1)))) {
        listClasses(u, dir, classes);
      }
    } catch (IOException e) {
      return List.of();
    }
    TreeSet<String> names = new TreeSet<>();
    for (String simple : classes) {
      try {
        Class<?> c = Class.forName(SAMPLES + simple, false, loader);
        int m = c.getModifiers();
        if ((RankProgram.class.isAssignableFrom(c) || WorldProgram.class.isAssignableFrom(c)) && Modifier.isPublic(m)
            && !Modifier.isAbstract(m) && !c.isInterface() && Modifier.isPublic(c.getConstructor().getModifiers())) {
          names.add(sampleName(simple));
        }
      } catch (ReflectiveOperationException | LinkageError e) {
        // not a sample
      }
    }
    return new ArrayList<>(names);
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
