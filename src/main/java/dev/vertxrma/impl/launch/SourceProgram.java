package dev.vertxrma.impl.launch;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;

/**
 * A source-file program, {@code rmarun -np 4 Hello.java}: the file is compiled in memory with the
 * JDK's compiler ({@code javax.tools}) against the class path of this JVM and {@code -cp}, and its
 * first top-level class is the program (as {@code java Hello.java} takes the first class of the
 * file; more top-level classes may follow it). Nothing is written to disk: the class files live in
 * a class loader of their own, whose parent is the program loader of {@code -cp} (or rmarun's).
 *
 * <p>Every JVM of a job compiles the file itself, from its absolute path: the launcher first (a
 * compile error stops it before any JVM starts), then each JVM that {@code --jvms} or a host list
 * starts. So over hosts the file must be at the same path on every host, like {@code -cp}'s
 * directories. Compiling blocks for a second or so; it is done while the command line is checked,
 * on the thread that runs {@code rmarun}, before Vert.x starts, never on an event loop.
 *
 * <p>Without a Java compiler (a JRE, such as the Docker image's runtime) the file is refused with
 * a message saying so. The javac classes ({@code com.sun.source}) are only touched by
 * {@link Javac}, which is loaded once a compiler was found.
 */
final class SourceProgram {

  /** What compiling gave: the loader of the file's classes, the program's class name, javac's warnings. */
  record Compiled(ClassLoader loader, String className, String warnings) {
  }

  private SourceProgram() {
  }

  /** Whether PROGRAM names a source file (it ends in {@code .java}) rather than a sample or class. */
  static boolean isSource(String program) {
    return program.endsWith(".java");
  }

  /**
   * Compiles {@code file}.
   *
   * @param file the file as the user gave it (javac's messages name it so)
   * @param classpath the class path to compile against
   * @param parent the loader the file's classes see
   * @throws RmaRunCommand.UsageError if the file is missing, no compiler is there, or the file
   *     does not compile (then with javac's messages, as javac prints them, as its details)
   */
  static Compiled compile(Path file, String classpath, ClassLoader parent) {
    if (!Files.isRegularFile(file)) {
      throw new RmaRunCommand.UsageError(file + ": no such file (a source-file program is a .java file)");
    }
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    if (compiler == null) {
      throw new RmaRunCommand.UsageError(file + ": running a source file needs a JDK, and the Java running rmarun ("
          + System.getProperty("java.home") + ", Java " + System.getProperty("java.version")
          + ") has no Java compiler (module jdk.compiler): run rmarun with a JDK's java (JAVA=/path/to/jdk/bin/java), "
          + "or compile the file with javac and give its class name and -cp");
    }
    return Javac.compile(compiler, file, classpath, parent);
  }

  /** The compiler's side: the javac task, the first class of the file, the class files in memory. */
  private static final class Javac {

    static Compiled compile(JavaCompiler compiler, Path file, String classpath, ClassLoader parent) {
      StringWriter messages = new StringWriter();
      Map<String, ByteArrayOutputStream> classes = new LinkedHashMap<>();
      String[] first = new String[1];
      List<String> options = List.of("-proc:none", "-Xlint:deprecation", "-Xlint:unchecked", "-classpath", classpath);
      boolean ok;
      try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8);
          InMemory out = new InMemory(files, classes)) {
        // the class path holds class files only: never compile a stray source found beside them
        files.setLocationFromPaths(StandardLocation.SOURCE_PATH, List.of());
        com.sun.source.util.JavacTask task = (com.sun.source.util.JavacTask) compiler.getTask(messages, out, null,
            options, null, files.getJavaFileObjects(file));
        task.addTaskListener(new com.sun.source.util.TaskListener() {
          @Override
          public void finished(com.sun.source.util.TaskEvent e) {
            if (e.getKind() == com.sun.source.util.TaskEvent.Kind.PARSE && first[0] == null) {
              first[0] = firstClass(e.getCompilationUnit());
            }
          }
        });
        ok = task.call();
      } catch (java.io.IOException | RuntimeException e) {
        throw new RmaRunCommand.UsageError(file + ": cannot compile: " + e);
      }
      if (!ok) {
        throw new RmaRunCommand.UsageError(file + " does not compile; no rank started", messages.toString());
      }
      if (first[0] == null) {
        throw new RmaRunCommand.UsageError(file + " declares no class: its first top-level class is the program");
      }
      Map<String, byte[]> bytes = new LinkedHashMap<>();
      classes.forEach((name, b) -> bytes.put(name, b.toByteArray()));
      return new Compiled(new Loader(file.getFileName().toString(), bytes, parent), first[0], messages.toString());
    }

    /** The binary name of the first top-level class of {@code unit}, or null if it declares none. */
    private static String firstClass(com.sun.source.tree.CompilationUnitTree unit) {
      for (com.sun.source.tree.Tree t : unit.getTypeDecls()) {
        if (t instanceof com.sun.source.tree.ClassTree c) {
          String simple = c.getSimpleName().toString();
          return unit.getPackageName() == null ? simple : unit.getPackageName() + "." + simple;
        }
      }
      return null;
    }
  }

  /** javac's file manager, with the class files it writes kept in {@code classes} (binary name → bytes). */
  private static final class InMemory extends ForwardingJavaFileManager<StandardJavaFileManager> {
    private final Map<String, ByteArrayOutputStream> classes;

    InMemory(StandardJavaFileManager files, Map<String, ByteArrayOutputStream> classes) {
      super(files);
      this.classes = classes;
    }

    @Override
    public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind,
        FileObject sibling) throws java.io.IOException {
      if (location != StandardLocation.CLASS_OUTPUT || kind != JavaFileObject.Kind.CLASS) {
        return super.getJavaFileForOutput(location, className, kind, sibling);
      }
      URI uri = URI.create("memory:///" + className.replace('.', '/') + kind.extension);
      return new SimpleJavaFileObject(uri, kind) {
        @Override
        public OutputStream openOutputStream() {
          ByteArrayOutputStream b = new ByteArrayOutputStream();
          classes.put(className, b);
          return b;
        }
      };
    }
  }

  /** The loader of a source file's classes: its parent first, then the compiled classes. */
  private static final class Loader extends ClassLoader {
    private final Map<String, byte[]> classes;

    Loader(String fileName, Map<String, byte[]> classes, ClassLoader parent) {
      super("rmarun " + fileName, parent);
      this.classes = classes;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      byte[] b = classes.get(name);
      if (b == null) {
        throw new ClassNotFoundException(name);
      }
      return defineClass(name, b, 0, b.length);
    }
  }

  /** The class path a source file is compiled against: this JVM's, then {@code -cp}'s entries. */
  static String classpath(String userClasspath) {
    String own = System.getProperty("java.class.path", "");
    return userClasspath.isEmpty() ? own : own + File.pathSeparator + userClasspath;
  }
}
