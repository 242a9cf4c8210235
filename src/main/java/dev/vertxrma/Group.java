package dev.vertxrma;

import java.util.Arrays;

/**
 * An ordered set of job ranks (MPI_Group). Immutable. Group rank {@code i} is job rank
 * {@code ranks()[i]}. Used by post/start to name the peers of an epoch.
 */
public final class Group {

  /** MPI_UNDEFINED: the rank of a process that is not a member of the group. */
  public static final int UNDEFINED = -32766;

  private final int[] ranks;
  private final int myRank;

  private Group(int[] ranks, int myJobRank) {
    this.ranks = ranks;
    int mine = UNDEFINED;
    for (int i = 0; i < ranks.length; i++) {
      if (ranks[i] == myJobRank) {
        mine = i;
      }
    }
    this.myRank = mine;
  }

  /**
   * A group of the given job ranks, seen from job rank {@code myJobRank} (MPI_Group_incl of the
   * world group).
   *
   * @param myJobRank the calling rank's job rank, which {@link #rank()} is computed from
   * @param jobRanks the members in group order (copied)
   * @return the group
   * @throws RmaException {@link ErrorClass#GROUP} when a rank appears twice,
   *     {@link ErrorClass#RANK} for a negative rank
   */
  public static Group of(int myJobRank, int... jobRanks) {
    int[] copy = jobRanks.clone();
    for (int i = 0; i < copy.length; i++) {
      if (copy[i] < 0) {
        throw RmaException.of(ErrorClass.RANK, "group member %d is rank %d, ranks are >= 0", i, copy[i]);
      }
      for (int j = 0; j < i; j++) {
        if (copy[j] == copy[i]) {
          throw RmaException.of(ErrorClass.GROUP, "rank %d appears twice in group %s", copy[i], Arrays.toString(copy));
        }
      }
    }
    return new Group(copy, myJobRank);
  }

  /**
   * MPI_Group_size: the number of members.
   *
   * @return the number of members
   */
  public int size() {
    return ranks.length;
  }

  /**
   * MPI_Group_rank: the calling rank's rank in this group.
   *
   * @return its group rank, or {@link #UNDEFINED} if it is not a member
   */
  public int rank() {
    return myRank;
  }

  /**
   * The job ranks of the members.
   *
   * @return the job ranks in group order (a copy)
   */
  public int[] ranks() {
    return ranks.clone();
  }

  /**
   * The job rank of a member.
   *
   * @param i a group rank
   * @return the job rank of group member {@code i}
   * @throws RmaException {@link ErrorClass#RANK} if {@code i} is not in {@code [0, size())}
   */
  public int jobRank(int i) {
    if (i < 0 || i >= ranks.length) {
      throw RmaException.of(ErrorClass.RANK, "group rank %d out of range [0, %d)", i, ranks.length);
    }
    return ranks[i];
  }

  /**
   * Whether a job rank is a member.
   *
   * @param jobRank a job rank
   * @return whether it is a member
   */
  public boolean contains(int jobRank) {
    return indexOf(jobRank) >= 0;
  }

  /**
   * The group rank of a job rank.
   *
   * @param jobRank a job rank
   * @return its group rank, or {@link #UNDEFINED} if it is not a member
   */
  public int indexOf(int jobRank) {
    for (int i = 0; i < ranks.length; i++) {
      if (ranks[i] == jobRank) {
        return i;
      }
    }
    return UNDEFINED;
  }

  /**
   * MPI_Group_incl: the members at the given group ranks, in that order.
   *
   * @param groupRanks ranks in this group
   * @return the new group
   * @throws RmaException {@link ErrorClass#RANK} for a group rank out of range,
   *     {@link ErrorClass#GROUP} when one appears twice
   */
  public Group incl(int... groupRanks) {
    int[] sel = new int[groupRanks.length];
    for (int i = 0; i < groupRanks.length; i++) {
      sel[i] = jobRank(groupRanks[i]);
    }
    return of(myJobRankOrUndefined(), sel);
  }

  /**
   * MPI_Group_excl: the members except those at the given group ranks, order kept.
   *
   * @param groupRanks ranks in this group
   * @return the new group
   * @throws RmaException {@link ErrorClass#RANK} for a group rank out of range
   */
  public Group excl(int... groupRanks) {
    boolean[] drop = new boolean[ranks.length];
    for (int g : groupRanks) {
      jobRank(g);
      drop[g] = true;
    }
    return of(myJobRankOrUndefined(), java.util.stream.IntStream.range(0, ranks.length)
        .filter(i -> !drop[i]).map(i -> ranks[i]).toArray());
  }

  /**
   * MPI_Group_translate_ranks: where members of this group are in another group.
   *
   * @param groupRanks ranks in this group
   * @param other the group to look them up in
   * @return for each of {@code groupRanks}, its rank in {@code other} or {@link #UNDEFINED}
   * @throws RmaException {@link ErrorClass#RANK} for a group rank out of range
   */
  public int[] translateRanks(int[] groupRanks, Group other) {
    int[] out = new int[groupRanks.length];
    for (int i = 0; i < groupRanks.length; i++) {
      out[i] = other.indexOf(jobRank(groupRanks[i]));
    }
    return out;
  }

  private int myJobRankOrUndefined() {
    return myRank == UNDEFINED ? UNDEFINED : ranks[myRank];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Group && Arrays.equals(ranks, ((Group) o).ranks);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(ranks);
  }

  @Override
  public String toString() {
    return "Group" + Arrays.toString(ranks);
  }
}
