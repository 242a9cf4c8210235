package dev.vertxrma.impl.comm;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.coll.AgreedIds;
import io.vertx.core.Future;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Collective creation of communicators (MPI_Comm_split, MPI_Comm_dup, MPI_Comm_create) over a
 * parent, on the parent's rank context. One allgather on the parent tells every rank what each
 * rank asked for and the next context id each has free; the new communicators' context id is the
 * largest of those (MPICH's agreement), so it is free at every member and traffic on it can never
 * mix with another communicator's. An argument that is wrong at one rank fails the call at every
 * rank, naming that rank, instead of leaving the others waiting.
 */
final class CommFactory {

  /** What one rank contributes: its proposal and four ints of the call's arguments. */
  private static final int INTS = 5;

  private CommFactory() {
  }

  /** MPI_Comm_split. */
  static Future<Optional<Comm>> split(CommImpl parent, int color, int key) {
    int bad = color < 0 && color != Comm.UNDEFINED ? 1 : 0;
    return split(parent, Future.succeededFuture(new int[] {bad, color, key, 0}), color, "split(color " + color + ")");
  }

  /**
   * MPI_Comm_split with a color this rank learns later ({@code color}; its turn among the parent's
   * communicator creations is taken now, so calls issued after it are agreed after it).
   */
  static Future<Comm> split(CommImpl parent, Future<Integer> color, int key, String what) {
    return split(parent, color.map(c -> new int[] {0, c, key, 0}), null, what).map(Optional::get);
  }

  private static Future<Optional<Comm>> split(CommImpl parent, Future<int[]> args, Integer knownColor, String what) {
    return agree(parent, args, (all, ctx) -> {
      int color = knownColor == null ? all.get(parent.rank())[2] : knownColor;
      for (int r = 0; r < all.size(); r++) {
        if (all.get(r)[1] != 0) {
          throw RmaException.of(ErrorClass.ARG, "split: rank %d gave color %d; a color is >= 0 or Comm.UNDEFINED",
              r, all.get(r)[2]);
        }
      }
      if (color == Comm.UNDEFINED) {
        return Optional.empty();
      }
      List<int[]> same = new ArrayList<>();
      for (int r = 0; r < all.size(); r++) {
        if (all.get(r)[2] == color) {
          same.add(new int[] {all.get(r)[3], r});
        }
      }
      // by key, ties broken by rank in the parent (MPI's rule)
      same.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
      int[] members = same.stream().mapToInt(m -> parent.endpoint().jobRank(m[1])).toArray();
      return Optional.of(parent.derive(members, ctx, "the communicator " + what + " of " + parent.name()));
    });
  }

  /** MPI_Comm_dup. */
  static Future<Comm> dup(CommImpl parent) {
    int[] members = parent.group().ranks();
    return agree(parent, Future.succeededFuture(new int[4]), (all, ctx) -> Optional.<Comm>of(parent.derive(members, ctx,
        "the communicator dup of " + parent.name()))).map(Optional::get);
  }

  /** MPI_Comm_create: every rank of the parent passes the same group, a subgroup of the parent's. */
  static Future<Optional<Comm>> create(CommImpl parent, Group group) {
    int badMember = group == null ? -1 : firstStranger(parent, group);
    int bad = group == null ? 1 : badMember != Comm.UNDEFINED ? 2 : 0;
    int hash = group == null ? 0 : Arrays.hashCode(group.ranks());
    return agree(parent, Future.succeededFuture(new int[] {bad, badMember, hash, 0}), (all, ctx) -> {
      for (int r = 0; r < all.size(); r++) {
        int[] a = all.get(r);
        if (a[1] == 1) {
          throw RmaException.of(ErrorClass.GROUP, "create: rank %d passed a null group", r);
        }
        if (a[1] == 2) {
          throw RmaException.of(ErrorClass.GROUP, "create: the group at rank %d names job rank %d, which is not a "
              + "member of %s", r, a[2], parent.name());
        }
      }
      for (int r = 1; r < all.size(); r++) {
        if (all.get(r)[3] != all.get(0)[3]) {
          throw RmaException.of(ErrorClass.GROUP, "create: ranks 0 and %d passed different groups; every rank of %s "
              + "must pass the same group", r, parent.name());
        }
      }
      if (!group.contains(parent.process().rank())) {
        return Optional.empty();
      }
      return Optional.of(parent.derive(group.ranks(), ctx, "the communicator create(" + group + ") of "
          + parent.name()));
    });
  }

  /** The first member of {@code group} that is not a member of {@code parent}, or UNDEFINED. */
  private static int firstStranger(CommImpl parent, Group group) {
    for (int job : group.ranks()) {
      if (parent.endpoint().rankOf(job) < 0) {
        return job;
      }
    }
    return Comm.UNDEFINED;
  }

  /** Builds this rank's result from every rank's arguments (by parent rank) and the agreed context id. */
  private interface Outcome {
    Optional<Comm> build(List<int[]> all, int ctx);
  }

  /**
   * The collective step: an allgather on the parent of each rank's proposal and arguments (its
   * place in the parent's collective order taken now, its data sent when this rank's earlier
   * agreements have ended), then the largest proposal is the new context id. A failure, an
   * argument error at any rank included, ends the agreement with no id taken.
   */
  private static Future<Optional<Comm>> agree(CommImpl parent, Future<int[]> arguments, Outcome outcome) {
    AgreedIds ids = parent.comms().contexts;
    AgreedIds.Turn turn = ids.turn();
    Future<byte[]> mine = turn.proposal().compose(id -> arguments.map(args -> {
      ByteBuffer b = ByteBuffer.allocate(4 * INTS).putInt(id);
      for (int a : args) {
        b.putInt(a);
      }
      return b.array();
    }));
    return parent.collectives().allgather(mine).transform(ar -> {
      if (ar.failed()) {
        turn.end();
        return Future.failedFuture(ar.cause());
      }
      List<int[]> all = new ArrayList<>();
      int ctx = 0;
      for (byte[] block : ar.result()) {
        ByteBuffer b = ByteBuffer.wrap(block);
        int[] a = new int[INTS];
        for (int i = 0; i < INTS; i++) {
          a[i] = b.getInt();
        }
        all.add(a);
        ctx = Math.max(ctx, a[0]);
      }
      try {
        String full = ids.exhausted(ctx);
        if (full != null) {
          throw new RmaException(ErrorClass.OTHER, "cannot create a communicator: " + full);
        }
        Optional<Comm> result = outcome.build(all, ctx);
        turn.claim(ctx);
        return Future.succeededFuture(result);
      } catch (RmaException e) {
        turn.end();
        return Future.failedFuture(e);
      }
    });
  }
}
