package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.Jobs;
import io.vertx.core.internal.ContextInternal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Removing a shared window's segment file (issue 27, item 5.10): a file that goes is removed
 * without a word; one that cannot be removed is logged at WARNING and tried again, then logged at
 * ERROR naming the file, and the removal's future still completes (the window works: every rank
 * mapped the file). Nothing is silently ignored, and the removal runs on a worker.
 */
class SegmentFileRemovalTest {

  @TempDir
  Path dir;

  private final List<LogRecord> records = new ArrayList<>();
  private final Logger logger = Logger.getLogger(SharedWindows.class.getName());
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord r) {
      synchronized (records) {
        records.add(r);
      }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
  };

  @BeforeEach
  void listen() {
    logger.addHandler(capture);
  }

  @AfterEach
  void stopListening() {
    logger.removeHandler(capture);
  }

  private static ContextInternal context() {
    return (ContextInternal) Jobs.embedded().getOrCreateContext();
  }

  private List<LogRecord> records(Level level) {
    synchronized (records) {
      return records.stream().filter(r -> r.getLevel().equals(level)).toList();
    }
  }

  @Test
  void aFileThatCanGoIsRemovedWithoutAWord() throws IOException {
    Path file = Files.write(dir.resolve("vertx-rma-segment"), new byte[64]);
    Jobs.await(SharedWindows.removeFile(context(), file), 30);
    assertFalse(Files.exists(file), file + " removed");
    synchronized (records) {
      assertTrue(records.isEmpty(), "nothing logged: " + records.stream().map(LogRecord::getMessage).toList());
    }
  }

  @Test
  void aFileThatCannotBeRemovedIsRetriedThenReportedAsAnError() throws IOException {
    // a directory that is not empty: deleting it fails with an I/O error, whoever runs the test
    Path stuck = Files.createDirectory(dir.resolve("vertx-rma-stuck"));
    Files.write(stuck.resolve("inside"), new byte[1]);
    Jobs.await(SharedWindows.removeFile(context(), stuck), 30);
    assertTrue(Files.exists(stuck), "the path could not be removed");
    int attempts = SharedWindows.UNLINK_RETRY_MS.length + 1;
    List<LogRecord> warnings = records(Level.WARNING);
    assertEquals(attempts - 1, warnings.size(), "one warning per failed attempt that is tried again");
    for (int k = 0; k < warnings.size(); k++) {
      String m = warnings.get(k).getMessage();
      assertTrue(m.contains(stuck.toString()) && m.contains("attempt " + (k + 1) + " of " + attempts)
          && m.contains("DirectoryNotEmptyException"), m);
    }
    List<LogRecord> errors = records(Level.SEVERE);
    assertEquals(1, errors.size(), "one error once the attempts are used up");
    String m = errors.get(0).getMessage();
    assertTrue(m.contains(stuck.toString()) && m.contains("after " + attempts + " attempts"), m);
    assertTrue(errors.get(0).getThrown() instanceof java.nio.file.DirectoryNotEmptyException,
        "the I/O error goes with it: " + errors.get(0).getThrown());
  }
}
