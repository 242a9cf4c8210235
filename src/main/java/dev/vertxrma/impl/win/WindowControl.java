package dev.vertxrma.impl.win;

import dev.vertxrma.impl.memory.HolderMark;
import dev.vertxrma.impl.memory.Memory;

/**
 * The words of one rank's window that its target engine and the origins applying operations to
 * it share (ARCHITECTURE decisions 3, 11 and 16): a flyweight over a small block of plain memory,
 * on the heap for a window only its own JVM reaches, or at the head of the window's segment file
 * when JVMs of the host map it. Only plain words, read and written with explicit memory order, so
 * another process can take part.
 *
 * <pre>
 *   0  long  owner: the {@link HolderMark} of the process one of whose threads owns the target
 *                state, else 0
 *   8  long  fence: (epoch &lt;&lt; 1) | open, the fence epoch the target admits operations of
 *  16  long  token: random, written by the creator, proves which file a peer mapped
 *  24  int   ranks: the number of slots in each table that follows
 *  28  int   exclusive: 1 + the rank holding the lock exclusively, 0 for none
 *  32  int   shared: how many ranks hold the lock shared
 *  36  int   queued: how many lock requests wait in the target's queue
 *  40  int   noLocks: 1 if the window was created (or set) with no_locks
 *  44  int   pageWaiter: 1 while this rank sleeps until a peer writes a post or complete below
 *  48  long  arrived: the last host barrier this rank reached ({@link dev.vertxrma.impl.coll.HostBarrier})
 *  56  long  parked: n while this rank sleeps in host barrier n, -n once a rank wakes it, else 0
 *  64  int   freed: 1 once the window is freed at this rank
 *  68  int   (unused, 0)
 *  72  byte  shared[ranks]: 1 while that rank holds the lock shared
 *  72 + S  byte  admitted[ranks]: 1 while that origin holds any lock here (NOCHECK ones too),
 *                what admits its passive-target operations (S: ranks rounded up to 8)
 *  72 + 2S byte  exposed[ranks]: 1 while this rank's post/start exposure epoch includes that
 *                origin, what admits its post/start operations
 *  72 + 3S long  posts[ranks]: how many times that rank (of another JVM) posted to this one,
 *                written by that rank only ({@link PscwPages})
 *  72 + 3S + 8R long  completes[ranks]: that origin's last complete to this rank, written by it
 *                only: (its number of completes &lt;&lt; 32) | the operations it announces (R: ranks)
 * </pre>
 *
 * <p>The owner word is taken with a compare-and-set from 0 to the taker's {@link HolderMark}
 * (its process: pid, pid namespace, start time) and given back with a compare-and-set from that
 * mark to 0 (both full fences: what the owner wrote is visible to the next one); the other words
 * are written only by the owner, so a thread that has taken the owner word reads them as the last
 * owner left them. A word whose holder's process is gone is taken back from that exact mark
 * ({@link #takeFrom}, {@link #reclaimFrom}); a word holding no mark at all was written by no
 * holder, and the target names it as an error of the window ({@link SingleOwner}). A peer's block is untrusted input: its slots are
 * read only at indices below the number of ranks the caller knows, and a word holding an
 * unexpected value only makes the origin send its operation the safe way.
 */
final class WindowControl implements dev.vertxrma.impl.sync.LockWords {

  private static final int OWNER = 0;
  private static final int FENCE = 8;
  private static final int TOKEN = 16;
  private static final int RANKS = 24;
  private static final int EXCLUSIVE = 28;
  private static final int SHARED_COUNT = 32;
  private static final int QUEUED = 36;
  private static final int NO_LOCKS = 40;
  private static final int PAGE_WAITER = 44;
  private static final int ARRIVED = 48;
  private static final int PARKED = 56;
  private static final int FREED = 64;
  private static final int SHARED = 72;
  private static final System.Logger LOG = System.getLogger(WindowControl.class.getName());

  private final Object base;
  private final long address;
  private final int ranks;
  /** Offset of the admitted table. */
  private final long admitted;
  /** Offset of the exposed table. */
  private final long exposed;
  /** Offset of the posts table. */
  private final long posts;
  /** Offset of the completes table. */
  private final long completes;
  private final dev.vertxrma.impl.coll.BarrierWords barrierSlot;

  private WindowControl(Object base, long address, int ranks) {
    this.base = base;
    this.address = address;
    this.ranks = ranks;
    this.admitted = SHARED + table(ranks);
    this.exposed = admitted + table(ranks);
    this.posts = exposed + table(ranks);
    this.completes = posts + (long) Long.BYTES * ranks;
    this.barrierSlot = new dev.vertxrma.impl.coll.BarrierWords(this, base, address + ARRIVED, address + PARKED);
  }

  private static long table(int ranks) {
    return (ranks + 7L) & ~7L;
  }

  /** Bytes the block of a window of {@code ranks} ranks takes: a multiple of 64. */
  static long bytes(int ranks) {
    return (SHARED + 3 * table(ranks) + 2L * Long.BYTES * ranks + 63) & ~63L;
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

  /**
   * Where the block's page goes on after the block: the notification counters of a window in a
   * host segment live there ({@link NotifyCounters#inPage}). {@code null} base: native memory.
   */
  Object base() {
    return base;
  }

  /** The block's address (Unsafe convention, with {@link #base()}). */
  long address() {
    return address;
  }

  /** The number of ranks its tables have slots for. */
  int ranks() {
    return ranks;
  }

  /** Takes the owner word for this process ({@link HolderMark#SELF}) if it is free; never waits. */
  boolean tryAcquire() {
    return Memory.compareAndSwapLong(base, address + OWNER, 0, HolderMark.SELF);
  }

  /**
   * Gives the owner word back (what the owner wrote is visible to the next one). If the word no
   * longer holds this process's mark — another process took it back, believing this one dead,
   * or wrote over it — it is left as it is and the fact logged: never cleared from under its
   * present holder.
   */
  void release() {
    if (!Memory.compareAndSwapLong(base, address + OWNER, HolderMark.SELF, 0)) {
      LOG.log(System.Logger.Level.WARNING, "the owner word of a window was taken from this process (pid "
          + ProcessHandle.current().pid() + ") while one of its threads held it; it now holds "
          + HolderMark.describe(holder()));
    }
  }

  /**
   * Takes the owner word for the process whose mark is {@code mark} if it is free: tests standing
   * for another process (a live one, one that is gone, one that writes garbage).
   */
  boolean tryAcquireAs(long mark) {
    return Memory.compareAndSwapLong(base, address + OWNER, 0, mark);
  }

  /** The owner word: the {@link HolderMark} of the process holding it, 0 if free (an acquire load). */
  long holder() {
    return Memory.getLongVolatile(base, address + OWNER);
  }

  /**
   * Takes the owner word from {@code holder} (a compare-and-set from that exact value), whose
   * process is gone or declared dead: true if this process now holds it. Then repairs what a
   * holder that died in the middle of an update may have left inconsistent (the count of shared
   * lock holders is counted again from their slots).
   */
  boolean takeFrom(long holder) {
    if (holder == 0 || holder == HolderMark.SELF
        || !Memory.compareAndSwapLong(base, address + OWNER, holder, HolderMark.SELF)) {
      return false;
    }
    int shared = 0;
    for (int r = 0; r < ranks; r++) {
      shared += Memory.getByte(base, address + SHARED + r) != 0 ? 1 : 0;
    }
    Memory.putInt(base, address + SHARED_COUNT, shared);
    return true;
  }

  /**
   * Takes the owner word back from {@code holder} and frees it, if {@code holder} still holds it:
   * for a holder whose ranks were declared dead while its process may still exist (stopped,
   * partitioned), which no waiter would take it back from by itself. True if taken back. Any
   * thread; the target's queued work then runs at its next try ({@link TargetWindow#reclaimOwnerWordFrom}).
   */
  boolean reclaimFrom(long holder) {
    if (!takeFrom(holder)) {
      return false;
    }
    release();
    return true;
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

  /**
   * Whether the target is still in the fence epoch before {@code epoch} (an acquire load, without
   * the owner word: a hint). An origin that has passed the fence's barrier sees this only while
   * the target, which has reached it too, is about to advance.
   */
  boolean fenceOneBehind(long epoch) {
    return Memory.getLongVolatile(base, address + FENCE) >>> 1 == epoch - 1;
  }

  /**
   * Whether the target has entered fence epoch {@code epoch} or a later one (an acquire load,
   * without the owner word: epochs only grow, so a true answer stays true).
   */
  boolean fenceReached(long epoch) {
    return Memory.getLongVolatile(base, address + FENCE) >>> 1 >= epoch;
  }

  /** Publishes the fence epoch the target is in and whether it is open. Owner only. */
  void setFence(long epoch, boolean open) {
    Memory.putLongVolatile(base, address + FENCE, (epoch << 1) | (open ? 1 : 0));
  }

  /** Whether origin {@code rank} holds a lock here. Owner only; false for a rank outside the block. */
  boolean holdsLock(int rank) {
    return rank >= 0 && rank < ranks && Memory.getByte(base, address + admitted + rank) != 0;
  }

  /** Records that no origin holds a lock here (the window is freed). Owner only. */
  void clearLocks() {
    Memory.zero(base, address + admitted, ranks);
  }

  /** Records whether origin {@code rank} holds a lock here. Owner only. */
  void setHoldsLock(int rank, boolean held) {
    if (rank >= 0 && rank < ranks) {
      Memory.putByte(base, address + admitted + rank, (byte) (held ? 1 : 0));
    }
  }

  /** Whether this rank's exposure epoch includes origin {@code rank}. Owner only; false outside the block. */
  boolean exposedTo(int rank) {
    return rank >= 0 && rank < ranks && Memory.getByte(base, address + exposed + rank) != 0;
  }

  /** Opens the exposure epoch to the window ranks {@code group} (post). Owner only. */
  void expose(int[] group) {
    for (int r : group) {
      if (r >= 0 && r < ranks) {
        Memory.putByte(base, address + exposed + r, (byte) 1);
      }
    }
  }

  /** Ends the exposure epoch (wait, test, a withdrawn wait). Owner only. */
  void endExposure() {
    Memory.zero(base, address + exposed, ranks);
  }

  /** Whether the window takes no locks ({@code no_locks}). Owner only. */
  boolean noLocks() {
    return Memory.getInt(base, address + NO_LOCKS) != 0;
  }

  /** Publishes the window's {@code no_locks} setting. Owner only. */
  void setNoLocks(boolean value) {
    Memory.putInt(base, address + NO_LOCKS, value ? 1 : 0);
  }

  /** How many lock requests wait in the target's queue. Owner only. */
  int queued() {
    return Memory.getInt(base, address + QUEUED);
  }

  // ------------------------------------------------------------------ post/start pages: any thread

  /** How many times rank {@code r} posted to this rank through the page (an acquire load); 0 outside the block. */
  long postsFromVolatile(int r) {
    return r >= 0 && r < ranks ? Memory.getLongVolatile(base, address + posts + (long) Long.BYTES * r) : 0;
  }

  /** Rank {@code r}'s count of posts to this rank (a release store); written by {@code r} only. */
  void putPostsFromOrdered(int r, long count) {
    if (r >= 0 && r < ranks) {
      Memory.putLongVolatile(base, address + posts + (long) Long.BYTES * r, count);
    }
  }

  /** Origin {@code r}'s last complete to this rank (an acquire load); 0 outside the block. */
  long completeFromVolatile(int r) {
    return r >= 0 && r < ranks ? Memory.getLongVolatile(base, address + completes + (long) Long.BYTES * r) : 0;
  }

  /** Origin {@code r}'s complete to this rank (a release store); written by {@code r} only. */
  void putCompleteFromOrdered(int r, long value) {
    if (r >= 0 && r < ranks) {
      Memory.putLongVolatile(base, address + completes + (long) Long.BYTES * r, value);
    }
  }

  /** 1 while this rank sleeps until a post or complete is written into its page, else 0. */
  int pageWaiterVolatile() {
    return Memory.getIntVolatile(base, address + PAGE_WAITER);
  }

  /** Sets the page-waiter word (a volatile store). */
  void putPageWaiterVolatile(int value) {
    Memory.putIntVolatile(base, address + PAGE_WAITER, value);
  }

  /** Takes the page-waiter word from {@code expect} to {@code update}; true if this caller did. */
  boolean casPageWaiter(int expect, int update) {
    return Memory.compareAndSwapInt(base, address + PAGE_WAITER, expect, update);
  }

  // ------------------------------------------------------------------ host barrier: any thread

  /** This rank's slot of the window's host barrier: the arrived and parked words. */
  dev.vertxrma.impl.coll.BarrierSlot barrierSlot() {
    return barrierSlot;
  }

  // ------------------------------------------------------------------ LockWords: owner only

  @Override
  public int exclusive() {
    return Memory.getInt(base, address + EXCLUSIVE) - 1;
  }

  @Override
  public void exclusive(int rank) {
    Memory.putInt(base, address + EXCLUSIVE, rank + 1);
  }

  @Override
  public boolean shared(int rank) {
    return rank >= 0 && rank < ranks && Memory.getByte(base, address + SHARED + rank) != 0;
  }

  @Override
  public void shared(int rank, boolean held) {
    if (rank < 0 || rank >= ranks || shared(rank) == held) {
      return;
    }
    Memory.putByte(base, address + SHARED + rank, (byte) (held ? 1 : 0));
    Memory.putInt(base, address + SHARED_COUNT, sharedCount() + (held ? 1 : -1));
  }

  @Override
  public int sharedCount() {
    return Memory.getInt(base, address + SHARED_COUNT);
  }

  @Override
  public void queued(int n) {
    Memory.putInt(base, address + QUEUED, n);
  }

  @Override
  public void clearHolders() {
    Memory.zero(base, address + SHARED, ranks);
    Memory.putInt(base, address + SHARED_COUNT, 0);
    exclusive(-1);
  }
}
