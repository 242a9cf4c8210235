package dev.vertxrma.runtime;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.List;

/**
 * The failure tests' job ({@code FaultsTest}, {@code MultiHostTest}): one round of the soak's
 * kinds of traffic over three windows (fence puts and accumulates, accumulates and a flush under
 * lockAll, an exclusive-lock increment), then rank R stops at a known point, prints
 * {@code "fault-points: rank R holds ..."} and waits for ever, so that a test can kill or stop its
 * JVM in a known state. Usage: {@code rmarun -np N dev.vertxrma.runtime.FaultPoints --hold-at
 * fence|lock|flush|pscw [--hold-rank R] [--recover]} (R defaults to the last rank; for
 * {@code --recover}, a job that goes on after a death, see {@link #recover}):
 *
 * <ul>
 *   <li>{@code fence}: R never enters the next fence; the others put to every rank and wait in it;</li>
 *   <li>{@code lock}: R holds an exclusive lock on rank 0's lock window; the others wait to get it;</li>
 *   <li>{@code flush}: the others put to R and flush, over and over, while R does nothing;</li>
 *   <li>{@code pscw}: the others expose their fence window to R and start an access epoch on it,
 *       and wait for R's complete and post, which never come (on one host, in their control
 *       pages, parked after a short poll).</li>
 * </ul>
 *
 * <p>Test code only: the {@code soak} sample has no such points.
 */
public final class FaultPoints extends RankVerticle {

  private static final List<String> POINTS = List.of("fence", "lock", "flush", "pscw");

  private int np;
  private int rank;
  private Win fenceWin;
  private Win counterWin;
  private Win lockWin;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    np = world.size();
    rank = world.rank();
    String point = null;
    int holder = np - 1;
    boolean recover = false;
    try {
      for (int i = 0; i < args.size(); i++) {
        switch (args.get(i)) {
          case "--hold-at":
            point = args.get(++i);
            break;
          case "--hold-rank":
            holder = Integer.parseInt(args.get(++i));
            break;
          case "--recover":
            recover = true;
            break;
          default:
            throw new IllegalArgumentException("unknown argument " + args.get(i));
        }
      }
      if (!POINTS.contains(point) || holder < 0 || holder >= np) {
        throw new IllegalArgumentException("bad value");
      }
    } catch (RuntimeException e) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "fault-points: usage --hold-at fence|lock|flush|pscw "
          + "[--hold-rank R] with 0 <= R < np=%d; got %s (%s)", np, args, e.getMessage()));
    }
    String at = point;
    int r = holder;
    boolean goOn = recover;
    return Win.allocate(world, (long) np * Long.BYTES, Long.BYTES, Info.NULL)
        .compose(w -> {
          fenceWin = w;
          return Win.allocate(world, Long.BYTES, Long.BYTES, Info.NULL);
        })
        .compose(w -> {
          counterWin = w;
          return Win.allocate(world, Long.BYTES, Long.BYTES, Info.NULL);
        })
        .compose(w -> {
          lockWin = w;
          return Future.all(fenceWin.fence(Mode.NOPRECEDE), counterWin.lockAll());
        })
        .compose(v -> Future.all(fenceRound(), counterRound(), lockRound()))
        .compose(v -> world.barrier())
        .compose(v -> goOn ? recover(world, at, r) : hold(world, at, r));
  }

  /**
   * With {@code --recover} (a job run with {@code --on-failure continue}): the survivors wait at
   * the point as without it until the holder's JVM dies, then print how their wait ended
   * ({@code "fault-points: rank R went on after the death: ..."}), shrink the world to the
   * survivors, make a window over it, put to every survivor in a fence epoch, check every slot
   * and print {@code "fault-points: rank R recovered on N ranks"}.
   */
  private Future<Void> recover(Comm world, String point, int holder) {
    Future<Void> waited = point.equals("lock") && rank != holder
        // the dead holder's lock is given up: the survivors get it in turn
        ? world.barrier().compose(v -> lockWin.lock(LockType.EXCLUSIVE, 0)).compose(v -> lockWin.unlock(0))
        : hold(world, point, holder);
    return waited.transform(ar -> {
      System.out.println("fault-points: rank " + rank + " went on after the death: " + (ar.succeeded() ? "its wait "
          + "completed" : ar.cause().getMessage()));
      System.out.flush();
      if (ar.failed() && !(ar.cause() instanceof RmaException
          && ((RmaException) ar.cause()).errorClass() == ErrorClass.PROC_FAILED)) {
        return Future.failedFuture(ar.cause());
      }
      return world.shrink();
    }).compose(survivors -> Win.allocate(survivors, (long) survivors.size() * Long.BYTES, Long.BYTES, Info.NULL)
        .compose(w -> w.fence(Mode.NOPRECEDE).compose(v -> {
          long[] mine = {100L + survivors.rank()};
          for (int t = 0; t < survivors.size(); t++) {
            w.put(Buf.of(mine), 0, 1, Datatype.LONG, t, survivors.rank());
          }
          return w.fence();
        }).compose(v -> {
          for (int s = 0; s < survivors.size(); s++) {
            long got = w.memory().readLong((long) s * Long.BYTES);
            if (got != 100L + s) {
              return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "fault-points: after the shrink rank %d's "
                  + "slot %d holds %d, expected %d", survivors.rank(), s, got, 100L + s));
            }
          }
          System.out.println("fault-points: rank " + rank + " recovered on " + survivors.size() + " ranks");
          System.out.flush();
          return w.free();
        })));
  }

  /** Each rank puts its rank + 1 into its slot at every rank; the fence that ends the round checks them. */
  private Future<Void> fenceRound() {
    long[] mine = {rank + 1L};
    for (int t = 0; t < np; t++) {
      fenceWin.put(Buf.of(mine), 0, 1, Datatype.LONG, t, rank);
    }
    return fenceWin.fence().compose(v -> {
      for (int s = 0; s < np; s++) {
        long got = fenceWin.memory().readLong((long) s * Long.BYTES);
        if (got != s + 1L) {
          return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "fault-points: rank %d's fence-window slot %d "
              + "holds %d after the fence, rank %d put %d", rank, s, got, s, s + 1L));
        }
      }
      return Future.succeededFuture();
    });
  }

  private Future<Void> counterRound() {
    long[] one = {1};
    for (int t = 0; t < np; t++) {
      counterWin.accumulate(Buf.of(one), 0, 1, Datatype.LONG, t, 0, Op.SUM);
    }
    return counterWin.flushAll();
  }

  private Future<Void> lockRound() {
    int t = (rank + 1) % np;
    long[] value = new long[1];
    return lockWin.lock(LockType.EXCLUSIVE, t)
        .compose(v -> {
          lockWin.get(Buf.of(value), 0, 1, Datatype.LONG, t, 0);
          return lockWin.flush(t);
        })
        .compose(v -> {
          value[0]++;
          lockWin.put(Buf.of(value), 0, 1, Datatype.LONG, t, 0);
          return lockWin.unlock(t);
        });
  }

  /** The holder stops in a known state; the others go on into it. */
  private Future<Void> hold(Comm world, String point, int holder) {
    boolean me = rank == holder;
    switch (point) {
      case "fence":
        if (me) {
          return holdForever("holds before the first fence after the warm-up round");
        }
        return fenceRound();
      case "lock":
        if (me) {
          return lockWin.lock(LockType.EXCLUSIVE, 0).compose(v -> world.barrier())
              .compose(v -> holdForever("holds an exclusive lock on rank 0"));
        }
        return world.barrier().compose(v -> lockWin.lock(LockType.EXCLUSIVE, 0));
      case "pscw":
        if (me) {
          return world.barrier().compose(v -> holdForever("holds while the others wait for its post and complete"));
        }
        return world.barrier().compose(v -> {
          dev.vertxrma.Group holderOnly = world.group().incl(holder);
          Future<Void> exposed = fenceWin.post(holderOnly).compose(x -> fenceWin.waitFor());
          Future<Void> access = fenceWin.start(holderOnly).compose(x -> fenceWin.complete());
          return Future.all(exposed, access).mapEmpty();
        });
      default: // flush
        if (me) {
          return world.barrier().compose(v -> holdForever("holds while the others put and flush to it"));
        }
        return world.barrier().compose(v -> flushForever(holder));
    }
  }

  private Future<Void> holdForever(String what) {
    System.out.println("fault-points: rank " + rank + " " + what);
    System.out.flush();
    return Promise.<Void>promise().future();
  }

  private Future<Void> flushForever(int target) {
    long[] one = {1};
    counterWin.put(Buf.of(one), 0, 1, Datatype.LONG, target, 0);
    return counterWin.flush(target).compose(v -> flushForever(target));
  }
}
