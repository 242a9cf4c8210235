package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Rmarun;
import dev.vertxrma.win.ShmPressureProgram;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A job killed whole ({@code kill -9} of {@code bin/rmarun} and of every JVM, so nobody runs its
 * cleanup) while it sets up windows and communicators leaves window segments, barrier pages and a
 * shared window's file in the host's segment directory; none of them may be there any more once
 * the next job on the host has started (issue 41): every file names its creator (pid, start time,
 * PID namespace), and a starting JVM removes at once those whose creator is gone. Before, the
 * next job removed them only once they were a minute old, and never the shared window's, whose
 * name no sweep knew.
 */
@Tag("multijvm")
class KilledJobFilesTest {

  private static List<String> filesOf(String job) {
    try (Stream<Path> files = Files.list(SharedMapping.directory())) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.contains("-" + job + "-")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean holdsEveryKind(List<String> files) {
    return files.stream().filter(n -> n.startsWith(SharedMapping.BARRIER_PREFIX)).count() == 3
        && files.stream().anyMatch(n -> n.startsWith(SharedMapping.WINDOW_PREFIX))
        && files.stream().anyMatch(n -> n.startsWith(SharedMapping.SHARED_PREFIX));
  }

  @Test
  void aJobKilledWholeLeavesNoFileOnceTheNextJobHasStarted() throws Exception {
    String job = "killed-" + UUID.randomUUID().toString().substring(0, 8);
    try (Rmarun killed = Rmarun.start("-np", "4", "--jvms", "2", "--job", job, ShmPressureProgram.class.getName(),
        "hold")) {
      for (int r = 0; r < 4; r++) {
        killed.await(killed.line(ShmPressureProgram.PREFIX + r + " holds"), 120, "rank " + r + " holding");
      }
      Jobs.eventually(() -> holdsEveryKind(filesOf(job)), 30, "the job's files in the segment directory "
          + filesOf(job));
      List<ProcessHandle> jvms = killed.launcher().descendants().toList();
      // the launcher first, so that it cannot clean up after its JVMs
      killed.launcher().destroyForcibly();
      killed.launcher().onExit().join();
      for (ProcessHandle jvm : jvms) {
        jvm.destroyForcibly(); // SIGKILL
      }
      for (ProcessHandle jvm : jvms) {
        jvm.onExit().join();
      }
      // what the kill left (every kind, seen above while the job held them) may already be gone:
      // any job that starts on the host meanwhile sweeps the files of dead creators, and the other
      // test JVM starts jobs at any moment (a clean-clone run found none left, swept by
      // ConcurrentJobsTest's jobs); what must hold is that none is left once the next job runs
      String next = "next-" + UUID.randomUUID().toString().substring(0, 8);
      try (Rmarun run = Rmarun.start("-np", "2", "--jvms", "2", "--job", next, ShmPressureProgram.class.getName(),
          "windows", "1")) {
        run.await(run.line(ShmPressureProgram.PREFIX), 120, "the next job running");
        assertEquals(List.of(), filesOf(job), "files of the killed job once the next one runs\n" + run.output());
        assertEquals(0, run.await(run.exit(), 120, "the next job's end"), run.output());
      }
    }
  }
}
