package dev.vertxrma.runtime;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import java.util.Arrays;
import java.util.List;

/**
 * The rank program {@link MultiJvmTest} runs through {@code bin/rmarun} over several JVMs: a ring
 * exchange, a synchronous send, an allreduce, a broadcast and a gather, each checked value by
 * value; rank 0 prints {@code multijvm: verified} when everything matched. With the argument
 * {@code fail}, rank 3 fails at once with an {@link RmaException} of class OTHER.
 */
public class MultiJvmProgram implements RankProgram {

  /** The line rank 0 prints once every check passed. */
  public static final String VERIFIED = "multijvm: verified";

  /** The message of rank 3's failure in {@code fail} mode. */
  public static final String FAILURE = "rank 3 failed on purpose";

  /** Needed by rmarun: one instance per rank. */
  public MultiJvmProgram() {
  }

  private static void check(boolean ok, String what, Object expected, Object actual) {
    if (!ok) {
      throw new RmaException(ErrorClass.OTHER, "multijvm check failed: " + what + ": expected " + expected
          + ", got " + actual);
    }
  }

  @Override
  public Future<?> run(Comm world, List<String> args) {
    int me = world.rank();
    int n = world.size();
    if (args.contains("fail") && me == 3) {
      return Future.failedFuture(new RmaException(ErrorClass.OTHER, FAILURE));
    }
    check(n == 4, "size", 4, n);
    int next = (me + 1) % n;
    int prev = (me + n - 1) % n;
    long[] ring = new long[3];
    int[] sync = new int[2];
    world.send(Buf.of(new long[] {me, me * 1000L, -me}), 0, 3, Datatype.LONG, next, 1);
    Future<Void> ssent = world.ssend(Buf.of(new int[] {me, me + 40}), 0, 2, Datatype.INT, prev, 2);
    return world.recv(Buf.of(ring), 0, 3, Datatype.LONG, prev, 1).compose(st -> {
      check(st.source() == prev && st.tag() == 1 && st.count() == 3, "ring status", prev + "/1/3", st);
      check(Arrays.equals(ring, new long[] {prev, prev * 1000L, -prev}), "ring data",
          Arrays.toString(new long[] {prev, prev * 1000L, -prev}), Arrays.toString(ring));
      return world.recv(Buf.of(sync), 0, 2, Datatype.INT, Comm.ANY_SOURCE, 2);
    }).compose(st -> {
      check(st.source() == next, "ssend source", next, st.source());
      check(sync[0] == next && sync[1] == next + 40, "ssend data", next + "," + (next + 40), Arrays.toString(sync));
      return ssent;
    }).compose(v -> world.allreduce((long) me + 1, Op.SUM)).compose(sum -> {
      check(sum == 10L, "allreduce sum", 10, sum);
      double[] b = new double[2];
      if (me == 3) {
        b[0] = 3.25;
        b[1] = -1e9;
      }
      return world.bcast(Buf.of(b), 0, 2, Datatype.DOUBLE, 3).map(v -> b);
    }).compose(b -> {
      check(b[0] == 3.25 && b[1] == -1e9, "bcast from rank 3", "[3.25, -1.0E9]", Arrays.toString(b));
      int[] all = new int[2 * n];
      return world.gather(Buf.of(new int[] {me * 11, -me}), 0, 2, Datatype.INT, Buf.of(all), 0, 2, Datatype.INT, 0).map(v -> all);
    }).compose(all -> {
      if (me == 0) {
        int[] expected = {0, 0, 11, -1, 22, -2, 33, -3};
        check(Arrays.equals(all, expected), "gather at rank 0", Arrays.toString(expected), Arrays.toString(all));
      }
      return world.barrier();
    }).map(v -> {
      if (me == 0) {
        System.out.println(VERIFIED);
        System.out.flush();
      }
      return null;
    });
  }
}
