package dev.vertxrma.impl.ops;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.memory.TargetMemory;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.PackedPayload;
import dev.vertxrma.impl.transport.ReceivedPayload;

/**
 * Applies one RMA operation frame to a target window: put, get, accumulate, get-accumulate,
 * compare-and-swap. Every check — datatype, count, op, range (overflow-checked, against the
 * window size) and payload length — runs before the first byte of the window is touched, so a
 * rejected operation leaves the window exactly as it was. Runs on the target rank's context,
 * which makes every operation atomic with respect to the others on the same window.
 */
public final class RmaTarget {

  private RmaTarget() {
  }

  /** A get's data from this many bytes on is packed into native memory the data-plane record writes as it is. */
  static final int PACKED_NATIVE_FROM = 8 * 1024;

  /**
   * Applies {@code f} to {@code mem}; returns the reply payload (get, get-accumulate, CAS over
   * the wire: a byte[], or for a large get a {@link PackedPayload}) or {@code null}. Throws
   * {@link RmaException} with the error to report.
   */
  public static Object apply(Frame f, TargetMemory mem, int dispUnit, int rank) {
    TypeMap t = targetType(f);
    if (f.count < 0) {
      throw RmaException.of(ErrorClass.COUNT, "target count %d is negative", f.count);
    }
    Object wBase = mem.base();
    long wAddr = 0;
    if (f.count > 0 && t.size() > 0) {
      long start;
      long hi;
      try {
        start = Math.multiplyExact(f.disp, (long) dispUnit);
        hi = Math.addExact(Math.multiplyExact(f.count - 1L, t.extent()), t.trueUb());
      } catch (ArithmeticException e) {
        throw RmaException.of(ErrorClass.RMA_RANGE, "%s: the target range overflows 64-bit arithmetic",
            describe(f, t, mem, dispUnit, rank));
      }
      wAddr = mem.addressOf(start, t.trueLb(), hi);
      if (wAddr == TargetMemory.NOT_INSIDE) {
        throw RmaException.of(ErrorClass.RMA_RANGE, "%s: %s", describe(f, t, mem, dispUnit, rank),
            mem.whyOutside(start, t.trueLb(), hi));
      }
    }
    switch (f.type) {
      case FrameType.PUT:
        return write(f, t, wBase, wAddr, Op.REPLACE);
      case FrameType.ACC: {
        Op op = Op.ofCode(f.code);
        DatatypeEngine.checkOp(op, t);
        return write(f, t, wBase, wAddr, op);
      }
      case FrameType.GET:
        if (f.local instanceof LocalTransfer) { // same JVM: into the get's buffer in place
          LocalTransfer l = (LocalTransfer) f.local;
          DatatypeEngine.checkSignatures(t, f.count, l.resultType, l.resultCount, false);
          DatatypeEngine.transfer(wBase, wAddr, t, f.count, l.resultBase, l.resultAddress, l.resultType, l.resultCount,
              Op.REPLACE);
          return null;
        }
        return pack(wBase, wAddr, t, f.count);
      case FrameType.GET_ACC: {
        Op op = Op.ofCode(f.code);
        DatatypeEngine.checkOp(op, t);
        if (f.local instanceof LocalTransfer) { // same JVM: origin and result buffers in place
          LocalTransfer l = (LocalTransfer) f.local;
          DatatypeEngine.checkSignatures(t, f.count, l.resultType, l.resultCount, false);
          if (op != Op.NO_OP) {
            checkOrigin(l, f, t, true);
          }
          DatatypeEngine.transfer(wBase, wAddr, t, f.count, l.resultBase, l.resultAddress, l.resultType, l.resultCount,
              Op.REPLACE);
          if (op != Op.NO_OP) {
            DatatypeEngine.transfer(l.originBase, l.originAddress, l.originType, l.originCount, wBase, wAddr, t, f.count,
                op);
          }
          return null;
        }
        if (op != Op.NO_OP) {
          checkPayload(f, t);
        }
        byte[] old = DatatypeEngine.pack(wBase, wAddr, t, f.count);
        if (op != Op.NO_OP) {
          unpackPayload(f, wBase, wAddr, t, op);
        }
        return old;
      }
      case FrameType.CAS: {
        DatatypeEngine.checkCompareAndSwapType(t);
        if (f.count != 1) {
          throw RmaException.of(ErrorClass.COUNT, "compare-and-swap takes one element, got count %d", f.count);
        }
        if (f.local instanceof LocalTransfer) { // same JVM: origin, compare and result buffers read and written in place
          LocalTransfer l = (LocalTransfer) f.local;
          ReductionKernel.compareAndSwap(t.homogeneousType(), l.compareBase, l.compareAddress, l.originBase,
              l.originAddress, wBase, wAddr, l.resultBase, l.resultAddress);
          return null;
        }
        int size = (int) t.size();
        if (f.payload == null || f.payload.length != 2 * size) {
          throw RmaException.of(ErrorClass.OTHER, "compare-and-swap frame carries %d bytes, expected %d",
              f.payload == null ? 0 : f.payload.length, 2 * size);
        }
        byte[] result = new byte[size];
        long p = Memory.ARRAY_BYTE_BASE_OFFSET;
        ReductionKernel.compareAndSwap(t.homogeneousType(), f.payload, p + size, f.payload, p, wBase, wAddr, result, p);
        return result;
      }
      default:
        throw RmaException.of(ErrorClass.OTHER, "frame type %s is not an RMA operation", FrameType.name(f.type));
    }
  }

  /** A get's data: a large one into native memory its record writes as it is, else into an array. */
  private static Object pack(Object wBase, long wAddr, TypeMap t, int count) {
    long n = DatatypeEngine.packedSize(t, count);
    PackedPayload out = n >= PACKED_NATIVE_FROM ? PackedPayload.allocate(Math.toIntExact(n)) : null;
    if (out == null) {
      return DatatypeEngine.pack(wBase, wAddr, t, count);
    }
    try {
      DatatypeEngine.pack(wBase, wAddr, t, count, out.base(), out.address());
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
    return out;
  }

  /** The operation and its target range, for error messages (built only when one is thrown). */
  private static String describe(Frame f, TypeMap t, TargetMemory mem, int dispUnit, int rank) {
    return String.format("%s at rank %d, disp=%d x unit %d, %d x %s (window size %d)", FrameType.name(f.type), rank,
        f.disp, dispUnit, f.count, t.name(), mem.size());
  }

  private static byte[] write(Frame f, TypeMap t, Object wBase, long wAddr, Op op) {
    if (f.local instanceof LocalTransfer) { // same JVM: from the origin's buffer in place
      LocalTransfer l = (LocalTransfer) f.local;
      checkOrigin(l, f, t, op != Op.REPLACE || f.type == FrameType.ACC);
      DatatypeEngine.transfer(l.originBase, l.originAddress, l.originType, l.originCount, wBase, wAddr, t, f.count, op);
    } else {
      checkPayload(f, t);
      unpackPayload(f, wBase, wAddr, t, op);
    }
    return null;
  }

  /** Unpacks the frame's payload into the window: from its array, or where it arrived ({@link ReceivedPayload}). */
  private static void unpackPayload(Frame f, Object wBase, long wAddr, TypeMap t, Op op) {
    if (f.payloadSource instanceof ReceivedPayload) {
      unpack((ReceivedPayload) f.payloadSource, wBase, wAddr, t, f.count, op);
    } else {
      DatatypeEngine.unpack(f.payload, Memory.ARRAY_BYTE_BASE_OFFSET, wBase, wAddr, t, f.count, op);
    }
  }

  /**
   * Combines a received payload into {@code count} of {@code t} at {@code dstBase}/{@code
   * dstAddr} ({@code dst = dst op payload}). Into one contiguous run it goes straight from the
   * socket's buffers it arrived in, segment by segment (an element split between two segments is
   * put together first); anything else is unpacked from the payload gathered into one piece.
   */
  public static void unpack(ReceivedPayload in, Object dstBase, long dstAddr, TypeMap t, int count, Op op) {
    if (in.isOnePiece() || !t.isContiguous() || count <= 0 || op == Op.NO_OP) {
      DatatypeEngine.unpack(in.base(), in.address(), dstBase, dstAddr, t, count, op);
    } else if (op == Op.REPLACE) {
      in.packInto(dstBase, dstAddr + t.segmentDisp(0));
    } else {
      new SegmentCombiner(op, t.segmentType(0), dstBase, dstAddr + t.segmentDisp(0)).combine(in);
    }
  }

  /** Combines a payload's segments into consecutive elements of one basic type, carrying a split element over. */
  private static final class SegmentCombiner implements ReceivedPayload.SegmentSink {
    private final Op op;
    private final BasicType type;
    private final Object dstBase;
    private long dst;
    private final byte[] carry;
    private int carried;

    SegmentCombiner(Op op, BasicType type, Object dstBase, long dstAddr) {
      this.op = op;
      this.type = type;
      this.dstBase = dstBase;
      this.dst = dstAddr;
      this.carry = new byte[type.size()];
    }

    void combine(ReceivedPayload in) {
      in.forEachSegment(this);
    }

    @Override
    public void segment(Object base, long address, int length) {
      int size = carry.length;
      int p = 0;
      if (carried > 0) { // the rest of an element the previous segment began
        int take = Math.min(size - carried, length);
        Memory.copy(base, address, carry, Memory.ARRAY_BYTE_BASE_OFFSET + carried, take);
        carried += take;
        p = take;
        if (carried < size) {
          return;
        }
        DatatypeEngine.combine(op, type, carry, Memory.ARRAY_BYTE_BASE_OFFSET, dstBase, dst, 1);
        dst += size;
        carried = 0;
      }
      long whole = (length - p) / size;
      DatatypeEngine.combine(op, type, base, address + p, dstBase, dst, whole);
      dst += whole * size;
      p += (int) (whole * size);
      if (p < length) {
        Memory.copy(base, address + p, carry, Memory.ARRAY_BYTE_BASE_OFFSET, length - p);
        carried = length - p;
      }
    }
  }

  private static void checkOrigin(LocalTransfer l, Frame f, TypeMap t, boolean accumulate) {
    DatatypeEngine.checkSignatures(l.originType, l.originCount, t, f.count, accumulate);
  }

  private static void checkPayload(Frame f, TypeMap t) {
    long expected = t.size() * (long) f.count;
    long got = f.payloadLength();
    if (got != expected) {
      throw RmaException.of(ErrorClass.TYPE, "%s carries %d bytes but the target type %s x %d holds %d",
          FrameType.name(f.type), got, t.name(), f.count, expected);
    }
  }

  private static TypeMap targetType(Frame f) {
    if (f.local instanceof LocalTransfer) {
      return ((LocalTransfer) f.local).targetType;
    }
    if (f.typeBytes == null) {
      throw new RmaException(ErrorClass.TYPE, "RMA frame without a target datatype");
    }
    io.vertx.core.buffer.Buffer b = io.vertx.core.buffer.Buffer.buffer(f.typeBytes);
    int[] end = new int[1];
    TypeMap t = TypeMap.decode(b, 0, end);
    if (end[0] != f.typeBytes.length) {
      throw RmaException.of(ErrorClass.TYPE, "target datatype encoding has %d trailing bytes", f.typeBytes.length - end[0]);
    }
    return t;
  }
}
