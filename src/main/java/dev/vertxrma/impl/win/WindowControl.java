package dev.vertxrma.impl.win;

import dev.vertxrma.impl.memory.Memory;

/**
 * The words of one rank's window that its target engine and the origins applying operations to
 * it share (ARCHITECTURE decisions 3, 11 and 16): a flyweight over a small block of plain memory,
 * on the heap for a window only its own JVM reaches, or at the head of the window's segment file
 * when JVMs of the host map it. Only plain words, read and written with explicit memory order, so
 * another process can take part.
 *
 * <pre>
 *   0  int   owner: 1 while a thread (of any JVM) owns the target state, else 0
 *   4  int   freed: 1 once the window is freed at this rank
 *   8  long  fence: (epoch &lt;&lt; 1) | open, the fence epoch the target admits operations of
 *  16  long  token: random, written by the creator, proves which file a peer mapped
 *  24  int   ranks: the number of lock slots that follow
 *  64  byte  held[ranks]: 1 while that origin rank holds a lock (or a NOCHECK lock) here
 * </pre>
 *
 * <p>The owner word is taken with a compare-and-set and given back with a volatile store
 * (release); the other words are written only by the owner, so a thread that has taken the owner
 * word reads them as the last owner left them. A peer's block is untrusted input: its slots are
 * read only at indices below the number of ranks the caller knows, and a word holding an
 * unexpected value only makes the origin send its operation the safe way.
 */
final class WindowControl {

  private static final int OWNER = 0;
  private static final int FREED = 4;
  private static final int FENCE = 8;
  private static final int TOKEN = 16;
  private static final int RANKS = 24;
  private static final int HELD = 64;

  private final Object base;
  private final long address;
  private final int ranks;

  private WindowControl(Object base, long address, int ranks) {
    this.base = base;
    this.address = address;
    this.ranks = ranks;
  }

  /** Bytes the block of a window of {@code ranks} ranks takes: a multiple of 64 (window memory follows it). */
  static long bytes(int ranks) {
    return (HELD + ranks + 63) & ~63L;
  }

  /** A block on the heap, for a window no other JVM maps. */
  static WindowControl onHeap(int ranks) {
    long[] words = new long[(int) (bytes(ranks) / Long.BYTES)];
    return new WindowControl(words, Memory.arrayBaseOffset(long[].class), ranks);
  }

  /** A new block at {@code address} (zeroed memory of {@link #bytes} bytes): writes its token and size. */
  static WindowControl create(long address, int ranks, long token) {
    WindowControl c = new WindowControl(null, address, ranks);
    Memory.putLong(null, address + TOKEN, token);
    Memory.putIntVolatile(null, address + RANKS, ranks);
    return c;
  }

  /**
   * The block a peer created at {@code address}, if it is the one that peer announced: its token
   * and its number of ranks match; else {@code null}.
   */
  static WindowControl ofPeer(long address, int ranks, long token) {
    if (Memory.getIntVolatile(null, address + RANKS) != ranks || Memory.getLong(null, address + TOKEN) != token) {
      return null;
    }
    return new WindowControl(null, address, ranks);
  }

  /** Takes the owner word if it is free; never waits. */
  boolean tryAcquire() {
    return Memory.compareAndSwapInt(base, address + OWNER, 0, 1);
  }

  /** Gives the owner word back (a release store: what the owner wrote is visible to the next one). */
  void release() {
    Memory.putIntVolatile(base, address + OWNER, 0);
  }

  /** Whether the window is freed here. Owner only. */
  boolean freed() {
    return Memory.getInt(base, address + FREED) != 0;
  }

  /** Marks the window freed. Owner only. */
  void setFreed() {
    Memory.putInt(base, address + FREED, 1);
  }

  /** Whether operations of fence epoch {@code epoch} are admitted now. Owner only. */
  boolean admitsFence(long epoch) {
    return Memory.getLong(base, address + FENCE) == ((epoch << 1) | 1);
  }

  /** Publishes the fence epoch the target is in and whether it is open. Owner only. */
  void setFence(long epoch, boolean open) {
    Memory.putLong(base, address + FENCE, (epoch << 1) | (open ? 1 : 0));
  }

  /** Whether origin {@code rank} holds a lock here. Owner only; false for a rank outside the block. */
  boolean holdsLock(int rank) {
    return rank >= 0 && rank < ranks && Memory.getByte(base, address + HELD + rank) != 0;
  }

  /** Records that no origin holds a lock here (the window is freed). Owner only. */
  void clearLocks() {
    Memory.zero(base, address + HELD, ranks);
  }

  /** Records whether origin {@code rank} holds a lock here. Owner only. */
  void setHoldsLock(int rank, boolean held) {
    if (rank >= 0 && rank < ranks) {
      Memory.putByte(base, address + HELD + rank, (byte) (held ? 1 : 0));
    }
  }
}
