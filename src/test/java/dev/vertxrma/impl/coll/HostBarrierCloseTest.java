package dev.vertxrma.impl.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.comm.CommImpl;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A window's host barrier reads its peers' control pages, which the window unmaps when it is
 * released (issue 41): once {@link HostBarrier#close} has run on the rank's context, no other
 * rank's slot is read any more, whatever the barrier was doing (spinning, polling from event-loop
 * tasks, parked), a polling barrier fails with WIN, and a later one fails at once. Before, a fence
 * still polling when the window was released went on reading the unmapped pages.
 */
class HostBarrierCloseTest {

  /** A slot of another rank that never arrives, counting the reads made after its page went away. */
  private static final class Peer implements BarrierSlot {
    volatile boolean unmapped;
    final AtomicInteger readsAfterUnmap = new AtomicInteger();

    private void read() {
      if (unmapped) {
        readsAfterUnmap.incrementAndGet();
      }
    }

    @Override
    public long arrived() {
      read();
      return 0;
    }

    @Override
    public void arrive(long n) {
      read();
    }

    @Override
    public long parked() {
      read();
      return 0;
    }

    @Override
    public boolean casParked(long expect, long update) {
      read();
      return false;
    }
  }

  /** This rank's own slot, plain words. */
  private static final class Own implements BarrierSlot {
    long arrived;
    long parked;

    @Override
    public long arrived() {
      return arrived;
    }

    @Override
    public void arrive(long n) {
      arrived = n;
    }

    @Override
    public long parked() {
      return parked;
    }

    @Override
    public synchronized boolean casParked(long expect, long update) {
      if (parked != expect) {
        return false;
      }
      parked = update;
      return true;
    }
  }

  @Test
  void aClosedBarrierReadsNoOtherSlotAndFailsItsCallsWithWin() {
    Peer peer = new Peer();
    Jobs.run(Jobs.Mode.EMBEDDED, 1, (world, args) -> {
      CommImpl c = (CommImpl) world;
      HostBarrier barrier = new HostBarrier(new BarrierSlot[] {new Own(), peer}, 0,
          c.p2p().channel(1 << 22, c.endpoint()), n -> (int) (n & 0xFFFF), c.endpoint().context(), () -> null);
      Future<Void> waiting = barrier.arrive(); // the peer never comes: spins, polls, then parks
      barrier.close();
      peer.unmapped = true; // what the window's release does next, on a worker
      Promise<Void> checked = Promise.promise();
      // a poll of the barrier reschedules itself as a task of the context: the one queued now has
      // run (and seen the close) before this task does
      c.endpoint().context().runOnContext(t -> {
        assertEquals(0, peer.readsAfterUnmap.get(), "slot reads after the barrier was closed");
        assertTrue(!waiting.isComplete() || isWin(waiting.cause()), "a barrier ended by close fails with WIN: "
            + waiting.cause());
        Future<Void> later = barrier.arrive();
        assertTrue(later.failed() && isWin(later.cause()), "a barrier after close fails at once with WIN");
        assertEquals(0, peer.readsAfterUnmap.get(), "slot reads after the barrier was closed");
        checked.complete();
      });
      return checked.future();
    });
  }

  private static boolean isWin(Throwable e) {
    return e instanceof RmaException && ((RmaException) e).errorClass() == ErrorClass.WIN;
  }
}
