package dev.vertxrma;

/**
 * A user-defined reduction operation (an MPI_Op made by MPI_Op_create), for the reducing
 * collectives of {@link Comm}. Made by {@link Op#create}; there is nothing to free
 * (MPI_Op_free): it is an ordinary object.
 *
 * <p>As MPI requires, every rank of a collective call passes the same operation: the same
 * function and the same commute flag. Each JVM of a job holds its own instance (a rank program
 * typically creates it, or keeps it in a constant); the function runs where the combining happens,
 * and no function ever travels between JVMs.
 */
public final class UserOp implements Reduction {

  private final UserFunction function;
  private final boolean commute;

  UserOp(UserFunction function, boolean commute) {
    this.function = function;
    this.commute = commute;
  }

  /**
   * The function given to {@link Op#create}.
   *
   * @return the function
   */
  public UserFunction function() {
    return function;
  }

  @Override
  public boolean isCommutative() {
    return commute;
  }

  @Override
  public String mpiName() {
    return commute ? "a user-defined op (Op.create, commutative)" : "a user-defined op (Op.create, non-commutative)";
  }

  @Override
  public String toString() {
    return "UserOp[" + (commute ? "commutative" : "non-commutative") + ", " + function + "]";
  }
}
