package dev.vertxrma.p2p;

import static dev.vertxrma.testing.RmaAssertions.assertError;
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
import dev.vertxrma.Message;
import dev.vertxrma.Rma;
import dev.vertxrma.Status;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MPI_Mprobe, MPI_Improbe, MPI_Mrecv and MPI_Imrecv: a matched message is out of matching (no
 * receive with wildcards, probe or other matched probe takes or sees it), messages of several
 * senders are matched in MPI's order, improbe polls, PROC_NULL gives MPI_MESSAGE_NO_PROC, a
 * synchronous send completes on the mrecv, and the errors (a handle received twice, null, foreign
 * or of another communicator; truncation and type as recv), embedded and clustered.
 */
class MatchedProbeTest {

  private static final Future<Void> DONE = Future.succeededFuture();

  /** Handles published by one rank of a job for another (both modes keep every rank in this JVM). */
  private static final Map<String, Message> SHARED = new ConcurrentHashMap<>();

  static Stream<Arguments> modesAndSizes() {
    List<Arguments> out = new ArrayList<>();
    for (Mode m : Mode.values()) {
      for (int np : new int[] {2, 3, 5}) {
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

  /**
   * Rank 1's message A is matched by an ANY/ANY mprobe at rank 0; a receive with ANY_SOURCE and
   * ANY_TAG posted in the very callback of the match, and an iprobe and improbe after it, never
   * see A: the receive takes the next message (B from rank 1 or C from rank 2, sent after a
   * barrier), and A is received by mrecv only, whole. Two matched probes waiting at once get one
   * message each, and a probe waiting with them sees the first.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void aRacingWildcardReceiveCannotStealAMatchedMessage(Mode mode) {
    Jobs.run(mode, 3, (world, args) -> {
      int me = world.rank();
      if (me == 1) {
        return world.send(Buf.of(new int[] {1, 2, 3}), 0, 3, Datatype.INT, 0, 5)
            .compose(v -> world.barrier())
            .compose(v -> world.send(Buf.of(new int[] {40}), 0, 1, Datatype.INT, 0, 6))
            .compose(v -> world.barrier())
            .compose(v -> world.send(Buf.of(new int[] {71, 72}), 0, 2, Datatype.INT, 0, 8));
      }
      if (me == 2) {
        return world.barrier()
            .compose(v -> world.send(Buf.of(new int[] {50}), 0, 1, Datatype.INT, 0, 7))
            .compose(v -> world.barrier())
            .compose(v -> world.send(Buf.of(new int[] {81, 82, 83}), 0, 3, Datatype.INT, 0, 9));
      }
      int[] racing = new int[3];
      AtomicReference<Future<Status>> race = new AtomicReference<>();
      Future<Message> matched = world.mprobe(Comm.ANY_SOURCE, Comm.ANY_TAG).onSuccess(m ->
          race.set(world.irecv(Buf.of(racing), 0, 3, Datatype.INT, Comm.ANY_SOURCE, Comm.ANY_TAG)));
      return matched.compose(m -> {
        assertEquals(new Status(1, 5, 12, 12), m.status(), "the matched probe's status");
        assertFalse(race.get().isComplete(), "nothing left for the racing receive before the barrier");
        return world.iprobe(Comm.ANY_SOURCE, Comm.ANY_TAG).compose(seen -> {
          assertEquals(Optional.empty(), seen, "iprobe: the matched message is out of the queue");
          return world.improbe(Comm.ANY_SOURCE, Comm.ANY_TAG);
        }).compose(again -> {
          assertEquals(Optional.empty(), again, "improbe: the matched message cannot be matched twice");
          return world.barrier(); // ranks 1 and 2 now send B and C
        }).compose(v -> race.get()).compose(st -> {
          assertTrue(st.source() == 1 && st.tag() == 6 && racing[0] == 40
              || st.source() == 2 && st.tag() == 7 && racing[0] == 50, "the racing receive got " + st);
          int[] a = new int[3];
          return world.mrecv(Buf.of(a), 0, 3, Datatype.INT, m).map(got -> {
            assertEquals(new Status(1, 5, 3, 12), got);
            assertArrayEquals(new int[] {1, 2, 3}, a, "mrecv got the matched message");
            return st;
          });
        }).compose(st -> {
          int[] other = new int[1];
          int from = st.source() == 1 ? 2 : 1;
          return world.recv(Buf.of(other), 0, 1, Datatype.INT, from, Comm.ANY_TAG).map(s2 -> {
            assertEquals(from == 1 ? 40 : 50, other[0]);
            return null;
          });
        });
      }).compose(v -> {
        // two matched probes and a probe waiting at once, then two messages
        Future<Message> first = world.mprobe(Comm.ANY_SOURCE, Comm.ANY_TAG);
        Future<Message> second = world.mprobe(Comm.ANY_SOURCE, Comm.ANY_TAG);
        Future<Status> probe = world.probe(Comm.ANY_SOURCE, Comm.ANY_TAG);
        return world.barrier().compose(x -> Future.all(first, second, probe)).compose(x -> {
          Message m1 = first.result();
          Message m2 = second.result();
          assertNotSame(m1, m2);
          assertEquals(m1.status(), probe.result(), "the waiting probe saw the first arrival");
          assertTrue(m1.status().source() != m2.status().source(), m1 + " and " + m2);
          Map<Integer, int[]> bySource = new HashMap<>();
          List<Future<Status>> recvs = new ArrayList<>();
          for (Message m : List.of(m2, m1)) { // received in the other order: handles are independent
            int[] buf = new int[3];
            bySource.put(m.status().source(), buf);
            recvs.add(world.imrecv(Buf.of(buf), 0, 3, Datatype.INT, m));
          }
          return Future.all(new ArrayList<>(recvs)).compose(y -> {
            assertArrayEquals(new int[] {71, 72, 0}, bySource.get(1));
            assertArrayEquals(new int[] {81, 82, 83}, bySource.get(2));
            return world.iprobe(Comm.ANY_SOURCE, Comm.ANY_TAG);
          }).map(left -> {
            assertEquals(Optional.empty(), left, "every message was received once");
            return null;
          });
        });
      });
    });
  }

  /**
   * Every other rank sends rank 0 four messages, tags 10..13. Rank 0 matches them all with ANY/ANY
   * matched probes: one per sender waiting before anything is sent, the others issued once every
   * message has arrived (taken from the queue); each sender's messages come in its send order
   * (non-overtaking), every message once, and each mrecv gets the message its handle describes.
   * A second round is matched by tag with ANY_SOURCE (the first sender's message of that tag,
   * skipping its earlier tags) and then by source with ANY_TAG (send order, the skipped-over
   * messages included).
   */
  @ParameterizedTest(name = "{0} np={1}")
  @MethodSource("modesAndSizes")
  void messagesOfSeveralSendersAreMatchedInMpiOrder(Mode mode, int np) {
    Jobs.run(mode, np, (world, args) -> {
      int me = world.rank();
      if (me != 0) {
        Future<Void> sent = DONE;
        for (int round = 0; round < 2; round++) {
          int r = round;
          sent = sent.compose(v -> world.barrier());
          for (int k = 0; k < 4; k++) {
            long[] data = new long[k + 1];
            java.util.Arrays.fill(data, me * 1000L + r * 100 + k);
            int tag = 10 + k;
            sent = sent.compose(v -> world.send(Buf.of(data), 0, data.length, Datatype.LONG, 0, tag));
          }
        }
        return sent;
      }
      int senders = np - 1;
      List<Future<Message>> probes = new ArrayList<>();
      for (int i = 0; i < senders; i++) {
        probes.add(world.mprobe(Comm.ANY_SOURCE, Comm.ANY_TAG)); // waiting: nothing is sent before the barrier
      }
      return world.barrier().compose(v -> Future.all(new ArrayList<>(probes))).compose(v -> {
        boolean[] lastMatched = new boolean[np];
        for (Future<Message> f : probes) {
          Status st = f.result().status();
          lastMatched[st.source()] |= st.tag() == 13;
        }
        // wait until each sender's last message is queued: its earlier ones are then here too
        return Rma.repeatUntil(() -> {
          List<Future<Optional<Status>>> last = new ArrayList<>();
          for (int r = 1; r < np; r++) {
            last.add(lastMatched[r] ? Future.succeededFuture(Optional.of(new Status(r, 13, 0, 0)))
                : world.iprobe(r, 13));
          }
          return Future.all(new ArrayList<>(last)).map(x -> last.stream().allMatch(o -> o.result().isPresent()));
        });
      }).compose(v -> {
        for (int i = senders; i < 4 * senders; i++) {
          probes.add(world.mprobe(Comm.ANY_SOURCE, Comm.ANY_TAG));
        }
        return Future.all(new ArrayList<>(probes));
      }).compose(v -> {
        int[] next = new int[np];
        List<Future<Status>> recvs = new ArrayList<>();
        List<long[]> bufs = new ArrayList<>();
        for (Future<Message> f : probes) {
          Status st = f.result().status();
          int k = next[st.source()]++;
          assertEquals(10 + k, st.tag(), "message " + k + " of rank " + st.source() + " in send order");
          assertEquals(8L * (k + 1), st.byteCount());
          long[] buf = new long[4];
          bufs.add(buf);
          recvs.add(world.mrecv(Buf.of(buf), 0, 4, Datatype.LONG, f.result()));
        }
        for (int r = 1; r < np; r++) {
          assertEquals(4, next[r], "all four messages of rank " + r + " matched once");
        }
        return Future.all(new ArrayList<>(recvs)).map(x -> {
          for (int i = 0; i < recvs.size(); i++) {
            Status st = recvs.get(i).result();
            int k = st.tag() - 10;
            assertEquals(k + 1, st.count());
            for (int j = 0; j < 4; j++) {
              assertEquals(j <= k ? st.source() * 1000L + k : 0, bufs.get(i)[j], "element " + j + " of " + st);
            }
          }
          return null;
        });
      }).compose(v -> world.barrier()).compose(v -> world.mprobe(Comm.ANY_SOURCE, 12)).compose(byTag -> {
        Status st = byTag.status();
        assertEquals(12, st.tag());
        int skipped = st.source();
        List<Future<Message>> bySource = new ArrayList<>();
        for (int r = 1; r < np; r++) {
          for (int k = 0; k < (r == skipped ? 3 : 4); k++) {
            bySource.add(world.mprobe(r, Comm.ANY_TAG));
          }
        }
        return Future.all(new ArrayList<>(bySource)).compose(x -> {
          int i = 0;
          for (int r = 1; r < np; r++) {
            for (int k = 0; k < 4; k++) {
              if (r == skipped && k == 2) {
                continue;
              }
              Status s = bySource.get(i++).result().status();
              assertEquals(r, s.source());
              assertEquals(10 + k, s.tag(), "by source: rank " + r + "'s messages in send order");
            }
          }
          long[] buf = new long[3];
          return world.mrecv(Buf.of(buf), 0, 3, Datatype.LONG, byTag).map(got -> {
            long expected = skipped * 1000L + 102;
            assertArrayEquals(new long[] {expected, expected, expected}, buf);
            return bySource;
          });
        }).compose(handles -> {
          List<Future<Status>> recvs = new ArrayList<>();
          for (Future<Message> h : handles) {
            recvs.add(world.mrecv(Buf.of(new long[4]), 0, 4, Datatype.LONG, h.result()));
          }
          return Future.all(new ArrayList<>(recvs));
        }).compose(x -> world.iprobe(Comm.ANY_SOURCE, Comm.ANY_TAG)).map(left -> {
          assertEquals(Optional.empty(), left);
          return null;
        });
      });
    });
  }

  /**
   * improbe polled until the message is there (the rank's event loop delivers it between polls),
   * PROC_NULL gives MPI_MESSAGE_NO_PROC whose mrecv completes at once, as often as asked, writing
   * nothing; a derived receive type; a synchronous send completes only once the message is
   * received by mrecv, not when it is matched.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void improbePollsNoProcAndSynchronousSends(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      Status procNull = new Status(Comm.PROC_NULL, Comm.ANY_TAG, 0, 0);
      int[] untouched = {9, 9};
      Future<Void> nulls = world.mprobe(Comm.PROC_NULL, 3).compose(m -> {
        assertSame(Message.NO_PROC, m);
        assertEquals(procNull, m.status());
        return world.improbe(Comm.PROC_NULL, Comm.ANY_TAG);
      }).compose(m -> {
        assertSame(Message.NO_PROC, m.orElseThrow());
        return Future.all(world.mrecv(Buf.of(untouched), 0, 2, Datatype.INT, Message.NO_PROC),
            world.imrecv(Buf.of(untouched), 0, 2, Datatype.INT, Message.NO_PROC));
      }).map(cf -> {
        assertEquals(procNull, cf.resultAt(0));
        assertEquals(procNull, cf.resultAt(1));
        assertArrayEquals(new int[] {9, 9}, untouched);
        return null;
      });
      if (world.rank() == 1) {
        double[] data = {1.5, -2.5, 3.25, 4};
        return nulls.compose(v -> world.barrier())
            .compose(v -> world.send(Buf.of(data), 0, 4, Datatype.DOUBLE, 0, 21))
            .compose(v -> {
              Future<Void> sync = world.ssend(Buf.of(new int[] {77}), 0, 1, Datatype.INT, 0, 22);
              return world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 0, 23).compose(st -> {
                assertFalse(sync.isComplete(), "the ssend is matched by mprobe, not yet received");
                return world.send(Buf.of(new int[0]), 0, 0, Datatype.INT, 0, 24);
              }).compose(v2 -> sync);
            });
      }
      Message[] seen = new Message[1];
      return nulls.compose(v -> world.improbe(1, 21)).compose(early -> {
        assertFalse(early.isPresent(), "rank 1 sends only after the barrier");
        return world.barrier();
      }).compose(v -> Rma.repeatUntil(() -> world.improbe(Comm.ANY_SOURCE, 21).map(m -> {
        m.ifPresent(x -> seen[0] = x);
        return m.isPresent();
      }))).compose(v -> {
        assertEquals(new Status(1, 21, 32, 32), seen[0].status());
        double[] in = new double[8];
        Datatype everyOther = Datatype.vector(4, 1, 2, Datatype.DOUBLE).commit();
        return world.mrecv(Buf.of(in), 0, 1, everyOther, seen[0]).map(st -> {
          assertEquals(new Status(1, 21, 1, 32), st);
          assertArrayEquals(new double[] {1.5, 0, -2.5, 0, 3.25, 0, 4, 0}, in);
          return null;
        });
      }).compose(v -> world.mprobe(1, 22)).compose(m -> world.send(Buf.of(new int[] {1}), 0, 1, Datatype.INT, 1, 23)
          .compose(v -> world.recv(Buf.of(new int[0]), 0, 0, Datatype.INT, 1, 24))
          .compose(v -> {
            int[] in = new int[1];
            return world.mrecv(Buf.of(in), 0, 1, Datatype.INT, m).map(st -> {
              assertEquals(77, in[0]);
              return null;
            });
          }));
    });
  }

  /**
   * Argument errors of mprobe/improbe; mrecv of null, of a handle not from a matched probe, of a
   * handle of another rank or another communicator: REQUEST, the handle still receivable; a
   * buffer error leaves it receivable too; TRUNCATE and TYPE spend it (the buffer untouched) and
   * a second mrecv of it fails with REQUEST; a matched probe that finds nothing times out (a
   * message on another communicator is not found).
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void matchedProbeErrors(Mode mode) {
    String key = "errors-" + mode;
    // the dup, the job's first wait, starts once both programs run (a latch, no wait of the job):
    // it waits hops within the 1 s, not the other cluster node's later start-up
    dev.vertxrma.testing.Latch running = new dev.vertxrma.testing.Latch(2);
    Throwable failure = Jobs.runExpectingFailure(mode, Jobs.options(2).setWaitTimeoutMs(1000), (world, args) -> {
      if (world.rank() == 1) {
        return running.arrive().compose(r -> world.dup()).compose(dup -> world.send(Buf.of(new int[] {1, 2, 3}), 0, 3, Datatype.INT, 0, 1))
            .compose(v -> world.send(Buf.of(new byte[6]), 0, 6, Datatype.BYTE, 0, 2))
            .compose(v -> world.send(Buf.of(new long[] {33}), 0, 1, Datatype.LONG, 0, 3))
            .compose(v -> world.barrier()) // rank 0 has published its handle
            .compose(v -> expectError(world.mrecv(Buf.of(new int[3]), 0, 3, Datatype.INT, SHARED.get(key)),
                ErrorClass.REQUEST, "mrecv at rank 1", "not matched by an mprobe or improbe of this rank"))
            .compose(v -> world.barrier())
            // waits while rank 0 does (the end of a job waits for every rank within the timeout)
            .compose(v -> expectError(world.mprobe(0, 5), ErrorClass.TIMEOUT, "mprobe", "rank 0", "tag 5"));
      }
      int[] small = {-1, -1};
      Message fake = () -> new Status(1, 1, 12, 12);
      return running.arrive().compose(r -> world.dup()).compose(dup -> sequence(List.of(
          () -> expectError(world.mprobe(2, 0), ErrorClass.RANK, "mprobe", "rank 2"),
          () -> expectError(world.improbe(-3, 0), ErrorClass.RANK, "improbe", "rank -3"),
          () -> expectError(world.mprobe(0, -4), ErrorClass.TAG, "mprobe", "tag -4"),
          () -> expectError(world.improbe(Comm.ANY_SOURCE, -2), ErrorClass.TAG, "improbe", "tag -2"),
          () -> expectError(world.mrecv(Buf.of(new int[3]), 0, 3, Datatype.INT, null), ErrorClass.REQUEST,
              "mrecv at rank 0", "null (MPI_MESSAGE_NULL)"),
          () -> expectError(world.imrecv(Buf.of(new int[3]), 0, 3, Datatype.INT, fake), ErrorClass.REQUEST,
              "imrecv at rank 0", "was not matched"),
          () -> world.mprobe(1, 1).compose(m -> {
            SHARED.put(key, m);
            return expectError(dup.mrecv(Buf.of(new int[3]), 0, 3, Datatype.INT, m), ErrorClass.REQUEST,
                "another communicator")
                .compose(v -> expectError(world.mrecv(null, 0, 3, Datatype.INT, m), ErrorClass.BUFFER))
                .compose(v -> world.barrier()) // rank 1 tries to receive it
                .compose(v -> world.barrier())
                .compose(v -> expectError(world.mrecv(Buf.of(small), 0, 2, Datatype.INT, m), ErrorClass.TRUNCATE,
                    "12 bytes", "rank 1", "tag 1"))
                .compose(v -> {
                  assertArrayEquals(new int[] {-1, -1}, small, "a truncated mrecv leaves the buffer untouched");
                  return expectError(world.mrecv(Buf.of(new int[3]), 0, 3, Datatype.INT, m), ErrorClass.REQUEST,
                      "received already", "rank 1", "tag 1");
                });
          }),
          () -> world.mprobe(Comm.ANY_SOURCE, 2).compose(m -> expectError(world.imrecv(Buf.of(new int[2]), 0, 2,
              Datatype.INT, m), ErrorClass.TYPE, "6 bytes", "not a whole number")
              .compose(v -> expectError(world.mrecv(Buf.of(new byte[6]), 0, 6, Datatype.BYTE, m), ErrorClass.REQUEST,
                  "received already"))),
          // last, with rank 1 done: its message of tag 3 is on the world, so the matched probe on
          // the duplicate times out, and takes nothing
          () -> expectError(dup.mprobe(1, Comm.ANY_TAG), ErrorClass.TIMEOUT, "mprobe", "rank 1", "ANY_TAG",
              "1000 ms"),
          () -> world.improbe(1, Comm.ANY_TAG).compose(m -> {
            long[] in = new long[1];
            return world.mrecv(Buf.of(in), 0, 1, Datatype.LONG, m.orElseThrow()).map(st -> {
              assertEquals(new Status(1, 3, 1, 8), st);
              assertEquals(33L, in[0]);
              return null;
            });
          }),
          () -> world.iprobe(Comm.ANY_SOURCE, Comm.ANY_TAG).map(left -> {
            assertEquals(Optional.empty(), left, "the spent messages are gone");
            return null;
          }))));
    });
    SHARED.remove(key);
    assertEquals(null, failure);
  }

  /** A matched probe waiting when another rank fails the job fails with COMM at once. */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void pendingMatchedProbeFailsWhenTheJobAborts(Mode mode) {
    AtomicReference<Throwable> probeFailure = new AtomicReference<>();
    Throwable failure = Jobs.runExpectingFailure(mode, Jobs.options(2), (world, args) -> {
      if (world.rank() == 1) {
        return world.barrier().compose(v -> Future.failedFuture(new IllegalStateException("rank 1 gives up")));
      }
      Future<Message> pending = world.mprobe(1, 5);
      pending.onFailure(probeFailure::set);
      return world.barrier().compose(v -> pending);
    });
    assertTrue(failure != null && failure.getMessage().contains("rank 1 gives up"), String.valueOf(failure));
    Jobs.eventually(() -> probeFailure.get() != null, 10, "the pending matched probe failed");
    assertError(probeFailure.get(), ErrorClass.COMM, "rank 1", "gives up");
  }
}
