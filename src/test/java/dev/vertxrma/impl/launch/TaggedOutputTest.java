package dev.vertxrma.impl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The output {@code rmarun} installs in a JVM that runs ranks: two threads that print one line
 * each in two pieces, with the other's whole line in between, still give two whole lines, tagged
 * or not; an unfinished line is written when the output is uninstalled.
 */
class TaggedOutputTest {

  @Test
  void linesOfTwoThreadsNeverMixUntagged() throws Exception {
    assertEquals("b1 b2\na1 a2\nleft\n", interleave(false));
  }

  @Test
  void linesOfTwoThreadsNeverMixTagged() throws Exception {
    assertEquals("[jvm 0] b1 b2\n[jvm 0] a1 a2\n[jvm 0] left\n", interleave(true));
  }

  /**
   * Thread A prints "a1 ", then thread B prints its whole line, then A ends its line and starts
   * one it never ends; returns what reached the original standard output.
   */
  private static String interleave(boolean tagged) throws Exception {
    PrintStream saved = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      TaggedOutput.Installed t = TaggedOutput.install("no-such-job", "[jvm 0] ", tagged);
      try {
        CompletableFuture<Void> firstPiece = new CompletableFuture<>();
        CompletableFuture<Void> otherLine = new CompletableFuture<>();
        Thread a = new Thread(() -> {
          System.out.print("a1 ");
          firstPiece.complete(null);
          otherLine.join();
          System.out.println("a2");
          System.out.print("left");
        });
        Thread b = new Thread(() -> {
          firstPiece.join();
          System.out.print("b1 ");
          System.out.println("b2");
          otherLine.complete(null);
        });
        a.start();
        b.start();
        a.join(TimeUnit.SECONDS.toMillis(30));
        b.join(TimeUnit.SECONDS.toMillis(30));
        assertTrue(!a.isAlive() && !b.isAlive(), "the printing threads ended");
      } finally {
        TaggedOutput.uninstall(t);
      }
    } finally {
      System.setOut(saved);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }
}
