package dev.vertxrma;

import java.util.Arrays;

/**
 * An ordered set of processes (MPI_Group), each named by its job rank (its rank in the world).
 * Immutable. Group rank {@code i} is job rank {@code ranks()[i]}. {@link Comm#group()} is the
 * group of a communicator (group rank = communicator rank); {@link #incl}, {@link #excl} and the
 * set operations make subgroups, for {@link Comm#create} and for post/start, which name the peers
 * of an epoch with a group; {@link #translateRanks(Group, int...)} maps the ranks of one group (or
 * communicator) to another's.
 */
public final class Group {

  /** MPI_UNDEFINED: the rank of a process that is not a member of the group (equal to {@link Comm#UNDEFINED}). */
  public static final int UNDEFINED = -32766;

  private final int[] ranks;
  private final int myRank;
  /** The job rank of the rank this group is seen from (a member or not). */
  private final int myJobRank;

  private Group(int[] ranks, int myJobRank) {
    this.ranks = ranks;
    this.myJobRank = myJobRank;
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
    return of(myJobRank, sel);
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
    return of(myJobRank, java.util.stream.IntStream.range(0, ranks.length)
        .filter(i -> !drop[i]).map(i -> ranks[i]).toArray());
  }

  /**
   * MPI_Group_translate_ranks: where members of this group are in another group. With the groups
   * of two communicators ({@link Comm#group()}), it maps ranks of one communicator to the other's:
   * {@code sub.group().translateRanks(world.group(), 0)} is the world rank of {@code sub}'s rank 0.
   *
   * @param other the group to look them up in
   * @param groupRanks ranks in this group; {@link Comm#PROC_NULL} translates to itself (as in MPI)
   * @return for each of {@code groupRanks}, its rank in {@code other}, or {@link #UNDEFINED} when
   *     that process is not a member of {@code other}
   * @throws RmaException {@link ErrorClass#RANK} for a group rank out of range,
   *     {@link ErrorClass#GROUP} for a null {@code other}, {@link ErrorClass#ARG} for null ranks
   */
  public int[] translateRanks(Group other, int... groupRanks) {
    if (other == null) {
      throw new RmaException(ErrorClass.GROUP, "translateRanks: the other group is null");
    }
    if (groupRanks == null) {
      throw new RmaException(ErrorClass.ARG, "translateRanks: the ranks are null");
    }
    int[] out = new int[groupRanks.length];
    for (int i = 0; i < groupRanks.length; i++) {
      out[i] = groupRanks[i] == Comm.PROC_NULL ? Comm.PROC_NULL : other.indexOf(jobRank(groupRanks[i]));
    }
    return out;
  }

  /**
   * MPI_Group_translate_ranks, with the arguments in MPI's order; the same as
   * {@link #translateRanks(Group, int...)}.
   *
   * @param groupRanks ranks in this group
   * @param other the group to look them up in
   * @return for each of {@code groupRanks}, its rank in {@code other} or {@link #UNDEFINED}
   * @throws RmaException as {@link #translateRanks(Group, int...)}
   */
  public int[] translateRanks(int[] groupRanks, Group other) {
    return translateRanks(other, groupRanks);
  }

  /**
   * MPI_Group_union: the members of this group in its order, then those of {@code other} that
   * are not in this one, in {@code other}'s order.
   *
   * @param other the other group
   * @return the union, seen from the same rank as this group
   * @throws RmaException {@link ErrorClass#GROUP} for a null {@code other}
   */
  public Group union(Group other) {
    checkOther(other, "union");
    return new Group(java.util.stream.IntStream.concat(Arrays.stream(ranks),
        Arrays.stream(other.ranks).filter(r -> !contains(r))).toArray(), myJobRank);
  }

  /**
   * MPI_Group_intersection: the members of this group that are also in {@code other}, in this
   * group's order.
   *
   * @param other the other group
   * @return the intersection, seen from the same rank as this group
   * @throws RmaException {@link ErrorClass#GROUP} for a null {@code other}
   */
  public Group intersection(Group other) {
    checkOther(other, "intersection");
    return new Group(Arrays.stream(ranks).filter(other::contains).toArray(), myJobRank);
  }

  /**
   * MPI_Group_difference: the members of this group that are not in {@code other}, in this
   * group's order.
   *
   * @param other the other group
   * @return the difference, seen from the same rank as this group
   * @throws RmaException {@link ErrorClass#GROUP} for a null {@code other}
   */
  public Group difference(Group other) {
    checkOther(other, "difference");
    return new Group(Arrays.stream(ranks).filter(r -> !other.contains(r)).toArray(), myJobRank);
  }

  private static void checkOther(Group other, String call) {
    if (other == null) {
      throw RmaException.of(ErrorClass.GROUP, "%s: the other group is null", call);
    }
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
