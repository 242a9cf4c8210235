package dev.vertxrma.impl.transport;

import dev.vertxrma.impl.memory.Memory;
import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The payload of a frame decoded from a data-plane record, left where it arrived (no copy out of
 * it: the target unpacks from here into its window, the origin into a get's buffer). Either in
 * the record's own array ({@link #isOnePiece()}), or, for a large record, in the socket's own
 * buffers it arrived in, as a list of segments that this payload holds until {@link #release}.
 * The record is this frame's alone, so the bytes stay as they are for as long as the frame is kept.
 *
 * <p>Segments are pooled native memory: whoever consumes the payload releases it once done (the
 * target once it has answered the operation, the origin once it has unpacked a reply); a frame
 * dropped on some other path is released when it is collected.
 */
public final class ReceivedPayload implements PayloadSource {

  private static final Cleaner CLEANER = Cleaner.create();

  private byte[] array;
  private long address;
  private final int length;
  /** The segments (a buffer of the socket's), from {@code from}; {@code null} once in one piece or released. */
  private ByteBuf segments;
  private int from;
  private final Release release;
  private final Cleaner.Cleanable cleanable;

  /** Releases the segments once, whoever comes first: the consumer, or the cleaner. */
  private static final class Release implements Runnable {
    private final ByteBuf buf;
    private final AtomicBoolean done = new AtomicBoolean();

    Release(ByteBuf buf) {
      this.buf = buf;
    }

    @Override
    public void run() {
      if (done.compareAndSet(false, true)) {
        buf.release();
      }
    }
  }

  /** A payload of {@code length} bytes at {@code offset} of the record's own array. */
  ReceivedPayload(byte[] array, int offset, int length) {
    this.array = array;
    this.address = Memory.ARRAY_BYTE_BASE_OFFSET + offset;
    this.length = length;
    this.release = null;
    this.cleanable = null;
  }

  /** A payload of {@code length} bytes from index {@code from} of {@code segments}, which it now owns. */
  ReceivedPayload(ByteBuf segments, int from, int length) {
    this.segments = segments;
    this.from = from;
    this.length = length;
    this.release = new Release(segments);
    this.cleanable = CLEANER.register(this, release);
  }

  /** Whether the bytes are in one piece ({@link #base()}/{@link #address()} read them without a copy). */
  public boolean isOnePiece() {
    return segments == null;
  }

  /** The Unsafe base of the bytes, gathered into one array first if they are in segments. */
  public Object base() {
    onePiece();
    return array;
  }

  /** The Unsafe address of the first byte, gathered into one array first if they are in segments. */
  public long address() {
    onePiece();
    return address;
  }

  @Override
  public int length() {
    return length;
  }

  /** Where the bytes are, piece by piece, in order ({@link #forEachSegment}). */
  public interface SegmentSink {
    /** The next {@code length} bytes, at {@code base}/{@code address} (Unsafe convention). */
    void segment(Object base, long address, int length);
  }

  /** Hands the bytes to {@code sink}, in order: one piece, or each segment they arrived in. */
  public void forEachSegment(SegmentSink sink) {
    if (segments == null) {
      sink.segment(array, address, length);
      return;
    }
    for (ByteBuffer b : segments.nioBuffers(from, length)) {
      int n = b.remaining();
      if (n == 0) {
        continue;
      }
      if (b.isDirect()) {
        sink.segment(null, PlatformDependent.directBufferAddress(b) + b.position(), n);
      } else if (b.hasArray()) {
        sink.segment(b.array(), Memory.ARRAY_BYTE_BASE_OFFSET + b.arrayOffset() + b.position(), n);
      } else {
        byte[] tmp = new byte[n];
        b.duplicate().get(tmp);
        sink.segment(tmp, Memory.ARRAY_BYTE_BASE_OFFSET, n);
      }
    }
  }

  /** Copies the bytes, in order, to {@code base}/{@code address} (Unsafe convention), segment by segment. */
  @Override
  public void packInto(Object base, long address) {
    long[] at = {address};
    forEachSegment((b, a, n) -> {
      Memory.copy(b, a, base, at[0], n);
      at[0] += n;
    });
  }

  /** Gives the segments back to the socket's pool (the bytes are gone after); idempotent. */
  public void release() {
    if (segments != null) {
      segments = null;
      cleanable.clean();
    }
  }

  private void onePiece() {
    if (segments != null) {
      byte[] gathered = new byte[length];
      packInto(gathered, Memory.ARRAY_BYTE_BASE_OFFSET);
      release();
      array = gathered;
      address = Memory.ARRAY_BYTE_BASE_OFFSET;
    }
  }

  /** Releases {@code f}'s payload if it is one left in the socket's buffers. */
  public static void release(Frame f) {
    if (f.payloadSource instanceof ReceivedPayload) {
      ((ReceivedPayload) f.payloadSource).release();
    }
  }
}
