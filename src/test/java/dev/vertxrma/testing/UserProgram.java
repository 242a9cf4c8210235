package dev.vertxrma.testing;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * A user's own rank program, compiled by a test into a directory of its own (never on the test
 * class path), for {@code rmarun -cp DIR}: {@value #CLASS}. Every rank prints
 * {@code hello from rank R of N: VAR=VALUE conf=DIR args=[...]} (the environment variable
 * {@value #VARIABLE} and the configuration directory {@code -Drma.conf}, written in two pieces to
 * check that output lines are kept whole) and then meets the others in a barrier.
 */
public final class UserProgram {

  /** The program's class name. */
  public static final String CLASS = "cli.user.Hello";

  /** The environment variable every rank prints. */
  public static final String VARIABLE = "RMA_CLI_GREETING";

  private static final String SOURCE = """
      package cli.user;

      import dev.vertxrma.Comm;
      import dev.vertxrma.RankProgram;
      import io.vertx.core.Future;
      import java.util.List;

      public class Hello implements RankProgram {
        @Override
        public Future<?> run(Comm world, List<String> args) {
          System.out.print("hello from rank " + world.rank() + " of " + world.size() + ": ");
          System.out.println("%s=" + System.getenv("%s") + " conf=" + System.getProperty("rma.conf") + " args=" + args);
          return world.barrier();
        }
      }
      """.formatted(VARIABLE, VARIABLE);

  private UserProgram() {
  }

  /** Compiles the program into {@code dir} (the classes under it) against the test class path. */
  public static Path compile(Path dir) throws IOException {
    Path src = dir.resolve("src/cli/user/Hello.java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, SOURCE);
    Path classes = dir.resolve("classes");
    Files.createDirectories(classes);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "the tests need a JDK (javax.tools)");
    StringWriter diagnostics = new StringWriter();
    boolean ok = javac.getTask(diagnostics, null, null,
        List.of("-d", classes.toString(), "-cp", System.getProperty("java.class.path"), "--release", "17"), null,
        javac.getStandardFileManager(null, null, null).getJavaFileObjects(src.toFile())).call();
    assertTrue(ok, "cannot compile " + src + ":\n" + diagnostics);
    return classes;
  }

  /** The line rank {@code rank} of {@code np} prints with the variable {@code value} and the configuration {@code conf}. */
  public static String line(int rank, int np, String value, String conf, List<String> args) {
    return "hello from rank " + rank + " of " + np + ": " + VARIABLE + "=" + value + " conf=" + conf + " args=" + args;
  }
}
