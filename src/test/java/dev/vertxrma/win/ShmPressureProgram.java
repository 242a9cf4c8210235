package dev.vertxrma.win;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.List;

/**
 * A job for a small or full {@code /dev/shm} ({@code ShmPressureTest}, issue 41), run by
 * {@code bin/rmarun} over several JVMs in a private {@code /dev/shm}. The first argument says what
 * every rank does at once:
 *
 * <ul>
 *   <li>{@code windows MIB}: {@code Win.allocate} of MIB MiB at every rank, then a put from every
 *       rank to the first and last long of every other rank's window under lockAll, checked at
 *       each target; prints {@code shm-pressure: rank R windows verified (P peers in memory)};</li>
 *   <li>{@code shared MIB}: {@code Win.allocateShared} of MIB MiB in all (split evenly), then each
 *       rank stores into every page of its own segment and the others read its first and last long;
 *       prints {@code shm-pressure: rank R shared verified} or, if the call fails with NO_MEM,
 *       {@code shm-pressure: rank R shared failed: NO_MEM: MESSAGE} (any other failure fails the rank);</li>
 *   <li>{@code comms COUNT}: COUNT communicators (dup of the world) made at once, each with a
 *       barrier, a small allreduce and a bcast checked, then freed; then an 8 KiB
 *       {@code Win.allocate} checked as for {@code windows}; prints
 *       {@code shm-pressure: rank R comms verified};</li>
 *   <li>{@code hold}: leaves in the segment directory what JVMs killed while they set a job up
 *       leave, and waits for ever: every rank dups the world, ranks 0 to P-2 enter the dup's first
 *       barrier (each makes its barrier page; the last rank never comes), rank 0 also starts a
 *       {@code Win.allocate} of 1 MiB nobody else joins (its window segment) and makes a file as
 *       {@code allocateShared}'s rank 0 does; each rank prints {@code shm-pressure: rank R holds}.</li>
 * </ul>
 *
 * Test code only.
 */
public final class ShmPressureProgram implements RankProgram {

  /** What every line of this program starts with. */
  public static final String PREFIX = "shm-pressure: rank ";

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new RmaException(ErrorClass.OTHER, "shm-pressure check failed: " + what);
    }
  }

  @Override
  public Future<?> run(Comm world, List<String> args) {
    String what = args.get(0);
    switch (what) {
      case "windows":
        return windows(world, Long.parseLong(args.get(1)) << 20).map(peers -> {
          System.out.println(PREFIX + world.rank() + " windows verified (" + peers + " peers in memory)");
          return null;
        });
      case "shared":
        return shared(world, Long.parseLong(args.get(1)) << 20);
      case "comms":
        return comms(world, Integer.parseInt(args.get(1)));
      case "hold":
        return hold(world);
      default:
        throw new IllegalArgumentException("shm-pressure: unknown " + what);
    }
  }

  /** Every rank's window of {@code size} bytes, put to by every other rank; how many peers it reached in memory. */
  private static Future<Integer> windows(Comm world, long size) {
    int me = world.rank();
    int p = world.size();
    return Win.allocate(world, size, 1, Info.NULL).compose(win -> {
      int peers = onNodePeers(win);
      return win.lockAll().compose(v -> {
        Future<Void> all = Future.succeededFuture();
        for (int t = 0; t < p; t++) {
          if (t == me) {
            continue;
          }
          int target = t;
          all = all.compose(x -> win.put(Buf.of(new long[] {1000L + me}), 0, 1, Datatype.LONG, target, 8L * me))
              .compose(x -> win.put(Buf.of(new long[] {2000L + me}), 0, 1, Datatype.LONG, target, size - 8L * (me + 1)));
        }
        return all;
      }).compose(v -> win.unlockAll()).compose(v -> world.barrier()).map(v -> {
        for (int o = 0; o < p; o++) {
          if (o != me) {
            check(win.memory().readLong(8L * o) == 1000L + o, "rank " + o + "'s first put at rank " + me);
            check(win.memory().readLong(size - 8L * (o + 1)) == 2000L + o, "rank " + o + "'s last put at rank " + me);
          }
        }
        return peers;
      }).compose(n -> win.free().map(n));
    });
  }

  private static int onNodePeers(Win win) {
    try {
      java.lang.reflect.Method m = win.getClass().getDeclaredMethod("onNodePeers");
      m.setAccessible(true);
      return (Integer) m.invoke(win);
    } catch (ReflectiveOperationException e) {
      return -1;
    }
  }

  private static Future<?> shared(Comm world, long total) {
    int me = world.rank();
    int p = world.size();
    long mine = total / p & ~7L;
    return Win.allocateShared(world, mine, 8, Info.NULL).compose(win -> win.sharedQuery(me).compose(seg -> {
      for (long at = 0; at < mine; at += 4096) {
        seg.memory().writeLong(at, at + me); // every page of this rank's segment
      }
      seg.memory().writeLong(mine - 8, -1L - me);
      return win.lockAll().compose(v -> win.sync()).compose(v -> world.barrier()).compose(v -> win.sync());
    }).compose(v -> {
      Future<Void> all = Future.succeededFuture();
      for (int r = 0; r < p; r++) {
        int owner = r;
        all = all.compose(x -> win.sharedQuery(owner).map(seg -> {
          check(seg.memory().readLong(0) == owner, "first long of rank " + owner + "'s segment");
          check(seg.memory().readLong(mine - 8) == -1L - owner, "last long of rank " + owner + "'s segment");
          return null;
        }));
      }
      return all;
    }).compose(v -> win.unlockAll()).compose(v -> world.barrier()).compose(v -> win.free()).map(v -> {
      System.out.println(PREFIX + me + " shared verified");
      return null;
    })).recover(e -> {
      if (e instanceof RmaException && ((RmaException) e).errorClass() == ErrorClass.NO_MEM) {
        System.out.println(PREFIX + me + " shared failed: " + e.getMessage());
        return Future.succeededFuture();
      }
      return Future.failedFuture(e);
    });
  }

  private static Future<?> hold(Comm world) {
    int me = world.rank();
    return world.dup().compose(comm -> {
      if (me < world.size() - 1) {
        comm.barrier();
      }
      if (me == 0) {
        Win.allocate(world, 1 << 20, 1, Info.NULL);
        String job = ((dev.vertxrma.impl.comm.CommImpl) world).process().job().jobName();
        dev.vertxrma.impl.memory.SharedMapping.createFile(dev.vertxrma.impl.memory.SharedMapping.fileName(
            dev.vertxrma.impl.memory.SharedMapping.SHARED_PREFIX, job), 1 << 16, "shared window");
      }
      System.out.println(PREFIX + me + " holds");
      return io.vertx.core.Promise.promise().future(); // never: the test kills the job
    });
  }

  private static Future<?> comms(Comm world, int count) {
    int me = world.rank();
    int p = world.size();
    Future<Void> all = Future.succeededFuture();
    java.util.List<Future<Comm>> made = new java.util.ArrayList<>();
    for (int k = 0; k < count; k++) {
      made.add(world.dup()); // issued back to back: their first barriers make their pages at once
    }
    for (int k = 0; k < count; k++) {
      int round = k;
      Future<Comm> c = made.get(k);
      all = all.compose(x -> c.compose(comm -> comm.barrier()
          .compose(v -> comm.allreduce((long) me + round, Op.SUM))
          .map(sum -> {
            check(sum == (long) p * (p - 1) / 2 + (long) p * round, "allreduce on communicator " + round);
            return null;
          })
          .compose(v -> {
            long[] b = {me == round % p ? 77L + round : 0};
            return comm.bcast(Buf.of(b), 0, 1, Datatype.LONG, round % p).map(x2 -> {
              check(b[0] == 77L + round, "bcast on communicator " + round);
              return null;
            });
          })
          .compose(v -> comm.barrier())
          .compose(v -> comm.free())));
    }
    return all.compose(v -> windows(world, 8192)).map(v -> {
      System.out.println(PREFIX + me + " comms verified");
      return null;
    });
  }
}
