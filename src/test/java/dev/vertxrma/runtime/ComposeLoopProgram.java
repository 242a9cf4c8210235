package dev.vertxrma.runtime;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.List;

/**
 * A user's own loop, as a new user writes it: {@code put → flush →} the next iteration by
 * recursive {@code compose}, rank 0 into rank 1's window under {@code lockAll}. The argument is
 * the number of iterations; rank 1 checks the last value and prints {@code compose-loop: verified}.
 * {@link MultiJvmTest} runs it through {@code bin/rmarun} with the launcher's default JVM options.
 */
public class ComposeLoopProgram implements RankProgram {

  /** The line rank 1 prints once the last value matched. */
  public static final String VERIFIED = "compose-loop: verified";

  /** Needed by rmarun: one instance per rank. */
  public ComposeLoopProgram() {
  }

  private static Future<Void> loop(Win win, long[] value, int i, int n) {
    if (i == n) {
      return Future.succeededFuture();
    }
    value[0] = i;
    return win.put(Buf.of(value), 0, 1, Datatype.LONG, 1, 0).compose(v -> win.flush(1))
        .compose(v -> loop(win, value, i + 1, n));
  }

  @Override
  public Future<?> run(Comm world, List<String> args) {
    int n = Integer.parseInt(args.get(0));
    return Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
      Future<Void> mine = world.rank() == 0
          ? win.lockAll().compose(v -> loop(win, new long[1], 0, n)).compose(v -> win.unlockAll())
          : Future.succeededFuture();
      return mine.compose(v -> world.barrier()).compose(v -> {
        if (world.rank() == 1) {
          long last = win.memory().readLong(0);
          if (last != n - 1) {
            throw new RmaException(ErrorClass.OTHER, "after " + n + " iterations rank 1 holds " + last
                + ", expected " + (n - 1));
          }
          System.out.println(VERIFIED + " (" + n + " iterations)");
        }
        return win.free();
      });
    });
  }
}
