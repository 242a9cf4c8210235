package dev.vertxrma.impl.win;

import dev.vertxrma.impl.memory.Memory;
import java.lang.invoke.VarHandle;

/**
 * The notification counters of one rank's window (MPI 5.1 draft's notified RMA) as plain words:
 * a flyweight over a block of {@code 64 * (1 + count)} bytes, a waiter word and then one counter
 * per cache line (writers of different counters never share a line). The block is on the heap
 * for a window only its own JVM writes into, or in the spare room of the window's host-segment
 * control page (after its {@link WindowControl} block), where origins of the host's other JVMs
 * add to the counters themselves (the on-node path, {@link SegmentPeers}).
 *
 * <pre>
 *   0          long  parked: 1 while the target rank waits, parked, for a counter to grow; a
 *                    writer that takes it back to 0 wakes the rank with one PAGE_WAKE frame
 *   64 + 64 i  long  counter i
 * </pre>
 *
 * <p>Counters are only added to (after the operation's data is in place: a release fence, then
 * an atomic add), read, and swapped for 0 ({@link #fetchAndZero}); any thread of any JVM that
 * maps the block.
 */
final class NotifyCounters {

  /** Bytes per word: one cache line each. */
  static final int LINE = 64;

  /** Keeps the mapping of a page alive while this view is reachable (its cleaner unmaps it). */
  @SuppressWarnings("unused")
  private final WindowControl page;
  private final Object base;
  private final long address;
  /** How many counters: MPI_Win_get_num_notify at this rank. */
  final int count;
  /** Whether the block is in a host segment's control page (origins of other JVMs write it). */
  final boolean shared;

  private NotifyCounters(WindowControl page, Object base, long address, int count, boolean shared) {
    this.page = page;
    this.base = base;
    this.address = address;
    this.count = count;
    this.shared = shared;
  }

  /** {@code count} counters, all 0, on the heap. */
  static NotifyCounters onHeap(int count) {
    long[] words = new long[(1 + count) * (LINE / Long.BYTES)];
    return new NotifyCounters(null, words, Memory.arrayBaseOffset(long[].class), count, false);
  }

  /**
   * How many counters fit in the spare room of the control page of a window of {@code ranks}
   * ranks (the same answer in every JVM: the page's size is a function of the ranks).
   */
  static int pageCapacity(int ranks) {
    long spare = HostSegment.controlBytes(ranks) - WindowControl.bytes(ranks);
    return (int) Math.max(0, spare / LINE - 1);
  }

  /**
   * The first {@code count} counters (at most {@link #pageCapacity}) of control page {@code c}:
   * this rank's own page, or a peer's mapped here.
   */
  static NotifyCounters inPage(WindowControl c, int count) {
    if (count > pageCapacity(c.ranks())) {
      throw new IllegalArgumentException(count + " counters do not fit a control page of " + c.ranks() + " ranks");
    }
    return new NotifyCounters(c, c.base(), c.address() + WindowControl.bytes(c.ranks()), count, true);
  }

  private long counter(int i) {
    return address + LINE + (long) LINE * i;
  }

  /** Counter {@code i} ({@code 0 <= i < count}, checked by the caller). */
  long get(int i) {
    return Memory.getLongVolatile(base, counter(i));
  }

  /**
   * Adds 1 to counter {@code i} after everything this thread wrote before (the operation's data):
   * a release fence, then an atomic add. Returns the new value.
   */
  long increment(int i) {
    VarHandle.releaseFence();
    long at = counter(i);
    long v;
    do {
      v = Memory.getLongVolatile(base, at);
    } while (!Memory.compareAndSwapLong(base, at, v, v + 1));
    return v + 1;
  }

  /** Sets counter {@code i} to 0 and returns what it held, atomically (MPI_Win_reset_notify_value). */
  long fetchAndZero(int i) {
    long at = counter(i);
    long v;
    do {
      v = Memory.getLongVolatile(base, at);
    } while (!Memory.compareAndSwapLong(base, at, v, 0));
    return v;
  }

  /** Every counter and the waiter word back to 0 (MPI_Win_set_num_notify); as the window's owner. */
  void zero() {
    for (int i = 0; i < count; i++) {
      Memory.putLongVolatile(base, counter(i), 0);
    }
    Memory.putLongVolatile(base, address, 0);
  }

  /** The target rank is about to park waiting for a counter: a writer must wake it. */
  void arm() {
    Memory.putLongVolatile(base, address, 1);
  }

  /** The target rank no longer waits parked. */
  void disarm() {
    Memory.putLongVolatile(base, address, 0);
  }

  /**
   * After a write into a counter: whether the target rank was parked and this writer is the one
   * to wake it (the waiter word goes back to 0 once: one wake per park).
   */
  boolean takeWake() {
    return Memory.getLongVolatile(base, address) != 0 && Memory.compareAndSwapLong(base, address, 1, 0);
  }
}
