package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.impl.ops.OperationFrames;
import dev.vertxrma.impl.ops.RmaOperation;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.PayloadSource;
import dev.vertxrma.impl.transport.ReceivedPayload;
import java.util.function.Supplier;

/**
 * The answers of one rank's {@link TargetWindow}: an operation's reply (with the data it fetched)
 * or error reply, the failure notice of a one-way operation, the reply to a synchronization
 * request, each sent once the window's ownership is released; and the bulk acknowledgement of
 * one-way operations ({@link OneWayAcknowledgements}), which counts every operation answered.
 * Used by the window's owner only.
 */
final class TargetReplies {

  private final Endpoint endpoint;
  private final SingleOwner owner;
  private final int rank;
  private final OneWayAcknowledgements acks;

  TargetReplies(Endpoint endpoint, SingleOwner owner, Supplier<String> name) {
    this.endpoint = endpoint;
    this.owner = owner;
    this.rank = endpoint.rank();
    this.acks = new OneWayAcknowledgements(endpoint.size(), this::replyLater, name);
  }

  /** The bulk acknowledgement of one-way operations. */
  OneWayAcknowledgements acks() {
    return acks;
  }

  /**
   * The outcome of operation {@code op}: a reply once ownership is released (with {@code data} if
   * not null); for a one-way operation, no reply, but it counts as handled.
   */
  void answer(RmaOperation op, PayloadSource data) {
    release(op); // applied: the data it carried is in the window
    if (op.oneWayNumber > 0) {
      acks.handled(op.origin);
    } else if (op.requestId > 0) {
      Frame reply = OperationFrames.reply(op, rank, data);
      int origin = op.origin;
      owner.defer(() -> endpoint.send(origin, reply));
    } else if (data != null) {
      data.dropped();
    }
  }

  /**
   * Operation {@code op} failed: an error reply; for a one-way operation, an {@link
   * FrameType#OP_FAILED} notice naming it (ahead of any acknowledgement that covers it), and it
   * counts as handled.
   */
  void answerError(RmaOperation op, ErrorClass errorClass, String message) {
    release(op);
    int origin = op.origin;
    if (op.oneWayNumber > 0) {
      Frame notice = OperationFrames.failureNotice(op, rank, errorClass, message);
      owner.defer(() -> endpoint.send(origin, notice));
      acks.handled(origin);
    } else if (op.requestId > 0) {
      Frame reply = OperationFrames.errorReply(op, rank, errorClass, message);
      owner.defer(() -> endpoint.send(origin, reply));
    }
  }

  /** The data an operation brought, where it arrived, is no longer needed. */
  static void release(RmaOperation op) {
    if (op.payloadSource instanceof ReceivedPayload) {
      ((ReceivedPayload) op.payloadSource).release();
    }
  }

  /** Answers synchronization request {@code f} (if it asks for a reply) with success, once ownership is released. */
  void replyLater(Frame f) {
    if (f.corr > 0) {
      owner.defer(() -> endpoint.replyWith(f, (byte[]) null));
    }
  }

  /** Answers synchronization request {@code f} (if it asks for a reply) with an error, once ownership is released. */
  void refuseLater(Frame f, ErrorClass errorClass, String message) {
    if (f.corr > 0) {
      owner.defer(() -> endpoint.reply(f, errorClass, message));
    }
  }
}
