package dev.vertxrma.impl.coll;

import dev.vertxrma.impl.memory.Memory;

/**
 * A {@link BarrierSlot} over two plain words of memory every rank of a host barrier maps (in a
 * window's control page, or a communicator's barrier page): a flyweight that knows where they are,
 * read and written with explicit memory order by any thread of any JVM of the host.
 */
public final class BarrierWords implements BarrierSlot {

  /**
   * What owns the memory (a control page or barrier page whose cleaner unmaps it once it is
   * unreachable): held so that the memory stays mapped as long as this slot can be read.
   */
  @SuppressWarnings("unused")
  private final Object owner;
  private final Object base;
  private final long arrived;
  private final long parked;

  /**
   * @param owner the object whose reachability keeps the memory mapped
   * @param base the array holding the words, or {@code null} for native memory
   * @param arrived the address (offset in {@code base}) of the arrived word, 8-byte aligned
   * @param parked the address of the parked word, 8-byte aligned
   */
  public BarrierWords(Object owner, Object base, long arrived, long parked) {
    this.owner = owner;
    this.base = base;
    this.arrived = arrived;
    this.parked = parked;
  }

  @Override
  public long arrived() {
    return Memory.getLongVolatile(base, arrived);
  }

  @Override
  public void arrive(long n) {
    Memory.putLongVolatile(base, arrived, n);
  }

  @Override
  public long parked() {
    return Memory.getLongVolatile(base, parked);
  }

  @Override
  public boolean casParked(long expect, long update) {
    return Memory.compareAndSwapLong(base, parked, expect, update);
  }
}
