// A rank program in one source file, run by MixedHostsTest as bin/rmarun runs a user's
// (bin/rmarun -np 6 --hostfile H --launch T .../MixedJobChecks.java 2 2 0): MPI's semantics in a
// mixed job, where a window's origins reach a rank of another JVM either in its host segment (the
// on-node path: same host) or over the data plane (another host), and origins in the rank's own
// JVM directly. Its arguments are, for each JVM k of the job, how many ranks of other JVMs a rank
// of JVM k reaches on the on-node path; the program checks that first, so that the mix is real.
// Then, on one allocate window:
//   - an exclusive lock excludes every kind of origin: a non-atomic read-modify-write of a counter
//     on rank 0 under lock(EXCLUSIVE), ROUNDS times from every rank, loses no update;
//   - accumulates stay element-wise atomic: fetch-and-op(SUM) from every rank, not awaited, on rank
//     1 fetches each of 0..TICKETS*p-1 once, and accumulate(SUM) of arrays from every rank on rank
//     2 sums every element;
//   - a fence covers every kind: in each of EPOCHS fence epochs every rank puts a value of that
//     epoch into its slot of every rank's window, and after the next fence each rank finds the
//     whole epoch's values in its own window;
//   - post/start epochs cover every kind: in each of EPOCHS epochs every rank exposes its window to
//     all the others and accesses all of them, putting a value of that epoch into its slot of each
//     (its post and complete reach a same-host rank through the control pages and any other rank
//     as a message), and once its wait is done it finds every rank's value of the epoch there.
// Then shared windows, which need ranks that share memory, proven by mapping a file, not by host
// names (the three JVMs have one host name and address here):
//   - allocateShared over the whole job fails with RMA_SHARED at every rank (c cannot map a's file);
//   - splitType(SHARED) gives a and b's ranks one communicator and c's another, and allocateShared
//     over it lets each rank load what every other rank of its host stored in its own part.
// Rank 0 prints one line when every check held; any failed check fails the job.
package dev.vertxrma.runtime;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public class MixedJobChecks implements RankProgram {

  private static final int ROUNDS = 40;
  private static final int TICKETS = 200;
  private static final int ELEMENTS = 32;
  private static final int EPOCHS = 6;
  /** Displacements (longs) in the window: the counter, the ticket, the accumulated array, the fence slots. */
  private static final int COUNTER = 0;
  private static final int TICKET = 1;
  private static final int ARRAY = 2;
  private static final int SLOTS = ARRAY + ELEMENTS;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    int me = world.rank();
    int p = world.size();
    long words = SLOTS + 2L * p;
    return Win.allocate(world, words * Long.BYTES, Long.BYTES, Info.NULL).compose(win -> checkMix(world, win, args)
        .compose(peers -> lockedCounter(world, win).map(peers))
        .compose(peers -> accumulates(world, win).map(peers))
        .compose(peers -> fences(world, win).map(peers))
        .compose(peers -> postStartEpochs(world, win).map(peers))
        .compose(peers -> win.free().map(peers)))
        .compose(peers -> sharedWindows(world, peers, args).map(peers))
        .map(peers -> {
          if (me == 0) {
            System.out.println("mixed-job: verified " + p + " ranks, on-node peers per rank " + Arrays.toString(peers)
                + ": exclusive lock over " + p + " x " + ROUNDS + " read-modify-writes, " + p + " x " + TICKETS
                + " fetch-and-ops each value once, accumulate of " + ELEMENTS + " elements, " + EPOCHS + " fence epochs"
                + ", " + EPOCHS + " post/start epochs, shared windows only over splitType(SHARED)");
          }
          return null;
        });
  }

  /**
   * allocateShared over the world fails with RMA_SHARED at every rank; over splitType(SHARED) (this
   * rank's JVM and the ranks it reaches on the on-node path) each rank stores its world rank in its
   * part and loads every part of its host's ranks, which must hold their sum (by messages).
   */
  private static Future<Void> sharedWindows(Comm world, long[] peers, List<String> args) {
    int me = world.rank();
    int expectedSize = (int) (world.size() / args.size() + peers[me]);
    return Win.allocateShared(world, 8, 8, Info.NULL).transform(ar -> {
      if (ar.succeeded()) {
        return ar.result().free().compose(v -> Future.failedFuture(failed("allocateShared over ranks of two hosts "
            + "succeeded at rank %d", me)));
      }
      if (!(ar.cause() instanceof RmaException) || ((RmaException) ar.cause()).errorClass() != ErrorClass.RMA_SHARED) {
        return Future.failedFuture(failed("allocateShared over two hosts failed at rank %d with %s, not RMA_SHARED",
            me, ar.cause()));
      }
      return world.splitType(dev.vertxrma.SplitType.SHARED, 0);
    }).compose(host -> {
      if (host.size() != expectedSize) {
        return Future.failedFuture(failed("splitType(SHARED) at rank %d has %d ranks, expected %d", me, host.size(),
            expectedSize));
      }
      return Win.allocateShared(host, 8, 8, Info.NULL).compose(win -> {
        List<Future<Win.SharedSegment>> parts = new ArrayList<>();
        for (int r = 0; r < host.size(); r++) {
          parts.add(win.sharedQuery(r));
        }
        return win.sharedQuery(host.rank()).compose(own -> {
          own.memory().writeVolatileLong(0, me);
          return host.barrier();
        }).compose(v -> Future.all(parts)).compose(v -> host.allreduce((long) me, Op.SUM))
            .compose(sum -> {
              long loaded = 0;
              for (Future<Win.SharedSegment> part : parts) {
                loaded += part.result().memory().readVolatileLong(0);
              }
              return loaded == sum ? host.barrier().compose(v -> win.free()) : Future.failedFuture(failed(
                  "rank %d loaded %d from its host's parts of the shared window, their ranks sum to %d", me, loaded,
                  sum));
            });
      });
    });
  }

  private static RmaException failed(String format, Object... args) {
    return new RmaException(ErrorClass.OTHER, String.format(format, args));
  }

  /**
   * How many ranks of other JVMs each rank reaches on the on-node path, checked against the
   * arguments. Read through the window's implementation (not API: a test's view of the mix).
   */
  private static Future<long[]> checkMix(Comm world, Win win, List<String> args) {
    int me = world.rank();
    int p = world.size();
    int jvms = args.size();
    long mine;
    try {
      java.lang.reflect.Method m = win.getClass().getDeclaredMethod("onNodePeers");
      m.setAccessible(true);
      mine = (int) m.invoke(win);
    } catch (ReflectiveOperationException e) {
      return Future.failedFuture(failed("cannot read the window's on-node peers: %s", e));
    }
    int jvm = 0;
    while ((long) (jvm + 1) * p / jvms <= me) {
      jvm++;
    }
    long expected = Long.parseLong(args.get(jvm));
    if (mine != expected) {
      return Future.failedFuture(failed("rank %d (JVM %d) reaches %d ranks on the on-node path, expected %d", me, jvm,
          mine, expected));
    }
    long[] all = new long[p];
    return world.allgather(Buf.of(new long[] {mine}), 0, 1, Datatype.LONG, Buf.of(all), 0, 1, Datatype.LONG)
        .map(v -> all);
  }

  /** ROUNDS read-modify-writes of the counter on rank 0 under an exclusive lock, from every rank. */
  private static Future<Void> lockedCounter(Comm world, Win win) {
    Future<Void> f = world.barrier();
    long[] seen = new long[1];
    for (int i = 0; i < ROUNDS; i++) {
      f = f.compose(v -> win.lock(LockType.EXCLUSIVE, 0))
          .compose(v -> win.get(Buf.of(seen), 0, 1, Datatype.LONG, 0, COUNTER))
          .compose(v -> win.flush(0))
          .compose(v -> win.put(Buf.of(new long[] {seen[0] + 1}), 0, 1, Datatype.LONG, 0, COUNTER))
          .compose(v -> win.unlock(0));
    }
    return f.compose(v -> world.barrier()).compose(v -> {
      if (world.rank() != 0) {
        return Future.succeededFuture();
      }
      return readOwn(world, win, COUNTER, 1).compose(c -> c[0] == (long) world.size() * ROUNDS ? Future.succeededFuture()
          : Future.failedFuture(failed("the counter under an exclusive lock is %d, expected %d x %d: an update was "
              + "lost, so two origins held the lock at once", c[0], world.size(), ROUNDS)));
    });
  }

  /** Fetch-and-ops on rank 1 and accumulates on rank 2 (of a job of 3 ranks or more) from every rank. */
  private static Future<Void> accumulates(Comm world, Win win) {
    int me = world.rank();
    int p = world.size();
    int ticketRank = 1 % p;
    int arrayRank = 2 % p;
    List<Future<Long>> tickets = new ArrayList<>();
    long[] add = new long[ELEMENTS];
    for (int e = 0; e < ELEMENTS; e++) {
      add[e] = (me + 1L) * (e + 1);
    }
    Future<Void> issued = win.lockAll().compose(v -> {
      List<Future<?>> calls = new ArrayList<>();
      for (int i = 0; i < TICKETS; i++) {
        Future<Long> t = win.fetchAndOp(1L, ticketRank, TICKET, Op.SUM);
        tickets.add(t);
        if (i % 50 == 0) {
          calls.add(win.accumulate(Buf.of(add), 0, ELEMENTS, Datatype.LONG, arrayRank, ARRAY, Op.SUM));
        }
      }
      calls.addAll(tickets);
      return Future.all(calls).compose(x -> win.flushAll());
    }).compose(v -> win.unlockAll());
    long[] all = new long[TICKETS * p];
    return issued.compose(v -> {
      long[] mine = tickets.stream().mapToLong(Future::result).toArray();
      return world.allgather(Buf.of(mine), 0, TICKETS, Datatype.LONG, Buf.of(all), 0, TICKETS, Datatype.LONG);
    }).compose(v -> {
      Arrays.sort(all);
      for (int i = 0; i < all.length; i++) {
        if (all[i] != i) {
          return Future.failedFuture(failed("rank %d: the fetched tickets are not 0..%d each once (sorted, position "
              + "%d holds %d): fetch-and-ops of two origins interleaved", me, all.length - 1, i, all[i]));
        }
      }
      return Future.succeededFuture();
    }).compose(v -> world.barrier()).compose(v -> {
      if (me == ticketRank) {
        return readOwn(world, win, TICKET, 1).compose(t -> t[0] == (long) TICKETS * p ? Future.succeededFuture()
            : Future.failedFuture(failed("the ticket word is %d, expected %d", t[0], (long) TICKETS * p)));
      }
      return Future.succeededFuture();
    }).compose(v -> {
      if (me != arrayRank) {
        return Future.succeededFuture();
      }
      long rounds = (TICKETS + 49) / 50;
      long ranks = (long) p * (p + 1) / 2;
      return readOwn(world, win, ARRAY, ELEMENTS).compose(a -> {
        for (int e = 0; e < ELEMENTS; e++) {
          if (a[e] != rounds * ranks * (e + 1)) {
            return Future.failedFuture(failed("accumulated element %d is %d, expected %d", e, a[e],
                rounds * ranks * (e + 1)));
          }
        }
        return Future.succeededFuture();
      });
    }).mapEmpty();
  }

  /**
   * EPOCHS fence epochs: in epoch k every rank puts k*1000+rank into its slot of parity k%2 at
   * every rank, and reads its own slots of the previous epoch's parity (written by nobody in this
   * epoch); after each fence the values read must be the previous epoch's.
   */
  private static Future<Void> fences(Comm world, Win win) {
    int me = world.rank();
    int p = world.size();
    long[] read = new long[p];
    Future<Void> f = world.barrier().compose(v -> win.fence(Mode.NOPRECEDE));
    for (int k = 0; k <= EPOCHS; k++) {
      int epoch = k;
      f = f.compose(v -> {
        List<Future<Void>> calls = new ArrayList<>();
        if (epoch < EPOCHS) {
          long[] value = {epoch * 1000L + me};
          for (int t = 0; t < p; t++) {
            calls.add(win.put(Buf.of(value), 0, 1, Datatype.LONG, t, SLOTS + (long) (epoch % 2) * p + me));
          }
        }
        if (epoch > 0) {
          calls.add(win.get(Buf.of(read), 0, p, Datatype.LONG, me, SLOTS + (long) ((epoch - 1) % 2) * p));
        }
        return Future.all(calls).compose(x -> win.fence(epoch == EPOCHS ? new Mode[] {Mode.NOSUCCEED} : new Mode[0]));
      }).compose(v -> {
        if (epoch == 0) {
          return Future.succeededFuture();
        }
        for (int r = 0; r < p; r++) {
          if (read[r] != (epoch - 1) * 1000L + r) {
            return Future.failedFuture(failed("rank %d: after the fence closing epoch %d, rank %d's slot holds %d, "
                + "expected %d: its put was not covered by the fence", me, epoch - 1, r, read[r],
                (epoch - 1) * 1000L + r));
          }
        }
        return Future.succeededFuture();
      });
    }
    return f;
  }

  /**
   * EPOCHS post/start/complete/wait epochs in which every rank exposes its window to all the
   * others and accesses them all, calls issued without awaiting each: after its wait, each rank's
   * window holds every other rank's value of the epoch.
   */
  private static Future<Void> postStartEpochs(Comm world, Win win) {
    int me = world.rank();
    int p = world.size();
    dev.vertxrma.Group others = world.group().excl(me);
    Future<Void> f = world.barrier();
    for (int k = 0; k < EPOCHS; k++) {
      int epoch = k;
      long base = SLOTS + (long) (epoch % 2) * p;
      f = f.compose(v -> {
        Future<Void> exposed = win.post(others);
        Future<Void> access = win.start(others).compose(x -> {
          List<Future<Void>> puts = new ArrayList<>();
          long[] value = {100_000L + epoch * 1000L + me};
          for (int t = 0; t < p; t++) {
            if (t != me) {
              puts.add(win.put(Buf.of(value), 0, 1, Datatype.LONG, t, base + me));
            }
          }
          return win.complete().compose(y -> Future.all(puts).mapEmpty());
        });
        return Future.all(exposed, access).compose(x -> win.waitFor());
      }).compose(v -> readOwn(world, win, base, p)).compose(slots -> {
        for (int r = 0; r < p; r++) {
          if (r != me && slots[r] != 100_000L + epoch * 1000L + r) {
            return Future.failedFuture(failed("rank %d: after its wait of post/start epoch %d, rank %d's slot "
                + "holds %d, expected %d", me, epoch, r, slots[r], 100_000L + epoch * 1000L + r));
          }
        }
        return world.barrier();
      });
    }
    return f;
  }

  /** {@code count} longs of this rank's own window from {@code disp}, read under a shared lock. */
  private static Future<long[]> readOwn(Comm world, Win win, long disp, int count) {
    long[] out = new long[count];
    int me = world.rank();
    return win.lock(LockType.SHARED, me).compose(v -> win.get(Buf.of(out), 0, count, Datatype.LONG, me, disp))
        .compose(v -> win.unlock(me)).map(v -> out);
  }
}
