package dev.vertxrma.comm;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.ErrorHandler;
import dev.vertxrma.Group;
import dev.vertxrma.Op;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Communicators made by split, dup and create, and COMM_SELF, embedded and clustered: their ranks
 * and groups, every collective and point-to-point call on them checked value by value against a
 * sequential computation over their members, isolation between communicators (the same tag, and
 * collectives issued without awaiting each other), translateRanks, UNDEFINED, free, and errors
 * naming the communicator's ranks.
 */
class CommunicatorsTest {

  static void run(Mode mode, int np, RankProgram program) {
    Jobs.await(Jobs.start(mode, Jobs.options(np).setStartupTimeoutMs(20_000), program), 120);
  }

  /** The job ranks of a communicator in its rank order. */
  static int[] members(Comm c) {
    return c.group().ranks();
  }

  /** The value rank {@code jobRank} contributes as element {@code i}. */
  static long value(int jobRank, int i) {
    return jobRank * 100L + i * 7 - 3;
  }

  // ------------------------------------------------------------------ split: pairs, rows, columns

  @ParameterizedTest
  @EnumSource(Mode.class)
  void splitIntoPairsRowsAndColumnsWithReversedKeys(Mode mode) {
    run(mode, 6, (world, args) -> {
      int me = world.rank();
      int row = me / 3;
      int col = me % 3;
      Future<Optional<Comm>> pairs = world.split(me / 2, -me);
      Future<Optional<Comm>> rows = world.split(row, -col);
      Future<Optional<Comm>> cols = world.split(col, -row);
      return Future.all(pairs, rows, cols).compose(v -> {
        Comm pair = pairs.result().orElseThrow();
        Comm rowComm = rows.result().orElseThrow();
        Comm colComm = cols.result().orElseThrow();
        // keys reverse the order: the higher job rank comes first
        assertEquals(2, pair.size());
        assertEquals(1 - me % 2, pair.rank());
        int base = me / 2 * 2;
        assertArrayEquals(new int[] {base + 1, base}, members(pair));
        assertEquals(3, rowComm.size());
        assertEquals(2 - col, rowComm.rank());
        assertArrayEquals(new int[] {row * 3 + 2, row * 3 + 1, row * 3}, members(rowComm));
        assertEquals(2, colComm.size());
        assertEquals(1 - row, colComm.rank());
        assertArrayEquals(new int[] {3 + col, col}, members(colComm));
        assertEquals(rowComm.rank(), rowComm.group().rank());
        assertEquals(world.jobName(), rowComm.jobName());
        assertSame(world.vertx(), rowComm.vertx());
        // translateRanks: between a row and the world, and between a row and a column (one rank in common)
        assertArrayEquals(members(rowComm), rowComm.group().translateRanks(world.group(), 0, 1, 2));
        int[] back = world.group().translateRanks(rowComm.group(), IntStream.range(0, 6).toArray());
        for (int r = 0; r < 6; r++) {
          assertEquals(r / 3 == row ? 2 - r % 3 : Group.UNDEFINED, back[r], "world rank " + r + " in row " + row);
        }
        int[] rowToCol = rowComm.group().translateRanks(colComm.group(), 0, 1, 2, Comm.PROC_NULL);
        for (int r = 0; r < 3; r++) {
          assertEquals(r == rowComm.rank() ? colComm.rank() : Group.UNDEFINED, rowToCol[r]);
        }
        assertEquals(Comm.PROC_NULL, rowToCol[3]);
        assertArrayEquals(rowComm.group().translateRanks(new int[] {0, 2}, world.group()),
            rowComm.group().translateRanks(world.group(), 0, 2), "both argument orders agree");
        // every collective on each communicator, one after the other, and all three at once
        return checkCollectives(pair).compose(x -> checkCollectives(rowComm)).compose(x -> checkCollectives(colComm))
            .compose(x -> Future.all(checkCollectives(pair), checkCollectives(rowComm), checkCollectives(colComm)))
            .compose(x -> checkPointToPoint(rowComm)).compose(x -> checkPointToPoint(colComm))
            .compose(x -> Future.all(pair.free(), rowComm.free(), colComm.free()));
      });
    });
  }

  /** Every collective on {@code c}, each result checked against a sequential computation over its members. */
  static Future<Void> checkCollectives(Comm c) {
    int[] m = members(c);
    int p = m.length;
    int me = c.rank();
    int job = m[me];
    int n = 3;
    long[] mine = new long[n];
    for (int i = 0; i < n; i++) {
      mine[i] = value(job, i);
    }
    List<Future<?>> all = new ArrayList<>();
    // allreduce SUM, reduce MAX to the last rank
    long[] sum = new long[n];
    all.add(c.allreduce(Buf.of(mine), 0, Buf.of(sum), 0, n, Datatype.LONG, Op.SUM).map(v -> {
      for (int i = 0; i < n; i++) {
        long expected = 0;
        for (int j : m) {
          expected += value(j, i);
        }
        assertEquals(expected, sum[i], "allreduce element " + i);
      }
      return null;
    }));
    long[] max = new long[n];
    int root = p - 1;
    all.add(c.reduce(Buf.of(mine), 0, Buf.of(max), 0, n, Datatype.LONG, Op.MAX, root).map(v -> {
      if (me == root) {
        for (int i = 0; i < n; i++) {
          long expected = Long.MIN_VALUE;
          for (int j : m) {
            expected = Math.max(expected, value(j, i));
          }
          assertEquals(expected, max[i]);
        }
      }
      return null;
    }));
    // bcast from rank 0 of the communicator
    long[] b = me == 0 ? mine.clone() : new long[n];
    all.add(c.bcast(Buf.of(b), 0, n, Datatype.LONG, 0).map(v -> {
      for (int i = 0; i < n; i++) {
        assertEquals(value(m[0], i), b[i]);
      }
      return null;
    }));
    // gather to rank 0, allgather, scatter from the last rank, alltoall
    long[] gathered = new long[p * n];
    all.add(c.gather(Buf.of(mine), 0, n, Datatype.LONG, Buf.of(gathered), 0, n, Datatype.LONG, 0).map(v -> {
      if (me == 0) {
        for (int r = 0; r < p; r++) {
          for (int i = 0; i < n; i++) {
            assertEquals(value(m[r], i), gathered[r * n + i], "gather block " + r);
          }
        }
      }
      return null;
    }));
    long[] everyone = new long[p * n];
    all.add(c.allgather(Buf.of(mine), 0, n, Datatype.LONG, Buf.of(everyone), 0, n, Datatype.LONG).map(v -> {
      for (int r = 0; r < p; r++) {
        for (int i = 0; i < n; i++) {
          assertEquals(value(m[r], i), everyone[r * n + i], "allgather block " + r);
        }
      }
      return null;
    }));
    long[] blocks = new long[p];
    for (int r = 0; r < p; r++) {
      blocks[r] = job * 1000L + r;
    }
    long[] piece = new long[1];
    all.add(c.scatter(Buf.of(blocks), 0, 1, Datatype.LONG, Buf.of(piece), 0, 1, Datatype.LONG, root).map(v -> {
      assertEquals(m[root] * 1000L + me, piece[0], "scatter");
      return null;
    }));
    long[] exchanged = new long[p];
    all.add(c.alltoall(Buf.of(blocks), 0, 1, Datatype.LONG, Buf.of(exchanged), 0, 1, Datatype.LONG).map(v -> {
      for (int r = 0; r < p; r++) {
        assertEquals(m[r] * 1000L + me, exchanged[r], "alltoall block from " + r);
      }
      return null;
    }));
    // scan, exscan, reduceScatterBlock
    long[] scan = new long[n];
    all.add(c.scan(Buf.of(mine), 0, Buf.of(scan), 0, n, Datatype.LONG, Op.SUM).map(v -> {
      for (int i = 0; i < n; i++) {
        long expected = 0;
        for (int r = 0; r <= me; r++) {
          expected += value(m[r], i);
        }
        assertEquals(expected, scan[i], "scan element " + i);
      }
      return null;
    }));
    long[] exscan = {-1, -1, -1};
    all.add(c.exscan(Buf.of(mine), 0, Buf.of(exscan), 0, n, Datatype.LONG, Op.MIN).map(v -> {
      for (int i = 0; i < n; i++) {
        long expected = -1;
        if (me > 0) {
          expected = Long.MAX_VALUE;
          for (int r = 0; r < me; r++) {
            expected = Math.min(expected, value(m[r], i));
          }
        }
        assertEquals(expected, exscan[i], "exscan element " + i);
      }
      return null;
    }));
    long[] contribution = new long[p];
    for (int r = 0; r < p; r++) {
      contribution[r] = job + r * 10L;
    }
    long[] block = new long[1];
    all.add(c.reduceScatterBlock(Buf.of(contribution), 0, Buf.of(block), 0, 1, Datatype.LONG, Op.SUM).map(v -> {
      long expected = 0;
      for (int j : m) {
        expected += j + me * 10L;
      }
      assertEquals(expected, block[0], "reduceScatterBlock");
      return null;
    }));
    all.add(c.allreduce((double) job, Op.MAX).map(v -> {
      assertEquals((double) Arrays.stream(m).max().orElseThrow(), v);
      return null;
    }));
    all.add(c.barrier());
    return Future.all(all).mapEmpty();
  }

  /** A ring shift with sendrecv, and receives from ANY_SOURCE: sources and statuses in the communicator's ranks. */
  static Future<Void> checkPointToPoint(Comm c) {
    int p = c.size();
    int me = c.rank();
    int next = (me + 1) % p;
    int prev = (me - 1 + p) % p;
    long[] out = {members(c)[me]};
    long[] in = new long[1];
    return c.sendrecv(Buf.of(out), 0, 1, Datatype.LONG, next, 5, Buf.of(in), 0, 1, Datatype.LONG, prev, 5)
        .compose(st -> {
          assertEquals(prev, st.source(), "sendrecv status source is a rank of the communicator");
          assertEquals(members(c)[prev], in[0]);
          long[] in2 = new long[1];
          Future<Status> any = c.recv(Buf.of(in2), 0, 1, Datatype.LONG, Comm.ANY_SOURCE, 6);
          Future<Void> sent = c.send(Buf.of(out), 0, 1, Datatype.LONG, next, 6);
          return Future.all(any, sent).map(x -> {
            assertEquals(prev, any.result().source());
            assertEquals(6, any.result().tag());
            assertEquals(members(c)[prev], in2[0]);
            return null;
          });
        }).compose(v -> c.barrier());
  }

  // ------------------------------------------------------------------ UNDEFINED, create, dup, self

  @ParameterizedTest
  @EnumSource(Mode.class)
  void undefinedColorGivesNoCommunicator(Mode mode) {
    run(mode, 5, (world, args) -> {
      int me = world.rank();
      return world.split(me % 2 == 0 ? 7 : Comm.UNDEFINED, 0).compose(sub -> {
        assertEquals(me % 2 != 0, sub.isEmpty(), "UNDEFINED gives an empty Optional");
        if (sub.isEmpty()) {
          return world.barrier();
        }
        Comm evens = sub.get();
        assertEquals(3, evens.size());
        assertEquals(me / 2, evens.rank());
        assertArrayEquals(new int[] {0, 2, 4}, members(evens));
        return checkCollectives(evens).compose(v -> evens.free()).compose(v -> world.barrier());
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void createFromGroups(Mode mode) {
    run(mode, 5, (world, args) -> {
      int me = world.rank();
      Group reversed = world.group().incl(4, 2, 0);
      Group allButZero = world.group().excl(0);
      assertEquals(3, reversed.size());
      assertArrayEquals(new int[] {4, 2, 0}, reversed.ranks());
      assertArrayEquals(new int[] {4, 2, 0, 1, 3}, reversed.union(world.group()).ranks());
      assertArrayEquals(new int[] {4, 2}, reversed.intersection(allButZero).ranks());
      assertArrayEquals(new int[] {0}, reversed.difference(allButZero).ranks());
      assertEquals(me == 4 ? 0 : me == 2 ? 1 : me == 0 ? 2 : Group.UNDEFINED, reversed.rank());
      return world.create(reversed).compose(r -> {
        assertEquals(me % 2 != 0, r.isEmpty());
        if (r.isEmpty()) {
          return Future.succeededFuture();
        }
        Comm c = r.get();
        assertEquals(3, c.size());
        assertEquals((4 - me) / 2, c.rank());
        assertArrayEquals(new int[] {4, 2, 0}, members(c));
        return checkCollectives(c).compose(v -> checkPointToPoint(c))
            // create over a sub-communicator: its last two ranks
            .compose(v -> c.create(c.group().incl(1, 2))).compose(sub -> {
              assertEquals(c.rank() == 0, sub.isEmpty());
              if (sub.isEmpty()) {
                return Future.succeededFuture();
              }
              assertArrayEquals(new int[] {2, 0}, members(sub.get()));
              return checkCollectives(sub.get());
            });
      }).compose(v -> world.create(allButZero)).compose(r -> {
        assertEquals(me == 0, r.isEmpty());
        if (r.isEmpty()) {
          return Future.succeededFuture();
        }
        assertEquals(me - 1, r.get().rank());
        return checkCollectives(r.get());
      }).compose(v -> world.barrier());
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void dupAndSelf(Mode mode) {
    run(mode, 3, (world, args) -> {
      int me = world.rank();
      Comm self = world.self();
      assertEquals(0, self.rank());
      assertEquals(1, self.size());
      assertArrayEquals(new int[] {me}, members(self));
      assertEquals(me, self.group().translateRanks(world.group(), 0)[0]);
      return world.dup().compose(dup -> {
        assertEquals(me, dup.rank());
        assertEquals(3, dup.size());
        assertNotSame(world, dup);
        assertSame(self, dup.self(), "COMM_SELF is one per rank");
        return checkCollectives(dup).compose(v -> checkPointToPoint(dup)).compose(v -> checkCollectives(self))
            .compose(v -> checkPointToPoint(self)).compose(v -> dup.dup()).compose(dd -> checkCollectives(dd)
                .compose(v -> dd.free())).compose(v -> dup.free());
      });
    });
  }

  // ------------------------------------------------------------------ isolation

  @ParameterizedTest
  @EnumSource(Mode.class)
  void theSameTagOnTwoCommunicatorsNeverMatchesAcross(Mode mode) {
    run(mode, 2, (world, args) -> world.dup().compose(dup -> {
      if (world.rank() == 0) {
        // the dup's message goes first: a world receive must still not take it
        return dup.send(Buf.of(new long[] {111}), 0, 1, Datatype.LONG, 1, 7)
            .compose(v -> world.send(Buf.of(new long[] {222}), 0, 1, Datatype.LONG, 1, 7))
            .compose(v -> world.barrier());
      }
      long[] a = new long[1];
      long[] b = new long[1];
      return world.recv(Buf.of(a), 0, 1, Datatype.LONG, Comm.ANY_SOURCE, Comm.ANY_TAG).compose(st -> {
        assertEquals(222, a[0], "the world receive got the world's message");
        assertEquals(7, st.tag());
        return world.iprobe(Comm.ANY_SOURCE, Comm.ANY_TAG);
      }).compose(none -> {
        assertTrue(none.isEmpty(), "the dup's message is not visible on the world");
        return dup.probe(0, 7);
      }).compose(st -> {
        assertEquals(0, st.source());
        assertEquals(8, st.byteCount());
        return dup.recv(Buf.of(b), 0, 1, Datatype.LONG, 0, 7);
      }).map(st -> {
        assertEquals(111, b[0]);
        return null;
      }).compose(v -> world.barrier());
    }));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void collectivesOnTwoCommunicatorsIssuedTogetherDoNotMix(Mode mode) {
    run(mode, 4, (world, args) -> {
      int me = world.rank();
      // creations issued back to back without awaiting, on the world and on a split of it
      Future<Comm> dupA = world.dup();
      Future<Optional<Comm>> halves = world.split(me / 2, me);
      Future<Comm> dupB = world.dup();
      return Future.all(dupA, halves, dupB).compose(v -> {
        Comm a = dupA.result();
        Comm b = dupB.result();
        Comm half = halves.result().orElseThrow();
        Future<Comm> halfDup = half.dup();
        Future<Comm> worldDup = world.dup();
        return Future.all(halfDup, worldDup).compose(w -> {
          List<Comm> comms = List.of(world, a, b, half, halfDup.result(), worldDup.result());
          // each communicator gets its own allreduce and bcast, issued in a different order at odd ranks
          List<Future<?>> checks = new ArrayList<>();
          for (int k = 0; k < comms.size(); k++) {
            int i = me % 2 == 0 ? k : comms.size() - 1 - k;
            Comm c = comms.get(i);
            long factor = i + 1;
            checks.add(c.allreduce(factor * (me + 1), Op.SUM).map(sum -> {
              long expected = 0;
              for (int j : members(c)) {
                expected += factor * (j + 1);
              }
              assertEquals(expected, sum, "allreduce on communicator " + i);
              return null;
            }));
            long[] data = {c.rank() == c.size() - 1 ? 1000 + i : -1};
            checks.add(c.bcast(Buf.of(data), 0, 1, Datatype.LONG, c.size() - 1).map(x -> {
              assertEquals(1000 + i, data[0], "bcast on communicator " + i);
              return null;
            }));
            // the same tag on every communicator, to the next rank, from ANY_SOURCE
            long[] got = new long[1];
            int next = (c.rank() + 1) % c.size();
            checks.add(c.send(Buf.of(new long[] {i * 10 + c.rank()}), 0, 1, Datatype.LONG, next, 3));
            checks.add(c.recv(Buf.of(got), 0, 1, Datatype.LONG, Comm.ANY_SOURCE, 3).map(st -> {
              int prev = (c.rank() - 1 + c.size()) % c.size();
              assertEquals(prev, st.source());
              assertEquals(i * 10 + prev, got[0], "message on communicator " + i);
              return null;
            }));
          }
          return Future.all(checks).mapEmpty();
        });
      }).compose(v -> world.barrier());
    });
  }

  // ------------------------------------------------------------------ free, errors, handlers

  @ParameterizedTest
  @EnumSource(Mode.class)
  void freeThenUseFailsWithComm(Mode mode) {
    run(mode, 3, (world, args) -> world.dup().compose(dup -> dup.free()
        .compose(v -> expectError(dup.barrier(), ErrorClass.COMM, "was freed"))
        .compose(v -> expectError(dup.send(Buf.of(new long[1]), 0, 1, Datatype.LONG, 0, 0), ErrorClass.COMM,
            "was freed"))
        .compose(v -> expectError(dup.dup(), ErrorClass.COMM, "was freed"))
        .compose(v -> expectError(dup.free(), ErrorClass.COMM, "was freed"))
        .compose(v -> expectError(world.free(), ErrorClass.COMM, "cannot be freed"))
        .compose(v -> expectError(world.self().free(), ErrorClass.COMM, "cannot be freed"))
        .compose(v -> world.barrier())));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void errorsNameTheCommunicatorsRanks(Mode mode) {
    run(mode, 4, (world, args) -> {
      int me = world.rank();
      return world.split(me % 2, 0).map(Optional::orElseThrow).compose(sub -> {
        long[] x = new long[1];
        return expectError(sub.send(Buf.of(x), 0, 1, Datatype.LONG, 2, 0), ErrorClass.RANK, "rank 2 is not in [0, 2)")
            .compose(v -> expectError(sub.recv(Buf.of(x), 0, 1, Datatype.LONG, 3, 0), ErrorClass.RANK,
                "rank 3 is not in [0, 2)"))
            .compose(v -> expectError(sub.bcast(Buf.of(x), 0, 1, Datatype.LONG, 2), ErrorClass.RANK,
                "root 2 is not in [0, 2)"))
            .compose(v -> expectError(sub.probe(-5, 0), ErrorClass.RANK, "rank -5"))
            // a bad color at one rank fails the split at every rank, naming that rank
            .compose(v -> expectError(sub.split(sub.rank() == 1 ? -5 : 0, 0), ErrorClass.ARG,
                "rank 1 gave color -5"))
            // create: a group with a member outside the communicator, groups that differ, null
            .compose(v -> expectError(sub.create(world.group().incl(0, 1)), ErrorClass.GROUP,
                "not a member of"))
            .compose(v -> expectError(sub.create(sub.group().incl(sub.rank())), ErrorClass.GROUP,
                "different groups"))
            .compose(v -> expectError(sub.create(sub.rank() == 0 ? null : sub.group()), ErrorClass.GROUP,
                "rank 0 passed a null group"))
            // the communicator still works after the failed creations, and so do new ones
            .compose(v -> sub.split(0, -sub.rank())).compose(s -> {
              assertEquals(1 - sub.rank(), s.orElseThrow().rank());
              return checkCollectives(s.get());
            })
            .compose(v -> checkCollectives(sub));
      }).compose(v -> world.barrier());
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void eachCommunicatorHasItsOwnErrorHandler(Mode mode) {
    run(mode, 2, (world, args) -> world.dup().compose(dup -> {
      AtomicReference<RmaException> onDup = new AtomicReference<>();
      AtomicReference<RmaException> onWorld = new AtomicReference<>();
      dup.setErrhandler(onDup::set);
      world.setErrhandler(onWorld::set);
      assertSame(ErrorHandler.ERRORS_RETURN, world.self().getErrhandler());
      return expectError(dup.send(Buf.of(new long[1]), 0, 1, Datatype.LONG, 9, 0), ErrorClass.RANK).map(v -> {
        assertEquals(ErrorClass.RANK, onDup.get().errorClass());
        assertEquals(null, onWorld.get(), "the world's handler saw nothing");
        world.setErrhandler(ErrorHandler.ERRORS_RETURN);
        return null;
      }).compose(v -> world.barrier());
    }));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void ranksOfEveryCommunicatorAreDistinctAfterManyCreations(Mode mode) {
    // many creations in a row: contexts never collide, even for communicators of disjoint members
    run(mode, 4, (world, args) -> {
      Future<Void> chain = Future.succeededFuture();
      List<Comm> made = new ArrayList<>();
      for (int k = 0; k < 20; k++) {
        int color = (world.rank() + k) % 2;
        chain = chain.compose(v -> world.split(color, 0)).map(c -> {
          made.add(c.orElseThrow());
          return null;
        });
      }
      return chain.compose(v -> {
        List<Future<?>> checks = new ArrayList<>();
        for (Comm c : made) {
          checks.add(checkPointToPoint(c));
        }
        return Future.all(checks);
      }).map(v -> {
        assertFalse(made.isEmpty());
        return null;
      });
    });
  }
}
