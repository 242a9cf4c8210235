package dev.vertxrma.impl.ops;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.impl.transport.BytesPayload;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.PayloadSource;
import dev.vertxrma.impl.transport.PendingReplies;
import java.nio.charset.StandardCharsets;

/**
 * The one place where an {@link RmaOperation} meets the wire: which frame field carries which of
 * its fields, and the frames that answer it. A frame's fields mean different things for different
 * frame types; an operation's fields mean one thing each.
 *
 * <p>An operation in place (same JVM) travels as its own record, attached to the frame
 * ({@link Frame#local}), and never leaves the JVM; a packed one travels in the frame's fields.
 */
public final class OperationFrames {

  private OperationFrames() {
  }

  /**
   * The frame that carries {@code op} to its target: its header, and either the operation itself
   * (in place) or its fields (packed; a one-way operation's number as a negative correlation id).
   */
  public static Frame toFrame(RmaOperation op) {
    Frame f = Frame.of(op.kind, op.origin, op.window);
    if (op.inPlace) {
      f.local = op;
      return f;
    }
    f.tag = op.syncMode;
    f.epoch = op.syncMode == RmaOperation.SYNC_PASSIVE ? notificationField(op.notifyIndex) : op.fenceEpoch;
    f.disp = op.targetDisp;
    f.count = op.targetCount;
    f.code = op.opCode;
    f.typeBytes = op.targetTypeWire;
    f.payload = op.payload;
    f.payloadSource = op.payloadSource;
    if (op.oneWayNumber > 0) {
      f.corr = -op.oneWayNumber;
    }
    return f;
  }

  /**
   * The operation frame {@code f} carries, its source already in the window's rank
   * numbering: the record itself for one in place, a new packed one otherwise (nothing checked
   * yet: the target engine checks every field when it applies it).
   */
  public static RmaOperation fromFrame(Frame f) {
    RmaOperation op;
    if (f.local instanceof RmaOperation) {
      op = (RmaOperation) f.local;
    } else {
      op = new RmaOperation().reset(f.type, f.ctx, f.src);
      op.syncMode = f.tag;
      if (op.syncMode == RmaOperation.SYNC_PASSIVE) {
        op.notifyIndex = notificationIndex(f.epoch);
      } else {
        op.fenceEpoch = f.epoch;
      }
      op.targetDisp = f.disp;
      op.targetCount = f.count;
      op.opCode = f.code;
      op.targetTypeWire = f.typeBytes;
      op.payload = f.payload;
      op.payloadSource = f.payloadSource;
      op.oneWayNumber = f.corr < 0 ? -f.corr : 0;
    }
    op.origin = f.src;
    op.requestId = f.corr > 0 ? f.corr : 0;
    return op;
  }

  /**
   * What an operation stands for at its target while it waits there, in bytes: a frame header, its
   * target datatype's wire form ({@code typeWireBytes}) and its packed data ({@code payloadBytes}).
   * The origin counts its operations with it against a target's credit, and the target the
   * operations it holds for a later fence epoch.
   */
  public static long heldBytes(long payloadBytes, int typeWireBytes) {
    return dev.vertxrma.impl.transport.FrameCodec.HEADER_BYTES + (long) typeWireBytes + payloadBytes;
  }

  /** {@link #heldBytes(long, int)} of operation {@code op} as its target received it. */
  public static long heldBytes(RmaOperation op) {
    return heldBytes(op.payloadLength(), op.targetTypeWire == null ? 0 : op.targetTypeWire.length);
  }

  /**
   * The frame's {@code epoch} field of a passive-target operation, which has no fence epoch: its
   * notification index + 1 ({@code 0}: not notified).
   */
  private static long notificationField(int notifyIndex) {
    return notifyIndex < 0 ? 0 : notifyIndex + 1L;
  }

  /**
   * The notification index a passive-target operation frame's {@code epoch} field carries
   * (untrusted): {@link RmaOperation#NO_NOTIFY} for 0, {@link RmaOperation#BAD_NOTIFY} for a value
   * no index has (the target refuses the operation).
   */
  private static int notificationIndex(long field) {
    if (field == 0) {
      return RmaOperation.NO_NOTIFY;
    }
    return field > 0 && field <= (long) Integer.MAX_VALUE + 1 ? (int) (field - 1) : RmaOperation.BAD_NOTIFY;
  }

  /** The reply of rank {@code from} to {@code op} (it has a {@link RmaOperation#requestId}), carrying {@code data} or nothing. */
  public static Frame reply(RmaOperation op, int from, PayloadSource data) {
    Frame r = PendingReplies.replyTo(op.window, op.requestId, null, null);
    r.src = from;
    if (data instanceof BytesPayload) {
      r.payload = ((BytesPayload) data).bytes();
    } else {
      r.payloadSource = data;
    }
    return r;
  }

  /** The error reply of rank {@code from} to {@code op} (it has a {@link RmaOperation#requestId}). */
  public static Frame errorReply(RmaOperation op, int from, ErrorClass errorClass, String message) {
    Frame r = PendingReplies.replyTo(op.window, op.requestId, errorClass, message);
    r.src = from;
    return r;
  }

  /** Rank {@code from}'s {@link FrameType#OP_FAILED} notice of one-way operation {@code op}: its number, the error class, the message. */
  public static Frame failureNotice(RmaOperation op, int from, ErrorClass errorClass, String message) {
    Frame notice = Frame.of(FrameType.OP_FAILED, from, op.window);
    notice.disp = op.oneWayNumber;
    notice.code = errorClass.code();
    notice.payload = message.getBytes(StandardCharsets.UTF_8);
    return notice;
  }

  /** An {@link FrameType#OP_FAILED} notice's one-way operation number (1 for the origin's first). */
  public static long failedOperationNumber(Frame notice) {
    return notice.disp;
  }

  /** An {@link FrameType#OP_FAILED} notice's error class code. */
  public static int failedOperationErrorCode(Frame notice) {
    return notice.code;
  }
}
