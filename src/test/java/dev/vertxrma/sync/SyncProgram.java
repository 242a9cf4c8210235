package dev.vertxrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * The counter and the mutex under load, checked by values: every rank issues C {@code next()}s
 * at once (the tickets must be exactly {0..np*C-1}, each rank's increasing) and R {@code lock()}s
 * at once, each followed, when granted, by a non-atomic read-modify-write of a word at rank 0
 * (get, flush, put value+1, flush) and an unlock: the word must end at np*R, and the fencing
 * tokens, taken in the order of a grant sequence number drawn inside the critical section, must
 * strictly increase. Run in-JVM (embedded, clustered) and across JVMs.
 */
public final class SyncProgram implements RankProgram {

  @Override
  public Future<?> run(Comm world, List<String> args) {
    int c = Integer.parseInt(args.get(0));
    int rounds = Integer.parseInt(args.get(1));
    int np = world.size();
    int me = world.rank();
    return Counter.create(world).compose(counter -> {
      List<Future<Long>> tickets = new ArrayList<>();
      boolean[] outOfOrder = {false};
      for (int i = 0; i < c; i++) {
        tickets.add(i % 2 == 0 ? counter.next() : counter.asVertx().getAndIncrement()); // none awaited
        if (i > 0) {
          Future<Long> before = tickets.get(i - 1);
          tickets.get(i).onComplete(ar -> outOfOrder[0] |= !before.isComplete()); // the flushes complete in order
        }
      }
      long[] mine = new long[c];
      long[] all = new long[c * np];
      return Future.all(tickets).compose(x -> {
        assertFalse(outOfOrder[0], "a next() completed before one issued earlier");
        for (int i = 0; i < c; i++) {
          mine[i] = tickets.get(i).result();
          if (i > 0) {
            assertTrue(mine[i] > mine[i - 1], "rank " + me + ": ticket " + i + " not above the one before: " + mine[i]);
          }
        }
        return world.allgather(Buf.of(mine), 0, c, Datatype.LONG, Buf.of(all), 0, c, Datatype.LONG);
      }).compose(x -> {
        boolean[] seen = new boolean[c * np];
        for (long t : all) {
          assertTrue(t >= 0 && t < seen.length && !seen[(int) t], "ticket " + t + " out of range or handed out twice");
          seen[(int) t] = true;
        }
        return world.barrier().compose(v -> counter.get());
      }).compose(value -> {
        assertEquals((long) c * np, value, "the counter after every rank's increments");
        return world.barrier().compose(v -> counter.free());
      });
    }).compose(v -> exclusion(world, rounds));
  }

  private static Future<Void> exclusion(Comm world, int rounds) {
    int np = world.size();
    int me = world.rank();
    return Mutex.create(world).compose(mutex -> Win.allocate(world, me == 0 ? 16 : 0, 8, Info.NULL).compose(win -> {
      long[] tokens = new long[rounds * 2]; // per grant: sequence number, token
      List<Future<Void>> sections = new ArrayList<>();
      Future<Void> epoch = win.lockAll(Mode.NOCHECK);
      for (int i = 0; i < rounds; i++) {
        int k = i;
        sections.add(mutex.lock().compose(grant -> {
          assertFalse(grant.previousHolderDied());
          long[] value = new long[1];
          Future<Long> seq = win.fetchAndOp(1, 0, 1, Op.SUM);
          return win.get(Buf.of(value), 0, 1, Datatype.LONG, 0, 0)
              .compose(x -> win.flush(0))
              .compose(x -> win.put(Buf.of(new long[] {value[0] + 1}), 0, 1, Datatype.LONG, 0, 0))
              .compose(x -> win.flush(0))
              .compose(x -> {
                tokens[2 * k] = seq.result();
                tokens[2 * k + 1] = grant.token();
                return mutex.unlock();
              });
        }));
      }
      long[] all = new long[rounds * 2 * np];
      return epoch.compose(v -> Future.all(sections))
          .compose(v -> world.allgather(Buf.of(tokens), 0, 2 * rounds, Datatype.LONG, Buf.of(all), 0, 2 * rounds,
              Datatype.LONG))
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .compose(v -> {
            if (me == 0) {
              assertEquals((long) np * rounds, win.memory().readLong(0), "the word guarded by the mutex: updates lost");
            }
            long[] bySeq = new long[np * rounds];
            java.util.Arrays.fill(bySeq, -1);
            for (int i = 0; i < all.length; i += 2) {
              bySeq[(int) all[i]] = all[i + 1];
            }
            for (int s = 1; s < bySeq.length; s++) {
              assertTrue(bySeq[s] > bySeq[s - 1], "grant " + s + "'s token " + bySeq[s] + " is not above grant "
                  + (s - 1) + "'s " + bySeq[s - 1]);
            }
            return win.free();
          })
          .compose(v -> mutex.free());
    }));
  }
}
