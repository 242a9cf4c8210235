package dev.vertxrma.impl.p2p;

import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.transport.Frame;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.function.Consumer;

/**
 * The unexpected-message queue of one rank: the messages that arrived before any receive matched
 * them, in arrival order (MPI's non-overtaking rule: a receive, a probe or a matched probe takes or
 * reports the first one its envelope matches, {@link PointToPoint#matchesEnvelope}). Runs on the
 * rank's context, as {@link PointToPoint}, which fills it.
 */
final class UnexpectedMessages {

  private final LinkedList<Frame> queue = new LinkedList<>();

  /**
   * Queues message {@code f}, which no posted receive took; the data of a same-JVM transfer, which
   * still lives in the sender's attached buffer, is copied first so that the buffer can be freed.
   */
  void add(Frame f) {
    if (f.isLocalTransfer()) {
      // data still lives in the sender's attached buffer: take a copy so it can be freed
      byte[] copy = new byte[f.count];
      Frame.LocalBytes in = (Frame.LocalBytes) f.local;
      Memory.copy(in.base(), in.address(), copy, Memory.ARRAY_BYTE_BASE_OFFSET, f.count);
      f.payload = copy;
      f.local = null;
    }
    queue.addLast(f);
  }

  /**
   * The first queued message that a receive of {@code source}/{@code tag} on context {@code ctx}
   * would match, or {@code null}.
   */
  Frame first(int ctx, int source, int tag) {
    for (Frame f : queue) {
      if (PointToPoint.matchesEnvelope(f, ctx, source, tag)) {
        return f;
      }
    }
    return null;
  }

  /** {@link #first}, taken out of the queue (a receive, a matched probe); {@code null} if none. */
  Frame take(int ctx, int source, int tag) {
    for (Iterator<Frame> it = queue.iterator(); it.hasNext(); ) {
      Frame f = it.next();
      if (PointToPoint.matchesEnvelope(f, ctx, source, tag)) {
        it.remove();
        return f;
      }
    }
    return null;
  }

  /** Takes queued message {@code f} out of the queue; {@code false} if it is not queued (any more). */
  boolean remove(Frame f) {
    return queue.remove(f);
  }

  /**
   * Takes the queued messages on context {@code ctx} that belong to calls {@code aborted} has
   * recorded out of the queue, handing each to {@code dropped}.
   */
  void dropAborted(int ctx, AbortedCalls aborted, Consumer<Frame> dropped) {
    for (Iterator<Frame> it = queue.iterator(); it.hasNext(); ) {
      Frame q = it.next();
      if (q.ctx == ctx && aborted.failureOf(ctx, q.tag) != null) {
        it.remove();
        dropped.accept(q);
      }
    }
  }
}
