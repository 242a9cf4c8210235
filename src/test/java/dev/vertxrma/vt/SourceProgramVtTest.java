package dev.vertxrma.vt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.Rmarun;
import dev.vertxrma.testing.VirtualThreadsAvailable;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A source-file program in MPI's blocking style, {@code bin/rmarun --virtual-threads Ring.java},
 * embedded and over two JVMs: every call awaited on the rank's virtual thread, the values checked.
 * Java 21+.
 */
@Tag("vt")
@Tag("multijvm")
class SourceProgramVtTest {

  /** Each rank puts its value into the next rank's window in a fence epoch and checks what it received. */
  private static final String RING = """
      import dev.vertxrma.*;
      import io.vertx.core.Future;
      import java.util.List;

      public class Ring implements RankProgram {
        @Override
        public Future<?> run(Comm world, List<String> args) {
          int rank = world.rank();
          int size = world.size();
          long[] received = new long[1];
          Win win = Win.allocate(world, Long.BYTES, Long.BYTES, Info.NULL).await();
          win.fence(Mode.NOPRECEDE).await();
          win.put(Buf.of(new long[] {7L * rank + 1}), 0, 1, Datatype.LONG, (rank + 1) % size, 0).await();
          win.fence().await();
          win.get(Buf.of(received), 0, 1, Datatype.LONG, rank, 0).await();
          win.fence(Mode.NOSUCCEED).await();
          win.free().await();
          long want = 7L * ((rank + size - 1) % size) + 1;
          if (received[0] != want) {
            throw new RmaException(ErrorClass.OTHER, "rank " + rank + " received " + received[0] + ", expected " + want);
          }
          System.out.println("ring rank " + rank + " on " + (Thread.currentThread().isVirtual() ? "a virtual thread" : "?")
              + ": verified " + received[0]);
          return Future.succeededFuture();
        }
      }
      """;

  @TempDir
  Path tmp;

  @BeforeAll
  static void needsJava21() {
    VirtualThreadsAvailable.assume(SourceProgramVtTest.class);
  }

  @ParameterizedTest(name = "--jvms {0}")
  @ValueSource(ints = {1, 2})
  void aBlockingStyleSourceFileRunsOnVirtualThreads(int jvms) throws Exception {
    Files.writeString(tmp.resolve("Ring.java"), RING);
    try (Rmarun run = Rmarun.startIn(tmp.toFile(), "", "-np", "4", "--jvms", String.valueOf(jvms), "--virtual-threads",
        "Ring.java")) {
      int status = run.await(run.exit(), 180, "Ring.java's exit");
      String out = run.output();
      assertEquals(0, status, out);
      for (int r = 0; r < 4; r++) {
        String line = "out| ring rank " + r + " on a virtual thread: verified " + (7 * ((r + 3) % 4) + 1) + "\n";
        assertTrue(out.contains(line), line + out);
      }
    }
  }
}
