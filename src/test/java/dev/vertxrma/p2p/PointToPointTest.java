package dev.vertxrma.p2p;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PointToPointTest {

  @ParameterizedTest
  @EnumSource(Mode.class)
  void ringSendRecvCarriesValuesAndStatus(Mode mode) {
    Jobs.run(mode, 4, (world, args) -> {
      int r = world.rank();
      int n = world.size();
      double[] out = {r, r * 10.5, -r};
      double[] in = new double[3];
      world.send(Buf.of(out), 0, 3, Datatype.DOUBLE, (r + 1) % n, 7);
      return world.recv(Buf.of(in), 0, 3, Datatype.DOUBLE, (r + n - 1) % n, 7).map(st -> {
        int from = (r + n - 1) % n;
        assertArrayEquals(new double[] {from, from * 10.5, -from}, in);
        assertEquals(new Status(from, 7, 3, 24), st);
        return null;
      });
    });
  }

  /**
   * MPI places no requirement on the buffer of an empty message: a null buffer with count 0 is
   * sent in every mode and matches a receive (whose buffer stays untouched), and a null receive
   * buffer of count 0 takes an empty message. A null buffer with a positive count is BUFFER.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void nullBufferWithCountZeroIsAnEmptyMessage(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 0) {
        byte[] attached = new byte[Comm.BSEND_OVERHEAD + 16];
        return world.send(null, 0, 0, Datatype.INT, 1, 1)
            .compose(v -> world.isend(null, 3, 0, Datatype.DOUBLE, 1, 2))
            .compose(v -> world.ssend(null, 0, 0, Datatype.LONG, 1, 3))
            .compose(v -> world.bufferAttach(Buf.of(attached), attached.length))
            .compose(v -> world.bsend(null, 0, 0, Datatype.INT, 1, 4))
            .compose(v -> world.bufferDetach())
            .compose(v -> expectError(world.send(null, 0, 1, Datatype.INT, 1, 5), ErrorClass.BUFFER, "send",
                "null", "count is 1"))
            .compose(v -> expectError(world.isend(null, 0, 2, Datatype.INT, 1, 5), ErrorClass.BUFFER, "isend",
                "count is 2"))
            .compose(v -> world.send(Buf.of(new int[] {77}), 0, 1, Datatype.INT, 1, 6));
      }
      int[] in = {-7, -7};
      List<Status> got = new ArrayList<>();
      return world.recv(Buf.of(in), 0, 2, Datatype.INT, 0, 1).map(got::add)
          .compose(v -> world.recv(null, 0, 0, Datatype.DOUBLE, 0, 2).map(got::add))
          .compose(v -> world.irecv(null, 5, 0, Datatype.LONG, 0, 3).map(got::add))
          .compose(v -> world.recv(null, 0, 0, Datatype.INT, 0, 4).map(got::add))
          .compose(v -> expectError(world.recv(null, 0, 1, Datatype.INT, 0, 5), ErrorClass.BUFFER, "recv",
              "count is 1"))
          .map(v -> {
            assertArrayEquals(new int[] {-7, -7}, in, "an empty message leaves the receive buffer alone");
            for (int tag = 1; tag <= 4; tag++) {
              assertEquals(new Status(0, tag, 0, 0), got.get(tag - 1), "status of the empty message with tag " + tag);
            }
            return null;
          })
          .compose(v -> world.recv(Buf.of(in), 0, 2, Datatype.INT, 0, 6))
          .map(st -> {
            assertArrayEquals(new int[] {77, -7}, in, "the message after the empty ones");
            assertEquals(new Status(0, 6, 1, 4), st);
            return null;
          });
    });
  }

  /**
   * A Java array whose element type contradicts the datatype is TYPE for sends and receives (no
   * message leaves, the receive buffer stays untouched); byte[] is raw memory and takes any
   * datatype.
   */
  @ParameterizedTest
  @EnumSource(Mode.class)
  void arraysWhoseElementTypeContradictsTheDatatypeFailWithType(Mode mode) {
    Jobs.run(mode, 2, (world, args) -> {
      if (world.rank() == 0) {
        Datatype intDouble = Datatype.struct(new int[] {1, 1}, new long[] {0, 4},
            new Datatype[] {Datatype.INT, Datatype.DOUBLE}).commit();
        byte[] raw = new byte[12];
        java.nio.ByteBuffer.wrap(raw).order(java.nio.ByteOrder.nativeOrder()).putInt(0, 41).putDouble(4, 2.5);
        return expectError(world.send(Buf.of(new double[] {1.5}), 0, 1, Datatype.LONG, 1, 1), ErrorClass.TYPE, "send",
            "double[]", "LONG")
            .compose(v -> expectError(world.ssend(Buf.of(new int[] {1, 2}), 0, 1, Datatype.LONG, 1, 1), ErrorClass.TYPE,
                "int[]", "LONG"))
            .compose(v -> expectError(world.isend(Buf.of(new long[] {3}), 0, 1, Datatype.DOUBLE, 1, 1), ErrorClass.TYPE,
                "long[]", "DOUBLE"))
            .compose(v -> expectError(world.send(Buf.of(new int[] {1, 2, 3}), 0, 1, intDouble, 1, 1), ErrorClass.TYPE,
                "int[]", "byte[]"))
            .compose(v -> world.send(Buf.of(new long[] {7}), 0, 1, Datatype.LONG, 1, 2))
            .compose(v -> world.send(Buf.of(raw), 0, 1, intDouble, 1, 3));
      }
      long[] in = {-7};
      double[] wrong = {-7};
      int[] pair = {-7, -7, -7};
      return expectError(world.recv(Buf.of(wrong), 0, 1, Datatype.LONG, 0, 2), ErrorClass.TYPE, "recv", "double[]",
          "LONG")
          .compose(v -> expectError(world.irecv(Buf.of(pair), 0, 1, Datatype.LONG, 0, 3), ErrorClass.TYPE, "irecv",
              "int[]", "LONG"))
          .compose(v -> world.recv(Buf.of(in), 0, 1, Datatype.LONG, 0, 2))
          .compose(st -> {
            assertEquals(new Status(0, 2, 1, 8), st);
            assertArrayEquals(new long[] {7}, in);
            assertArrayEquals(new double[] {-7}, wrong, "a rejected receive leaves its buffer alone");
            assertArrayEquals(new int[] {-7, -7, -7}, pair, "a rejected receive leaves its buffer alone");
            byte[] got = new byte[12];
            return world.recv(Buf.of(got), 0, 12, Datatype.BYTE, 0, 3).map(x -> {
              java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(got).order(java.nio.ByteOrder.nativeOrder());
              assertEquals(41, b.getInt(0));
              assertEquals(2.5, b.getDouble(4));
              return null;
            });
          });
    });
  }
}
