package dev.vertxrma.jmh;

import java.util.concurrent.TimeUnit;
import org.agrona.collections.LongArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The queue of unacknowledged one-way operations of {@code CompletionTracker} on its own: the
 * hand-written ring it had ({@link OldLongQueue}, copied here) against Agrona's
 * {@code LongArrayQueue}, the one it uses. One invocation offers {@code unacked} issue numbers (one
 * per one-way put) and polls them all (the acknowledgement that covers them); the failure report's
 * lookup of one operation by position is measured apart ({@code *Nth}), in a queue of
 * {@code unacked}, at its middle.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class UnackedQueueBench {

  @Param({"1", "64", "4096"})
  public int unacked;

  private final OldLongQueue old = new OldLongQueue();
  private final LongArrayQueue agrona = new LongArrayQueue();
  private final OldLongQueue oldFull = new OldLongQueue();
  private final LongArrayQueue agronaFull = new LongArrayQueue();
  private long seq = 1;
  private boolean filled;

  private void fill() {
    if (!filled) {
      for (int i = 1; i <= unacked; i++) {
        oldFull.add(i);
        agronaFull.offerLong(i);
      }
      filled = true;
    }
  }

  /** Offer then poll {@code unacked} issue numbers, the ring the tracker had. */
  @Benchmark
  public long handWritten() {
    for (int i = 0; i < unacked; i++) {
      old.add(seq++);
    }
    long sum = 0;
    for (int i = 0; i < unacked; i++) {
      sum += old.poll();
    }
    return sum;
  }

  /** Offer then poll {@code unacked} issue numbers, Agrona's {@code LongArrayQueue}. */
  @Benchmark
  public long longArrayQueue() {
    for (int i = 0; i < unacked; i++) {
      agrona.offerLong(seq++);
    }
    long sum = 0;
    for (int i = 0; i < unacked; i++) {
      sum += agrona.pollLong();
    }
    return sum;
  }

  /** The failure report's lookup by position, the ring the tracker had (direct access). */
  @Benchmark
  public long handWrittenNth() {
    fill();
    return oldFull.get(unacked / 2);
  }

  /** The failure report's lookup by position, {@code LongArrayQueue} (a walk from the oldest). */
  @Benchmark
  public long longArrayQueueNth() {
    fill();
    LongArrayQueue.LongIterator it = agronaFull.iterator();
    for (int k = 0; k < unacked / 2; k++) {
      it.nextValue();
    }
    return it.nextValue();
  }

  /** The growable FIFO ring of longs {@code CompletionTracker} had, unchanged. */
  static final class OldLongQueue {
    private long[] items = new long[16];
    private int head;
    private int size;

    void add(long v) {
      if (size == items.length) {
        long[] bigger = new long[items.length * 2];
        for (int i = 0; i < size; i++) {
          bigger[i] = items[(head + i) % items.length];
        }
        items = bigger;
        head = 0;
      }
      items[(head + size++) % items.length] = v;
    }

    long poll() {
      long v = items[head];
      head = (head + 1) % items.length;
      size--;
      return v;
    }

    long get(int i) {
      return items[(head + i) % items.length];
    }
  }
}
