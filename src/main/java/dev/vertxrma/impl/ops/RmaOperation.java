package dev.vertxrma.impl.ops;

import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.PayloadSource;

/**
 * One RMA operation inside a JVM — put, get, accumulate, get-accumulate or compare-and-swap — as
 * the origin builds it, the target engine ({@link RmaTarget}) applies it and a fence epoch holds
 * it. Every field has one meaning. The wire knows nothing of this class: {@link OperationFrames}
 * is the one place that turns an operation into a frame and back.
 *
 * <p>Its data travels in one of two forms. <em>In place</em> ({@link #inPlace}, the same JVM):
 * the target reads the origin's buffers and writes the result buffer where they are, and the
 * target datatype is already decoded. <em>Packed</em> (from another JVM): the data is in
 * {@link #payload} or {@link #payloadSource}, the result goes back in the reply, and the target
 * datatype is decoded from {@link #targetTypeWire} when the operation is applied. Bases and
 * addresses follow the Unsafe convention.
 *
 * <p>Reused like a flyweight: the origin fills one instance for every operation it applies at once
 * on its own thread ({@link #reset}), and an operation that has to wait keeps a {@link #copy()}.
 */
public final class RmaOperation implements Frame.Local {

  /** {@link #syncMode}: issued in a fence epoch. */
  public static final int SYNC_FENCE = 1;
  /** {@link #syncMode}: issued in a PSCW access epoch. */
  public static final int SYNC_PSCW = 2;
  /** {@link #syncMode}: issued under a passive-target lock. */
  public static final int SYNC_PASSIVE = 3;

  /** {@link #notifyIndex}: not a notified operation (no index a caller passes: those below 0 are refused). */
  public static final int NO_NOTIFY = Integer.MIN_VALUE;
  /**
   * {@link #notifyIndex} of a frame whose notification field no counter index can have: the
   * target refuses it with RMA_NOTIFICATION.
   */
  public static final int BAD_NOTIFY = Integer.MIN_VALUE + 1;

  /** What it does: {@link FrameType#PUT}, {@link FrameType#GET}, {@link FrameType#ACC}, {@link FrameType#GET_ACC} or {@link FrameType#CAS}. */
  public byte kind;
  /** The window's id (its context). */
  public int window;
  /** The origin's rank in the window's numbering. */
  public int origin;
  /** The synchronization it was issued under ({@link #SYNC_FENCE}, {@link #SYNC_PSCW}, {@link #SYNC_PASSIVE}): what the target checks it against. */
  public int syncMode;
  /** The origin's fence epoch when it was issued (fence mode only, else 0). */
  public long fenceEpoch;
  /** Target displacement, in units of the target window's displacement unit. */
  public long targetDisp;
  /** Number of target datatype elements. */
  public int targetCount;
  /** The op's code ({@code Op.code()}) for accumulate and get-accumulate; 0 otherwise. Checked when applied. */
  public int opCode;
  /** The target datatype, decoded: in place, or once {@link #targetType()} decoded {@link #targetTypeWire}. */
  public TypeMap targetType;
  /** The target datatype as it came over the wire (packed form), or {@code null}. */
  public byte[] targetTypeWire;

  /** Whether its buffers are referenced in place (same JVM) rather than packed. */
  public boolean inPlace;
  /** In place: the origin data (put, accumulate, get-accumulate, compare-and-swap's new value). */
  public Object originBase;
  public long originAddress;
  public TypeMap originType;
  public int originCount;
  /** In place: where the result goes (get's buffer, get-accumulate's and compare-and-swap's result). */
  public Object resultBase;
  public long resultAddress;
  public TypeMap resultType;
  public int resultCount;
  /** In place: compare-and-swap's compare value. */
  public Object compareBase;
  public long compareAddress;

  /** Packed: the data as an array (compare-and-swap: new value then compare value), or {@code null}. */
  public byte[] payload;
  /** Packed: the data packed on demand or left where it arrived, instead of {@link #payload}; or {@code null}. */
  public PayloadSource payloadSource;

  /**
   * The target's notification counter it increments once its data is in place or read (MPI 5.1
   * draft's notified RMA, passive-target only), {@link #NO_NOTIFY} for none, {@link #BAD_NOTIFY}
   * for a frame carrying no valid index. Checked by the target before anything is touched.
   */
  public int notifyIndex = NO_NOTIFY;

  /** The id its reply answers to, {@code 0} if nobody waits for a reply. */
  public long requestId;
  /** Its number among the origin's one-way operations to this target on this window (1 for the first), {@code 0} if not one way. */
  public long oneWayNumber;

  /** Every field back to its initial value, for a new operation of {@code kind} on {@code window} from {@code origin}. */
  public RmaOperation reset(byte kind, int window, int origin) {
    this.kind = kind;
    this.window = window;
    this.origin = origin;
    syncMode = 0;
    fenceEpoch = 0;
    targetDisp = 0;
    targetCount = 0;
    opCode = 0;
    targetType = null;
    targetTypeWire = null;
    inPlace = false;
    originBase = null;
    originAddress = 0;
    originType = null;
    originCount = 0;
    resultBase = null;
    resultAddress = 0;
    resultType = null;
    resultCount = 0;
    compareBase = null;
    compareAddress = 0;
    payload = null;
    payloadSource = null;
    requestId = 0;
    oneWayNumber = 0;
    notifyIndex = NO_NOTIFY;
    return this;
  }

  /** Drops every reference (the reused instance must not keep the caller's buffers reachable). */
  public void clear() {
    reset((byte) 0, 0, 0);
  }

  @Override
  public RmaOperation copy() {
    RmaOperation c = new RmaOperation();
    c.kind = kind;
    c.window = window;
    c.origin = origin;
    c.syncMode = syncMode;
    c.fenceEpoch = fenceEpoch;
    c.targetDisp = targetDisp;
    c.targetCount = targetCount;
    c.opCode = opCode;
    c.targetType = targetType;
    c.targetTypeWire = targetTypeWire;
    c.inPlace = inPlace;
    c.originBase = originBase;
    c.originAddress = originAddress;
    c.originType = originType;
    c.originCount = originCount;
    c.resultBase = resultBase;
    c.resultAddress = resultAddress;
    c.resultType = resultType;
    c.resultCount = resultCount;
    c.compareBase = compareBase;
    c.compareAddress = compareAddress;
    c.payload = payload;
    c.payloadSource = payloadSource;
    c.requestId = requestId;
    c.oneWayNumber = oneWayNumber;
    c.notifyIndex = notifyIndex;
    return c;
  }

  /** In place: the origin data is {@code count} of {@code type} at {@code base}/{@code address}. */
  public void originInPlace(Object base, long address, TypeMap type, int count) {
    originBase = base;
    originAddress = address;
    originType = type;
    originCount = count;
  }

  /** In place: the result goes to {@code count} of {@code type} at {@code base}/{@code address}. */
  public void resultInPlace(Object base, long address, TypeMap type, int count) {
    resultBase = base;
    resultAddress = address;
    resultType = type;
    resultCount = count;
  }

  /** Packed: the data's length in bytes. */
  public int payloadLength() {
    return payload != null ? payload.length : payloadSource != null ? payloadSource.length() : 0;
  }

  /** Whether the origin waits for an answer from the target (a reply, or the acknowledgement of a one-way operation). */
  public boolean answered() {
    return requestId > 0 || oneWayNumber > 0;
  }

  @Override
  public String toString() {
    return FrameType.name(kind) + "[window=" + window + " origin=" + origin + " sync=" + syncMode + " fenceEpoch="
        + fenceEpoch + " disp=" + targetDisp + " count=" + targetCount + " op=" + opCode
        + (inPlace ? " in place" : " packed " + payloadLength() + "B")
        + (notifyIndex != NO_NOTIFY ? " notify=" + notifyIndex : "")
        + (requestId > 0 ? " request=" + requestId : oneWayNumber > 0 ? " oneWay=" + oneWayNumber : "") + "]";
  }
}
