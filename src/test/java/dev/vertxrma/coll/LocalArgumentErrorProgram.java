package dev.vertxrma.coll;

import static dev.vertxrma.testing.RmaAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The program of {@link CollectiveAfterLocalErrorTest}. A rank whose own argument check fails a collective call (a bad count, root, buffer or vector
 * counts) still takes the call's place in the communicator's order, and the call fails promptly
 * at every rank that waits for it, with that rank's error class and a message naming it and the
 * reason (not at the wait's timeout); the next collective then matches and gives the right
 * values everywhere. Each case: one rank's arguments are bad, the others' good; the calls are
 * issued without waiting for one another.
 */
public class LocalArgumentErrorProgram implements RankProgram {

  /** The ranks the program is written for. */
  public static final int NP = 4;

  /** One case: the failing rank, its error, the ranks that wait for it (they must fail), and the call. */
  private record Case(String name, int failing, ErrorClass cls, String reason, Set<Integer> waiting,
      Function<Comm, Future<?>> call) {
  }

  private static List<Case> cases() {
    List<Case> cases = new ArrayList<>();
    // bcast from 0: rank 3's parent in the binomial tree is rank 2
    cases.add(new Case("bcast, a negative count", 2, ErrorClass.COUNT, "count -1 is negative", Set.of(3),
        w -> w.bcast(Buf.of(new int[4]), 0, w.rank() == 2 ? -1 : 4, Datatype.INT, 0)));
    // allreduce: every rank needs every contribution
    cases.add(new Case("allreduce, no op", 1, ErrorClass.OP, "op is null", Set.of(0, 2, 3),
        w -> w.allreduce(Buf.of(new long[] {w.rank()}), 0, Buf.of(new long[1]), 0, 1, Datatype.LONG,
            w.rank() == 1 ? null : Op.SUM)));
    // reduce to 0 with a bad root at rank 1: root 0 waits for rank 1's part
    cases.add(new Case("reduce, a bad root", 1, ErrorClass.RANK, "root 7", Set.of(0),
        w -> w.reduce(Buf.of(new int[] {1}), 0, Buf.of(new int[1]), 0, 1, Datatype.INT, Op.SUM,
            w.rank() == 1 ? 7 : 0)));
    // gatherv to 0: the root waits for rank 3's block
    cases.add(new Case("gatherv, a negative send count", 3, ErrorClass.COUNT, "negative", Set.of(0),
        w -> w.gatherv(Buf.of(new int[2]), 0, w.rank() == 3 ? -2 : 2, Datatype.INT, Buf.of(new int[8]), 0,
            new int[] {2, 2, 2, 2}, new int[] {0, 2, 4, 6}, Datatype.INT, 0)));
    // alltoallv: rank 0's sendCounts has the wrong length; everyone waits for its block
    cases.add(new Case("alltoallv, vector counts of the wrong length", 0, ErrorClass.ARG, "one per rank",
        Set.of(1, 2, 3), w -> w.alltoallv(Buf.of(new int[4]), 0, w.rank() == 0 ? new int[] {1, 1} : new int[] {1, 1, 1, 1},
            new int[] {0, 1, 2, 3}, Datatype.INT, Buf.of(new int[4]), 0, new int[] {1, 1, 1, 1},
            new int[] {0, 1, 2, 3}, Datatype.INT)));
    // scatter from 2: the root's send buffer is too small; everyone waits for its block
    cases.add(new Case("scatter, a short root buffer", 2, ErrorClass.BUFFER, "scatter send", Set.of(0, 1, 3),
        w -> w.scatter(Buf.of(new int[w.rank() == 2 ? 3 : 8]), 0, 2, Datatype.INT, Buf.of(new int[2]), 0, 2,
            Datatype.INT, 2)));
    // allgatherv: rank 3's displacement runs past its receive buffer; all wait for its block
    cases.add(new Case("allgatherv, a displacement out of the buffer", 3, ErrorClass.BUFFER, "allgatherv receive",
        Set.of(0, 1, 2), w -> w.allgatherv(Buf.of(new int[] {w.rank()}), 0, 1, Datatype.INT, Buf.of(new int[4]), 0,
            new int[] {1, 1, 1, 1}, w.rank() == 3 ? new int[] {0, 1, 2, 9} : new int[] {0, 1, 2, 3}, Datatype.INT)));
    // scan: every rank but 0 waits (directly or through others) for rank 0
    cases.add(new Case("scan, a negative count", 0, ErrorClass.COUNT, "negative", Set.of(1, 2, 3),
        w -> w.scan(Buf.of(new int[] {1}), 0, Buf.of(new int[1]), 0, w.rank() == 0 ? -1 : 1, Datatype.INT, Op.SUM)));
    // reduceScatterBlock: a reduce to 0 (which waits for rank 1's part), then a scatter from 0
    cases.add(new Case("reduceScatterBlock, a negative count", 1, ErrorClass.COUNT, "negative", Set.of(0),
        w -> w.reduceScatterBlock(Buf.of(new int[4]), 0, Buf.of(new int[1]), 0, w.rank() == 1 ? -1 : 1, Datatype.INT,
            Op.SUM)));
    return cases;
  }

  /** The call's outcome: {@code null} if it succeeded, else its failure. */
  private static Future<Throwable> outcome(Future<?> f) {
    return f.transform(ar -> Future.succeededFuture(ar.failed() ? ar.cause() : null));
  }

  private static void check(Case c, int rank, Throwable t) {
    if (rank == c.failing()) {
      assertError(t, c.cls(), c.reason());
    } else if (c.waiting().contains(rank) || t != null) {
      // a rank that waits for the failing one fails at once with its error and reason; others may
      // succeed (their part ended before they could hear), or fail the same way
      assertError(t, c.cls(), "rank " + c.failing() + " failed this collective call", c.reason());
    }
  }

  @Override
  public Future<Void> run(Comm world, List<String> args) {
    List<Case> cases = cases();
    // a barrier first: on a communicator whose JVMs share memory, the small blocks of later
    // broadcasts and allreduces then meet in memory, where a failing rank must leave its mark too
    Future<Void> chain = world.barrier();
    for (Case c : cases) {
      chain = chain.compose(v -> {
        // the bad call and, issued right after it without waiting, two good ones
        Future<Throwable> bad = outcome(c.call().apply(world));
        long[] sum = new long[1];
        Future<?> reduced = world.allreduce(Buf.of(new long[] {world.rank() + 1}), 0, Buf.of(sum), 0, 1,
            Datatype.LONG, Op.SUM);
        int[] all = new int[NP];
        Future<?> gathered = world.allgather(Buf.of(new int[] {10 * world.rank()}), 0, 1, Datatype.INT, Buf.of(all),
            0, 1, Datatype.INT);
        return Future.all(bad, reduced, gathered).map(cf -> {
          check(c, world.rank(), bad.result());
          assertEquals(10L, sum[0], c.name() + ": the next allreduce at rank " + world.rank());
          assertArrayEquals(new int[] {0, 10, 20, 30}, all, c.name() + ": the allgather after it");
          return null;
        });
      });
    }
    return chain;
  }
}
