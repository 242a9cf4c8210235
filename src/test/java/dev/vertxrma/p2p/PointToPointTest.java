package dev.vertxrma.p2p;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
      world.send(out, 0, 3, Datatype.DOUBLE, (r + 1) % n, 7);
      return world.recv(in, 0, 3, Datatype.DOUBLE, (r + n - 1) % n, 7).map(st -> {
        int from = (r + n - 1) % n;
        assertArrayEquals(new double[] {from, from * 10.5, -from}, in);
        assertEquals(new Status(from, 7, 3, 24), st);
        return null;
      });
    });
  }
}
