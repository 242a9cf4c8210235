package dev.vertxrma.impl.coll;

import dev.vertxrma.RmaException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The shared-memory barriers of one job whose ranks all live in this JVM: one per communicator
 * or window (its collective context and its members), found by every member on its first barrier.
 */
public final class SharedMemoryBarriers {

  private final Map<Key, SharedMemoryBarrier> barriers = new ConcurrentHashMap<>();

  private static final class Key {
    final int ctx;
    final boolean exchange;
    final int[] jobRanks;
    final int hash;

    Key(int ctx, boolean exchange, int[] jobRanks) {
      this.ctx = ctx;
      this.exchange = exchange;
      this.jobRanks = jobRanks;
      this.hash = 31 * (2 * ctx + (exchange ? 1 : 0)) + Arrays.hashCode(jobRanks);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key && ((Key) o).ctx == ctx && ((Key) o).exchange == exchange
          && Arrays.equals(((Key) o).jobRanks, jobRanks);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /**
   * The barrier of the communicator with collective context {@code ctx} and members
   * {@code jobRanks} (in its rank order); {@code exchange}: the one its reductions exchange their
   * blocks through (numbered apart from its barriers).
   */
  SharedMemoryBarrier barrier(int ctx, boolean exchange, int[] jobRanks) {
    Key key = new Key(ctx, exchange, jobRanks);
    return barriers.computeIfAbsent(key, k -> new SharedMemoryBarrier(jobRanks.length, exchange, () -> barriers.remove(k)));
  }

  /** Rank {@code jobRank} failed: its waiting barriers fail with {@code cause}. */
  public void failRank(int jobRank, RmaException cause) {
    barriers.forEach((k, b) -> {
      for (int party = 0; party < k.jobRanks.length; party++) {
        if (k.jobRanks[party] == jobRank) {
          b.fail(party, cause);
        }
      }
    });
  }

  /** Barriers in use (tests check that freed windows release theirs). */
  public int size() {
    return barriers.size();
  }
}
