package dev.vertxrma.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.samples.standard.LinkedList;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code JobOptions.setTraceFile}: a traced job writes one self-contained HTML timeline before its
 * future completes, embedded (one JVM renders it) and clustered (each Vert.x node writes its part,
 * the last one renders all of them); the page's totals are exactly what the ranks did.
 */
class TraceTest {

  @TempDir
  Path tmp;

  static String read(Path f) throws IOException {
    return Files.readString(f, StandardCharsets.UTF_8);
  }

  static int count(String html, String needle) {
    int n = 0;
    for (int i = html.indexOf(needle); i >= 0; i = html.indexOf(needle, i + needle.length())) {
      n++;
    }
    return n;
  }

  /**
   * The totals row of rank {@code r}: put, get, accumulate, get_accumulate, cas, fetch_and_op,
   * bytes, epochs, lock waits, lock ms, flushes, errors, dropped.
   */
  static List<String> totals(String html, int r) {
    Matcher m = Pattern.compile("<tr><td>" + r + "</td>((?:<td>[^<]*</td>)+)</tr>").matcher(html);
    assertTrue(m.find(), "totals row of rank " + r);
    return Stream.of(m.group(1).replace("</td>", "").split("<td>")).filter(s -> !s.isEmpty()).toList();
  }

  @Test
  void offByDefault() {
    assertNull(new JobOptions().getTraceFile(), "not traced unless asked (-Drma.trace is not set in the tests)");
    assertNull(new JobOptions().setTraceFile("").getTraceFile());
    assertEquals("t.html", new JobOptions(new JobOptions().setTraceFile("t.html")).getTraceFile(), "copied");
  }

  /**
   * Rank 0: fence epoch with 3 puts (8 B each) and 2 gets to rank 1; an exclusive lock epoch on
   * rank 1 with 1 accumulate of 2 longs, a flush, and a failing put (outside any epoch). Rank 1:
   * the fences only, and a fetchAndOp under lockAll.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void theTimelineCountsExactlyWhatTheRanksDid(Jobs.Mode mode) throws IOException {
    Path file = tmp.resolve("sub").resolve("trace-" + mode + ".html");
    JobOptions options = Jobs.options(2).setTraceFile(file.toString());
    Jobs.await(Jobs.start(mode, options, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      long[] buf = new long[4];
      Future<Void> f = win.fence(Mode.NOPRECEDE);
      if (world.rank() == 0) {
        f = f.compose(v -> win.put(Buf.of(buf), 0, 1, Datatype.LONG, 1, 0))
            .compose(v -> win.put(Buf.of(buf), 1, 1, Datatype.LONG, 1, 1))
            .compose(v -> win.put(Buf.of(buf), 2, 1, Datatype.LONG, 1, 2))
            .compose(v -> win.get(Buf.of(buf), 0, 1, Datatype.LONG, 1, 3))
            .compose(v -> win.get(Buf.of(buf), 1, 1, Datatype.LONG, 1, 4));
      }
      f = f.compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> world.barrier());
      if (world.rank() == 0) {
        f = f.compose(v -> win.put(Buf.of(buf), 0, 1, Datatype.LONG, 1, 0).transform(ar -> {
          RmaException e = (RmaException) ar.cause();
          assertEquals(ErrorClass.RMA_SYNC, e.errorClass(), "outside an epoch");
          return Future.<Void>succeededFuture();
        })).compose(v -> win.lock(LockType.EXCLUSIVE, 1))
            .compose(v -> win.accumulate(Buf.of(buf), 0, 2, Datatype.LONG, 1, 0, Op.SUM))
            .compose(v -> win.flush(1))
            .compose(v -> win.unlock(1));
      } else {
        f = f.compose(v -> win.lockAll()).compose(v -> win.fetchAndOp(1, 0, 0, Op.SUM)).compose(v -> win.unlockAll());
      }
      return f.compose(v -> world.barrier()).compose(v -> win.free());
    })), 120);

    assertTrue(Files.isRegularFile(file), "written before the job's future completed: " + file);
    try (Stream<Path> left = Files.list(file.getParent())) {
      assertEquals(List.of(file.getFileName().toString()), left.map(p -> p.getFileName().toString()).toList(),
          "no part, lock or temporary file left next to it");
    }
    String html = read(file);
    assertTrue(html.startsWith("<!DOCTYPE html>") && html.contains("<svg id=\"tl\""), "an HTML page with an SVG");
    assertFalse(Pattern.compile("(src|href)=\"(https?:)?//").matcher(html).find(), "no external resource");
    assertTrue(html.contains(">rank 0<") && html.contains(">rank 1<"), "a lane per rank");
    assertFalse(html.contains("no trace from ranks"), "every rank traced");
    // put get acc get_acc cas fetch_and_op bytes epochs lockwaits lockms flushes errors dropped
    List<String> r0 = totals(html, 0);
    assertEquals(List.of("3", "2", "1", "0", "0", "0", "56"), r0.subList(0, 7), "rank 0: ops by kind and bytes " + r0);
    assertEquals("2", r0.get(7), "rank 0: epochs: the fence epoch and the lock epoch " + r0);
    assertEquals("1", r0.get(8), "rank 0: one lock wait");
    assertEquals("1", r0.get(10), "rank 0: one flush");
    assertEquals("1", r0.get(11), "rank 0: one failed call (RMA_SYNC)");
    List<String> r1 = totals(html, 1);
    // a fetchAndOp is counted as MPI_Fetch_and_op, not as the get-accumulate it travels as
    assertEquals(List.of("0", "0", "0", "0", "0", "1", "8"), r1.subList(0, 7), "rank 1: one fetch-and-op " + r1);
    assertEquals("2", r1.get(7), "rank 1: the fence epoch and lockAll");
    assertEquals("0", r1.get(11), "rank 1: no error");
    assertEquals(7, count(html, "class=\"op"), "an arrow per operation");
    assertTrue(html.contains("failed with RMA_SYNC"), "the failed call is marked");
    assertTrue(html.contains("lock epoch (exclusive) on rank 1") && html.contains("lock_all epoch")
        && html.contains("fence epoch"), "the epochs as bars");
    assertTrue(html.contains("class=\"lockwait"), "lock waits shaded");
    if (mode == Jobs.Mode.CLUSTERED) {
      assertTrue(Pattern.compile("jvm \\d+").matcher(html).find(), "where each rank ran");
    }
  }

  /**
   * A window on a communicator that reverses the ranks: its calls name targets in the
   * communicator's ranks, the timeline shows job ranks (lanes).
   */
  @Test
  void aWindowOnASplitCommunicatorIsDrawnInJobRanks() throws IOException {
    Path file = tmp.resolve("split.html");
    Jobs.await(Jobs.start(Jobs.Mode.EMBEDDED, Jobs.options(3).setTraceFile(file.toString()), (world, args) ->
        world.split(0, -world.rank()).compose(c -> Win.allocate(c.get(), 8, 8, Info.NULL)).compose(win -> {
          Future<Void> f = win.lockAll();
          if (world.rank() == 0) { // communicator rank 2: puts to communicator rank 0, job rank 2
            f = f.compose(v -> win.put(Buf.of(new long[1]), 0, 1, Datatype.LONG, 0, 0)).compose(v -> win.flush(0));
          }
          return f.compose(v -> win.unlockAll()).compose(v -> win.free());
        })), 120);
    String html = read(file);
    assertTrue(html.contains("rank 0 \u2192 2: put"), "the arrow goes from lane 0 to lane 2");
    assertTrue(html.contains("flush of rank 2"), "the flush names the job rank");
    assertEquals(List.of("1", "0", "0", "0", "0", "0", "8"), totals(html, 0).subList(0, 7));
  }

  @Test
  void theLinkedListSampleOnFourRanks() throws IOException {
    Path file = tmp.resolve("linked-list.html");
    Jobs.await(Jobs.start(Jobs.Mode.EMBEDDED, Jobs.options(4).setTraceFile(file.toString()),
        (world, args) -> new LinkedList().run(world, args)), 120); // one instance per rank
    String html = read(file);
    for (int r = 0; r < 4; r++) {
      List<String> t = totals(html, r);
      assertTrue(Long.parseLong(t.get(4)) >= 10, "rank " + r + " appended 10 elements with compare-and-swap: " + t);
      assertEquals("0", t.get(11), "no error at rank " + r);
      assertEquals("0", t.get(12), "nothing dropped at rank " + r);
    }
    assertTrue(count(html, "class=\"op") > 100, "the operations as arrows");
    assertTrue(html.contains("lock_all epoch") && html.contains("class=\"flushwait"), "lockAll epochs, flushes");
  }
}
