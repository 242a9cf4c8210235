package dev.vertxrma.impl.runtime;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.util.Arrays;

/**
 * What one communicator of a rank knows of its members' failures (ULFM, under
 * {@code FailurePolicy.CONTINUE}): the members known dead, in the order this rank learned of
 * them (MPI's {@code MPI_Comm_get_failed} order), how many of them the program acknowledged
 * ({@code MPI_Comm_ack_failed}) and whether the communicator was revoked. The deaths themselves
 * are the rank's ({@link RankProcess#peerFailure}); this view filters them for the members and is
 * refreshed only when the rank learned of a new death. On the rank's context.
 */
public final class GroupFaults {

  private final RankProcess rp;
  /** Job rank of each member, in communicator order; {@code null} for the world (identity). */
  private final int[] members;
  private final String name;
  private RmaException revoked;
  private int acked;
  /** The rank's death count when {@link #failed} was last computed. */
  private int seen;
  /** Communicator ranks of the dead members, in the order the rank learned of them. */
  private int[] failed = new int[0];

  /**
   * @param members the job ranks of the members in communicator order, {@code null} for the world
   * @param name the communicator's name, for messages
   */
  public GroupFaults(RankProcess rp, int[] members, String name) {
    this.rp = rp;
    this.members = members == null ? null : members.clone();
    this.name = name;
  }

  private int jobRank(int r) {
    return members == null ? r : members[r];
  }

  private int commRank(int jobRank) {
    if (members == null) {
      return jobRank;
    }
    for (int i = 0; i < members.length; i++) {
      if (members[i] == jobRank) {
        return i;
      }
    }
    return -1;
  }

  /** The communicator ranks of the members known dead, in the order this rank learned of them. */
  public int[] failed() {
    int deaths = rp.deathCount();
    if (deaths != seen) {
      int[] order = rp.deathOrder();
      int[] f = new int[order.length];
      int n = 0;
      for (int job : order) {
        int r = commRank(job);
        if (r >= 0) {
          f[n++] = r;
        }
      }
      failed = Arrays.copyOf(f, n);
      seen = deaths;
    }
    return failed;
  }

  /** The failure of member {@code r} if it is dead, else {@code null}. */
  public RmaException peerFailure(int r) {
    return r < 0 || members != null && r >= members.length ? null : rp.peerFailure(jobRank(r));
  }

  /** The job's failure, else this communicator's revocation, else the first dead member's failure. */
  public RmaException groupFailure() {
    RmaException f = rp.failure();
    if (f != null) {
      return f;
    }
    if (revoked != null) {
      return revoked;
    }
    int[] dead = failed();
    return dead.length == 0 ? null : RmaException.of(ErrorClass.PROC_FAILED, "%s has lost rank(s) %s: %s", name,
        Arrays.toString(dead), rp.peerFailure(jobRank(dead[0])).getMessage());
  }

  /** Why a receive from ANY_SOURCE fails now (an unacknowledged failure), or {@code null}. */
  public RmaException anySourceFailure() {
    int[] dead = failed();
    if (dead.length <= acked) {
      return null;
    }
    return RmaException.of(ErrorClass.PROC_FAILED, "%s has lost rank(s) %s, not acknowledged (ackFailed): a receive "
        + "from ANY_SOURCE could wait for them: %s", name, Arrays.toString(Arrays.copyOfRange(dead, acked, dead.length)),
        rp.peerFailure(jobRank(dead[acked])).getMessage());
  }

  /** The revocation, or {@code null}. */
  public RmaException revocation() {
    return revoked;
  }

  /** Marks the communicator revoked; {@code false} if it was already. */
  public boolean revoke(RmaException cause) {
    if (revoked != null) {
      return false;
    }
    revoked = cause;
    return true;
  }

  /**
   * MPI_Comm_ack_failed: acknowledges the first {@code n} failures (in {@link #failed()} order).
   *
   * @return how many failures are acknowledged now
   */
  public int ack(int n) {
    acked = Math.max(acked, Math.min(n, failed().length));
    return acked;
  }
}
