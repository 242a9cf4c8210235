package dev.vertxrma.junit;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.List;

/**
 * A value-checked RMA program for {@link RmaTest}s: under fence, every rank puts {@code 100 + rank}
 * at its right neighbour and adds 1 to rank 0's counter; each rank checks what it got, rank 0
 * checks the count. With the argument {@code leak} a second window, named {@code leaked}, is
 * never freed; with {@code fail} rank 1 fails with {@link ErrorClass#RMA_RANGE} after the first
 * fence.
 */
public class RingProgram implements RankProgram {

  /** The message of rank 1's failure in {@code fail} mode. */
  public static final String FAILURE = "rank 1 failed on purpose";

  /** One instance per rank. */
  public RingProgram() {
  }

  static void check(boolean ok, String what, Object expected, Object actual) {
    if (!ok) {
      throw new RmaException(ErrorClass.OTHER, "ring check failed: " + what + ": expected " + expected + ", got "
          + actual);
    }
  }

  @Override
  public Future<?> run(Comm world, List<String> args) {
    int r = world.rank();
    int n = world.size();
    Future<Win> leaked = args.contains("leak") ? Win.allocate(world, 8, 8, Info.NULL).map(w -> {
      w.setName("leaked");
      return w;
    }) : Future.succeededFuture();
    return leaked.compose(l -> Win.allocate(world, 16, 8, Info.NULL)).compose(win -> win.fence(Mode.NOPRECEDE)
        .compose(v -> {
          if (args.contains("fail") && r == 1) {
            throw new RmaException(ErrorClass.RMA_RANGE, FAILURE);
          }
          return win.put(Buf.of(new long[] {100 + r}), 0, 1, Datatype.LONG, (r + 1) % n, 0);
        })
        .compose(v -> win.accumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, 0, 1, Op.SUM))
        .compose(v -> win.fence(Mode.NOSUCCEED))
        .map(v -> {
          long left = 100 + (r + n - 1) % n;
          check(win.memory().readLong(0) == left, "value put by the left neighbour at rank " + r, left,
              win.memory().readLong(0));
          if (r == 0) {
            check(win.memory().readLong(8) == n, "count at rank 0", n, win.memory().readLong(8));
          }
          return null;
        })
        .compose(v -> win.free()));
  }
}
