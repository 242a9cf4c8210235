package dev.vertxrma.p2p;

import static dev.vertxrma.testing.RmaAssertions.assertError;
import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Rma;
import dev.vertxrma.Status;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MPI_Probe and MPI_Iprobe (status with ANY_SOURCE/ANY_TAG, the message left queued, probes
 * posted before the message, a posted receive taking a message before a probe sees it,
 * PROC_NULL, polling), MPI_Sendrecv and MPI_Sendrecv_replace (rings and shifts at every
 * distance, to self, PROC_NULL, wildcards, derived types) and their errors, for several rank
 * counts, embedded and clustered.
 */
class ProbeSendrecvTest {

  private static final Future<Void> DONE = Future.succeededFuture();

  static Stream<Arguments> modesAndSizes() {
    List<Arguments> out = new ArrayList<>();
    for (Mode m : Mode.values()) {
      for (int np : new int[] {1, 3, 4}) {
        out.add(Arguments.of(m, np));
      }
    }
    return out.stream();
  }

  static Future<Void> sequence(List<Supplier<Future<?>>> steps) {
    Future<Void> chain = DONE;
    for (Supplier<Future<?>> s : steps) {
      chain = chain.compose(v -> s.get().mapEmpty());
    }
    return chain;
  }

  /** Rank r's message to rank 0: r + 1 ints {r*100, r*100+1, ...}, tag 10 + r. */
  private static int[] message(int r) {
    int[] m = new int[r + 1];
    for (int i = 0; i < m.length; i++) {
      m[i] = r * 100 + i;
    }
    return m;
  }

  // ------------------------------------------------------------------ probe / iprobe

  /**
   * Every other rank sends rank 0 one message of its own length and tag. Rank 0 posts its probes
   * before awaiting anything: by source with ANY_TAG, by tag with ANY_SOURCE, and ANY/ANY. Each
   * reports the real source, tag and size and leaves the message queued; a receive sized from
   * the status then gets exactly that message; nothing is left afterwards.
   */
  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizes")
  void probeReportsSourceTagAndCountAndLeavesTheMessage(Mode mode, int np) {
    Jobs.run(mode, np, (world, args) -> {
      int me = world.rank();
      if (me != 0) {
        return world.send(Buf.of(message(me)), 0, me + 1, Datatype.INT, 0, 10 + me);
      }
      List<Future<Status>> bySource = new ArrayList<>();
      List<Future<Status>> byTag = new ArrayList<>();
      for (int r = 1; r < np; r++) {
        bySource.add(world.probe(r, Comm.ANY_TAG));
        byTag.add(world.probe(Comm.ANY_SOURCE, 10 + r));
      }
      Future<Status> any = np > 1 ? world.probe(Comm.ANY_SOURCE, Comm.ANY_TAG) : Future.succeededFuture(null);
      Future<Optional<Status>> nothing = world.iprobe(Comm.ANY_SOURCE, 99);
      List<Future<?>> all = new ArrayList<>(bySource);
      all.addAll(byTag);
      all.add(any);
      return Future.all(all).compose(v -> {
        assertEquals(Optional.empty(), nothing.result(), "iprobe of a tag nobody sends");
        for (int r = 1; r < np; r++) {
          Status expected = new Status(r, 10 + r, 4 * (r + 1), 4 * (r + 1));
          assertEquals(expected, bySource.get(r - 1).result(), "probe(" + r + ", ANY_TAG)");
          assertEquals(expected, byTag.get(r - 1).result(), "probe(ANY_SOURCE, " + (10 + r) + ")");
          assertEquals(r + 1, expected.count(Datatype.INT));
          assertEquals(2 * (r + 1), expected.count(Datatype.SHORT));
          assertEquals((r + 1) % 2 == 0 ? (r + 1) / 2 : Comm.UNDEFINED, expected.count(Datatype.LONG),
              "MPI_Get_count in LONGs: UNDEFINED for a partial element");
        }
        if (np == 1) {
          return DONE;
        }
        Status first = any.result();
        assertTrue(first.source() >= 1 && first.tag() == 10 + first.source()
            && first.byteCount() == 4L * (first.source() + 1), "ANY/ANY probe status " + first);
        // still queued: iprobe sees the same message, then a receive sized by the status takes it
        return world.iprobe(Comm.ANY_SOURCE, Comm.ANY_TAG).compose(again -> {
          assertEquals(Optional.of(first), again, "iprobe after probe: the message was not consumed");
          int[] buf = new int[first.count(Datatype.INT)];
          return world.recv(Buf.of(buf), 0, buf.length, Datatype.INT, first.source(), first.tag()).map(st -> {
            assertEquals(first.source(), st.source());
            assertArrayEquals(message(first.source()), buf, "the probed message");
            return null;
          });
        }).compose(v2 -> {
          List<Future<Status>> recvs = new ArrayList<>();
          List<int[]> bufs = new ArrayList<>();
          for (int r = 1; r < np; r++) {
            if (r == first.source()) {
              continue;
            }
            int[] buf = new int[r + 1];
            bufs.add(buf);
            recvs.add(world.recv(Buf.of(buf), 0, r + 1, Datatype.INT, r, Comm.ANY_TAG));
          }
          return Future.all(recvs).map(x -> {
            for (int i = 0, r = 1; r < np; r++) {
              if (r != first.source()) {
                assertArrayEquals(message(r), bufs.get(i++), "message of rank " + r);
              }
            }
            return null;
          });
        }).compose(v3 -> world.iprobe(Comm.ANY_SOURCE, Comm.ANY_TAG)).map(left -> {
          assertEquals(Optional.empty(), left, "every message was received");
          return null;
        });
      });
    });
  }

  /**
   * Non-overtaking: a probe with ANY_TAG reports the earliest of two queued messages, even after
   * the later one was received by tag. A probe posted before the message completes when it
   * arrives. A receive posted before the message takes it; the probe posted with it sees the
   * next one only.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void probesSeeQueuedMessagesInOrderAndPostedReceivesComeFirst(Mode mode) {
    Jobs.run(mode, 3, (world, args) -> {
      int me = world.rank();
      if (me == 1) {
        world.send(Buf.of(new long[] {5}), 0, 1, Datatype.LONG, 0, 5);
        world.send(Buf.of(new long[] {6, 6}), 0, 2, Datatype.LONG, 0, 6);
        // after the barrier: two messages of tag 3, the first taken by rank 0's posted receive
        return world.barrier()
            .compose(v -> world.send(Buf.of(new long[] {31}), 0, 1, Datatype.LONG, 0, 3))
            .compose(v -> world.send(Buf.of(new long[] {32, 33, 34}), 0, 3, Datatype.LONG, 0, 3));
      }
      if (me == 2) {
        return world.barrier().compose(v -> world.send(Buf.of(new int[] {7, 7, 7}), 0, 3, Datatype.INT, 0, 7));
      }
      // rank 0: posted before anything can have arrived from after the barrier
      Future<Status> probe7 = world.probe(Comm.ANY_SOURCE, 7);
      Future<Status> probe3 = world.probe(1, 3);
      long[] taken = new long[3];
      Future<Status> recv3 = world.irecv(Buf.of(taken), 0, 3, Datatype.LONG, 1, 3);
      long[] six = new long[2];
      Future<Void> ordered = world.probe(1, Comm.ANY_TAG).compose(st -> {
        assertEquals(new Status(1, 5, 8, 8), st, "ANY_TAG probe: the earliest message");
        return world.recv(Buf.of(six), 0, 2, Datatype.LONG, 1, 6);
      }).compose(st -> world.probe(1, Comm.ANY_TAG)).map(st -> {
        assertEquals(new Status(1, 5, 8, 8), st, "tag 5 is still queued after tag 6 was received");
        assertArrayEquals(new long[] {6, 6}, six);
        return null;
      });
      Future<Void> barrier = world.barrier();
      return Future.all(List.of(ordered, barrier, probe7, probe3, recv3)).compose(v -> {
        assertEquals(new Status(2, 7, 12, 12), probe7.result(), "probe posted before the message");
        assertEquals(new Status(1, 3, 1, 8), recv3.result(), "the posted receive takes the first message");
        assertArrayEquals(new long[] {31, 0, 0}, taken);
        assertEquals(new Status(1, 3, 24, 24), probe3.result(), "the probe sees the second message only");
        long[] five = new long[1];
        long[] second = new long[3];
        int[] seven = new int[3];
        return Future.all(world.recv(Buf.of(five), 0, 1, Datatype.LONG, 1, 5),
            world.recv(Buf.of(second), 0, 3, Datatype.LONG, 1, 3),
            world.recv(Buf.of(seven), 0, 3, Datatype.INT, 2, 7)).map(x -> {
              assertArrayEquals(new long[] {5}, five);
              assertArrayEquals(new long[] {32, 33, 34}, second);
              assertArrayEquals(new int[] {7, 7, 7}, seven);
              return null;
            });
      });
    });
  }

  /**
   * Iprobe polled until the message is there (Rma.repeatUntil: the rank's event loop delivers
   * it between polls), then reported again and received; PROC_NULL probes complete at once.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void iprobePollsUntilTheMessageArrivesAndProcNullCompletesAtOnce(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      Status procNull = new Status(Comm.PROC_NULL, Comm.ANY_TAG, 0, 0);
      Future<Void> nulls = Future.all(world.probe(Comm.PROC_NULL, 4), world.iprobe(Comm.PROC_NULL, Comm.ANY_TAG))
          .map(cf -> {
            assertEquals(procNull, cf.resultAt(0));
            assertEquals(Optional.of(procNull), cf.resultAt(1));
            return null;
          });
      if (world.rank() == 1) {
        double[] data = {1.5, -2.5, 3.25, 4, 5};
        return nulls.compose(v -> world.barrier()).compose(v -> world.send(Buf.of(data), 0, 5, Datatype.DOUBLE, 0, 21));
      }
      Status[] seen = new Status[1];
      int[] polls = {0};
      return nulls.compose(v -> world.iprobe(1, 21)).compose(early -> {
        assertFalse(early.isPresent(), "rank 1 sends only after the barrier");
        return world.barrier();
      }).compose(v -> Rma.repeatUntil(() -> world.iprobe(Comm.ANY_SOURCE, 21).map(st -> {
        polls[0]++;
        st.ifPresent(s -> seen[0] = s);
        return st.isPresent();
      }))).compose(v -> {
        assertEquals(new Status(1, 21, 40, 40), seen[0]);
        assertEquals(5, seen[0].count(Datatype.DOUBLE));
        assertTrue(polls[0] >= 1);
        return world.iprobe(1, Comm.ANY_TAG);
      }).compose(again -> {
        assertEquals(Optional.of(seen[0]), again);
        double[] in = new double[5];
        return world.recv(Buf.of(in), 0, 5, Datatype.DOUBLE, 1, 21).map(st -> {
          assertArrayEquals(new double[] {1.5, -2.5, 3.25, 4, 5}, in);
          return null;
        });
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void probeErrors(Mode mode) {
    // both probes of tag 77 start once both programs run (a latch, no wait of the job): they then
    // time out together, and the allreduce after them waits hops, not the other cluster node's
    // later start-up, within the 1 s
    dev.vertxrma.testing.Latch running = new dev.vertxrma.testing.Latch(2);
    Throwable failure = Jobs.runExpectingFailure(mode, Jobs.options(2).setWaitTimeoutMs(1000), (world, args) ->
        running.arrive().compose(r -> sequence(List.of(
            () -> expectError(world.probe(2, 0), ErrorClass.RANK, "probe", "rank 2", "[0, 2)"),
            () -> expectError(world.probe(-3, 0), ErrorClass.RANK, "probe", "rank -3"),
            () -> expectError(world.iprobe(5, Comm.ANY_TAG), ErrorClass.RANK, "iprobe", "rank 5"),
            () -> expectError(world.probe(0, -4), ErrorClass.TAG, "probe", "tag -4"),
            () -> expectError(world.iprobe(Comm.ANY_SOURCE, -2), ErrorClass.TAG, "iprobe", "tag -2"),
            // nobody sends tag 77: the probe times out instead of waiting for ever
            () -> expectError(world.probe(Comm.ANY_SOURCE, 77), ErrorClass.TIMEOUT, "probe", "tag 77", "1000 ms"),
            () -> world.allreduce((long) world.rank(), dev.vertxrma.Op.SUM).map(s -> {
              assertEquals(1L, s, "the job is still healthy");
              return null;
            })))));
    assertEquals(null, failure);
  }

  /** A probe waiting when another rank fails the job fails with COMM at once, not at its timeout. */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void pendingProbeFailsWhenTheJobAborts(Mode mode) {
    AtomicReference<Throwable> probeFailure = new AtomicReference<>();
    Throwable failure = Jobs.runExpectingFailure(mode, Jobs.options(2), (world, args) -> {
      if (world.rank() == 1) {
        return world.barrier().compose(v -> Future.failedFuture(new IllegalStateException("rank 1 gives up")));
      }
      Future<Status> pending = world.probe(1, 5);
      pending.onFailure(probeFailure::set);
      return world.barrier().compose(v -> pending);
    });
    assertTrue(failure != null && failure.getMessage().contains("rank 1 gives up"), String.valueOf(failure));
    Jobs.eventually(() -> probeFailure.get() != null, 10, "the pending probe failed");
    assertError(probeFailure.get(), ErrorClass.COMM, "rank 1", "gives up");
  }

  // ------------------------------------------------------------------ sendrecv / sendrecvReplace

  /**
   * Every distance d of a ring at once: sendrecv to rank + d from rank - d with tag d, all issued
   * without awaiting each other; then np shifts of one buffer with sendrecvReplace bring every
   * rank's data around the ring and back; a derived type and wildcards on the receive side.
   */
  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizes")
  void sendrecvRingsWithoutDeadlock(Mode mode, int np) {
    Jobs.run(mode, np, (world, args) -> {
      int me = world.rank();
      List<Future<Status>> shifts = new ArrayList<>();
      List<long[]> got = new ArrayList<>();
      for (int d = 0; d < np; d++) {
        long[] in = new long[3];
        got.add(in);
        shifts.add(world.sendrecv(Buf.of(new long[] {me, d, me * 1000L + d}), 0, 3, Datatype.LONG, (me + d) % np, d,
            Buf.of(in), 0, 3, Datatype.LONG, (me - d + np) % np, d));
      }
      return Future.all(new ArrayList<>(shifts)).compose(v -> {
        for (int d = 0; d < np; d++) {
          int from = (me - d + np) % np;
          assertEquals(new Status(from, d, 3, 24), shifts.get(d).result(), "distance " + d + " at rank " + me);
          assertArrayEquals(new long[] {from, d, from * 1000L + d}, got.get(d), "distance " + d + " at rank " + me);
        }
        // sendrecvReplace around the ring: after k shifts the buffer holds rank (me - k)'s data
        int[] ring = {me, -me, me * me};
        return Rma.repeat(np, k -> world.sendrecvReplace(Buf.of(ring), 0, 3, Datatype.INT, (me + 1) % np, 40 + k,
            (me - 1 + np) % np, 40 + k).map(st -> {
              int from = (me - k - 1 + 2 * np) % np;
              assertEquals(new Status((me - 1 + np) % np, 40 + k, 3, 12), st);
              assertArrayEquals(new int[] {from, -from, from * from}, ring, "after shift " + (k + 1) + " at " + me);
              return null;
            })).map(x -> {
              assertArrayEquals(new int[] {me, -me, me * me}, ring, "np shifts bring the data home");
              return null;
            });
      }).compose(v -> {
        // a derived type on the send side, ANY_SOURCE/ANY_TAG on the receive side, to the left
        Datatype everyOther = Datatype.vector(3, 1, 2, Datatype.DOUBLE).commit();
        double[] out = {me, -1, me + 0.5, -1, me + 0.25};
        double[] in = new double[4];
        Arrays.fill(in, Double.NaN);
        int left = (me - 1 + np) % np;
        return world.sendrecv(Buf.of(out), 0, 1, everyOther, left, 8, Buf.of(in), 1, 3, Datatype.DOUBLE,
            Comm.ANY_SOURCE, Comm.ANY_TAG).map(st -> {
              int right = (me + 1) % np;
              assertEquals(new Status(right, 8, 3, 24), st);
              assertTrue(Double.isNaN(in[0]));
              assertArrayEquals(new double[] {right, right + 0.5, right + 0.25}, Arrays.copyOfRange(in, 1, 4));
              return null;
            });
      }).compose(v -> {
        // a derived type in place, also to the left (the ANY/ANY receive above at the left
        // neighbour gets our tag 8 first: same sender, sent earlier)
        Datatype pairs = Datatype.vector(2, 1, 2, Datatype.INT).commit();
        int[] buf = {me, 99, me + 10, 99};
        int right = (me + 1) % np;
        int left = (me - 1 + np) % np;
        return world.sendrecvReplace(Buf.of(buf), 0, 1, pairs, left, 9, right, 9).map(st -> {
          assertEquals(new Status(right, 9, 1, 8), st);
          assertArrayEquals(new int[] {right, 99, right + 10, 99}, buf, "vector sendrecvReplace at rank " + me);
          return null;
        });
      });
    });
  }

  /** PROC_NULL halves are no-ops: nothing sent, nothing received, the buffer untouched. */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void sendrecvWithProcNull(Mode mode) {
    Jobs.run(mode, 3, (world, args) -> {
      int me = world.rank();
      int[] in = {-1, -1};
      // a chain 0 -> 1 -> 2: rank 0 receives from PROC_NULL, rank 2 sends to PROC_NULL
      int dest = me == 2 ? Comm.PROC_NULL : me + 1;
      int source = me == 0 ? Comm.PROC_NULL : me - 1;
      return world.sendrecv(Buf.of(new int[] {me, me}), 0, 2, Datatype.INT, dest, 1, Buf.of(in), 0, 2, Datatype.INT,
          source, 1).compose(st -> {
            if (me == 0) {
              assertEquals(new Status(Comm.PROC_NULL, Comm.ANY_TAG, 0, 0), st);
              assertArrayEquals(new int[] {-1, -1}, in);
            } else {
              assertEquals(new Status(me - 1, 1, 2, 8), st);
              assertArrayEquals(new int[] {me - 1, me - 1}, in);
            }
            int[] kept = {5, 6};
            return world.sendrecvReplace(Buf.of(kept), 0, 2, Datatype.INT, Comm.PROC_NULL, 2, Comm.PROC_NULL, 2)
                .map(st2 -> {
                  assertArrayEquals(new int[] {5, 6}, kept);
                  return null;
                });
          }).compose(v -> world.iprobe(Comm.ANY_SOURCE, Comm.ANY_TAG)).map(left -> {
            assertEquals(Optional.empty(), left, "nothing was sent to PROC_NULL's stand-ins");
            return null;
          });
    });
  }

  /**
   * Argument errors fail before anything is sent (checked on both halves); a message longer
   * than the receive half fails with TRUNCATE (each rank sends 3 ints to a 2-int receive); the
   * job stays usable.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void sendrecvErrors(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      int other = 1 - world.rank();
      int[] a = {1, 2, 3};
      int[] b = new int[3];
      Buf ab = Buf.of(a);
      Buf bb = Buf.of(b);
      return sequence(List.of(
          () -> expectError(world.sendrecv(ab, 0, 3, Datatype.INT, 2, 0, bb, 0, 3, Datatype.INT, other, 0),
              ErrorClass.RANK, "sendrecv dest", "rank 2"),
          () -> expectError(world.sendrecv(ab, 0, 3, Datatype.INT, other, 0, bb, 0, 3, Datatype.INT, 7, 0),
              ErrorClass.RANK, "sendrecv source", "rank 7"),
          () -> expectError(world.sendrecv(ab, 0, -1, Datatype.INT, other, 0, bb, 0, 3, Datatype.INT, other, 0),
              ErrorClass.COUNT, "sendrecv send", "-1"),
          () -> expectError(world.sendrecv(ab, 0, 3, Datatype.INT, other, 0, bb, 0, -2, Datatype.INT, other, 0),
              ErrorClass.COUNT, "sendrecv receive", "-2"),
          () -> expectError(world.sendrecv(null, 0, 3, Datatype.INT, other, 0, bb, 0, 3, Datatype.INT, other, 0),
              ErrorClass.BUFFER, "sendrecv send", "null"),
          () -> expectError(world.sendrecv(ab, 0, 3, Datatype.INT, other, 0, bb, 0, 4, Datatype.INT, other, 0),
              ErrorClass.BUFFER, "sendrecv receive"),
          () -> expectError(world.sendrecv(ab, 0, 3, Datatype.INT, other, -1, bb, 0, 3, Datatype.INT, other, 0),
              ErrorClass.TAG, "sendrecv send", "tag -1"),
          () -> expectError(world.sendrecv(ab, 0, 3, Datatype.DOUBLE, other, 0, bb, 0, 3, Datatype.INT, other, 0),
              ErrorClass.TYPE),
          () -> expectError(world.sendrecv(Comm.IN_PLACE, 0, 3, Datatype.INT, other, 0, bb, 0, 3, Datatype.INT, other,
              0), ErrorClass.BUFFER, "IN_PLACE"),
          () -> expectError(world.sendrecvReplace(Comm.IN_PLACE, 0, 3, Datatype.INT, other, 0, other, 0),
              ErrorClass.BUFFER, "IN_PLACE"),
          () -> expectError(world.sendrecvReplace(bb, 0, 3, Datatype.INT, -5, 0, other, 0), ErrorClass.RANK,
              "sendrecvReplace dest"),
          () -> expectError(world.sendrecvReplace(null, 0, 1, Datatype.INT, other, 0, other, 0), ErrorClass.BUFFER),
          // nothing of the above was sent: the next exchange gets the right data
          () -> expectError(world.sendrecv(ab, 0, 3, Datatype.INT, other, 5, bb, 0, 2, Datatype.INT, other, 5),
              ErrorClass.TRUNCATE, "12 bytes", "8 bytes"),
          () -> {
            int[] c = new int[3];
            return world.sendrecv(Buf.of(new int[] {world.rank(), 4, 5}), 0, 3, Datatype.INT, other, 6, Buf.of(c), 0,
                3, Datatype.INT, Comm.ANY_SOURCE, Comm.ANY_TAG).map(st -> {
                  assertEquals(new Status(other, 6, 3, 12), st, "no stale message matched");
                  assertArrayEquals(new int[] {other, 4, 5}, c);
                  assertArrayEquals(new int[] {0, 0, 0}, b, "failed calls left the receive buffer alone");
                  return null;
                });
          }));
    });
  }
}
