// A computation that outlives one of its ranks, in MPI's own form (ULFM: User-Level Failure
// Mitigation, MPI 5's MPI_Comm_revoke, MPI_Comm_shrink, MPI_Comm_get_failed): heat diffusion in a
// 1-D rod, every rank a block of points, with buddy checkpoints in RMA windows.
//
//   * Every iteration exchanges the block's edge points with the neighbours (MPI_Sendrecv) and
//     relaxes every point: u'[g] = u[g] + ALPHA (u[g-1] - 2 u[g] + u[g+1]).
//   * Every EVERY iterations each rank checkpoints its block: a copy of its own, and a copy in
//     its buddy's window (MPI_Win_lock(SHARED, buddy), MPI_Put, MPI_Win_unlock: complete at the
//     buddy when unlock completes). The buddy of rank r is r + 1, that of the last rank the one
//     before it, so the buddy of a dead rank is one of its neighbours. An allreduce that follows
//     commits the checkpoint: once it completed anywhere, every rank's checkpoint is complete at
//     its buddy. Two slots per writer in the buddy's window, alternating, so that a checkpoint
//     being written never spoils the last committed one.
//   * With --die RANK --at ITER, rank RANK kills its own JVM (SIGKILL, as kill -9 would; it must
//     be alone in its JVM: bin/rmarun --jvms N) when it is about to compute iteration ITER.
//   * The survivors notice: a call that needs the dead rank fails with PROC_FAILED (a halo
//     exchange with it, the commit's allreduce), or REVOKED once another survivor revoked the
//     communicator. Each survivor then revokes it (so that no survivor keeps waiting on it),
//     shrinks it (MPI_Comm_shrink: the survivors, in their order), learns who died, and agrees
//     with the others (an allreduce over the shrunken communicator) on the last committed
//     checkpoint. Every survivor rolls its block back to that checkpoint from its own copy, and
//     the dead rank's buddy adopts the dead rank's block from its window (the old window is read,
//     then freed). A new window is made over the shrunken communicator, the restored state is
//     checkpointed there at once (so a later death can be survived too), and the iteration goes on
//     with fewer ranks, a buddy holding two blocks.
//   * At the end rank 0 gathers the rod (MPI_Gatherv) and compares it with the same iterations
//     run sequentially: every point is computed by the same expression from the same operands,
//     so the results must agree bit for bit. It prints a line with "verified" only then.
//
// Usage: bin/rmarun -np N [--jvms N --on-failure continue] resilient-heat [--points P] [--iters K]
//            [--every C] [--die RANK --at ITER]       (defaults P = 16 per rank, K = 40, C = 3)
//        bin/rmarun -np 4 --jvms 4 --on-failure continue resilient-heat --die 2 --at 5
// Without --die it runs, checkpoints and verifies as well (no rank dies, nothing is restored).
package dev.vertxrma.samples.resilience;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.openhft.chronicle.bytes.BytesStore;

/** Heat diffusion in a rod that survives the death of a rank: buddy checkpoints in windows, revoke, shrink, restore. */
public final class ResilientHeat implements RankProgram {

  static final String NAME = "resilient-heat";
  /** Temperature held at the left end of the rod (g = -1). */
  static final double LEFT_END = 1.0;
  /** Temperature held at the right end (g = N). */
  static final double RIGHT_END = 0.5;
  /** The diffusion number of the explicit step (stable up to 1/2). */
  static final double ALPHA = 0.4;
  /** Words of a checkpoint slot's header: the iteration, the first and end point, the writer's world rank. */
  static final int HEADER = 4;
  private static final int TAG_LEFTWARD = 1;
  private static final int TAG_RIGHTWARD = 2;

  /** The world ranks of each job running in this JVM: a rank that is told to die must be alone in its JVM. */
  private static final Map<String, Set<Integer>> RANKS_HERE = new ConcurrentHashMap<>();

  // ---- arguments
  private int perRank = 16;
  private int iters = 40;
  private int every = 3;
  private int dieRank = -1;
  private int dieAt = -1;

  // ---- this rank's state
  private Comm world;
  private int total;
  /** The communicator the iteration runs on: the world, then each shrunken one. */
  private Comm comm;
  /** The world rank of each rank of {@link #comm}. */
  private int[] worldOf;
  /** The points this rank owns, [lo, hi). */
  private int lo;
  private int hi;
  /** The block with its two halos (u[0] left of lo, u[n + 1] right of hi - 1), and the next iterate. */
  private double[] u;
  private double[] next;
  /** Iterations done. */
  private int step;
  /** The last checkpoint committed in {@link #window}, -1 for none. */
  private int committed = -1;
  /** This rank's own copy of its checkpoints: the two slots, as in the window. */
  private final Saved[] saved = new Saved[2];
  /** The checkpoint window of {@link #comm}. */
  private Win window;
  /** Words of data per slot of {@link #window}: the largest block of any rank. */
  private int capacity;
  /** What the recoveries did, for the final line. */
  private final List<String> recoveries = new ArrayList<>();

  /** A checkpoint kept by its own rank: the iteration, the points and their values. */
  private record Saved(int step, int lo, int hi, double[] values) {
  }

  @Override
  public Future<?> run(Comm world, List<String> args) {
    parse(world, args);
    this.world = world;
    this.total = perRank * world.size();
    this.comm = world;
    this.worldOf = new int[world.size()];
    for (int r = 0; r < worldOf.length; r++) {
      worldOf[r] = r;
    }
    this.lo = world.rank() * perRank;
    this.hi = lo + perRank;
    this.u = new double[perRank + 2];
    for (int i = 0; i <= perRank + 1; i++) {
      u[i] = initial(lo + i - 1);
    }
    this.next = new double[perRank + 2];
    RANKS_HERE.computeIfAbsent(world.jobName(), k -> ConcurrentHashMap.newKeySet()).add(world.rank());
    // every rank registers before the barrier; after it, the rank told to die knows whether it is alone here
    return world.barrier().compose(v -> {
      Set<Integer> here = RANKS_HERE.get(world.jobName());
      if (world.rank() == dieRank && here.size() > 1) {
        return Future.failedFuture(RmaException.of(ErrorClass.ARG, "%s: --die %d needs rank %d alone in its JVM "
            + "(bin/rmarun -np %d --jvms %d --on-failure continue ...); ranks %s share this one", NAME, dieRank,
            dieRank, world.size(), world.size(), here));
      }
      return Future.succeededFuture();
    }).compose(v -> newWindow())
        .compose(v -> checkpoint(0))
        .compose(v -> Rma.repeatUntil(this::stepOrRecover))
        .compose(v -> verify())
        .eventually(() -> {
          RANKS_HERE.computeIfPresent(world.jobName(), (k, s) -> {
            s.remove(world.rank());
            return s.isEmpty() ? null : s;
          });
          return Future.succeededFuture();
        });
  }

  private void parse(Comm world, List<String> args) {
    String usage = NAME + ": usage " + NAME + " [--points P (>= 1)] [--iters K (>= 0)] [--every C (>= 1)] "
        + "[--die RANK --at ITER (1 <= ITER <= K)], got " + args;
    try {
      for (int i = 0; i < args.size(); i += 2) {
        if (i + 1 >= args.size()) {
          throw new RmaException(ErrorClass.ARG, usage);
        }
        int value = Integer.parseInt(args.get(i + 1));
        switch (args.get(i)) {
          case "--points" -> perRank = value;
          case "--iters" -> iters = value;
          case "--every" -> every = value;
          case "--die" -> dieRank = value;
          case "--at" -> dieAt = value;
          default -> throw new RmaException(ErrorClass.ARG, usage);
        }
      }
    } catch (NumberFormatException e) {
      throw new RmaException(ErrorClass.ARG, usage);
    }
    if (perRank < 1 || iters < 0 || every < 1 || (long) perRank * world.size() > Integer.MAX_VALUE / 16
        || (dieRank >= 0) != (dieAt >= 0) || dieRank >= world.size() || dieAt == 0 || dieAt > iters) {
      throw new RmaException(ErrorClass.ARG, usage);
    }
    if (dieRank >= 0 && world.size() < 2) {
      throw new RmaException(ErrorClass.ARG, NAME + ": --die needs at least 2 ranks, one to survive");
    }
  }

  // ------------------------------------------------------------------ the stencil

  /** The initial temperature at global point {@code g} in [-1, N]: the fixed ends, a rough profile inside. */
  private double initial(int g) {
    if (g < 0) {
      return LEFT_END;
    }
    if (g >= total) {
      return RIGHT_END;
    }
    return ((37 * g) % 11) / 10.0;
  }

  /** One explicit step at one point: the only place the parallel and sequential runs compute a value. */
  static double relax(double left, double centre, double right) {
    return centre + ALPHA * (left - 2 * centre + right);
  }

  // ------------------------------------------------------------------ the iteration

  /**
   * One iteration, or a recovery when it fails for a dead rank; after the last iteration, the
   * rod gathered at rank 0 and an agreement that every survivor got there: {@code true} then.
   *
   * <p>Every survivor must enter a recovery's shrink, and in the same order of collective calls:
   * so a failed iteration and a failed gathering both revoke the communicator and then join one
   * agreement (MPI_Comm_agree) before the shrink: a survivor that finished its part of the
   * gathering (a non-root's part of a gatherv completes once it is sent) learns there that
   * another did not, and recovers with it instead of leaving it alone in the shrink.
   */
  private Future<Boolean> stepOrRecover() {
    if (step >= iters) {
      return gather().transform(ar -> {
        if (ar.failed() && !isFailure(ar.cause())) {
          return Future.failedFuture(ar.cause());
        }
        Future<Void> revoked = ar.succeeded() ? Future.succeededFuture() : noticedAndRevoked(ar.cause());
        return revoked.compose(v -> comm.agree(ar.succeeded() ? 1 : 0))
            .compose(all -> all == 1 ? Future.succeededFuture(true) : recover().map(false));
      });
    }
    if (worldOf[comm.rank()] == dieRank && step + 1 == dieAt) {
      die();
    }
    return iteration().map(false).recover(e -> {
      if (!isFailure(e)) {
        return Future.failedFuture(e);
      }
      return noticedAndRevoked(e).compose(v -> comm.agree(0)).compose(v -> recover()).map(false);
    });
  }

  /** Says what this rank noticed and revokes the communicator, so that no survivor keeps waiting on it. */
  private Future<Void> noticedAndRevoked(Throwable e) {
    System.out.printf("%s: rank %d noticed a failure %s: %s%n", NAME, world.rank(),
        step >= iters ? "gathering the result" : "in iteration " + (step + 1), e.getMessage());
    return comm.revoke().recover(x -> Future.succeededFuture()); // revoked by another survivor meanwhile: the same
  }

  /** Whether {@code e} says that a rank died or that a survivor revoked the communicator for that reason. */
  private static boolean isFailure(Throwable e) {
    return e instanceof RmaException && (((RmaException) e).errorClass() == ErrorClass.PROC_FAILED
        || ((RmaException) e).errorClass() == ErrorClass.REVOKED);
  }

  /** The rank told to die kills its JVM: SIGKILL from outside, as kill -9 would (else halt, status 137 as for SIGKILL). */
  private void die() {
    System.out.printf("%s: rank %d dies now, before iteration %d (kill -9 of its own JVM, pid %d)%n", NAME,
        world.rank(), step + 1, ProcessHandle.current().pid());
    System.out.flush();
    try {
      new ProcessBuilder("kill", "-KILL", String.valueOf(ProcessHandle.current().pid())).start().waitFor();
    } catch (Exception e) {
      // no kill command: the same end, without the signal
    }
    Runtime.getRuntime().halt(137);
  }

  /** The halo exchange with both neighbours, the relaxation, and a checkpoint every {@link #every} iterations. */
  private Future<Void> iteration() {
    int n = hi - lo;
    int me = comm.rank();
    int left = me > 0 ? me - 1 : Comm.PROC_NULL;
    int right = me < comm.size() - 1 ? me + 1 : Comm.PROC_NULL;
    // my first point to the left neighbour, its right halo from the right neighbour; and the mirror
    Future<?> leftward = comm.sendrecv(Buf.of(u), 1, 1, Datatype.DOUBLE, left, TAG_LEFTWARD,
        Buf.of(u), n + 1, 1, Datatype.DOUBLE, right, TAG_LEFTWARD);
    Future<?> rightward = comm.sendrecv(Buf.of(u), n, 1, Datatype.DOUBLE, right, TAG_RIGHTWARD,
        Buf.of(u), 0, 1, Datatype.DOUBLE, left, TAG_RIGHTWARD);
    return Future.all(leftward, rightward).compose(v -> {
      if (lo == 0) {
        u[0] = LEFT_END;
      }
      if (hi == total) {
        u[n + 1] = RIGHT_END;
      }
      for (int i = 1; i <= n; i++) {
        next[i] = relax(u[i - 1], u[i], u[i + 1]);
      }
      double[] t = u;
      u = next;
      next = t;
      step++;
      return step % every == 0 && step < iters ? checkpoint(step) : Future.succeededFuture();
    });
  }

  // ------------------------------------------------------------------ checkpoints

  /** The buddy of rank {@code r} of {@link #comm}: the next rank, the one before for the last; -1 alone. */
  private int buddyOf(int r) {
    int size = comm.size();
    return size == 1 ? -1 : r < size - 1 ? r + 1 : r - 1;
  }

  /**
   * The first word of slot {@code slot} for the checkpoints of rank {@code writer} in the window of
   * rank {@code holder}: a rank holds the checkpoints of its left neighbour and, when it is the last
   * rank's left neighbour, of the last rank too; each writer has its own two slots.
   */
  private long slotBase(int writer, int holder, int slot) {
    int side = writer < holder ? 0 : 1;
    return (long) (2 * side + slot) * (HEADER + capacity);
  }

  /** Makes the checkpoint window of {@link #comm}: two slots for each of two writers, each big enough for the largest block. */
  private Future<Void> newWindow() {
    return comm.allreduce((long) (hi - lo), Op.MAX).compose(max -> {
      capacity = max.intValue();
      return Win.allocate(comm, 4 * (HEADER + (long) capacity) * Long.BYTES, Long.BYTES, Info.NULL);
    }).map(w -> {
      window = w;
      committed = -1;
      return null;
    });
  }

  /**
   * Checkpoint of iteration {@code s}: this rank's block into its own slot and into its buddy's
   * window (complete there when the unlock completes), then committed by an allreduce of every
   * rank: once that completed at any rank, every rank's checkpoint {@code s} is at its buddy.
   */
  private Future<Void> checkpoint(int s) {
    int slot = (s / every) % 2;
    int n = hi - lo;
    saved[slot] = new Saved(s, lo, hi, Arrays.copyOfRange(u, 1, n + 1));
    int buddy = buddyOf(comm.rank());
    Future<Void> stored = buddy < 0 ? Future.succeededFuture()
        : window.lock(LockType.SHARED, buddy)
            .compose(v -> window.put(Buf.of(new long[] {s, lo, hi, worldOf[comm.rank()]}), 0, HEADER, Datatype.LONG,
                buddy, slotBase(comm.rank(), buddy, slot), HEADER, Datatype.LONG))
            .compose(v -> window.put(Buf.of(u), 1, n, Datatype.DOUBLE, buddy,
                slotBase(comm.rank(), buddy, slot) + HEADER, n, Datatype.DOUBLE))
            .compose(v -> window.unlock(buddy));
    return stored.compose(v -> comm.allreduce((long) s, Op.MIN)).map(min -> {
      committed = s;
      return null;
    });
  }

  // ------------------------------------------------------------------ recovery

  /**
   * After a failure of {@link #comm} (revoked, and agreed to recover): shrink it, find out who
   * died, agree on the last committed checkpoint, roll back to it (the dead ranks' blocks from their buddies' windows),
   * make a new window over the survivors and checkpoint the restored state there.
   */
  private Future<Void> recover() {
    long began = System.nanoTime();
    Comm old = comm;
    int[] oldWorldOf = worldOf;
    int oldRank = old.rank();
    return old.shrink()
        .compose(shrunk -> {
          // who survived: each survivor's rank in the old communicator, in the new one's order
          int[] survivors = new int[shrunk.size()];
          return shrunk.allgather(Buf.of(new int[] {oldRank}), 0, 1, Datatype.INT, Buf.of(survivors), 0, 1, Datatype.INT)
              .compose(v -> shrunk.allreduce((long) committed, Op.MAX))
              .compose(agreed -> restore(old, oldWorldOf, shrunk, survivors, agreed.intValue(), began));
        });
  }

  private Future<Void> restore(Comm old, int[] oldWorldOf, Comm shrunk, int[] survivors, int restored, long began) {
    boolean[] alive = new boolean[old.size()];
    for (int r : survivors) {
      alive[r] = true;
    }
    List<Integer> dead = new ArrayList<>();
    for (int r = 0; r < old.size(); r++) {
      if (!alive[r]) {
        dead.add(r);
      }
    }
    if (restored < 0) {
      return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "%s: ranks %s died before a checkpoint of the "
          + "current layout was committed: nothing to restore", NAME, worldRanks(oldWorldOf, dead)));
    }
    int slot = (restored / every) % 2;
    Saved mine = saved[slot];
    if (mine == null || mine.step() != restored) {
      return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "%s: rank %d holds no copy of checkpoint %d",
          NAME, world.rank(), restored));
    }
    // my own block from my copy; each dead neighbour's whose buddy I am from my window
    int newLo = mine.lo();
    int newHi = mine.hi();
    double[] values = mine.values();
    StringBuilder adopted = new StringBuilder();
    BytesStore<?, ?> memory = window.memory();
    for (int d : dead) {
      if (!alive[buddyOfIn(old.size(), d)]) {
        return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "%s: rank %d and its buddy rank %d both died: "
            + "rank %d's checkpoint is lost", NAME, oldWorldOf[d], oldWorldOf[buddyOfIn(old.size(), d)],
            oldWorldOf[d]));
      }
      if (buddyOfIn(old.size(), d) != old.rank()) {
        continue;
      }
      long base = slotBase(d, old.rank(), slot) * Long.BYTES;
      long theirStep = memory.readLong(base);
      int dLo = (int) memory.readLong(base + 8);
      int dHi = (int) memory.readLong(base + 16);
      long writer = memory.readLong(base + 24);
      if (theirStep != restored || writer != oldWorldOf[d] || dHi - dLo > capacity || !(dHi == newLo || dLo == newHi)) {
        return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "%s: the checkpoint rank %d holds for rank %d "
            + "is of iteration %d, points [%d, %d), written by rank %d: expected iteration %d next to [%d, %d)", NAME,
            world.rank(), oldWorldOf[d], theirStep, dLo, dHi, writer, restored, newLo, newHi));
      }
      double[] theirs = new double[dHi - dLo];
      for (int i = 0; i < theirs.length; i++) {
        theirs[i] = memory.readDouble(base + (HEADER + i) * 8L);
      }
      values = dLo == newHi ? concat(values, theirs) : concat(theirs, values);
      newLo = Math.min(newLo, dLo);
      newHi = Math.max(newHi, dHi);
      adopted.append(adopted.length() == 0 ? "" : ", ").append("rank ").append(oldWorldOf[d]).append("'s points ")
          .append(dLo).append("..").append(dHi - 1);
    }
    int lost = step - restored;
    int[] newWorldOf = new int[survivors.length];
    for (int i = 0; i < survivors.length; i++) {
      newWorldOf[i] = oldWorldOf[survivors[i]];
    }
    List<Integer> deadWorld = worldRanks(oldWorldOf, dead);
    if (adopted.length() > 0) {
      System.out.printf("%s: rank %d adopts %s from the checkpoint of iteration %d in its window%n", NAME,
          world.rank(), adopted, restored);
    }
    // the state of iteration `restored`, in the new layout
    lo = newLo;
    hi = newHi;
    u = new double[hi - lo + 2];
    next = new double[hi - lo + 2];
    System.arraycopy(values, 0, u, 1, values.length);
    step = restored;
    Win oldWindow = window;
    comm = shrunk;
    worldOf = newWorldOf;
    // the old window and the old communicator (unless it is the world) are freed: ULFM lets
    // MPI_Win_free and MPI_Comm_free of a revoked communicator complete at each survivor
    return oldWindow.free()
        .compose(v -> old == world ? Future.succeededFuture() : old.free())
        .compose(v -> newWindow())
        .compose(v -> checkpoint(restored))
        .map(v -> {
          String what = String.format("rank(s) %s died; %d survivors restored iteration %d (%d iteration(s) to do again) "
              + "and went on", deadWorld, survivors.length, restored, lost);
          recoveries.add(what);
          if (comm.rank() == 0) {
            System.out.printf("%s: %s, recovered in %d ms (revoke, shrink, restore, new window, checkpoint)%n", NAME,
                what, (System.nanoTime() - began) / 1_000_000);
          }
          return null;
        });
  }

  private static int buddyOfIn(int size, int r) {
    return r < size - 1 ? r + 1 : r - 1;
  }

  private static List<Integer> worldRanks(int[] worldOf, List<Integer> ranks) {
    List<Integer> w = new ArrayList<>();
    for (int r : ranks) {
      w.add(worldOf[r]);
    }
    return w;
  }

  private static double[] concat(double[] a, double[] b) {
    double[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  // ------------------------------------------------------------------ verification

  /** The blocks' first points and sizes, and the rod, gathered by {@link #gather} (the rod at rank 0 only). */
  private int[] gatheredLos;
  private int[] gatheredCounts;
  private double[] gathered;

  /** Rank 0 of {@link #comm} gathers the rod (MPI_Gatherv), every rank the blocks' places. */
  private Future<Void> gather() {
    int n = hi - lo;
    int size = comm.size();
    int[] los = new int[size];
    int[] counts = new int[size];
    double[] all = new double[comm.rank() == 0 ? total : 0];
    return comm.allgather(Buf.of(new int[] {lo}), 0, 1, Datatype.INT, Buf.of(los), 0, 1, Datatype.INT)
        .compose(v -> comm.allgather(Buf.of(new int[] {n}), 0, 1, Datatype.INT, Buf.of(counts), 0, 1, Datatype.INT))
        .compose(v -> comm.gatherv(Buf.of(u), 1, n, Datatype.DOUBLE, Buf.of(all), 0, counts, los, Datatype.DOUBLE, 0))
        .map(v -> {
          gatheredLos = los;
          gatheredCounts = counts;
          gathered = all;
          return null;
        });
  }

  /** After the agreement that the rod was gathered: frees the window (and a shrunken communicator), rank 0 checks. */
  private Future<Void> verify() {
    boolean root = comm.rank() == 0;
    return window.free()
        .compose(v -> comm == world ? Future.succeededFuture() : comm.free())
        .compose(v -> root ? compare(gathered, gatheredLos, gatheredCounts) : Future.succeededFuture());
  }

  private Future<Void> compare(double[] all, int[] los, int[] counts) {
    int covered = 0;
    for (int r = 0; r < los.length; r++) {
      if (los[r] != covered) {
        return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "%s: rank %d of %d holds points from %d, "
            + "expected %d: the blocks do not tile the rod", NAME, r, los.length, los[r], covered));
      }
      covered += counts[r];
    }
    if (covered != total) {
      return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "%s: the blocks cover %d points of %d", NAME,
          covered, total));
    }
    double[] a = new double[total + 2];
    double[] b = new double[total + 2];
    for (int g = -1; g <= total; g++) {
      a[g + 1] = initial(g);
    }
    b[0] = a[0];
    b[total + 1] = a[total + 1];
    for (int k = 0; k < iters; k++) {
      for (int i = 1; i <= total; i++) {
        b[i] = relax(a[i - 1], a[i], a[i + 1]);
      }
      double[] t = a;
      a = b;
      b = t;
    }
    for (int g = 0; g < total; g++) {
      if (Double.doubleToLongBits(all[g]) != Double.doubleToLongBits(a[g + 1])) {
        return Future.failedFuture(RmaException.of(ErrorClass.OTHER, "%s: point %d after %d iterations is %s, the "
            + "sequential run's %s", NAME, g, iters, all[g], a[g + 1]));
      }
    }
    System.out.printf("%s: verified %d points after %d iterations over %d of %d ranks (%s), bit-identical to the "
        + "sequential run%n", NAME, total, iters, los.length, world.size(),
        recoveries.isEmpty() ? "no rank died" : String.join("; ", recoveries));
    return Future.succeededFuture();
  }
}
