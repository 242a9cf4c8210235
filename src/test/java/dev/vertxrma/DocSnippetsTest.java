package dev.vertxrma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.vertxrma.testing.DocBlocks;
import dev.vertxrma.testing.DocBlocks.Block;
import dev.vertxrma.testing.LaunchClassPath;
import dev.vertxrma.testing.Rmarun;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of README.md and docs/*.md compiles, and the runnable ones run: a
 * reader who copies one gets code that works (issue 42: README's own example did not compile,
 * the services page's window was created on one rank only, the getting-started program never
 * exited). What a block is, is said by the marker before it ({@link DocBlocks}: a whole file by
 * default, a fragment with its variables, class members, or, rarely and with a reason, not
 * compiled). All blocks are compiled in one javac task against the test class path; an error is
 * reported at the page and line of the block's code ({@code README.md:64: error: cannot find
 * symbol}). Then every whole file with a {@code main} runs in a JVM of its own and must exit with
 * status 0 within {@link #RUN_SECONDS} (a program that leaves Vert.x open never exits), and every
 * public {@code RankProgram} without one runs as an embedded job of 4 ranks.
 */
class DocSnippetsTest {

  /**
   * What fragments and members see (whole files have their own imports): the library's packages,
   * Vert.x core, RxJava (its {@code Completable} rather than Vert.x's), the starter project's
   * classes of docs/your-project.md, java.nio, java.util and JUnit's assertions.
   */
  static final List<String> IMPORTS = List.of("dev.vertxrma.*", "dev.vertxrma.rx.*", "dev.vertxrma.junit.*",
      "dev.vertxrma.metrics.*", "io.vertx.core.*", "io.vertx.core.buffer.Buffer", "io.reactivex.rxjava3.core.*",
      "io.reactivex.rxjava3.core.Completable", "io.micrometer.prometheusmetrics.*", "com.example.*", "java.nio.*",
      "java.util.*", "java.util.function.*", "static org.junit.jupiter.api.Assertions.*");

  /** The most blocks that may be left uncompiled, over all pages: the marker is for the rare case. */
  static final int MAX_NOT_COMPILED = 2;

  /**
   * How long a documented program may take, JVM start included: a job of a few ranks takes 2-5 s
   * on this project's 2 loaded cores; the bound only turns a program that never exits into a
   * failure that names it instead of a hung build.
   */
  static final long RUN_SECONDS = 120;

  private static final Path HOME = Rmarun.home().toPath();
  /** A top-level type (at the start of a line): group 1 says whether it is public, group 2 is its name. */
  private static final Pattern TOP_TYPE = Pattern.compile(
      "(?m)^(public\\s+)?(?:(?:final|abstract|sealed)\\s+)*(?:class|interface|record|enum)\\s+(\\w+)");
  private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");
  /** A program that awaits its calls: it runs on virtual threads. */
  private static final Pattern AWAITS = Pattern.compile("\\.await\\(\\)");
  private static final Pattern MAIN = Pattern.compile("public\\s+static\\s+void\\s+main\\s*\\(\\s*String");

  @TempDir
  Path classes;

  /** A block as javac sees it: its source, and the line of the page its first line came from. */
  private record Unit(Block block, String className, String source, int firstDocLine, int headerLines) {

    /** The page line of line {@code n} (1-based) of the source, or the block's line for a header line. */
    String where(long n) {
      long docLine = n <= headerLines ? block.line() : firstDocLine + (n - 1 - headerLines);
      return block.doc() + ":" + docLine;
    }
  }

  private static final class Source extends SimpleJavaFileObject {
    private final Unit unit;

    Source(Unit unit) {
      super(URI.create("string:///" + unit.className().replace('.', '/') + JavaFileObject.Kind.SOURCE.extension),
          JavaFileObject.Kind.SOURCE);
      this.unit = unit;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return unit.source();
    }
  }

  @Test
  void everyJavaBlockOfReadmeAndDocsCompilesAndTheProgramsRun() throws Exception {
    List<Block> java = DocBlocks.all(HOME).stream().filter(b -> b.language().equals("java")).toList();
    assertTrue(java.size() >= 10, "README.md and docs/ have " + java.size() + " java blocks: the parser lost them");
    List<Block> skipped = java.stream().filter(b -> b.kind() == DocBlocks.Kind.NOT_COMPILED).toList();
    assertTrue(skipped.size() <= MAX_NOT_COMPILED, "more blocks marked 'not compiled' than " + MAX_NOT_COMPILED
        + ": make them compile (a fragment marker with their variables, or members): "
        + skipped.stream().map(b -> b.where() + " (" + b.argument() + ")").toList());

    List<Unit> units = new ArrayList<>();
    for (Block b : java) {
      if (b.kind() != DocBlocks.Kind.NOT_COMPILED) {
        units.add(unit(b));
      }
    }
    compile(units);

    List<String> failures = new ArrayList<>();
    try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
      for (Unit u : units) {
        if (u.block().kind() != DocBlocks.Kind.WHOLE && u.block().kind() != DocBlocks.Kind.FILE) {
          continue;
        }
        if (MAIN.matcher(u.source()).find()) {
          String failure = runMain(u);
          if (failure != null) {
            failures.add(failure);
          }
        } else {
          Class<?> c = loader.loadClass(u.className());
          if (RankProgram.class.isAssignableFrom(c) && Modifier.isPublic(c.getModifiers())) {
            String failure = AWAITS.matcher(u.source()).find() ? runOnVirtualThreads(u)
                : runProgram(u, (RankProgram) c.getConstructor().newInstance());
            if (failure != null) {
              failures.add(failure);
            }
          }
        }
      }
    }
    assertEquals(List.of(), failures, "documented programs that do not run as the page says");
  }

  /** The marker convention itself: each kind is recognized and a bad marker is named by its line. */
  @Test
  void markersAreReadAndABadOneIsNamed(@TempDir Path home) throws IOException {
    Files.createDirectories(home.resolve("docs"));
    Files.writeString(home.resolve("README.md"), String.join("\n",
        "```java", "class A {}", "```",
        "<!-- snippet: fragment (Comm world, Win win) -->", "```java", "win.free();", "```",
        "<!-- snippet: members -->", "```java", "int x;", "```",
        "<!-- snippet: file src/main/java/B.java -->", "```java", "class B {}", "```",
        "<!-- snippet: not compiled: shows a compile error on purpose -->", "```java", "win.fence(42);", "```", ""));
    List<Block> blocks = DocBlocks.all(home);
    assertEquals(List.of(DocBlocks.Kind.WHOLE, DocBlocks.Kind.FRAGMENT, DocBlocks.Kind.MEMBERS, DocBlocks.Kind.FILE,
        DocBlocks.Kind.NOT_COMPILED), blocks.stream().map(Block::kind).toList());
    assertEquals("Comm world, Win win", blocks.get(1).argument());
    assertEquals("README.md:6", blocks.get(1).where(), "the line of the block's first line of code");
    assertEquals("src/main/java/B.java", blocks.get(3).argument());

    Files.writeString(home.resolve("docs/x.md"), "<!-- snippet: fragmnet (Win win) -->\n```java\nwin.free();\n```\n");
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> DocBlocks.all(home));
    assertTrue(e.getMessage().startsWith("docs/x.md:1: unknown snippet marker"), e.getMessage());
  }

  /**
   * The javac errors of {@code units}, each at its page and line; and a wrapped fragment that
   * does not compile is reported, not mistaken for a whole file. Checks the reporting on two
   * blocks made here: one good, one that uses a variable it never declared (as README's example did).
   */
  @Test
  void aBlockThatDoesNotCompileIsReportedAtItsPageAndLine(@TempDir Path home) throws IOException {
    Files.createDirectories(home.resolve("docs"));
    Files.writeString(home.resolve("README.md"), String.join("\n", "# Example", "",
        "<!-- snippet: fragment (Vertx vertx) -->", "```java",
        "Rma.run(vertx, new JobOptions().setNp(4), (world, args) ->",
        "    Win.allocate(world, 8, 8, Info.NULL).compose(win -> win.free()));",
        "", "win.lockAll();", "```", ""));
    List<Unit> units = new ArrayList<>();
    for (Block b : DocBlocks.all(home)) {
      units.add(unit(b));
    }
    AssertionError e = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class, () -> compile(units));
    assertTrue(e.getMessage().contains("README.md:8: error: cannot find symbol"), e.getMessage());
    assertTrue(e.getMessage().contains("win.lockAll();"), "the line is quoted: " + e.getMessage());
  }

  // ------------------------------------------------------------------ compiling

  private static Unit unit(Block b) {
    String where = b.where().replaceAll("[^A-Za-z0-9]", "_");
    switch (b.kind()) {
      case WHOLE:
      case FILE: {
        Matcher t = TOP_TYPE.matcher(b.code());
        String simple = null;
        while (t.find()) {
          if (simple == null || t.group(1) != null) {
            simple = t.group(2);   // the public one names the file; else the first
          }
          if (t.group(1) != null) {
            break;
          }
        }
        if (simple == null) {
          throw new AssertionError(b.where() + ": a whole source file declares no class; mark a fragment "
              + "<!-- snippet: fragment (...) --> (see DocBlocks)");
        }
        Matcher p = PACKAGE.matcher(b.code());
        String name = p.find() ? p.group(1) + "." + simple : simple;
        return new Unit(b, name, b.code(), b.line(), 0);
      }
      case FRAGMENT:
      case MEMBERS: {
        StringBuilder header = new StringBuilder("package docsnippets;");
        for (String i : IMPORTS) {
          header.append(" import ").append(i).append(';');
        }
        String simple = "Block_" + where;
        header.append(" @SuppressWarnings(\"unused\") class ").append(simple).append(" {");
        if (b.kind() == DocBlocks.Kind.FRAGMENT) {
          header.append(" void fragment(").append(b.argument()).append(") throws Exception {");
        }
        header.append('\n');
        String tail = b.kind() == DocBlocks.Kind.FRAGMENT ? "}}\n" : "}\n";
        return new Unit(b, "docsnippets." + simple, header + b.code() + tail, b.line(), 1);
      }
      default:
        throw new IllegalArgumentException(b.where() + ": " + b.kind() + " is not compiled");
    }
  }

  /** One javac task for all units; fails with every error at its page and line. */
  private void compile(List<Unit> units) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertTrue(javac != null, "the test JVM has no Java compiler (a JRE?)");
    Map<JavaFileObject, Unit> sources = new LinkedHashMap<>();
    for (Unit u : units) {
      sources.put(new Source(u), u);
    }
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-d", classes.toString(),
        "--release", "17", "-proc:none", "-encoding", "UTF-8", "-nowarn");
    boolean ok = javac.getTask(null, null, diagnostics, options, null, sources.keySet()).call();
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() != Diagnostic.Kind.ERROR) {
        continue;
      }
      Unit u = sources.get(d.getSource());
      String where = u == null ? "(no block)" : u.where(d.getLineNumber());
      String line = u == null ? "" : sourceLine(u.source(), d.getLineNumber());
      errors.add(where + ": error: " + d.getMessage(Locale.ROOT) + (line.isEmpty() ? "" : "\n    " + line.strip()));
    }
    if (!ok || !errors.isEmpty()) {
      fail(errors.size() + " error(s) in the java blocks of README.md and docs/ (the marker before a block says "
          + "what it is: see dev.vertxrma.testing.DocBlocks):\n" + String.join("\n", errors));
    }
  }

  private static String sourceLine(String source, long n) {
    String[] lines = source.split("\n", -1);
    return n >= 1 && n <= lines.length ? lines[(int) n - 1] : "";
  }

  // ------------------------------------------------------------------ running

  /** Runs a documented program's main in a JVM of its own; the failure, or null. */
  private String runMain(Unit u) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!a.startsWith("-agentlib:jdwp") && !a.startsWith("-Xrunjdwp") && !a.startsWith("-javaagent")) {
        cmd.add(a);
      }
    }
    cmd.add(LaunchClassPath.JVM_FLAGS);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path") + File.pathSeparator + classes);
    cmd.add(u.className());
    Path log = classes.resolve(u.className() + ".log");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile())
        .directory(classes.toFile()).start();
    boolean ended = p.waitFor(RUN_SECONDS, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    if (!ended) {
      return u.block().where() + ": " + u.className() + " did not exit within " + RUN_SECONDS
          + " s (does it close its Vert.x?); its output:\n" + out;
    }
    if (p.exitValue() != 0) {
      return u.block().where() + ": " + u.className() + " exited with status " + p.exitValue() + "; its output:\n" + out;
    }
    return null;
  }

  /**
   * Runs a documented rank program that awaits its calls as a reader would,
   * {@code bin/rmarun --virtual-threads -np 4 -cp DIR NAME} (rmarun finds a JDK 21+ itself); the
   * failure, or null. Where this machine has no JDK 21+, it says so and does not fail: the
   * {@code virtual-threads} tests are skipped there the same way.
   */
  private String runOnVirtualThreads(Unit u) throws Exception {
    Process vt = new ProcessBuilder(HOME.resolve("bin/vt-jdk/bin/java").toString(), "--path").redirectErrorStream(true)
        .start();
    String found = new String(vt.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (vt.waitFor() != 0) {
      System.err.println(u.block().where() + ": " + u.className() + " NOT RUN: it awaits (virtual threads) and this "
          + "machine has no JDK 21+ (" + found + ")");
      return null;
    }
    try (Rmarun run = Rmarun.startWrapped(List.of("env", "JAVA=" + found), HOME.toFile(), "", "--virtual-threads",
        "-np", "4", "-cp", classes.toString(), u.className())) {
      int status = run.await(run.exit(), RUN_SECONDS, u.className() + "'s end");
      return status == 0 ? null : u.block().where() + ": bin/rmarun --virtual-threads -np 4 " + u.className()
          + " exited with status " + status + ":\n" + run.output();
    }
  }

  /** Runs a documented rank program as an embedded job of 4 ranks; the failure, or null. */
  private static String runProgram(Unit u, RankProgram program) {
    try {
      Rma.run(new JobOptions().setNp(4), program).toCompletionStage().toCompletableFuture()
          .get(RUN_SECONDS, TimeUnit.SECONDS);
      return null;
    } catch (Exception e) {
      return u.block().where() + ": the rank program " + u.className() + " failed as a job of 4 ranks: " + e;
    }
  }
}
