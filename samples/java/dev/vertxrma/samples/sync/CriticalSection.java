package dev.vertxrma.samples.sync;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.samples.RankChecks;
import io.vertx.core.Future;

/**
 * The work the mutual-exclusion samples do inside their critical region, built so that a broken
 * lock shows: an occupancy count entered and left with fetch-and-op (must read 0 on entry, 1 on
 * exit), around a deliberately non-atomic increment of a shared counter (get, flush, put, flush),
 * which loses updates whenever two ranks are inside at once.
 */
final class CriticalSection {

  private CriticalSection() {
  }

  /**
   * Runs the critical region: occupancy at {@code (occupancyRank, occupancyDisp)}, the shared
   * counter at {@code (counterRank, counterDisp)}; failed checks go to {@code checks}.
   */
  static Future<Void> incrementShared(Win win, RankChecks checks, int occupancyRank, long occupancyDisp,
      int counterRank, long counterDisp) {
    long[] c = new long[1];
    return win.fetchAndOp(1, occupancyRank, occupancyDisp, Op.SUM)
        .compose(old -> {
          if (old != 0) {
            checks.fail("critical region: %d other rank(s) already inside when this rank entered", old);
          }
          return win.flush(occupancyRank);
        })
        .compose(v -> win.get(Buf.of(c), 0, 1, Datatype.LONG, counterRank, counterDisp))
        .compose(v -> win.flush(counterRank))
        .compose(v -> {
          c[0]++;
          return win.put(Buf.of(c), 0, 1, Datatype.LONG, counterRank, counterDisp);
        })
        .compose(v -> win.flush(counterRank))
        .compose(v -> win.fetchAndOp(-1, occupancyRank, occupancyDisp, Op.SUM))
        .compose(old -> {
          if (old != 1) {
            checks.fail("critical region: occupancy was %d when this rank left, expected 1", old);
          }
          return win.flush(occupancyRank);
        });
  }
}
