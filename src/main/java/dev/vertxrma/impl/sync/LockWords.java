package dev.vertxrma.impl.sync;

/**
 * Where a window's lock holders are kept ({@link LockManager}): plain words, so that they may live
 * in the window's host segment, where an origin of another JVM of the host takes or gives back an
 * uncontended lock itself (ARCHITECTURE decision 16). Every access is made by whoever owns the
 * window's state at the time. Ranks are the window's.
 */
public interface LockWords {

  /** The rank holding the lock exclusively, or -1. */
  int exclusive();

  /** Sets the exclusive holder ({@code -1}: none). */
  void exclusive(int rank);

  /** Whether {@code rank} holds the lock shared. */
  boolean shared(int rank);

  /** Records whether {@code rank} holds the lock shared. */
  void shared(int rank, boolean held);

  /** How many ranks hold the lock shared. */
  int sharedCount();

  /** Publishes how many requests wait in the queue (a remote origin takes no lock while any does). */
  void queued(int n);

  /** No holder, shared or exclusive. */
  void clearHolders();

  /** Words on the heap, for a window no other JVM reaches. */
  static LockWords onHeap() {
    return new LockWords() {
      private final java.util.Set<Integer> sharedHolders = new java.util.HashSet<>();
      private int exclusiveHolder = -1;

      @Override
      public int exclusive() {
        return exclusiveHolder;
      }

      @Override
      public void exclusive(int rank) {
        exclusiveHolder = rank;
      }

      @Override
      public boolean shared(int rank) {
        return sharedHolders.contains(rank);
      }

      @Override
      public void shared(int rank, boolean held) {
        if (held) {
          sharedHolders.add(rank);
        } else {
          sharedHolders.remove(rank);
        }
      }

      @Override
      public int sharedCount() {
        return sharedHolders.size();
      }

      @Override
      public void queued(int n) {
      }

      @Override
      public void clearHolders() {
        sharedHolders.clear();
        exclusiveHolder = -1;
      }
    };
  }
}
