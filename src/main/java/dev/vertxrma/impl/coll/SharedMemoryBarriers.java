package dev.vertxrma.impl.coll;

import dev.vertxrma.RmaException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * The shared-memory barriers of one job's ranks in this JVM: one per communicator or window (its
 * collective context and the members that meet in it: all of its ranks when they all live here,
 * else those of this JVM), found by every member on its first collective. It also knows which JVM
 * hosts each rank of the job, so that collectives can tell which of their ranks meet here.
 */
public final class SharedMemoryBarriers {

  /** What {@link #jvmOf} says of every rank of a job whose ranks all live in this JVM. */
  private static final Object THIS_JVM = "this JVM";

  private final Map<Key, SharedMemoryBarrier> barriers = new ConcurrentHashMap<>();
  private final IntFunction<?> jvmOf;

  /** The barriers of a job whose ranks all live in this JVM (embedded). */
  public SharedMemoryBarriers() {
    this(jobRank -> THIS_JVM);
  }

  /**
   * The barriers of a job spread over JVMs.
   *
   * @param jvmOf for a job rank, the identity of the JVM that hosts it (equal for ranks of one
   *     JVM; the cluster node the job's handshake placed it on), or {@code null} while unknown
   */
  public SharedMemoryBarriers(IntFunction<?> jvmOf) {
    this.jvmOf = jvmOf;
  }

  /** The JVM that hosts job rank {@code jobRank} ({@link #SharedMemoryBarriers(IntFunction)}), or {@code null}. */
  Object jvmOf(int jobRank) {
    return jvmOf.apply(jobRank);
  }

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
   * The barrier of the communicator with collective context {@code ctx} whose members
   * {@code jobRanks} meet in it (in its rank order); {@code exchange}: the one its reductions
   * exchange their blocks through (numbered apart from its barriers).
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
