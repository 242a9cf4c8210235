package dev.vertxrma.comm;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.SplitType;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), embedded and clustered (the nodes of these tests share
 * one memory segment directory, so every rank is in one shared-memory communicator): its ranks in
 * key order, a split issued right after it without awaiting (agreed in call order), values of a
 * collective and of a shared window over it, no proof file left behind, and a null type.
 */
class SplitTypeTest {

  private static long proofFiles() throws IOException {
    try (Stream<java.nio.file.Path> files = Files.list(SharedMapping.directory())) {
      return files.filter(p -> p.getFileName().toString().startsWith(SharedMapping.ownPrefix(SharedMapping.DOMAIN_PREFIX))).count();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void theRanksThatShareMemoryFormOneCommunicatorInKeyOrder(Mode mode) throws IOException {
    long before = proofFiles();
    CommunicatorsTest.run(mode, 4, (world, args) -> {
      int me = world.rank();
      // issued together, not awaited: the split after splitType is agreed after it at every rank
      Future<Comm> shared = world.splitType(SplitType.SHARED, -me);
      Future<Optional<Comm>> halves = world.split(me / 2, me);
      return Future.all(shared, halves).compose(v -> {
        Comm node = shared.result();
        assertEquals(4, node.size());
        assertEquals(3 - me, node.rank(), "keys reverse the order");
        assertArrayEquals(new int[] {3, 2, 1, 0}, CommunicatorsTest.members(node));
        Comm half = halves.result().orElseThrow();
        assertArrayEquals(new int[] {me / 2 * 2, me / 2 * 2 + 1}, CommunicatorsTest.members(half));
        return node.allreduce(10L * (me + 1), Op.SUM).compose(sum -> {
          assertEquals(100L, sum);
          return Win.allocateShared(node, 8, 8, Info.NULL);
        }).compose(win -> {
          win.memory().writeLong(0, 1000L + me);
          return win.fence().compose(x -> win.sharedQuery(node.size() - 1 - node.rank()))
              .map(seg -> {
                // the segment of the rank at the mirrored place in the node: job rank 3 - me
                assertEquals(1000L + (3 - me), seg.memory().readLong(0));
                return null;
              }).compose(x -> win.fence()).compose(x -> win.free());
        }).compose(x -> node.free()).compose(x -> half.free());
      });
    });
    assertEquals(before, proofFiles(), "the proof files are removed");
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aNullTypeFailsWithArg(Mode mode) {
    CommunicatorsTest.run(mode, 2, (world, args) -> expectError(world.splitType(null, 0), ErrorClass.ARG, "null")
        .compose(v -> world.barrier()));
  }
}
