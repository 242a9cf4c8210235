package dev.vertxrma.jmh;

import dev.vertxrma.Datatype;
import dev.vertxrma.Op;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.ops.BasicType;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.ReductionKernel;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameCodec;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.buffer.Buffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The hot kernels on their own: datatype pack/unpack (contiguous and strided), the reduction
 * kernel, the frame codec. Run with {@code bin/rmajmh} (GC profiler on), e.g.
 * {@code bin/rmajmh KernelBench}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class KernelBench {

  private static final int DOUBLES = 512;
  private static final long DOUBLE_BASE = Memory.arrayBaseOffset(double[].class);
  private static final long LONG_BASE = Memory.arrayBaseOffset(long[].class);

  private final double[] doubles = new double[2 * DOUBLES];
  private final byte[] packed = new byte[8 * DOUBLES];
  private final long[] src = new long[DOUBLES];
  private final long[] dst = new long[DOUBLES];
  private TypeMap contiguous;
  private TypeMap strided;
  private Frame putFrame;
  private Buffer encoded;

  @Setup
  public void setup() {
    contiguous = TypeMap.of(Datatype.DOUBLE);
    strided = TypeMap.of(Datatype.vector(DOUBLES, 1, 2, Datatype.DOUBLE).commit());
    for (int i = 0; i < doubles.length; i++) {
      doubles[i] = i;
    }
    for (int i = 0; i < DOUBLES; i++) {
      src[i] = i;
    }
    putFrame = Frame.of(FrameType.PUT, 0, 1);
    putFrame.disp = 4096;
    putFrame.count = 8;
    putFrame.payload = new byte[64];
    encoded = Buffer.buffer();
    FrameCodec.encode(encoded, putFrame);
  }

  /** Pack 4 KiB of contiguous doubles (one copy). */
  @Benchmark
  public long packContiguous4KiB() {
    return DatatypeEngine.pack(doubles, DOUBLE_BASE, contiguous, DOUBLES, packed,
        Memory.ARRAY_BYTE_BASE_OFFSET);
  }

  /** Pack 512 doubles of a vector type with stride 2 (a type-map walk). */
  @Benchmark
  public long packStrided4KiB() {
    return DatatypeEngine.pack(doubles, DOUBLE_BASE, strided, 1, packed,
        Memory.ARRAY_BYTE_BASE_OFFSET);
  }

  /** Unpack 4 KiB into the strided type. */
  @Benchmark
  public long unpackStrided4KiB() {
    return DatatypeEngine.unpack(packed, Memory.ARRAY_BYTE_BASE_OFFSET, doubles, DOUBLE_BASE,
        strided, 1, Op.REPLACE);
  }

  /** SUM of 512 longs into 512 longs (the accumulate kernel). */
  @Benchmark
  public long[] reduceSumLong512() {
    ReductionKernel.apply(Op.SUM, BasicType.LONG, src, LONG_BASE, dst,
        LONG_BASE, DOUBLES);
    return dst;
  }

  /** Encode a put frame with 64 B of payload into a new buffer (as the event-bus codec does). */
  @Benchmark
  public Buffer encodePut64() {
    Buffer out = Buffer.buffer(FrameCodec.HEADER_BYTES + 80);
    FrameCodec.encode(out, putFrame);
    return out;
  }

  /** Decode (and validate) a put frame with 64 B of payload. */
  @Benchmark
  public Frame decodePut64() {
    return FrameCodec.decode(encoded, 0, encoded.length());
  }
}
