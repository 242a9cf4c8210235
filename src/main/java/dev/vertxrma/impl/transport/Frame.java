package dev.vertxrma.impl.transport;

/**
 * One message between two ranks of a job: a fixed header plus an optional packed payload.
 *
 * <p>On the same-JVM path a frame object is handed to the target rank as it is (no encoding,
 * no copy); its {@link #local} attachment may then reference origin memory that the target
 * copies from or into directly. Across JVMs {@link FrameCodec} writes the header and payload in
 * binary and refuses a frame with an attachment: such a frame is built with a payload instead.
 *
 * <p>The meaning of the numeric fields depends on {@link #type}; see {@link FrameType}.
 */
public final class Frame {
  /** Frame type, one of the {@link FrameType} constants. */
  public byte type;
  /** Sending rank (job rank). */
  public int src;
  /** Communicator context or window id the frame belongs to. */
  public int ctx;
  /** Message tag (point-to-point) or a type-specific small value. */
  public int tag;
  /** Correlation id for replies; 0 when no reply is expected. */
  public long corr;
  /** Target displacement (RMA) or a type-specific value. */
  public long disp;
  /** Element count (RMA) or a type-specific value. */
  public int count;
  /** Op code, error class code, lock type or assertion bits, depending on the type. */
  public int code;
  /** Epoch or sequence number, depending on the type. */
  public long epoch;
  /** Encoded target datatype (RMA), or {@code null}. */
  public byte[] typeBytes;
  /** Packed data, or {@code null}. */
  public byte[] payload;
  /** Data packed only when the frame is encoded, instead of {@link #payload} (see {@link PayloadSource}). */
  public PayloadSource payloadSource;

  // ---- same-JVM only: never encoded ----
  /**
   * What a same-JVM frame references in this JVM's memory, read or written by its receiver in
   * place (an RMA operation's buffers and decoded datatypes, a buffered send's data); {@code null}
   * for a frame that can leave the JVM.
   */
  public Local local;
  /**
   * The budget of the data-plane connection this frame arrived on, or {@code null} (a frame from
   * this JVM): an operation that waits in a target's owner queue counts against it.
   */
  public InboundBudget inbound;

  /** A frame's same-JVM attachment ({@link #local}): never encoded. */
  public interface Local {
    /** A copy the frame's copy keeps, valid when this one is reused (the memory it references is not copied). */
    Local copy();
  }

  /** Bytes at {@code base}/{@code address} (Unsafe convention) in this JVM. */
  public record LocalBytes(Object base, long address) implements Local {
    @Override
    public Local copy() {
      return this;
    }
  }

  /** A frame of the given type from rank {@code src} in context {@code ctx}. */
  public static Frame of(byte type, int src, int ctx) {
    Frame f = new Frame();
    f.type = type;
    f.src = src;
    f.ctx = ctx;
    return f;
  }

  /** A copy of every field (the arrays and objects referenced, not copied). */
  public Frame copy() {
    Frame c = new Frame();
    c.type = type;
    c.src = src;
    c.ctx = ctx;
    c.tag = tag;
    c.corr = corr;
    c.disp = disp;
    c.count = count;
    c.code = code;
    c.epoch = epoch;
    c.typeBytes = typeBytes;
    c.payload = payload;
    c.payloadSource = payloadSource;
    c.local = local == null ? null : local.copy();
    return c;
  }

  /** Resets every field to its initial value and sets the header's type, source and context. */
  public Frame reset(byte type, int src, int ctx) {
    this.type = type;
    this.src = src;
    this.ctx = ctx;
    tag = 0;
    corr = 0;
    disp = 0;
    count = 0;
    code = 0;
    epoch = 0;
    typeBytes = null;
    payload = null;
    payloadSource = null;
    local = null;
    return this;
  }

  /** The payload as an array: {@link #payload}, or {@link #payloadSource}'s bytes; {@code null} if none. */
  public byte[] payloadBytes() {
    return payload != null || payloadSource == null ? payload : payloadSource.toBytes();
  }

  /** The payload's length in bytes, from {@link #payload} or {@link #payloadSource}. */
  public int payloadLength() {
    return payload != null ? payload.length : payloadSource != null ? payloadSource.length() : 0;
  }

  /** Whether this frame is in its same-JVM form (decoded type, references to origin memory). */
  public boolean isLocalTransfer() {
    return local != null;
  }

  @Override
  public String toString() {
    return "Frame[" + FrameType.name(type) + " src=" + src + " ctx=" + ctx + " tag=" + tag + " corr=" + corr
        + " disp=" + disp + " count=" + count + " code=" + code + " epoch=" + epoch
        + " payload=" + (payload != null ? payload.length + "B" : payloadSource != null ? payloadSource.length() + "B"
        : "-") + "]";
  }
}
