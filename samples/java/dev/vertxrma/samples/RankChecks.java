package dev.vertxrma.samples;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The checks that failed on one rank, and the job's verdict over every rank's: a failed check is
 * recorded and the sample goes on, so that at the end every rank can learn what went wrong
 * everywhere (whichever rank's error the launcher reports then names the wrong value).
 */
public final class RankChecks {

  /** Bytes per rank of the failure report exchanged when a check failed (longer reports are cut). */
  private static final int REPORT_BYTES = 512;

  private final int rank;
  private final List<String> failures = new ArrayList<>();

  /** No failed check yet on rank {@code rank}. */
  public RankChecks(int rank) {
    this.rank = rank;
  }

  /** Records a failed check: {@code "rank R: "} and the formatted message. */
  public void fail(String format, Object... args) {
    failures.add("rank " + rank + ": " + String.format(format, args));
  }

  /**
   * Collective over {@code world}: succeeds if no check failed on any rank; otherwise every rank
   * learns every rank's first failure and fails with an {@link ErrorClass#OTHER} exception naming
   * them all: {@code "<sample>: N check(s) failed; K failed, first: rank R: ..."}.
   */
  public Future<Void> verdict(Comm world, String sample) {
    return world.allreduce((long) failures.size(), Op.SUM)
        .compose(total -> total == 0 ? Future.succeededFuture() : gatherFailures(world, sample, total));
  }

  private Future<Void> gatherFailures(Comm world, String sample, long total) {
    String mine = failures.isEmpty() ? "" : failures.size() + " failed, first: " + failures.get(0);
    byte[] text = Arrays.copyOf(mine.getBytes(StandardCharsets.UTF_8), REPORT_BYTES);
    byte[] all = new byte[REPORT_BYTES * world.size()];
    return world.allgather(Buf.of(text), 0, REPORT_BYTES, Datatype.BYTE, Buf.of(all), 0, REPORT_BYTES, Datatype.BYTE)
        .compose(v -> {
          StringBuilder sb = new StringBuilder(sample + ": " + total + " check(s) failed");
          for (int r = 0; r < world.size(); r++) {
            int end = r * REPORT_BYTES;
            while (end < (r + 1) * REPORT_BYTES && all[end] != 0) {
              end++;
            }
            if (end > r * REPORT_BYTES) {
              sb.append("; ").append(new String(all, r * REPORT_BYTES, end - r * REPORT_BYTES,
                  StandardCharsets.UTF_8));
            }
          }
          return Future.failedFuture(new RmaException(ErrorClass.OTHER, sb.toString()));
        });
  }
}
