package dev.vertxrma.p2p;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Status;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Message matching of point-to-point communication: tags and wildcards, the status of a
 * receive, MPI's non-overtaking rule, PROC_NULL, messages to self, BytesStore buffers, derived
 * datatypes on either side, short messages, and synchronous-mode completion.
 */
class MatchingTest {

  private static final Future<Void> DONE = Future.succeededFuture();

  @ParameterizedTest
  @EnumSource(Mode.class)
  void tagsSelectMessagesAndAnyTagTakesTheEarliest(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 0) {
        world.send(Buf.of(new int[] {10, 11}), 0, 2, Datatype.INT, 1, 5);
        world.send(Buf.of(new int[] {20, 21}), 0, 2, Datatype.INT, 1, 6);
        return world.send(Buf.of(new int[] {30, 31}), 0, 2, Datatype.INT, 1, 7);
      }
      int[] a = new int[2];
      int[] b = new int[2];
      int[] c = new int[2];
      return world.recv(Buf.of(a), 0, 2, Datatype.INT, 0, 7).compose(st -> {
        assertArrayEquals(new int[] {30, 31}, a, "tag 7 selects the third message");
        assertEquals(new Status(0, 7, 2, 8), st);
        return world.recv(Buf.of(b), 0, 2, Datatype.INT, 0, 5);
      }).compose(st -> {
        assertArrayEquals(new int[] {10, 11}, b, "tag 5 selects the first message");
        assertEquals(new Status(0, 5, 2, 8), st);
        return world.recv(Buf.of(c), 0, 2, Datatype.INT, 0, Comm.ANY_TAG);
      }).map(st -> {
        assertArrayEquals(new int[] {20, 21}, c, "ANY_TAG gets the only one left");
        assertEquals(new Status(0, 6, 2, 8), st, "status reports the real tag, not ANY_TAG");
        return null;
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void anySourceStatusReportsTheRealSourceAndTag(Mode mode) {
    Jobs.run(mode, 4, (world, args) -> {
      int r = world.rank();
      if (r != 0) {
        return world.send(Buf.of(new int[] {r * 100 + 1, r * 100 + 2}), 0, 2, Datatype.INT, 0, 10 + r);
      }
      int[] only2 = new int[2];
      // a specific tag with ANY_SOURCE: only rank 2 sends tag 12
      return world.recv(Buf.of(only2), 0, 2, Datatype.INT, Comm.ANY_SOURCE, 12).compose(st -> {
        assertEquals(new Status(2, 12, 2, 8), st);
        assertArrayEquals(new int[] {201, 202}, only2);
        int[][] bufs = new int[2][2];
        List<Future<Status>> rest = new ArrayList<>();
        for (int[] b : bufs) {
          rest.add(world.recv(Buf.of(b), 0, 2, Datatype.INT, Comm.ANY_SOURCE, Comm.ANY_TAG));
        }
        return Future.all(rest).map(all -> {
          Set<Integer> sources = new TreeSet<>();
          for (int i = 0; i < bufs.length; i++) {
            Status s = rest.get(i).result();
            int src = s.source();
            sources.add(src);
            assertEquals(10 + src, s.tag(), "tag of the message from rank " + src);
            assertEquals(2, s.count());
            assertEquals(8, s.byteCount());
            assertArrayEquals(new int[] {src * 100 + 1, src * 100 + 2}, bufs[i],
                "buffer " + i + " holds the data of the rank its status names");
          }
          assertEquals(Set.of(1, 3), sources);
          return null;
        });
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void fiftyMessagesWithOneTagArriveInSendOrder(Mode mode) {
    int n = 50;
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 0) {
        List<Future<Void>> sends = new ArrayList<>();
        // phase 1: 50 messages while the receiver has all its receives posted
        // phase 2: 50 more, received one after another (most of them unexpected on arrival)
        for (int i = 0; i < 2 * n; i++) {
          sends.add(world.send(Buf.of(new long[] {i, -i}), 0, 2, Datatype.LONG, 1, 3));
        }
        return Future.all(sends);
      }
      long[][] bufs = new long[n][2];
      List<Future<Status>> recvs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        recvs.add(world.recv(Buf.of(bufs[i]), 0, 2, Datatype.LONG, 0, 3));
      }
      return Future.all(recvs).compose(all -> {
        for (int i = 0; i < n; i++) {
          assertArrayEquals(new long[] {i, -i}, bufs[i], "posted receive " + i);
          assertEquals(new Status(0, 3, 2, 16), recvs.get(i).result());
        }
        return receiveInOrder(world, n, 2 * n);
      });
    });
  }

  private static Future<Void> receiveInOrder(Comm world, int i, int end) {
    if (i == end) {
      return DONE;
    }
    long[] buf = new long[2];
    // alternate a specific source and ANY_SOURCE: both must see the same order
    int source = i % 2 == 0 ? 0 : Comm.ANY_SOURCE;
    return world.recv(Buf.of(buf), 0, 2, Datatype.LONG, source, 3).compose(st -> {
      assertArrayEquals(new long[] {i, -i}, buf, "sequential receive " + i);
      assertEquals(0, st.source());
      return receiveInOrder(world, i + 1, end);
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void laterTagFirstThenEarlierTagKeepsOrderWithinEachTag(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 0) {
        world.send(Buf.of(new int[] {1}), 0, 1, Datatype.INT, 1, 1);
        world.send(Buf.of(new int[] {2}), 0, 1, Datatype.INT, 1, 1);
        world.send(Buf.of(new int[] {3}), 0, 1, Datatype.INT, 1, 2);
        world.send(Buf.of(new int[] {4}), 0, 1, Datatype.INT, 1, 2);
        return world.send(Buf.of(new int[] {5}), 0, 1, Datatype.INT, 1, 1);
      }
      int[] got = new int[5];
      int[] tags = new int[5];
      // tag 2 first (sent later), then tag 1, then wildcards: the earliest remaining one each time
      int[] order = {2, 1, Comm.ANY_TAG, Comm.ANY_TAG, Comm.ANY_TAG};
      Future<Void> chain = DONE;
      for (int k = 0; k < order.length; k++) {
        int idx = k;
        chain = chain.compose(v -> {
          int[] b = new int[1];
          return world.recv(Buf.of(b), 0, 1, Datatype.INT, 0, order[idx]).map(st -> {
            got[idx] = b[0];
            tags[idx] = st.tag();
            return null;
          });
        });
      }
      return chain.map(v -> {
        assertArrayEquals(new int[] {3, 1, 2, 4, 5}, got, "values in receive order");
        assertArrayEquals(new int[] {2, 1, 1, 2, 1}, tags, "tags in receive order");
        return null;
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void sendModesShareOneOrder(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 0) {
        byte[] attached = new byte[4 * (8 + Comm.BSEND_OVERHEAD)];
        world.bufferAttach(Buf.of(attached), attached.length);
        List<Future<Void>> sends = List.of(
            world.bsend(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, 1, 4),
            world.send(Buf.of(new long[] {2}), 0, 1, Datatype.LONG, 1, 4),
            world.ssend(Buf.of(new long[] {3}), 0, 1, Datatype.LONG, 1, 4),
            world.isend(Buf.of(new long[] {4}), 0, 1, Datatype.LONG, 1, 4),
            world.bsend(Buf.of(new long[] {5}), 0, 1, Datatype.LONG, 1, 4));
        return Future.all(sends).compose(v -> world.bufferDetach()).mapEmpty();
      }
      long[] got = new long[5];
      Future<Void> chain = DONE;
      for (int k = 0; k < 5; k++) {
        int idx = k;
        chain = chain.compose(v -> world.recv(Buf.of(got), idx, 1, Datatype.LONG, 0, 4).mapEmpty());
      }
      return chain.map(v -> {
        assertArrayEquals(new long[] {1, 2, 3, 4, 5}, got, "bsend, send, ssend, isend, bsend in send order");
        return null;
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void largeMessagesArriveIntact(Mode mode) {
    int n = 200_000; // 1.6 MB
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 0) {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
          out[i] = i * 0.5 - 7;
        }
        return world.send(Buf.of(out), 0, n, Datatype.DOUBLE, 1, 1);
      }
      double[] in = new double[n + 1];
      in[n] = 42;
      return world.recv(Buf.of(in), 0, n + 1, Datatype.DOUBLE, 0, 1).map(st -> {
        assertEquals(new Status(0, 1, n, 8L * n), st);
        for (int i = 0; i < n; i++) {
          if (in[i] != i * 0.5 - 7) {
            assertEquals(i * 0.5 - 7, in[i], "element " + i);
          }
        }
        assertEquals(42, in[n]);
        return null;
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void procNullSendAndRecvAreNoOps(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      int[] data = {7, 8, 9};
      int[] in = {-1, -1, -1};
      Future<Void> s1 = world.send(Buf.of(data), 0, 3, Datatype.INT, Comm.PROC_NULL, 4);
      Future<Void> s2 = world.isend(Buf.of(data), 0, 3, Datatype.INT, Comm.PROC_NULL, 4);
      Future<Void> s3 = world.ssend(Buf.of(data), 0, 3, Datatype.INT, Comm.PROC_NULL, 4);
      Future<Status> r1 = world.recv(Buf.of(in), 0, 3, Datatype.INT, Comm.PROC_NULL, 4);
      Future<Status> r2 = world.irecv(Buf.of(in), 0, 3, Datatype.INT, Comm.PROC_NULL, Comm.ANY_TAG);
      return Future.all(s1, s2, s3, r1, r2).compose(all -> {
        for (Future<Status> r : List.of(r1, r2)) {
          Status st = r.result();
          assertEquals(Comm.PROC_NULL, st.source(), "status source of a PROC_NULL receive");
          assertEquals(Comm.ANY_TAG, st.tag(), "status tag of a PROC_NULL receive");
          assertEquals(0, st.count());
          assertEquals(0, st.byteCount());
        }
        assertArrayEquals(new int[] {-1, -1, -1}, in, "PROC_NULL receive leaves the buffer alone");
        assertArrayEquals(new int[] {7, 8, 9}, data);
        // nothing was actually sent: a real exchange afterwards sees only its own message
        int peer = 1 - world.rank();
        int[] got = new int[1];
        world.send(Buf.of(new int[] {100 + world.rank()}), 0, 1, Datatype.INT, peer, 4);
        return world.recv(Buf.of(got), 0, 1, Datatype.INT, peer, Comm.ANY_TAG).map(st -> {
          assertEquals(100 + peer, got[0]);
          assertEquals(new Status(peer, 4, 1, 4), st);
          return null;
        });
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void sendToSelf(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      int me = world.rank();
      double[] out = {me + 0.5, me - 0.25};
      double[] in = new double[2];
      int[] sync = {me * 3};
      int[] syncIn = new int[1];
      Future<Void> sent = world.send(Buf.of(out), 0, 2, Datatype.DOUBLE, me, 9);
      // overwrite right away: a standard send has copied the data once its future is done
      out[0] = -99;
      Future<Void> ss = world.ssend(Buf.of(sync), 0, 1, Datatype.INT, me, 10);
      boolean ssPendingBeforeRecv = !ss.isComplete();
      Future<Status> r1 = world.recv(Buf.of(syncIn), 0, 1, Datatype.INT, me, 10);
      Future<Status> r2 = world.recv(Buf.of(in), 0, 2, Datatype.DOUBLE, Comm.ANY_SOURCE, 9);
      return Future.all(sent, ss, r1, r2).map(all -> {
        assertTrue(ssPendingBeforeRecv, "ssend to self completed before the receive was posted");
        assertArrayEquals(new double[] {me + 0.5, me - 0.25}, in);
        assertEquals(new Status(me, 9, 2, 16), r2.result());
        assertEquals(me * 3, syncIn[0]);
        assertEquals(new Status(me, 10, 1, 4), r1.result());
        return null;
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void bytesStoreBuffersUseByteOffsets(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      BytesStore<?, Void> store = BytesStore.nativeStoreWithFixedCapacity(64);
      Future<Void> body;
      if (world.rank() == 0) {
        for (int i = 0; i < 8; i++) {
          store.writeLong(i * 8L, 1000L + i);
        }
        // 3 longs from byte 16: 1002, 1003, 1004; then 2 longs from byte 48 into a long[] receiver
        body = Future.all(world.send(Buf.of(store), 16, 3, Datatype.LONG, 1, 1),
            world.send(Buf.of(store), 48, 2, Datatype.LONG, 1, 2)).mapEmpty();
      } else {
        for (int i = 0; i < 8; i++) {
          store.writeLong(i * 8L, -1L);
        }
        long[] arr = {-5, -5, -5, -5};
        body = world.recv(Buf.of(store), 8, 3, Datatype.LONG, 0, 1).compose(st -> {
          assertEquals(new Status(0, 1, 3, 24), st);
          long[] seen = new long[8];
          for (int i = 0; i < 8; i++) {
            seen[i] = store.readLong(i * 8L);
          }
          assertArrayEquals(new long[] {-1, 1002, 1003, 1004, -1, -1, -1, -1}, seen);
          return world.recv(Buf.of(arr), 1, 2, Datatype.LONG, 0, 2);
        }).map(st -> {
          assertEquals(new Status(0, 2, 2, 16), st);
          assertArrayEquals(new long[] {-5, 1006, 1007, -5}, arr);
          return null;
        });
      }
      return body.onComplete(ar -> store.releaseLast());
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void derivedDatatypesOnEitherSide(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      Datatype column = Datatype.vector(4, 1, 4, Datatype.INT).commit();
      if (world.rank() == 0) {
        int[] m = new int[16];
        for (int i = 0; i < 16; i++) {
          m[i] = 100 + i;
        }
        return Future.all(List.of(
            // column 2 of a 4x4 row-major matrix, received as 4 contiguous ints
            world.send(Buf.of(m), 2, 1, column, 1, 1),
            // 4 contiguous ints, received into a column
            world.send(Buf.of(new int[] {-1, -2, -3, -4}), 0, 4, Datatype.INT, 1, 2),
            // column 1 into a different derived layout
            world.send(Buf.of(m), 1, 1, column, 1, 3)));
      }
      int[] flat = new int[4];
      int[] matrix = new int[16];
      int[] pairs = new int[8];
      Arrays.fill(pairs, 7);
      Datatype twoPairs = Datatype.vector(2, 2, 3, Datatype.INT).commit();
      return world.recv(Buf.of(flat), 0, 4, Datatype.INT, 0, 1).compose(st -> {
        assertArrayEquals(new int[] {102, 106, 110, 114}, flat);
        assertEquals(new Status(0, 1, 4, 16), st);
        return world.recv(Buf.of(matrix), 3, 1, column, 0, 2);
      }).compose(st -> {
        int[] expected = new int[16];
        expected[3] = -1;
        expected[7] = -2;
        expected[11] = -3;
        expected[15] = -4;
        assertArrayEquals(expected, matrix, "only column 3 is written");
        assertEquals(new Status(0, 2, 1, 16), st, "count is in receive datatypes: one column");
        return world.recv(Buf.of(pairs), 1, 1, twoPairs, 0, 3);
      }).map(st -> {
        assertArrayEquals(new int[] {7, 101, 105, 7, 109, 113, 7, 7}, pairs);
        assertEquals(new Status(0, 3, 1, 16), st);
        return null;
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void statusCountsAShorterMessage(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 0) {
        world.send(Buf.of(new int[] {1, 2, 3}), 0, 3, Datatype.INT, 1, 1);
        world.send(Buf.of(new long[0]), 0, 0, Datatype.LONG, 1, 2);
        return world.send(Buf.of(new double[] {0.5, 1.5}), 0, 2, Datatype.DOUBLE, 1, 3);
      }
      int[] ints = new int[10];
      Arrays.fill(ints, -1);
      long[] longs = {-1, -1};
      double[] doubles = new double[6];
      Arrays.fill(doubles, -1);
      return world.recv(Buf.of(ints), 0, 10, Datatype.INT, 0, 1).compose(st -> {
        assertEquals(new Status(0, 1, 3, 12), st);
        assertArrayEquals(new int[] {1, 2, 3, -1, -1, -1, -1, -1, -1, -1}, ints);
        return world.recv(Buf.of(longs), 0, 2, Datatype.LONG, 0, 2);
      }).compose(st -> {
        assertEquals(new Status(0, 2, 0, 0), st, "an empty message");
        assertArrayEquals(new long[] {-1, -1}, longs);
        return world.recv(Buf.of(doubles), 1, 5, Datatype.DOUBLE, 0, Comm.ANY_TAG);
      }).map(st -> {
        assertEquals(new Status(0, 3, 2, 16), st);
        assertArrayEquals(new double[] {-1, 0.5, 1.5, -1, -1, -1}, doubles);
        return null;
      });
    });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void ssendCompletesOnlyOnceTheReceiveIsPosted(Mode mode) {
    AtomicBoolean stillPendingAtProbe = new AtomicBoolean();
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 0) {
        int[] data = {41, 42, 43};
        Future<Void> ss = world.ssend(Buf.of(data), 0, 3, Datatype.INT, 1, 1);
        boolean pendingAtCall = !ss.isComplete();
        // only now tell rank 1 to go on; it answers before posting the receive that matches
        world.send(Buf.of(new int[0]), 0, 0, Datatype.INT, 1, 2);
        int[] probe = new int[1];
        Future<Status> answered = world.recv(Buf.of(probe), 0, 1, Datatype.INT, 1, 3).map(st -> {
          stillPendingAtProbe.set(!ss.isComplete());
          return st;
        });
        return Future.all(ss, answered).map(all -> {
          assertTrue(pendingAtCall, "ssend completed before the destination posted any receive");
          assertTrue(ss.succeeded());
          assertEquals(1, probe[0]);
          return null;
        });
      }
      int[] in = new int[3];
      return world.recv(Buf.of(new int[0]), 0, 0, Datatype.INT, 0, 2).compose(go -> {
        // the reply to rank 0 leaves before the matching receive is posted
        world.send(Buf.of(new int[] {1}), 0, 1, Datatype.INT, 0, 3);
        return world.recv(Buf.of(in), 0, 3, Datatype.INT, 0, 1);
      }).map(st -> {
        assertArrayEquals(new int[] {41, 42, 43}, in);
        assertEquals(new Status(0, 1, 3, 12), st);
        return null;
      });
    });
    assertTrue(stillPendingAtProbe.get(),
        "ssend had completed although the receive was posted only after rank 1's probe message");
  }
}
