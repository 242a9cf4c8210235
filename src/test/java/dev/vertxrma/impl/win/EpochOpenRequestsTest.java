package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The target side of the fence credit takes {@code EPOCH_OPEN} requests as untrusted input: one
 * for no epoch (below 1) or for one no origin can be at (more than {@link
 * EpochOpenRequests#MAX_AHEAD} ahead), for a window the target does not have, or a second while
 * the origin's first waits, is refused with an error reply; at most one request per origin waits.
 * A request for the epoch the target is in is answered at once, one for its next epoch when its
 * fence opens it, and one still waiting when the target frees the window fails with WIN. Forged
 * frames, across the data plane when clustered.
 */
class EpochOpenRequestsTest {

  private static Future<Void> refused(Future<Frame> reply, ErrorClass errorClass, String fragment) {
    return reply.transform(ar -> {
      assertTrue(ar.failed(), "a nonsense epoch-open request was answered");
      RmaException e = (RmaException) ar.cause();
      assertEquals(errorClass, e.errorClass(), e.getMessage());
      assertTrue(e.getMessage().contains(fragment), e.getMessage() + " lacks " + fragment);
      return Future.succeededFuture();
    });
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void nonsenseIsRefusedOneRequestWaitsAndEveryRequestIsAnswered(Jobs.Mode mode) {
    Jobs.runOverDataPlane(mode, 2, (world, args) -> Win.allocate(world, 8, 8, Info.NULL)
        .compose(win -> win.fence(Mode.NOPRECEDE).map((WinImpl) win)).compose(w -> {
          if (world.rank() == 1) {
            // fences once rank 0's request for the next epoch waits here
            return world.barrier().compose(v -> w.targetWindow().exposure().heldBytes()).compose(held -> {
              assertEquals(1L, held[2], "one request waits, whatever the origin sent");
              return w.fence();
            }).compose(v -> world.barrier()).compose(v -> w.free());
          }
          int id = w.id();
          java.util.List<Future<Frame>> next = new java.util.ArrayList<>();
          return refused(w.requestRaw(1, EpochOpenRequests.request(0, id, 0)), ErrorClass.RMA_SYNC, "fence epoch 0")
              .compose(v -> refused(w.requestRaw(1, EpochOpenRequests.request(0, id, -5)), ErrorClass.RMA_SYNC,
                  "no origin can be there"))
              .compose(v -> refused(w.requestRaw(1, EpochOpenRequests.request(0, id, Long.MAX_VALUE)),
                  ErrorClass.RMA_SYNC, "no origin can be there"))
              .compose(v -> refused(w.requestRaw(1, EpochOpenRequests.request(0, id + 1000, 1)), ErrorClass.WIN,
                  "has no window"))
              .compose(v -> w.requestRaw(1, EpochOpenRequests.request(0, id, 1))) // open there: answered at once
              .compose(v -> {
                next.add(w.requestRaw(1, EpochOpenRequests.request(0, id, 2)));
                return refused(w.requestRaw(1, EpochOpenRequests.request(0, id, 3)), ErrorClass.OTHER,
                    "previous one waits");
              })
              .compose(v -> {
                assertFalse(next.get(0).isComplete(), "a request for an epoch the target has not opened was answered");
                return world.barrier();
              })
              .compose(v -> w.fence()).compose(v -> next.get(0)) // answered once rank 1's fence opened epoch 2
              .compose(v -> world.barrier())
              .compose(v -> {
                next.add(w.requestRaw(1, EpochOpenRequests.request(0, id, 3)));
                return w.free();
              })
              .compose(v -> refused(next.get(1), ErrorClass.WIN, "freed"));
        }));
  }
}
