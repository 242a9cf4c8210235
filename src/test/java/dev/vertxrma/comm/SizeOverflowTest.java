package dev.vertxrma.comm;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Sizes computed from a call's arguments (count x size, count x ranks, elements of a reduction)
 * that do not fit what one message or buffer takes fail the call with COUNT and a message, never
 * with an ArithmeticException. No huge memory is needed: the types overlap themselves (a vector of
 * stride 0: many bytes of data over a few bytes of buffer) or carry no data at all.
 */
class SizeOverflowTest {

  /** 1024 LONGs all at displacement 0: 8 KiB of data over 8 bytes of buffer. */
  private static Datatype overlapping(int copies) {
    return Datatype.hvector(copies, 1, 0, Datatype.LONG).commit();
  }

  private static Future<Void> sequence(List<Supplier<Future<?>>> steps) {
    Future<Void> chain = Future.succeededFuture();
    for (Supplier<Future<?>> s : steps) {
      chain = chain.compose(v -> s.get().mapEmpty());
    }
    return chain;
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void sizesBeyondOneMessageFailWithCount(Mode mode) {
    Jobs.run(mode, 3, (world, args) -> {
      Datatype kib8 = overlapping(1024);          // size 8192, extent 8
      Datatype many = overlapping(8192);          // 8192 elements, extent 8
      Datatype empty = Datatype.contiguous(0, Datatype.INT).commit();
      int count = 1 << 18;                        // x 8 KiB = 2 GiB of data in a 2 MiB buffer
      long[] buf = new long[count];
      long[] out = new long[count];
      int next = (world.rank() + 1) % world.size();
      long[] check = {world.rank() + 1L};
      long[] all = new long[world.size()];
      return sequence(List.of(
          // point-to-point: the message would be 2 GiB
          () -> expectError(world.send(Buf.of(buf), 0, count, kib8, next, 5), ErrorClass.COUNT, "2147483648 bytes",
              "in parts"),
          () -> expectError(world.bsend(Buf.of(buf), 0, count, kib8, next, 5), ErrorClass.COUNT, "2147483648 bytes"),
          // collectives: the same at every rank
          () -> expectError(world.bcast(Buf.of(buf), 0, count, kib8, 0), ErrorClass.COUNT, "2147483648 bytes"),
          () -> expectError(world.allgather(Buf.of(buf), 0, 0, Datatype.LONG, Buf.of(out), 0, 1 << 30, empty),
              ErrorClass.COUNT, "allgather receive", "3 ranks", "3221225472 elements"),
          () -> expectError(world.alltoall(Buf.of(buf), 0, 1 << 30, empty, Buf.of(out), 0, 1 << 30, empty),
              ErrorClass.COUNT, "alltoall", "3221225472 elements"),
          () -> expectError(world.allreduce(Buf.of(buf), 0, Buf.of(out), 0, count, many, Op.SUM), ErrorClass.COUNT,
              "allreduce", "8192 elements each"),
          () -> expectError(world.reduceScatter(Buf.of(buf), 0, Buf.of(out), 0, new int[] {count, 1, 1}, kib8,
              Op.SUM), ErrorClass.COUNT, "2147483648 bytes"),
          // nothing was sent: the next calls match as they should
          () -> world.allgather(Buf.of(check), 0, 1, Datatype.LONG, Buf.of(all), 0, 1, Datatype.LONG).map(v -> {
            assertArrayEquals(new long[] {1, 2, 3}, all);
            assertEquals(0L, out[0], "a failed call wrote the receive buffer");
            return null;
          }),
          () -> world.sendrecv(Buf.of(check), 0, 1, Datatype.LONG, next, 6, Buf.of(all), 0, 1, Datatype.LONG,
              (world.rank() + world.size() - 1) % world.size(), 6).map(s -> {
                assertEquals((world.rank() + world.size() - 1) % world.size() + 1L, all[0]);
                return null;
              })));
    });
  }
}
