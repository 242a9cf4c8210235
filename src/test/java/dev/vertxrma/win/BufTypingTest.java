package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Buffers are typed at compile time: code passing a buffer the library cannot address (a boxed
 * {@code Long[]}, a {@code List}, a bare array without {@code Buf.of}) does not compile, while every
 * supported kind does. Compiled with the JDK's compiler against the test's own class path.
 */
class BufTypingTest {

  @TempDir
  Path out;

  private static final String HEADER = "import dev.vertxrma.*; import io.vertx.core.Future;"
      + " import java.nio.ByteBuffer; import net.openhft.chronicle.bytes.BytesStore;"
      + " class Snippet { Future<?> f(Win win, Comm comm) { ";

  private List<String> compile(String body) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    String src = HEADER + body + " } }";
    JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///Snippet.java"), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return src;
      }
    };
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-d", out.toString(),
        "-proc:none", "--release", "17");
    boolean ok = javac.getTask(new StringWriter(), null, diagnostics, options, null, List.of(file)).call();
    List<String> errors = diagnostics.getDiagnostics().stream()
        .filter(d -> d.getKind() == javax.tools.Diagnostic.Kind.ERROR)
        .map(d -> d.getMessage(null))
        .toList();
    assertEquals(ok, errors.isEmpty(), "javac result and diagnostics disagree: " + errors);
    return errors;
  }

  @Test
  void everySupportedKindCompiles() {
    List<String> errors = compile(
        "win.put(Buf.of(new long[1]), 0, 1, Datatype.LONG, 1, 0);"
        + " win.get(Buf.of(new double[1]), 0, 1, Datatype.DOUBLE, 1, 0);"
        + " win.fetchAndOp(Buf.of(new int[1]), 0, Buf.of(new int[1]), 0, Datatype.INT, 1, 0, Op.SUM);"
        + " win.put(Buf.of(io.vertx.core.buffer.Buffer.buffer(8)), 0, 1, Datatype.LONG, 1, 0);"
        + " win.put(Buf.of(ByteBuffer.allocateDirect(8)), 0, 1, Datatype.LONG, 1, 0);"
        + " win.put(Buf.of((BytesStore<?, ?>) BytesStore.wrap(new byte[8])), 0, 1, Datatype.LONG, 1, 0);"
        + " win.put(null, 0, 0, Datatype.LONG, 1, 0);"
        + " return comm.send(Buf.of(new char[2]), 0, 2, Datatype.CHAR, 1, 0);");
    assertEquals(List.of(), errors);
  }

  @Test
  void boxedArraysListsAndBareArraysDoNotCompile() {
    for (String misuse : List.of(
        "return win.put(Buf.of(new Long[1]), 0, 1, Datatype.LONG, 1, 0);",
        "return win.put(Buf.of(java.util.List.of(1L)), 0, 1, Datatype.LONG, 1, 0);",
        "return win.put(new long[1], 0, 1, Datatype.LONG, 1, 0);",
        "Object o = new long[1]; return win.get(o, 0, 1, Datatype.LONG, 1, 0);",
        "return comm.send(new Integer[1], 0, 1, Datatype.INT, 1, 0);",
        "return win.compareAndSwap(Buf.of(new long[1]), 0, new long[1], 0, Buf.of(new long[1]), 0,"
            + " Datatype.LONG, 1, 0);")) {
      List<String> errors = compile(misuse);
      assertTrue(!errors.isEmpty(), "compiled, but must not: " + misuse);
    }
  }
}
