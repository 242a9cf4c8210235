package dev.vertxrma.sync;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The job of {@code SyncFaultsTest}: 4 ranks over 2 JVMs ({@code rmarun -np 4 --jvms 2
 * --on-failure continue}), ranks 2 and 3 in the JVM the test kills or stops once every rank is in
 * place and rank 1 printed {@value #IN_PLACE}:
 * <ul>
 *   <li>mutex A (home rank 0): rank 3 holds it, rank 2 waits behind it, rank 1 behind rank 2. Once
 *       2 and 3 are dead, rank 1 must get A saying its previous holder died, with a token above
 *       rank 3's; then rank 0 gets A from rank 1 without being told of a death, token above rank
 *       1's;</li>
 *   <li>mutex B (home rank 0): rank 0 holds it, rank 2 waits behind it, rank 1 behind rank 2. Once
 *       rank 0 knows rank 2 dead it unlocks, and rank 1 (which took the dead waiter's place) gets B
 *       without being told of a death;</li>
 *   <li>a counter whose home is rank 2 fails with PROC_FAILED at ranks 0 and 1; one at rank 0 hands
 *       out 0..2C-1 exactly once to the C {@code next()}s each of ranks 0 and 1 issue at once,
 *       each rank's in its call order.</li>
 * </ul>
 * Rank 0 prints {@code "sync-faults: verified"} when every check passed.
 */
public final class SyncFaults implements RankProgram {

  static final String IN_PLACE = "sync-faults: in place";
  static final String GOT_A = "sync-faults: rank 1 got mutex A";
  private static final int[] ORDER_A = {3, 2, 1};
  private static final int[] ORDER_B = {0, 2, 1};
  private static final int TICKETS = 50;
  private static final int TAG_A = 1;
  private static final int TAG_B = 2;
  private static final int TAG_TOKEN = 3;
  private static final int TAG_PLACED = 4;
  private static final int TAG_TICKETS = 5;

  private record Prims(Mutex a, Mutex b, Counter atDead, Counter atLive) {
  }

  @Override
  public Future<?> run(Comm world, List<String> args) {
    if (world.size() != 4) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "sync-faults runs on 4 ranks (2 JVMs), not %d",
          world.size()));
    }
    return Mutex.create(world, 0).compose(a -> Mutex.create(world, 0).compose(b -> Counter.create(world, 2, 0)
        .compose(d -> Counter.create(world, 0, 0).map(l -> new Prims(a, b, d, l)))))
        .compose(p -> switch (world.rank()) {
          case 0 -> rank0(world, p);
          case 1 -> rank1(world, p);
          default -> doomed(world, p);
        });
  }

  /** Ranks 2 and 3: take their places, then hold or wait until their JVM dies. */
  private static Future<Void> doomed(Comm world, Prims p) {
    queue(world, p.a, ORDER_A, TAG_A).onSuccess(g -> // rank 3, the first in A's queue
        world.send(Buf.of(new long[] {g.token()}), 0, 1, Datatype.LONG, 1, TAG_TOKEN));
    if (world.rank() == 2) {
      queue(world, p.b, ORDER_B, TAG_B);
    }
    return Promise.<Void>promise().future();
  }

  private static Future<Void> rank1(Comm world, Prims p) {
    long[] holderToken = new long[1];
    Future<?> tokenOf3 = world.recv(Buf.of(holderToken), 0, 1, Datatype.LONG, 3, TAG_TOKEN);
    Promise<Void> inA = Promise.promise();
    Promise<Void> inB = Promise.promise();
    Future<Grant> a = queue(world, p.a, ORDER_A, TAG_A, inA);
    Future<Grant> b = queue(world, p.b, ORDER_B, TAG_B, inB);
    Future.all(tokenOf3, inA.future(), inB.future()).onSuccess(v -> {
      System.out.println(IN_PLACE + ": rank 3 holds mutex A (token " + holderToken[0] + "), rank 0 holds mutex B, "
          + "ranks 2 and 1 wait behind each");
      System.out.flush();
    });
    Future<Void> afterA = a.compose(g -> {
      System.out.println(GOT_A + " (token " + g.token() + ", the previous holder died: " + g.previousHolderDied() + ")");
      System.out.flush();
      check(g.previousHolderDied(), "rank 1's grant of A must say that its holder, rank 3, died: " + g);
      check(g.token() > holderToken[0], "rank 1's token " + g.token() + " of A is not above rank 3's " + holderToken[0]);
      return p.a.unlock().compose(v -> world.send(Buf.of(new long[] {g.token()}), 0, 1, Datatype.LONG, 0, TAG_TOKEN));
    });
    Future<Void> afterB = b.compose(g -> {
      check(!g.previousHolderDied(), "B's holder, rank 0, lives and its dead waiter 2 was skipped: " + g);
      return p.b.unlock();
    });
    return Future.all(afterA, afterB).compose(v -> counters(world, p)).compose(mine ->
        world.send(Buf.of(mine), 0, TICKETS, Datatype.LONG, 0, TAG_TICKETS)).onSuccess(v -> {
          System.out.println("sync-faults: rank 1 done");
          System.out.flush();
        });
  }

  private static Future<Void> rank0(Comm world, Prims p) {
    long[] tokenOf1 = new long[1];
    Future<Void> b = queue(world, p.b, ORDER_B, TAG_B)
        .compose(g -> p.b.whenKnownDead(2)) // unlock once the dead waiter behind is known dead
        .compose(v -> p.b.unlock());
    Future<Void> a = b.compose(v -> world.recv(Buf.of(tokenOf1), 0, 1, Datatype.LONG, 1, TAG_TOKEN))
        .compose(v -> p.a.lock()).compose(g -> {
          check(!g.previousHolderDied(), "rank 0's grant of A came from rank 1, alive: " + g);
          check(g.token() > tokenOf1[0], "rank 0's token " + g.token() + " of A is not above rank 1's " + tokenOf1[0]);
          return p.a.unlock();
        });
    long[] theirs = new long[TICKETS];
    return a.compose(v -> counters(world, p)).compose(mine ->
        world.recv(Buf.of(theirs), 0, TICKETS, Datatype.LONG, 1, TAG_TICKETS).map(x -> {
          boolean[] seen = new boolean[2 * TICKETS];
          for (long[] tickets : List.of(mine, theirs)) {
            for (long t : tickets) {
              check(t >= 0 && t < seen.length && !seen[(int) t], "ticket " + t + " out of range or handed out twice");
              seen[(int) t] = true;
            }
          }
          System.out.println("sync-faults: verified: both mutexes went to the live waiters as MPI-style FIFO with "
              + "increasing tokens, the dead home's counter failed with PROC_FAILED, the live one counted 0.."
              + (2 * TICKETS - 1) + " exactly once");
          System.out.flush();
          return null;
        }));
  }

  /** The dead home's counter fails with PROC_FAILED; the live one's C tickets, issued at once, increase. */
  private static Future<long[]> counters(Comm world, Prims p) {
    return p.atDead.next().transform(ar -> {
      check(ar.failed() && ar.cause() instanceof RmaException e && e.errorClass() == ErrorClass.PROC_FAILED,
          "a counter whose home rank died must fail with PROC_FAILED: " + (ar.failed() ? ar.cause() : ar.result()));
      List<Future<Long>> tickets = new ArrayList<>();
      for (int i = 0; i < TICKETS; i++) {
        tickets.add(p.atLive.next()); // none awaited
      }
      return Future.all(tickets).map(x -> {
        long[] mine = tickets.stream().mapToLong(Future::result).toArray();
        for (int i = 1; i < mine.length; i++) {
          check(mine[i] > mine[i - 1], "rank " + world.rank() + "'s tickets not in call order: " + mine[i - 1]
              + " then " + mine[i]);
        }
        return mine;
      });
    });
  }

  private static Future<Grant> queue(Comm world, Mutex m, int[] order, int tag) {
    return queue(world, m, order, tag, Promise.promise());
  }

  /** Requests {@code m} in {@code order}: each rank once the one before it is in the queue. */
  private static Future<Grant> queue(Comm world, Mutex m, int[] order, int tag, Promise<Void> inQueue) {
    int me = world.rank();
    int at = IntStream.range(0, order.length).filter(i -> order[i] == me).findFirst().orElseThrow();
    Future<?> turn = at == 0 ? Future.succeededFuture()
        : world.recv(Buf.of(new long[1]), 0, 1, Datatype.LONG, order[at - 1], tag);
    return turn.compose(v -> {
      Future<Grant> grant = m.lock(0, inQueue);
      inQueue.future().onSuccess(x -> {
        if (at < order.length - 1) {
          world.send(Buf.of(new long[1]), 0, 1, Datatype.LONG, order[at + 1], tag);
        }
      });
      return grant;
    });
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw RmaException.of(ErrorClass.OTHER, "sync-faults: %s", what);
    }
  }
}
