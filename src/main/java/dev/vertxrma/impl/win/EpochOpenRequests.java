package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import java.util.function.Supplier;

/**
 * The target side of the fence credit ({@link FenceCredit}): the {@link FrameType#EPOCH_OPEN}
 * requests of origins in other JVMs that wait until this rank has opened the fence epoch they
 * name, so that they may send the rest of that epoch's operations. At most one request per origin
 * waits (an origin asks again only once answered; a second is refused): bounded by the window's
 * size, whatever the peers send. Owned by the window's owner, like the rest of its target state.
 */
final class EpochOpenRequests {

  /**
   * How far ahead of this rank's fence epoch a request may be. An origin runs ahead by one epoch
   * per fence it calls before this rank's own fence has advanced, and a fence with operations in its
   * epoch meets the others in a barrier; only fences of empty epochs with NOPRECEDE can add up
   * without one. A request a million epochs ahead is a forged or damaged frame, refused.
   */
  static final long MAX_AHEAD = 1L << 20;

  private final Frame[] waiting;
  private int count;
  private final TargetReplies replies;
  private final Supplier<String> window;

  /**
   * @param origins the number of ranks of the window
   * @param replies answers the requests (once ownership is released)
   * @param window the window's name, for messages
   */
  EpochOpenRequests(int origins, TargetReplies replies, Supplier<String> window) {
    this.waiting = new Frame[origins];
    this.replies = replies;
    this.window = window;
  }

  /** The epoch a request asks about (its {@code epoch} field; unchecked: from the wire). */
  static long epochOf(Frame request) {
    return request.epoch;
  }

  /** {@link FrameType#EPOCH_OPEN} from window rank {@code rank} on window {@code window}, about fence epoch {@code epoch}. */
  static Frame request(int rank, int window, long epoch) {
    Frame f = Frame.of(FrameType.EPOCH_OPEN, rank, window);
    f.epoch = epoch;
    return f;
  }

  /**
   * Request {@code f} while this rank is in fence epoch {@code current}: answered at once if that
   * epoch is the one it names or a later one, else kept until {@link #opened} reaches it. Refused
   * (an {@link dev.vertxrma.RmaException} to report) without a correlation id, from a rank outside
   * the window, for an epoch below 1 or more than {@link #MAX_AHEAD} ahead, or while the origin's
   * previous request still waits.
   */
  void onRequest(Frame f, long current) {
    if (f.corr <= 0) {
      throw TargetWindow.refused(ErrorClass.OTHER, "epoch-open request from rank %d without a correlation id", f.src);
    }
    if (f.src < 0 || f.src >= waiting.length) {
      throw TargetWindow.refused(ErrorClass.RANK, "epoch-open request from rank %d, not a rank of window %s", f.src,
          window.get());
    }
    long epoch = epochOf(f);
    if (epoch < 1 || epoch - current > MAX_AHEAD) {
      throw TargetWindow.refused(ErrorClass.RMA_SYNC, "epoch-open request from rank %d for fence epoch %d of window "
          + "%s, which is in epoch %d: no origin can be there", f.src, epoch, window.get(), current);
    }
    if (epoch <= current) {
      replies.replyLater(f);
      return;
    }
    if (waiting[f.src] != null) { // an origin asks again only once answered: no queue to flood
      throw TargetWindow.refused(ErrorClass.OTHER, "epoch-open request from rank %d while its previous one waits",
          f.src);
    }
    waiting[f.src] = f;
    count++;
  }

  /** This rank opened (or passed) fence epoch {@code epoch}: answers the requests it satisfies. */
  void opened(long epoch) {
    if (count == 0) {
      return;
    }
    for (int r = 0; r < waiting.length; r++) {
      Frame f = waiting[r];
      if (f != null && epochOf(f) <= epoch) {
        waiting[r] = null;
        count--;
        replies.replyLater(f);
      }
    }
  }

  /** Origin {@code r} died (ULFM): its request is dropped (its own side has failed it). */
  void originDied(int r) {
    if (waiting[r] != null) {
      waiting[r] = null;
      count--;
    }
  }

  /** Refuses every waiting request with {@code errorClass} and {@code why} (the window is freed, or can no longer open an epoch). */
  void refuseAll(ErrorClass errorClass, String why) {
    if (count == 0) {
      return;
    }
    for (int r = 0; r < waiting.length; r++) {
      Frame f = waiting[r];
      if (f != null) {
        waiting[r] = null;
        replies.refuseLater(f, errorClass, why);
      }
    }
    count = 0;
  }

  /** How many requests wait (tests). */
  int waitingCount() {
    return count;
  }
}
