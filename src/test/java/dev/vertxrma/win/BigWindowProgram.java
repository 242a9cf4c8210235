package dev.vertxrma.win;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.Arrays;
import java.util.List;

/**
 * One big window (issue 27): the last rank allocates {@code size} bytes (the first program
 * argument, or the constructor's), every other rank 8. The allocation must complete on the rank's
 * event loop, the big window must read zero at its first, middle and last bytes (and every 64 MiB),
 * and rank 0 must read zeroes from its far end, write three longs there (first, middle, last 8
 * bytes) and read them back through RMA; the owner then finds them in its memory. Rank 0 prints
 * {@value #VERIFIED} once the window is freed. Run by {@link LargeWindowTest} (embedded, on two
 * clustered nodes) and, through {@code bin/rmarun}, over two JVMs.
 */
public class BigWindowProgram implements RankProgram {

  /** The line rank 0 prints once every check passed. */
  public static final String VERIFIED = "bigwindow: verified";

  private final long givenSize;

  /** Needed by rmarun: the size comes from the first program argument. */
  public BigWindowProgram() {
    this(-1);
  }

  /** A program for a window of {@code size} bytes at the last rank. */
  public BigWindowProgram(long size) {
    this.givenSize = size;
  }

  private static void check(boolean ok, String what, Object expected, Object actual) {
    if (!ok) {
      throw new RmaException(ErrorClass.OTHER, "bigwindow check failed: " + what + ": expected " + expected + ", got "
          + actual);
    }
  }

  @Override
  public Future<?> run(Comm world, List<String> args) {
    long size = givenSize >= 0 ? givenSize : Long.parseLong(args.get(0));
    int me = world.rank();
    int owner = world.size() - 1;
    long[] disps = {0, size / 2 & ~7L, size - 8};
    long[] values = {0x1111_2222_3333_4444L, -5L, 0x7EAD_BEEF_0000_0001L};
    return Win.allocate(world, me == owner ? size : 8, 1, Info.NULL).compose(win -> {
      check(Context.isOnEventLoopThread(), "allocate completes on the rank's event loop", "event loop",
          Thread.currentThread().getName());
      if (me == owner) {
        check(win.size() == size, "window size", size, win.size());
        checkZero(win, 0);
        checkZero(win, size / 2);
        checkZero(win, size - 1);
        for (long at = 64L << 20; at < size; at += 64L << 20) {
          checkZero(win, at);
        }
      }
      return world.barrier().compose(v -> me == 0 ? rma(win, owner, disps, values) : Future.succeededFuture())
          .compose(v -> world.barrier())
          .map(v -> {
            if (me == owner) {
              for (int k = 0; k < disps.length; k++) {
                long got = win.memory().readLong(disps[k]);
                check(got == values[k], "long at " + disps[k] + " after rank 0's put", values[k], got);
              }
              checkZero(win, size - 9);
            }
            return null;
          })
          .compose(v -> win.free());
    }).compose(v -> me != 0 ? io.vertx.core.Future.<Void>succeededFuture()
        // printed by a worker: under surefire, writing to the captured output held an event loop 56 ms
        : io.vertx.core.Vertx.currentContext().owner().executeBlocking(() -> {
          System.out.println(VERIFIED);
          System.out.flush();
          return null;
        }));
  }

  private static void checkZero(Win win, long at) {
    byte b = win.memory().readByte(at);
    check(b == 0, "byte " + at + " of a new window", 0, b);
  }

  /** Rank 0: reads the far end (zero), puts three longs, reads them back, in one lock epoch. */
  private static Future<Void> rma(Win win, int owner, long[] disps, long[] values) {
    long[] end = {-1};
    long[] back = new long[disps.length];
    return win.lock(LockType.SHARED, owner)
        .compose(v -> win.get(Buf.of(end), 0, 1, Datatype.LONG, owner, disps[2]))
        .compose(v -> win.flush(owner))
        .compose(v -> {
          check(end[0] == 0, "last 8 bytes read through get", 0, end[0]);
          Future<Void> puts = Future.succeededFuture();
          for (int k = 0; k < disps.length; k++) {
            int i = k;
            puts = puts.compose(x -> win.put(Buf.of(new long[] {values[i]}), 0, 1, Datatype.LONG, owner, disps[i]));
          }
          return puts;
        })
        .compose(v -> win.flush(owner))
        .compose(v -> {
          Future<Void> gets = Future.succeededFuture();
          for (int k = 0; k < disps.length; k++) {
            int i = k;
            gets = gets.compose(x -> win.get(Buf.of(back), i, 1, Datatype.LONG, owner, disps[i]));
          }
          return gets;
        })
        .compose(v -> win.flush(owner))
        .map(v -> {
          check(Arrays.equals(back, values), "longs read back", Arrays.toString(values), Arrays.toString(back));
          return null;
        })
        .compose(v -> win.unlock(owner));
  }
}
