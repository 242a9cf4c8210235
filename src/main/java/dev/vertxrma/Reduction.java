package dev.vertxrma;

/**
 * A reduction operation that the reducing collectives take (MPI_Op): one of the predefined
 * {@link Op}s, or a user-defined {@link UserOp} made with {@link Op#create} (MPI_Op_create). The
 * collectives {@link Comm#reduce reduce}, {@link Comm#allreduce(Buf, int, Buf, int, int, Datatype,
 * Reduction) allreduce}, {@link Comm#reduceScatter reduceScatter},
 * {@link Comm#reduceScatterBlock reduceScatterBlock}, {@link Comm#scan scan} and
 * {@link Comm#exscan exscan} take either; the RMA accumulate calls of {@link Win} take an
 * {@link Op} only, since MPI allows no user-defined operation there.
 *
 * <p>Sealed: {@link Op} and {@link UserOp} are the only kinds.
 */
public sealed interface Reduction permits Op, UserOp {

  /**
   * MPI_Op_commutative: whether the operation is commutative. Every predefined {@link Op} is; a
   * {@link UserOp} is when it was created with {@code commute = true}. The collectives combine the
   * operands of a non-commutative operation in ascending rank order (MPI's rule); for a
   * commutative one they may combine them in any order.
   *
   * @return {@code true} if the operation is commutative
   */
  boolean isCommutative();

  /**
   * The name of this operation in messages: the MPI name of a predefined one (e.g.
   * {@code MPI_SUM}), a description for a user-defined one.
   *
   * @return the name
   */
  String mpiName();
}
