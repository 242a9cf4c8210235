package dev.vertxrma.impl.coll;

import dev.vertxrma.impl.transport.Endpoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How the ranks of one communicator are spread over JVMs, as seen by one of them: its JVM's ranks
 * (they meet in shared memory), and one leader per JVM, the JVM's lowest rank, which is the one
 * that exchanges messages with the other JVMs' leaders. Every rank of the communicator computes
 * the same groups from the job's placement (fixed when the job started), so they agree on who
 * leads without a message.
 */
final class JvmGroups {

  /** How a communicator's collectives run. */
  enum Layout {
    /** Every rank in this JVM: they meet in shared memory only. */
    ALL_HERE,
    /** Several JVMs, one of which at least holds several ranks: in memory first, then across leaders. */
    HIERARCHICAL,
    /** Messages between all ranks (one rank per JVM, or placement unknown). */
    FLAT
  }

  final Layout layout;
  /** The communicator ranks of this JVM, ascending; {@code local[0]} is its leader. */
  final int[] local;
  /** This rank's position in {@link #local} (its party in the JVM's shared-memory barrier). */
  final int party;
  /** Each JVM's leader (lowest rank), ascending. */
  final int[] leaders;
  /** Index in {@link #leaders} of the JVM of each communicator rank. */
  final int[] jvm;
  /** Whether each JVM's ranks are consecutive (leader order is then rank order for any op). */
  final boolean contiguous;

  private JvmGroups(Layout layout, int[] local, int party, int[] leaders, int[] jvm, boolean contiguous) {
    this.layout = layout;
    this.local = local;
    this.party = party;
    this.leaders = leaders;
    this.jvm = jvm;
    this.contiguous = contiguous;
  }

  /**
   * The groups of {@code ep}'s communicator, where {@code barriers} (the job's in this JVM, or
   * {@code null} when the caller has none: messages only) say each rank lives; {@code null} while
   * the job's placement is not known.
   */
  static JvmGroups of(Endpoint ep, SharedMemoryBarriers barriers) {
    int p = ep.size();
    int[] jvm = new int[p];
    List<Integer> leaders = new ArrayList<>();
    Map<Object, Integer> index = new HashMap<>();
    for (int r = 0; r < p && barriers != null; r++) {
      Object where = barriers.jvmOf(ep.jobRank(r));
      if (where == null) {
        return null; // placement not known yet (no rank runs before it is)
      }
      Integer i = index.get(where);
      if (i == null) {
        i = leaders.size();
        index.put(where, i);
        leaders.add(r);
      }
      jvm[r] = i;
    }
    if (barriers == null || p == 1 || leaders.size() == p) {
      return new JvmGroups(Layout.FLAT, new int[] {ep.rank()}, 0, new int[0], jvm, true);
    }
    int mine = jvm[ep.rank()];
    int[] local = java.util.stream.IntStream.range(0, p).filter(r -> jvm[r] == mine).toArray();
    boolean contiguous = true;
    for (int r = 1; r < p; r++) {
      contiguous &= jvm[r] >= jvm[r - 1]; // JVMs are numbered in the order of their lowest ranks
    }
    Layout layout = leaders.size() == 1 ? Layout.ALL_HERE : Layout.HIERARCHICAL;
    return new JvmGroups(layout, local, Arrays.binarySearch(local, ep.rank()),
        leaders.stream().mapToInt(Integer::intValue).toArray(), jvm, contiguous);
  }

  /** Whether this rank is its JVM's leader. */
  boolean leads() {
    return party == 0;
  }

  /** This rank's JVM's index among {@link #leaders}. */
  int myJvm() {
    return jvm[local[party]];
  }

  /** The position in {@link #local} of communicator rank {@code r}, which lives in this JVM. */
  int partyOf(int r) {
    return Arrays.binarySearch(local, r);
  }
}
