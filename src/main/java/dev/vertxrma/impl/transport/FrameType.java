package dev.vertxrma.impl.transport;

/**
 * Frame type codes. Stable numbers: they travel on the wire.
 */
public final class FrameType {
  private FrameType() {
  }

  /** A frame that failed to decode (never sent; made by {@link FrameCodec#decodeFromWire}). */
  public static final byte INVALID = 0;
  /** Reply to a frame that carried a correlation id: {@code code} is 0 or an error class code. */
  public static final byte REPLY = 1;
  /**
   * Point-to-point message (standard/buffered mode): ctx, tag, payload; corr != 0 asks for an arrival
   * ack. On a collective context, {@code code != 0} makes it a failure notice: {@code code} = error
   * class, payload = message.
   */
  public static final byte SEND = 2;
  /** Point-to-point message in synchronous mode: acked when matched by a receive. */
  public static final byte SSEND = 3;
  /** Job control: abort of the whole job, {@code code} = error class, payload = message. */
  public static final byte ABORT = 4;
  /**
   * ULFM's fault-tolerant agreement on a communicator ({@code ctx}): {@code tag} = the
   * agreement's number on it, {@code code} = 1 for a contribution sent to the coordinator, 2 for
   * the decision sent back; payload = the values.
   */
  public static final byte AGREE = 5;
  /** ULFM: the communicator {@code ctx} was revoked; each rank passes it on once to the others. */
  public static final byte REVOKE = 6;

  /** RMA put. */
  public static final byte PUT = 10;
  /** RMA get; the reply carries the data. */
  public static final byte GET = 11;
  /** RMA accumulate, {@code code} = op. */
  public static final byte ACC = 12;
  /** RMA get-accumulate / fetch-and-op, {@code code} = op; the reply carries the old data. */
  public static final byte GET_ACC = 13;
  /** RMA compare-and-swap; payload = origin value then compare value; reply = old value. */
  public static final byte CAS = 14;

  /** PSCW: target posted its window to the receiver. */
  public static final byte POST = 20;
  /** PSCW: origin completed its access epoch; {@code count} = number of operations it sent. */
  public static final byte COMPLETE = 21;
  /** Passive target: lock request, {@code code} = lock type; reply when granted. */
  public static final byte LOCK = 22;
  /** Passive target: unlock; reply when released (after every earlier operation). */
  public static final byte UNLOCK = 23;
  /**
   * Passive target: the origin gave up a lock request (its wait timed out): the target drops
   * the queued request, or releases the lock if it was granted meanwhile. No reply.
   */
  public static final byte LOCK_CANCEL = 24;
  /**
   * Bulk acknowledgement request: reply once the target has handled the first {@code disp}
   * one-way operations (put and accumulate frames with a negative {@code corr}) the origin sent
   * it on this window, each applied or failed.
   */
  public static final byte ACK_REQ = 25;
  /**
   * A one-way operation failed at the target: {@code disp} = its number among the origin's one-way
   * operations to this target on this window (1 for the first), {@code code} = error class,
   * payload = message. No reply.
   */
  public static final byte OP_FAILED = 26;
  /**
   * PSCW: the sender withdrew its post to the receiver (its waitFor timed out and its exposure
   * epoch is closed): the receiver forgets that post if no start has matched it yet. No reply.
   */
  public static final byte POST_WITHDRAWN = 27;
  /**
   * PSCW on the on-node path: the sender wrote a post or a complete into the receiver's control
   * block while the receiver was parked waiting for one; the receiver reads its block. No reply.
   */
  public static final byte PAGE_WAKE = 28;
  /**
   * Fence: the origin asks whether the receiver has opened fence epoch {@code epoch} of the window;
   * replied to once it has (at once if it already has). An origin sends an epoch's operations
   * beyond its credit to the receiver only after the reply (the receiver holds what comes early).
   */
  public static final byte EPOCH_OPEN = 29;

  /** Whether the frame is an RMA operation on a window (put, get, accumulate, get-accumulate, CAS). */
  public static boolean isOperation(byte type) {
    return type >= PUT && type <= CAS;
  }

  /** Human-readable name of a type code, for messages and logs. */
  public static String name(byte type) {
    switch (type) {
      case INVALID: return "INVALID";
      case REPLY: return "REPLY";
      case SEND: return "SEND";
      case SSEND: return "SSEND";
      case ABORT: return "ABORT";
      case AGREE: return "AGREE";
      case REVOKE: return "REVOKE";
      case PUT: return "PUT";
      case GET: return "GET";
      case ACC: return "ACC";
      case GET_ACC: return "GET_ACC";
      case CAS: return "CAS";
      case POST: return "POST";
      case COMPLETE: return "COMPLETE";
      case LOCK: return "LOCK";
      case UNLOCK: return "UNLOCK";
      case LOCK_CANCEL: return "LOCK_CANCEL";
      case ACK_REQ: return "ACK_REQ";
      case OP_FAILED: return "OP_FAILED";
      case POST_WITHDRAWN: return "POST_WITHDRAWN";
      case PAGE_WAKE: return "PAGE_WAKE";
      case EPOCH_OPEN: return "EPOCH_OPEN";
      default: return "type#" + type;
    }
  }

  /** Whether the code is one this version understands and that may travel on the wire. */
  public static boolean isKnown(byte type) {
    return type != INVALID && !name(type).startsWith("type#");
  }
}
