package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.Rmarun;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Source-file programs, {@code bin/rmarun -np 4 Hello.java}: the docs' example
 * ({@code samples/source/Hello.java}), a {@code RankProgram} and a
 * {@code WorldProgram} (in a package) written to a temporary directory, compiled in memory and run
 * embedded and over two JVMs, each checking the values of its RMA operations; a compile error is
 * printed as javac prints it (compared with javac's own output) with exit status 2 and no JVM
 * started; a file whose first class is no program, and a Java without a compiler, are refused with
 * one line and status 2.
 */
@Tag("multijvm")
class SourceProgramTest {

  private static final long WAIT_SECONDS = 180;

  /** A RankProgram with a helper class after it: a put to the next rank in a fence epoch, read back with a get. */
  private static final String HELLO = """
      import dev.vertxrma.*;
      import io.vertx.core.Future;
      import java.util.List;

      public class Hello implements RankProgram {
        @Override
        public Future<?> run(Comm world, List<String> args) {
          int rank = world.rank();
          int size = world.size();
          long[] got = new long[1];
          return Win.allocate(world, Long.BYTES, Long.BYTES, Info.NULL).compose(win ->
              win.fence(Mode.NOPRECEDE)
                  .compose(v -> win.put(Buf.of(new long[] {Values.of(rank)}), 0, 1, Datatype.LONG, (rank + 1) % size, 0))
                  .compose(v -> win.fence())
                  .compose(v -> win.get(Buf.of(got), 0, 1, Datatype.LONG, rank, 0))
                  .compose(v -> win.fence(Mode.NOSUCCEED))
                  .compose(v -> win.free()))
              .compose(v -> {
                long want = Values.of((rank + size - 1) % size);
                if (got[0] != want) {
                  return Future.failedFuture(new RmaException(ErrorClass.OTHER, "rank " + rank + " read " + got[0]
                      + ", expected " + want));
                }
                System.out.println("hello from rank " + rank + " of " + size + " " + args + ": verified " + got[0]);
                return Future.succeededFuture();
              });
        }
      }

      final class Values {
        static long of(int rank) {
          return 1000L + rank;
        }
      }
      """;

  /**
   * A WorldProgram in a package: every rank adds rank + 1 to rank 0's counter with fetchAndOp;
   * rank 0 checks the sum. Its raw list draws javac's warning at line 13.
   */
  private static final String TALLY = """
      package demo.tally;

      import dev.vertxrma.*;
      import io.vertx.core.Future;
      import io.vertx.core.Vertx;
      import java.util.ArrayList;
      import java.util.List;

      public class Tally implements WorldProgram {
        @Override
        public Future<?> run(Vertx vertx, World world, List<String> args) {
          List names = new ArrayList();
          names.add(world.jobName());
          List<Future<?>> ranks = new ArrayList<>();
          for (int r : world.localRanks()) {
            ranks.add(rank(world.rank(r)));
          }
          return Future.all(ranks);
        }

        private static Future<?> rank(Comm comm) {
          int rank = comm.rank();
          int size = comm.size();
          long[] total = new long[1];
          return Win.allocate(comm, rank == 0 ? Long.BYTES : 0, Long.BYTES, Info.NULL).compose(win ->
              win.lockAll()
                  .compose(v -> win.fetchAndOp(rank + 1L, 0, 0, Op.SUM))
                  .compose(old -> win.unlockAll())
                  .compose(v -> comm.barrier())
                  .compose(v -> rank != 0 ? Future.succeededFuture() : win.lock(LockType.SHARED, 0)
                      .compose(x -> win.get(Buf.of(total), 0, 1, Datatype.LONG, 0, 0))
                      .compose(x -> win.unlock(0)))
                  .compose(v -> win.free()))
              .compose(v -> {
                long want = (long) size * (size + 1) / 2;
                if (rank == 0 && total[0] != want) {
                  return Future.failedFuture(new RmaException(ErrorClass.OTHER, "the tally is " + total[0]
                      + ", expected " + want));
                }
                if (rank == 0) {
                  System.out.println("tally of " + size + " ranks: verified " + total[0]);
                }
                return Future.succeededFuture();
              });
        }
      }
      """;

  /** Line 9 calls fence with an int. */
  private static final String BROKEN = """
      import dev.vertxrma.*;
      import io.vertx.core.Future;
      import java.util.List;

      public class Broken implements RankProgram {
        @Override
        public Future<?> run(Comm world, List<String> args) {
          return Win.allocate(world, 8, 8, Info.NULL)
              .compose(win -> win.fence(42));
        }
      }
      """;

  /** The first class of the file is not a program (the second one is). */
  private static final String HELPER_FIRST = """
      import dev.vertxrma.*;
      import io.vertx.core.Future;
      import java.util.List;

      class Helper {
      }

      public class HelperFirst implements RankProgram {
        @Override
        public Future<?> run(Comm world, List<String> args) {
          return Future.succeededFuture();
        }
      }
      """;

  @TempDir
  Path tmp;

  private Rmarun rmarun(String javaOpts, String... args) throws Exception {
    return Rmarun.startIn(tmp.toFile(), javaOpts, args);
  }

  private static int exit(Rmarun run, String what) {
    return run.await(run.exit(), WAIT_SECONDS, what + "'s exit");
  }

  @ParameterizedTest(name = "--jvms {0}")
  @ValueSource(ints = {1, 2})
  void aRankProgramInASourceFileRuns(int jvms) throws Exception {
    Files.writeString(tmp.resolve("Hello.java"), HELLO);
    List<String> args = new ArrayList<>(List.of("-np", "4"));
    if (jvms > 1) {
      args.addAll(List.of("--jvms", String.valueOf(jvms), "--tag-output"));
    }
    args.addAll(List.of("Hello.java", "a", "--b"));
    try (Rmarun run = rmarun("", args.toArray(new String[0]))) {
      int status = exit(run, "Hello.java");
      String out = run.output();
      assertEquals(0, status, out);
      for (int r = 0; r < 4; r++) {
        String line = (jvms > 1 ? "[" + r + "] " : "") + "hello from rank " + r + " of 4 [a, --b]: verified "
            + (1000 + (r + 3) % 4);
        assertTrue(out.contains("out| " + line + "\n"), line + "\n" + out);
      }
    }
  }

  /** The example of the docs, {@code samples/source/Hello.java}, as they run it. */
  @Test
  void theSampleSourceFileRuns() throws Exception {
    try (Rmarun run = Rmarun.start("-np", "4", "samples/source/Hello.java")) {
      int status = exit(run, "samples/source/Hello.java");
      String out = run.output();
      assertEquals(0, status, out);
      for (int r = 0; r < 4; r++) {
        String line = "out| hello from rank " + r + " of 4: verified rank " + (r + 3) % 4 + "'s put\n";
        assertTrue(out.contains(line), line + out);
      }
    }
  }

  /** Embedded, over two JVMs, and embedded in a JVM of its own ({@code -x}): javac's warning printed once each time. */
  @ParameterizedTest(name = "rmarun -np 4 {0}")
  @ValueSource(strings = {"--jvms 1", "--jvms 2", "-x TALLY=1"})
  void aWorldProgramInASourceFileRuns(String options) throws Exception {
    Files.createDirectories(tmp.resolve("src"));
    Files.writeString(tmp.resolve("src/Tally.java"), TALLY);
    List<String> args = new ArrayList<>(List.of("-np", "4"));
    args.addAll(List.of(options.split(" ")));
    args.add("src/Tally.java");
    try (Rmarun run = rmarun("", args.toArray(new String[0]))) {
      int status = exit(run, "Tally.java");
      String out = run.output();
      assertEquals(0, status, out);
      assertTrue(out.contains("out| tally of 4 ranks: verified 10\n"), out);
      // javac's warnings, from the launcher alone (its JVMs compile the same file)
      assertTrue(out.contains("err| src/Tally.java:13: warning: [unchecked] unchecked call to add(E) as a member of the "
          + "raw type List\n"), out);
      assertEquals(1, out.lines().filter(l -> l.contains("Tally.java:13: warning: ")).count(), out);
    }
  }

  /**
   * A compile error: javac's own messages (the same text as the {@code javac} command prints for
   * the file), then rmarun's line, status 2; over two JVMs none started, and over hosts the
   * launch command never ran.
   */
  @Test
  void aCompileErrorIsPrintedAsJavacPrintsItAndNoRankStarts() throws Exception {
    Files.writeString(tmp.resolve("Broken.java"), BROKEN);
    String javac = javac("Broken.java");
    assertTrue(javac.startsWith("Broken.java:9: error: "), javac);
    assertTrue(javac.contains("\n        .compose(win -> win.fence(42));\n"), javac);
    try (Rmarun run = rmarun("", "-np", "4", "--jvms", "2", "Broken.java")) {
      int status = exit(run, "Broken.java");
      String out = run.output();
      assertEquals(2, status, out);
      String expected = (javac + "rmarun: Broken.java does not compile; no rank started\n").lines()
          .map(l -> "err| " + l + "\n").reduce("", String::concat);
      assertEquals(expected, out);
    }
    // a launch command that leaves a file behind for each host it starts a JVM on
    try (Rmarun run = rmarun("", "-np", "4", "--host", "127.0.0.1,127.0.0.1", "--launch",
        "touch " + tmp.resolve("launched-") + "{host} # {command}", "Broken.java")) {
      int status = exit(run, "Broken.java over hosts");
      String out = run.output();
      assertEquals(2, status, out);
      assertTrue(out.contains("err| Broken.java:9: error: "), out);
      assertFalse(Files.exists(tmp.resolve("launched-127.0.0.1")), "no JVM launched\n" + out);
    }
  }

  /** What the {@code javac} command prints compiling {@code file} in the temporary directory against the test class path. */
  private String javac(String file) throws Exception {
    File err = tmp.resolve("javac.err").toFile();
    Process p = new ProcessBuilder(System.getProperty("java.home") + "/bin/javac", "-proc:none", "-d",
        tmp.resolve("javac-out").toString(), "-cp", System.getProperty("java.class.path"), file)
        .directory(tmp.toFile()).redirectErrorStream(true).redirectOutput(err).start();
    assertTrue(p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS), "javac did not finish");
    assertEquals(1, p.exitValue(), "javac fails on " + file);
    return Files.readString(err.toPath(), StandardCharsets.UTF_8);
  }

  /** A file whose first class is no program, one whose class rmarun's class path has too, a missing file. */
  @Test
  void aFileWhoseFirstClassIsNoProgramIsRefused() throws Exception {
    Files.writeString(tmp.resolve("HelperFirst.java"), HELPER_FIRST);
    try (Rmarun run = rmarun("", "-np", "2", "--jvms", "2", "HelperFirst.java")) {
      int status = exit(run, "HelperFirst.java");
      assertEquals(2, status, run.output());
      assertEquals("err| rmarun: Helper (the first class of HelperFirst.java) is not a program: it implements neither "
          + "dev.vertxrma.RankProgram nor dev.vertxrma.WorldProgram (see rmarun --help)\n", run.output());
    }
    // a class of the file that rmarun's class path has too would be the one loaded: refused
    Files.writeString(tmp.resolve("Twisted.java"), "package dev.vertxrma.samples.standard;\n" + HELLO.replace("Hello", "Twisted"));
    try (Rmarun run = rmarun("", "-np", "2", "Twisted.java")) {
      assertEquals(2, exit(run, "Twisted.java"), run.output());
      assertEquals("err| rmarun: dev.vertxrma.samples.standard.Twisted (the first class of Twisted.java) is also a class of "
          + "rmarun's class path or -cp, which would run instead: rename it (see rmarun --help)\n", run.output());
    }
    try (Rmarun run = rmarun("", "-np", "2", "Missing.java")) {
      assertEquals(2, exit(run, "Missing.java"), run.output());
      assertEquals("err| rmarun: Missing.java: no such file (a source-file program is a .java file) "
          + "(see rmarun --help)\n", run.output());
    }
  }

  /** A Java without the compiler module (as a JRE is: here the JDK with its modules limited). */
  @Test
  void withoutACompilerTheFileIsRefusedSayingSo() throws Exception {
    Files.writeString(tmp.resolve("Hello.java"), HELLO);
    try (Rmarun run = rmarun("--limit-modules java.se,jdk.unsupported,jdk.management", "-np", "2", "Hello.java")) {
      int status = exit(run, "Hello.java without a compiler");
      String out = run.output();
      assertEquals(2, status, out);
      assertTrue(out.contains("err| rmarun: Hello.java: running a source file needs a JDK, and the Java running rmarun ("),
          out);
      assertTrue(out.contains("has no Java compiler (module jdk.compiler): run rmarun with a JDK's java"), out);
      assertFalse(out.contains("verified") || out.contains("Exception") || out.contains("\tat "), out);
    }
  }
}
