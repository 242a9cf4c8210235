package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A target window's bulk acknowledgement of one-way operations (puts and accumulates from other
 * JVMs, sent without a reply each): per origin, how many it has handled, applied or failed, and
 * the {@link FrameType#ACK_REQ} requests waiting for more. Owned by the window's owner, like the
 * rest of its target state. At most one request per origin waits: bounded by the window's size.
 */
final class OneWayAcknowledgements {

  private final long[] handled;
  private final List<Frame> waiting = new ArrayList<>(0);
  private final Consumer<Frame> answer;
  private final Supplier<String> window;

  /**
   * @param origins the number of ranks of the window
   * @param answer answers a request with success (once ownership is released)
   * @param window the window's name, for messages
   */
  OneWayAcknowledgements(int origins, Consumer<Frame> answer, Supplier<String> window) {
    this.handled = new long[origins];
    this.answer = answer;
    this.window = window;
  }

  /** One more one-way operation from {@code origin} is handled: answers the requests it completes. */
  void handled(int origin) {
    long n = ++handled[origin];
    if (waiting.isEmpty()) {
      return;
    }
    for (Iterator<Frame> it = waiting.iterator(); it.hasNext(); ) {
      Frame ack = it.next();
      if (ack.src == origin && SyncFrames.ackUpTo(ack) <= n) {
        it.remove();
        answer.accept(ack);
      }
    }
  }

  /**
   * {@link FrameType#ACK_REQ} {@code f}: answered once the origin's first {@link
   * SyncFrames#ackUpTo} one-way operations here are handled (those it sent before the request; a
   * held one counts once its epoch has applied or refused it). Refused (an {@link RmaException}
   * to report) without a correlation id, from a rank outside the window, or while the origin's
   * previous request still waits.
   */
  void onRequest(Frame f) {
    if (f.corr <= 0) {
      throw TargetWindow.refused(ErrorClass.OTHER, "acknowledgement request from rank %d without a correlation id",
          f.src);
    }
    if (f.src < 0 || f.src >= handled.length) {
      throw TargetWindow.refused(ErrorClass.RANK, "acknowledgement request from rank %d, not a rank of window %s",
          f.src, window.get());
    }
    if (handled[f.src] >= SyncFrames.ackUpTo(f)) {
      answer.accept(f);
      return;
    }
    for (Frame w : waiting) {
      if (w.src == f.src) { // an origin asks again only once answered: no queue to flood
        throw TargetWindow.refused(ErrorClass.OTHER, "acknowledgement request from rank %d while its previous one "
            + "waits", f.src);
      }
    }
    waiting.add(f);
  }
}
