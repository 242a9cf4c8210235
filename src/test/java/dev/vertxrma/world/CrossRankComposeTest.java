package dev.vertxrma.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.World;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A service composes calls of two ranks of one world: the future one rank's call returns never
 * merges with, nor is replaced by, a future of another rank, so every listener runs on the context
 * of the rank whose call it was registered on.
 */
class CrossRankComposeTest {

  @Test
  void listenersRunOnTheContextOfTheRankWhoseFutureTheyListenTo() {
    World world = Jobs.worlds(Jobs.Mode.EMBEDDED, Jobs.options(2)).get(0);
    Comm r0 = world.rank(0);
    Comm r1 = world.rank(1);
    AtomicReference<Context> ctx0 = new AtomicReference<>();
    AtomicReference<Context> ctx1 = new AtomicReference<>();
    Jobs.await(Future.all(r0.barrier().onComplete(ar -> ctx0.set(Vertx.currentContext())),
        r1.barrier().onComplete(ar -> ctx1.set(Vertx.currentContext()))), 30);
    assertNotSame(ctx0.get(), ctx1.get(), "the two ranks' contexts");

    long[] first = new long[1];
    long[] second = new long[1];
    // rank 1's receive is pending when rank 0's compose returns it
    Future<?> received = r1.recv(Buf.of(second), 0, 1, Datatype.LONG, 0, 7);
    AtomicReference<Context> ownListener = new AtomicReference<>();
    received.onComplete(ar -> ownListener.set(Vertx.currentContext()));
    Future<?> firstReceived = r1.recv(Buf.of(first), 0, 1, Datatype.LONG, 0, 5);
    AtomicReference<Context> chainListener = new AtomicReference<>();
    Future<?> chained = r0.send(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, 1, 5).compose(v -> received);
    chained.onComplete(ar -> chainListener.set(Vertx.currentContext()));
    Jobs.await(firstReceived, 30);
    Jobs.await(r0.send(Buf.of(new long[] {2}), 0, 1, Datatype.LONG, 1, 7), 30);
    Jobs.await(chained, 30);
    Jobs.await(received, 30);
    Jobs.eventually(() -> ownListener.get() != null && chainListener.get() != null, 30, "both listeners ran");
    assertEquals(2L, second[0]);
    assertSame(ctx1.get(), ownListener.get(), "a listener of rank 1's receive ran on another context");
    assertSame(ctx0.get(), chainListener.get(), "a listener of rank 0's compose ran on another context");
    Jobs.await(world.close(), 60);
  }
}
