package dev.vertxrma.impl.win;

import dev.vertxrma.LockType;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;

/**
 * The synchronization frames of a window, by family, with named accessors: which frame field
 * carries what for a lock request, a PSCW complete and a bulk acknowledgement request. The only
 * code of the window engine that reads or writes these fields by their wire names.
 */
final class SyncFrames {

  /** A lock request's tag for NOCHECK: recorded by the target but not queued behind other locks. */
  private static final int LOCK_NOCHECK = 1;

  private SyncFrames() {
  }

  /** {@link FrameType#LOCK} from window rank {@code rank} on window {@code window}: {@code type}, NOCHECK or not. */
  static Frame lockRequest(int rank, int window, LockType type, boolean noCheck) {
    Frame f = Frame.of(FrameType.LOCK, rank, window);
    f.code = type.ordinal();
    f.tag = noCheck ? LOCK_NOCHECK : 0;
    return f;
  }

  /** A lock request's lock type, as the ordinal of a {@link LockType} (unchecked: from the wire). */
  static int lockTypeCode(Frame lock) {
    return lock.code;
  }

  /** Whether a lock request asserts NOCHECK. */
  static boolean isNoCheckLock(Frame lock) {
    return lock.tag == LOCK_NOCHECK;
  }

  /** {@link FrameType#COMPLETE}: the origin's access epoch ended after {@code count} operations to the receiver. */
  static Frame complete(int rank, int window, int count) {
    Frame f = Frame.of(FrameType.COMPLETE, rank, window);
    f.count = count;
    return f;
  }

  /** How many operations a complete announces. */
  static int completedCount(Frame complete) {
    return complete.count;
  }

  /** {@link FrameType#ACK_REQ}: answer once the first {@code upTo} one-way operations are handled. */
  static Frame ackRequest(int rank, int window, long upTo) {
    Frame f = Frame.of(FrameType.ACK_REQ, rank, window);
    f.disp = upTo;
    return f;
  }

  /** How many one-way operations an acknowledgement request waits for. */
  static long ackUpTo(Frame ack) {
    return ack.disp;
  }
}
