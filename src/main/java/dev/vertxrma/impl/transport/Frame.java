package dev.vertxrma.impl.transport;

/**
 * One message between two ranks of a job: a fixed header plus an optional packed payload.
 *
 * <p>On the same-JVM path a frame object is handed to the target rank as it is (no encoding,
 * no copy); the {@code local*} fields may then reference origin memory that the target copies
 * from or into directly. Across JVMs {@link FrameCodec} writes the header and payload in binary
 * and never the {@code local*} fields: a frame that needs them is built with a payload instead.
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
  /** Decoded target datatype when origin and target share a JVM (skips encode/decode). */
  public Object localType;
  /** Origin memory base object (Unsafe convention) for a same-JVM transfer. */
  public Object localBase;
  /** Origin memory address for a same-JVM transfer. */
  public long localAddress;
  /** Origin datatype (a TypeMap) for a same-JVM transfer. */
  public Object localOriginType;
  /** Origin element count for a same-JVM transfer. */
  public int localOriginCount;
  /** Second origin memory (compare buffer of compare-and-swap, result buffer of get-accumulate). */
  public Object localBase2;
  /** Address in {@link #localBase2}. */
  public long localAddress2;
  /** Result datatype for get-accumulate on the same-JVM path. */
  public Object localResultType;
  /** Result count for get-accumulate on the same-JVM path. */
  public int localResultCount;
  /** Third origin memory (the result buffer of compare-and-swap). */
  public Object localBase3;
  /** Address in {@link #localBase3}. */
  public long localAddress3;

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
    c.localType = localType;
    c.localBase = localBase;
    c.localAddress = localAddress;
    c.localOriginType = localOriginType;
    c.localOriginCount = localOriginCount;
    c.localBase2 = localBase2;
    c.localAddress2 = localAddress2;
    c.localResultType = localResultType;
    c.localResultCount = localResultCount;
    c.localBase3 = localBase3;
    c.localAddress3 = localAddress3;
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
    localType = null;
    localBase = null;
    localAddress = 0;
    localOriginType = null;
    localOriginCount = 0;
    localBase2 = null;
    localAddress2 = 0;
    localResultType = null;
    localResultCount = 0;
    localBase3 = null;
    localAddress3 = 0;
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
    return localType != null || localBase != null || localAddress != 0;
  }

  @Override
  public String toString() {
    return "Frame[" + FrameType.name(type) + " src=" + src + " ctx=" + ctx + " tag=" + tag + " corr=" + corr
        + " disp=" + disp + " count=" + count + " code=" + code + " epoch=" + epoch
        + " payload=" + (payload != null ? payload.length + "B" : payloadSource != null ? payloadSource.length() + "B"
        : "-") + "]";
  }
}
