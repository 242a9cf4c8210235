package dev.vertxrma.impl.transport;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.eventbus.MessageCodec;

/**
 * Binary wire form of a {@link Frame}, and the event-bus codec for frames.
 *
 * <pre>
 * u16 magic 'RM' | u8 version | u8 type | i32 src | i32 ctx | i32 tag | i64 corr | i64 disp
 * | i32 count | i32 code | i64 epoch | i32 typeLen | typeLen bytes | i32 payloadLen | payload bytes
 * </pre>
 *
 * <p>Decoding is a security boundary: every length is validated against what is left of the
 * buffer before anything is allocated, unknown types and versions are rejected, and every
 * violation surfaces as an {@link RmaException} of class {@link ErrorClass#OTHER}. Locally the
 * codec passes the frame object through untouched (no copy of the payload).
 */
public final class FrameCodec implements MessageCodec<Frame, Frame> {

  /** Codec name registered on every Vert.x instance of a job. */
  public static final String NAME = "vertx-rma-frame";
  static final int MAGIC = 0x524D;
  static final int VERSION = 1;
  /** Size of the fixed header in bytes. */
  public static final int HEADER_BYTES = 2 + 1 + 1 + 4 + 4 + 4 + 8 + 8 + 4 + 4 + 8;
  /** Largest payload accepted from the wire (bytes). */
  public static final int MAX_PAYLOAD = Integer.MAX_VALUE - 64;

  @Override
  public void encodeToWire(Buffer buffer, Frame f) {
    encode(buffer, f);
  }

  /**
   * Decodes a frame received from another node. Never throws into the event bus's network layer:
   * a malformed frame becomes an {@link FrameType#INVALID} frame whose payload says what was wrong,
   * which the receiving rank logs and drops.
   */
  @Override
  public Frame decodeFromWire(int pos, Buffer buffer) {
    try {
      return decode(buffer, pos, buffer.length(), false); // the event bus may reuse its buffer
    } catch (RmaException e) {
      Frame invalid = new Frame();
      invalid.type = FrameType.INVALID;
      invalid.payload = e.getMessage().getBytes(java.nio.charset.StandardCharsets.UTF_8);
      return invalid;
    }
  }

  @Override
  public Frame transform(Frame frame) {
    return frame;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public byte systemCodecID() {
    return -1;
  }

  /** Appends the wire form of {@code f} to {@code out}; the frame must not reference local memory. */
  public static void encode(Buffer out, Frame f) {
    ByteBuf b = Unpooled.buffer(frameHeadBytes(f) + f.payloadLength());
    writeHeader(b, f);
    writeBytes(b, f.payloadBytes());
    out.appendBuffer(BufferInternal.buffer(b));
  }

  /**
   * A data-plane record of {@code f} for rank {@code dst}: {@code i32 length | i32 dst | frame},
   * in a heap buffer (see {@link #recordBuf} for the one the data plane writes).
   */
  public static Buffer record(int dst, Frame f) {
    return BufferInternal.buffer(recordBuf(dst, f, false));
  }

  /**
   * {@link #record} as the data plane writes it: a record whose payload is at least {@code
   * directFrom} bytes long is built in a pooled direct buffer, so that the socket writes it as it
   * is (a heap buffer is copied to native memory first); the caller owns the buffer (the socket's
   * write releases it). A {@link PayloadSource} is packed straight into the record, and a heap
   * record's array is not zeroed first (Netty allocates heap buffers uninitialized where it can).
   */
  static ByteBuf recordBuf(int dst, Frame f, boolean direct) {
    int payload = f.payloadLength();
    if (f.payloadSource instanceof PackedPayload) {
      // packed already, in native memory: a native header, and the payload written after it as it is
      int head = 8 + frameHeadBytes(f);
      ByteBuf header = PooledByteBufAllocator.DEFAULT.directBuffer(head, head);
      header.writeInt(head - 4 + payload).writeInt(dst);
      writeHeader(header, f);
      header.writeInt(payload);
      return Unpooled.wrappedBuffer(header, ((PackedPayload) f.payloadSource).take());
    }
    int size = recordBytes(f);
    ByteBuf out = direct ? PooledByteBufAllocator.DEFAULT.directBuffer(size, size) : Unpooled.buffer(size, size);
    if (direct && !out.hasMemoryAddress()) { // no Unsafe: pack into a heap record
      out.release();
      out = Unpooled.buffer(size, size);
    }
    try {
      writeRecord(out, dst, f);
      return out;
    } catch (RuntimeException | Error e) {
      out.release();
      throw e;
    }
  }

  /**
   * The bytes of frame {@code f}'s record: its length, destination, frame length, header, datatype
   * length and bytes, payload length and bytes.
   */
  static int recordBytes(Frame f) {
    return 8 + frameHeadBytes(f) + f.payloadLength();
  }

  /**
   * Writes the record of frame {@code f} for rank {@code dst} into {@code out}, which has {@link
   * #recordBytes} writable bytes; not for a {@link PackedPayload} (see {@link #recordBuf}).
   */
  static void writeRecord(ByteBuf out, int dst, Frame f) {
    int payload = f.payloadLength();
    out.writeInt(recordBytes(f) - 4).writeInt(dst);
    writeHeader(out, f);
    if (f.payloadSource == null) {
      writeBytes(out, f.payload);
    } else {
      out.writeInt(payload);
      int at = out.writerIndex();
      if (out.hasMemoryAddress()) {
        f.payloadSource.packInto(null, out.memoryAddress() + at);
      } else {
        f.payloadSource.packInto(out.array(), Memory.ARRAY_BYTE_BASE_OFFSET + out.arrayOffset() + at);
      }
      out.writerIndex(at + payload);
    }
  }

  /**
   * Bytes of a frame's wire form before its payload: its length, the header, the datatype with its
   * length, and the payload's length.
   */
  private static int frameHeadBytes(Frame f) {
    return 4 + HEADER_BYTES + 4 + (f.typeBytes == null ? 0 : f.typeBytes.length) + 4;
  }

  /** The header and the datatype: everything before the payload's length. */
  private static void writeHeader(ByteBuf out, Frame f) {
    if (f.isLocalTransfer()) {
      throw new IllegalStateException("frame references origin memory and cannot leave the JVM: " + f);
    }
    int len = 4 + (f.typeBytes == null ? 0 : f.typeBytes.length) + 4 + f.payloadLength();
    out.writeInt(len + HEADER_BYTES);
    out.writeShort(MAGIC).writeByte(VERSION).writeByte(f.type)
        .writeInt(f.src).writeInt(f.ctx).writeInt(f.tag).writeLong(f.corr).writeLong(f.disp)
        .writeInt(f.count).writeInt(f.code).writeLong(f.epoch);
    writeBytes(out, f.typeBytes);
  }

  private static void writeBytes(ByteBuf out, byte[] bytes) {
    if (bytes == null) {
      out.writeInt(0);
    } else {
      out.writeInt(bytes.length).writeBytes(bytes);
    }
  }

  /**
   * Decodes the frame that starts at {@code pos} (its i32 total length first) and ends no later
   * than {@code limit}. Throws {@link RmaException} ({@link ErrorClass#OTHER}) on any malformed input.
   */
  public static Frame decode(Buffer in, int pos, int limit) {
    return decode(in, pos, limit, false);
  }

  /**
   * {@link #decode(Buffer, int, int)}; {@code recordOwned}: {@code in} is this frame's alone (a
   * data-plane record), so the payload of a put, accumulate or get-accumulate may stay in it.
   */
  public static Frame decode(Buffer in, int pos, int limit, boolean recordOwned) {
    ByteBuf bytes = recordOwned && in instanceof BufferInternal ? ((BufferInternal) in).getByteBuf() : null;
    return decode(in, pos, limit, bytes != null && bytes.hasArray() ? bytes : null);
  }

  /**
   * Decodes the frame of data-plane record {@code record} that starts at {@code pos} (its i32
   * total length first) and ends no later than {@code limit}. The payload of a put, accumulate,
   * get-accumulate or reply stays where it is ({@link ReceivedPayload}): in the record's array, or
   * in its segments (a retained reference of its own; the caller still releases the record).
   */
  public static Frame decode(ByteBuf record, int pos, int limit) {
    return decode(BufferInternal.buffer(record), pos, limit, record);
  }

  private static Frame decode(Buffer in, int pos, int limit, ByteBuf owned) {
    if (pos < 0 || limit > in.length() || limit - pos < 4 + HEADER_BYTES + 8) {
      throw malformed("frame shorter than its header: " + (limit - pos) + " bytes");
    }
    int total = in.getInt(pos);
    if (total < HEADER_BYTES + 8 || total > limit - pos - 4) {
      throw malformed("frame length " + total + " does not fit the " + (limit - pos - 4) + " bytes received");
    }
    int p = pos + 4;
    int end = p + total;
    int magic = in.getUnsignedShort(p);
    int version = in.getUnsignedByte(p + 2);
    if (magic != MAGIC || version != VERSION) {
      throw malformed("bad magic 0x" + Integer.toHexString(magic) + " or version " + version);
    }
    Frame f = new Frame();
    f.type = in.getByte(p + 3);
    if (!FrameType.isKnown(f.type)) {
      throw malformed("unknown frame type " + f.type);
    }
    f.src = in.getInt(p + 4);
    f.ctx = in.getInt(p + 8);
    f.tag = in.getInt(p + 12);
    f.corr = in.getLong(p + 16);
    f.disp = in.getLong(p + 24);
    f.count = in.getInt(p + 32);
    f.code = in.getInt(p + 36);
    f.epoch = in.getLong(p + 40);
    p += HEADER_BYTES;
    int typeLen = in.getInt(p);
    p += 4;
    if (typeLen < 0 || typeLen > end - p - 4) {
      throw malformed("datatype length " + typeLen + " exceeds the " + (end - p - 4) + " bytes left");
    }
    if (typeLen > 0) {
      f.typeBytes = in.getBytes(p, p + typeLen);
      p += typeLen;
    }
    int payloadLen = in.getInt(p);
    p += 4;
    if (payloadLen < 0 || payloadLen != end - p) {
      throw malformed("payload length " + payloadLen + " does not match the " + (end - p) + " bytes left");
    }
    if (payloadLen > 0) {
      f.payload = null;
      if (owned != null && inPlace(f.type)) {
        // the data of a put, accumulate or get-accumulate stays in the record (the target unpacks
        // from it), and so does a reply's (a get's data, unpacked by the origin)
        f.payloadSource = owned.hasArray() ? new ReceivedPayload(owned.array(), owned.arrayOffset() + p, payloadLen)
            : new ReceivedPayload(owned.retain(), p, payloadLen);
      } else {
        f.payload = in.getBytes(p, p + payloadLen);
      }
    }
    return f;
  }

  /** The frame types whose decoded payload is left in the record ({@link ReceivedPayload}). */
  private static boolean inPlace(byte type) {
    return type == FrameType.PUT || type == FrameType.ACC || type == FrameType.GET_ACC || type == FrameType.REPLY;
  }

  /** Rejected input can come in floods: no formatter, no stack trace. */
  private static RmaException malformed(String what) {
    return new RmaException(ErrorClass.OTHER, "malformed frame: " + what, false);
  }
}
