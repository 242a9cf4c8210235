// Follows the MPI standard, one-sided chapter, section "Examples": "The following example
// demonstrates the proper synchronization in the unified memory model when a data transfer is
// implemented with load and store accesses in the case of windows in shared memory (instead of
// using MPI_PUT or MPI_GET) and the synchronization between MPI processes is performed using
// point-to-point communication. The synchronization between MPI processes must be supplemented
// with a memory synchronization through calls to MPI_WIN_SYNC, which act locally as a
// processor-memory barrier." The figure (the Fortran MPI_F_SYNC_REG calls have no Java
// counterpart and are left out, as the text allows for C):
//
//     Process A                            Process B
//     MPI_WIN_LOCK_ALL(                    MPI_WIN_LOCK_ALL(
//       MPI_MODE_NOCHECK,win)                MPI_MODE_NOCHECK,win)
//     DO ...                               DO ...
//       X=...
//       MPI_WIN_SYNC(win)
//       MPI_SEND                             MPI_RECV
//                                            MPI_WIN_SYNC(win)
//                                            print X
//                                            MPI_WIN_SYNC(win)
//       MPI_RECV                             MPI_SEND
//       MPI_WIN_SYNC(win)
//     END DO                               END DO
//     MPI_WIN_UNLOCK_ALL(win)              MPI_WIN_UNLOCK_ALL(win)
//
// The window comes from MPI_WIN_ALLOCATE_SHARED (Win.allocateShared); each rank finds its peer's
// segment with MPI_WIN_SHARED_QUERY (Win.sharedQuery). X is W longs in A's segment, stored by A
// through its own window memory and loaded by B through the shared query of A's segment. The
// example also runs the reverse direction in the same round: after loading X, B stores Y (W longs
// in its own segment), MPI_WIN_SYNC, and its MPI_SEND tells A that Y is ready; A receives,
// MPI_WIN_SYNC, loads Y through the shared query of B's segment. Each round stores new values,
// and every loaded value is checked; the messages carry the round number, which is checked too.
//
// Ranks are paired (0,1), (2,3), ...: the even rank of a pair is A, the odd one B, so any even
// number of ranks works (all of them on one host: a shared-memory window needs that).
//
// Usage: rmarun -np N shared-sync [ROUNDS [W]]     (N even; defaults 100 rounds, W = 16 longs)
package dev.vertxrma.samples.standard;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.Win;
import dev.vertxrma.samples.RankChecks;
import dev.vertxrma.samples.Spin;
import io.vertx.core.Future;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/** Load/store through a shared-memory window, ordered by point-to-point messages and win_sync. */
public final class SharedSync extends RankVerticle {

  private static final int DEFAULT_ROUNDS = 100;
  private static final int DEFAULT_WORDS = 16;
  private static final int TAG_X_READY = 1;
  private static final int TAG_Y_READY = 2;

  private RankChecks checks;
  private Comm world;
  private Win win;
  private int rank;
  private int peer;
  private boolean isA;
  private int rounds;
  private int words;
  /** This rank's own segment through MPI_WIN_BASE, and the peer's through MPI_WIN_SHARED_QUERY. */
  private BytesStore<?, ?> mine;
  private BytesStore<?, ?> theirs;
  private long loads;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    this.world = world;
    if (world.size() % 2 != 0) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "shared-sync: ranks work in pairs (0,1), (2,3), ...: needs an even number of ranks, got -np %d",
          world.size()));
    }
    try {
      rounds = args.size() > 0 ? Integer.parseInt(args.get(0)) : DEFAULT_ROUNDS;
      words = args.size() > 1 ? Integer.parseInt(args.get(1)) : DEFAULT_WORDS;
    } catch (NumberFormatException e) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "shared-sync: arguments are [ROUNDS [W]] (integers), got %s", args));
    }
    if (args.size() > 2 || rounds < 0 || words < 1 || words > (1 << 24)) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "shared-sync: usage shared-sync [ROUNDS [W]] with ROUNDS >= 0 and 1 <= W <= 2^24; got %s", args));
    }
    rank = world.rank();
    checks = new RankChecks(rank);
    isA = rank % 2 == 0;
    peer = isA ? rank + 1 : rank - 1;
    return Win.allocateShared(world, words * 8L, 8, Info.NULL)
        .compose(w -> {
          win = w;
          mine = win.memory();
          return win.sharedQuery(rank);
        })
        .compose(own -> {
          if (own.size() != words * 8L || own.dispUnit() != 8) {
            checks.fail("sharedQuery(%d) (own segment) has size %d and unit %d, expected %d and 8", rank, own.size(),
                own.dispUnit(), words * 8L);
          }
          return win.sharedQuery(peer);
        })
        .compose(seg -> {
          theirs = seg.memory();
          if (seg.size() != words * 8L || seg.dispUnit() != 8) {
            checks.fail("sharedQuery(%d) (peer segment) has size %d and unit %d, expected %d and 8", peer, seg.size(),
                seg.dispUnit(), words * 8L);
          }
          return win.lockAll(Mode.NOCHECK);
        })
        .compose(v -> Spin.times(rounds, isA ? this::roundA : this::roundB))
        .compose(v -> win.unlockAll())
        .compose(v -> win.free())
        .compose(v -> report());
  }

  /** The value of word {@code k} of round {@code round}: X (from A) or Y (from B) of pair {@code pair}. */
  private static long value(int pair, int round, int k, boolean fromA) {
    long h = ((long) pair << 48) ^ ((long) round << 20) ^ k ^ (fromA ? 0x5A5A_0000_0000_0000L : 0x0F0F_0000_0000_0000L);
    h *= 0x9E37_79B9_7F4A_7C15L;
    return h ^ (h >>> 31);
  }

  /** X=...; MPI_WIN_SYNC; MPI_SEND; MPI_RECV; MPI_WIN_SYNC; then load Y from B's segment. */
  private Future<Void> roundA(int round) {
    int pair = rank / 2;
    for (int k = 0; k < words; k++) {
      mine.writeLong(k * 8L, value(pair, round, k, true));
    }
    long[] msg = {round};
    long[] ack = new long[1];
    return win.sync()
        .compose(v -> world.send(Buf.of(msg), 0, 1, Datatype.LONG, peer, TAG_X_READY))
        .compose(v -> world.recv(Buf.of(ack), 0, 1, Datatype.LONG, peer, TAG_Y_READY))
        .compose(st -> {
          checkMessage("A", st, ack[0], round, TAG_Y_READY);
          return win.sync();
        })
        .map(v -> {
          checkLoads(theirs, pair, round, false, "A loading Y from rank " + peer + "'s segment");
          return null;
        });
  }

  /** MPI_RECV; MPI_WIN_SYNC; load X; store Y; MPI_WIN_SYNC; MPI_SEND. */
  private Future<Void> roundB(int round) {
    int pair = rank / 2;
    long[] msg = new long[1];
    return world.recv(Buf.of(msg), 0, 1, Datatype.LONG, peer, TAG_X_READY)
        .compose(st -> {
          checkMessage("B", st, msg[0], round, TAG_X_READY);
          return win.sync();
        })
        .compose(v -> {
          checkLoads(theirs, pair, round, true, "B loading X from rank " + peer + "'s segment");
          for (int k = 0; k < words; k++) {
            mine.writeLong(k * 8L, value(pair, round, k, false));
          }
          return win.sync();
        })
        .compose(v -> world.send(Buf.of(msg), 0, 1, Datatype.LONG, peer, TAG_Y_READY));
  }

  private void checkMessage(String who, Status st, long got, int round, int tag) {
    if (st.source() != peer || st.tag() != tag || st.count() != 1 || got != round) {
      checks.fail("%s round %d: received %d with status %s, expected round %d from rank %d, tag %d, count 1", who,
          round, got, st, round, peer, tag);
    }
  }

  private void checkLoads(BytesStore<?, ?> segment, int pair, int round, boolean fromA, String what) {
    for (int k = 0; k < words; k++) {
      long got = segment.readLong(k * 8L);
      loads++;
      long expected = value(pair, round, k, fromA);
      if (got != expected) {
        checks.fail("%s, round %d: word %d = %#x, expected %#x", what, round, k, got, expected);
        return;
      }
    }
  }

  private Future<Void> report() {
    return checks.verdict(world, "shared-sync")
        .compose(v -> world.allreduce(loads, Op.SUM))
        .compose(totalLoads -> {
          if (rank == 0) {
            System.out.printf("shared-sync: verified %d pair(s) x %d rounds x %d words in both directions "
                + "(stores, win_sync, send / recv, win_sync, loads): %d loaded values all correct%n",
                world.size() / 2, rounds, words, totalLoads);
          }
          return Future.<Void>succeededFuture();
        });
  }
}
