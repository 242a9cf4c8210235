package dev.vertxrma.comm;

import static dev.vertxrma.testing.RmaAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.rx.RxComm;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * MPI_Comm_set_name / MPI_Comm_get_name, embedded and clustered: MPI's default names (world,
 * self, "" for derived communicators, a name never copied by dup), names local to each rank
 * (every rank sets its own and still sees it after a collective), renaming, the Rx twin, and the
 * ARG and COMM errors.
 */
class CommNameTest {

  @ParameterizedTest
  @EnumSource(Mode.class)
  void namesAreMpisDefaultsLocalToTheRankAndNeverCopied(Mode mode) {
    Jobs.await(Jobs.start(mode, Jobs.options(3).setStartupTimeoutMs(20_000), (world, args) -> {
      int me = world.rank();
      assertEquals("MPI_COMM_WORLD", world.getName());
      assertEquals("MPI_COMM_SELF", world.self().getName());
      assertError(assertThrows(RmaException.class, () -> world.setName(null)), ErrorClass.ARG, "setName", "null");
      assertEquals("MPI_COMM_WORLD", world.getName(), "a refused name changed the name");
      world.setName("world of rank " + me);
      world.self().setName("");
      return world.dup().compose(dup -> {
        assertEquals("", dup.getName(), "dup copies no name");
        dup.setName("dup-" + me);
        return world.split(me % 2, -me).map(split -> {
          Comm c = split.orElseThrow();
          assertEquals("", c.getName());
          RxComm.of(c).setName("split " + (me % 2));
          assertEquals("split " + (me % 2), c.getName());
          assertEquals("dup-" + me, dup.getName(), "naming one communicator renamed another");
          assertEquals("dup-" + me, RxComm.of(dup).getName());
          return dup;
        });
      }).compose(dup -> world.allreduce((long) me, Op.SUM).compose(sum -> {
        // after a collective every rank still sees the names it set, not another rank's
        assertEquals(3L, sum);
        assertEquals("world of rank " + me, world.getName());
        assertEquals("", world.self().getName());
        assertEquals("dup-" + me, dup.getName());
        return dup.free().map(v -> {
          assertError(assertThrows(RmaException.class, () -> dup.setName("late")), ErrorClass.COMM, "setName",
              "freed");
          assertEquals("dup-" + me, dup.getName());
          world.setName("MPI_COMM_WORLD");
          assertEquals("MPI_COMM_WORLD", world.getName());
          return null;
        });
      }));
    }), 120);
  }
}
