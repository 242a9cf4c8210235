package dev.vertxrma.impl.ops;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.memory.TargetMemory;
import dev.vertxrma.impl.transport.BytesPayload;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.PackedPayload;
import dev.vertxrma.impl.transport.PayloadSource;
import dev.vertxrma.impl.transport.ReceivedPayload;

/**
 * Applies one RMA operation ({@link RmaOperation}) to a target window: put, get, accumulate, get-accumulate,
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
   * Applies {@code rma} to {@code mem}; returns the data the reply carries (a packed get,
   * get-accumulate or compare-and-swap; for a large get a {@link PackedPayload}) or {@code null}
   * (nothing to send back: a put or accumulate, or an operation in place whose result is already
   * in the origin's buffer). Throws {@link RmaException} with the error to report.
   */
  public static PayloadSource apply(RmaOperation rma, TargetMemory mem, int dispUnit, int rank) {
    TypeMap t = targetType(rma);
    if (rma.targetCount < 0) {
      throw RmaException.of(ErrorClass.COUNT, "target count %d is negative", rma.targetCount);
    }
    Object wBase = mem.base();
    long wAddr = 0;
    if (rma.targetCount > 0 && t.size() > 0) {
      long start;
      long hi;
      try {
        start = Math.multiplyExact(rma.targetDisp, (long) dispUnit);
        hi = Math.addExact(Math.multiplyExact(rma.targetCount - 1L, t.extent()), t.trueUb());
      } catch (ArithmeticException e) {
        throw RmaException.of(ErrorClass.RMA_RANGE, "%s: the target range overflows 64-bit arithmetic",
            describe(rma, t, mem, dispUnit, rank));
      }
      wAddr = mem.addressOf(start, t.trueLb(), hi);
      if (wAddr == TargetMemory.NOT_INSIDE) {
        throw RmaException.of(ErrorClass.RMA_RANGE, "%s: %s", describe(rma, t, mem, dispUnit, rank),
            mem.whyOutside(start, t.trueLb(), hi));
      }
    }
    switch (rma.kind) {
      case FrameType.PUT:
        return write(rma, t, wBase, wAddr, Op.REPLACE);
      case FrameType.ACC: {
        Op op = Op.ofCode(rma.opCode);
        DatatypeEngine.checkOp(op, t);
        return write(rma, t, wBase, wAddr, op);
      }
      case FrameType.GET:
        if (rma.inPlace) { // same JVM: into the get's buffer in place
          DatatypeEngine.checkSignatures(t, rma.targetCount, rma.resultType, rma.resultCount, false);
          DatatypeEngine.transfer(wBase, wAddr, t, rma.targetCount, rma.resultBase, rma.resultAddress, rma.resultType, rma.resultCount,
              Op.REPLACE);
          return null;
        }
        return pack(wBase, wAddr, t, rma.targetCount);
      case FrameType.GET_ACC: {
        Op op = Op.ofCode(rma.opCode);
        DatatypeEngine.checkOp(op, t);
        if (rma.inPlace) { // same JVM: origin and result buffers in place
          DatatypeEngine.checkSignatures(t, rma.targetCount, rma.resultType, rma.resultCount, false);
          if (op != Op.NO_OP) {
            checkOrigin(rma, t, true);
          }
          DatatypeEngine.transfer(wBase, wAddr, t, rma.targetCount, rma.resultBase, rma.resultAddress, rma.resultType, rma.resultCount,
              Op.REPLACE);
          if (op != Op.NO_OP) {
            DatatypeEngine.transfer(rma.originBase, rma.originAddress, rma.originType, rma.originCount, wBase, wAddr, t, rma.targetCount,
                op);
          }
          return null;
        }
        if (op != Op.NO_OP) {
          checkPayload(rma, t);
        }
        byte[] old = DatatypeEngine.pack(wBase, wAddr, t, rma.targetCount);
        if (op != Op.NO_OP) {
          unpackPayload(rma, wBase, wAddr, t, op);
        }
        return new BytesPayload(old);
      }
      case FrameType.CAS: {
        DatatypeEngine.checkCompareAndSwapType(t);
        if (rma.targetCount != 1) {
          throw RmaException.of(ErrorClass.COUNT, "compare-and-swap takes one element, got count %d", rma.targetCount);
        }
        if (rma.inPlace) { // same JVM: origin, compare and result buffers read and written in place
          ReductionKernel.compareAndSwap(t.homogeneousType(), rma.compareBase, rma.compareAddress, rma.originBase,
              rma.originAddress, wBase, wAddr, rma.resultBase, rma.resultAddress);
          return null;
        }
        int size = (int) t.size();
        if (rma.payload == null || rma.payload.length != 2 * size) {
          throw RmaException.of(ErrorClass.OTHER, "compare-and-swap frame carries %d bytes, expected %d",
              rma.payload == null ? 0 : rma.payload.length, 2 * size);
        }
        byte[] result = new byte[size];
        long p = Memory.ARRAY_BYTE_BASE_OFFSET;
        ReductionKernel.compareAndSwap(t.homogeneousType(), rma.payload, p + size, rma.payload, p, wBase, wAddr, result, p);
        return new BytesPayload(result);
      }
      default:
        throw RmaException.of(ErrorClass.OTHER, "frame type %s is not an RMA operation", FrameType.name(rma.kind));
    }
  }

  /** A get's data: a large one into native memory its record writes as it is, else into an array. */
  private static PayloadSource pack(Object wBase, long wAddr, TypeMap t, int count) {
    long n = DatatypeEngine.packedSize(t, count);
    PackedPayload out = n >= PACKED_NATIVE_FROM ? PackedPayload.allocate(DatatypeEngine.packedBlockSize(t, count)) : null;
    if (out == null) {
      return new BytesPayload(DatatypeEngine.pack(wBase, wAddr, t, count));
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
  private static String describe(RmaOperation rma, TypeMap t, TargetMemory mem, int dispUnit, int rank) {
    return String.format("%s at rank %d, disp=%d x unit %d, %d x %s (window size %d)", FrameType.name(rma.kind), rank,
        rma.targetDisp, dispUnit, rma.targetCount, t.name(), mem.size());
  }

  private static PayloadSource write(RmaOperation rma, TypeMap t, Object wBase, long wAddr, Op op) {
    if (rma.inPlace) { // same JVM: from the origin's buffer in place
      checkOrigin(rma, t, op != Op.REPLACE || rma.kind == FrameType.ACC);
      DatatypeEngine.transfer(rma.originBase, rma.originAddress, rma.originType, rma.originCount, wBase, wAddr, t, rma.targetCount, op);
    } else {
      checkPayload(rma, t);
      unpackPayload(rma, wBase, wAddr, t, op);
    }
    return null;
  }

  /** Unpacks the frame's payload into the window: from its array, or where it arrived ({@link ReceivedPayload}). */
  private static void unpackPayload(RmaOperation rma, Object wBase, long wAddr, TypeMap t, Op op) {
    if (rma.payloadSource instanceof ReceivedPayload) {
      unpack((ReceivedPayload) rma.payloadSource, wBase, wAddr, t, rma.targetCount, op);
    } else {
      DatatypeEngine.unpack(rma.payload, Memory.ARRAY_BYTE_BASE_OFFSET, wBase, wAddr, t, rma.targetCount, op);
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

  private static void checkOrigin(RmaOperation rma, TypeMap t, boolean accumulate) {
    DatatypeEngine.checkSignatures(rma.originType, rma.originCount, t, rma.targetCount, accumulate);
  }

  private static void checkPayload(RmaOperation rma, TypeMap t) {
    long expected = t.size() * (long) rma.targetCount;
    long got = rma.payloadLength();
    if (got != expected) {
      throw RmaException.of(ErrorClass.TYPE, "%s carries %d bytes but the target type %s x %d holds %d",
          FrameType.name(rma.kind), got, t.name(), rma.targetCount, expected);
    }
  }

  /**
   * The operation's target datatype: decoded in place, resolved by the target window
   * ({@link TargetTypes}), or decoded now from its wire form (and kept).
   */
  private static TypeMap targetType(RmaOperation rma) {
    if (rma.targetType != null) {
      return rma.targetType;
    }
    if (rma.targetTypeWire == null) {
      throw new RmaException(ErrorClass.TYPE, "RMA operation without a target datatype");
    }
    TypeMap t = TypeMapWire.decodeWhole(rma.targetTypeWire);
    rma.targetType = t;
    return t;
  }
}
