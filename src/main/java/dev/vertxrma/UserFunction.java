package dev.vertxrma;

import java.nio.ByteBuffer;

/**
 * The function of a user-defined reduction operation (MPI_User_function, given to
 * {@link Op#create}): combines {@code count} elements of {@code type} of {@code in} into the
 * elements of {@code inout}, element by element, as {@code inout[i] = in[i] op inout[i]}. The
 * operand order matters for a non-commutative operation: {@code in} holds the combination of the
 * lower ranks, {@code inout} that of the higher ones, and the result replaces {@code inout}.
 *
 * <p>The buffers hold the elements packed: element {@code i} is the {@code type.size()} bytes from
 * {@code i * type.size()}, its basic elements in the order of the datatype's type map with no gaps
 * (a derived type's holes and padding left out), in the platform's native byte order, which is
 * the buffers' {@link ByteBuffer#order() order}. Both start at position 0 with limit
 * {@code count * type.size()}; {@code in} is read-only. The buffers are valid during the call
 * only: do not keep them. A typed view reads them most easily, e.g. {@code in.asDoubleBuffer()}.
 *
 * <p>The function runs on the thread of the rank that combines (an event loop: it must not
 * block), possibly on several ranks of one JVM at once: keep it free of shared mutable state. An
 * exception it throws fails the collective call at every rank with {@link ErrorClass#OP}.
 */
@FunctionalInterface
public interface UserFunction {

  /**
   * Combines {@code in} into {@code inout}: {@code inout[i] = in[i] op inout[i]} for {@code i} in
   * {@code [0, count)}.
   *
   * @param in the first operands, read-only, native byte order
   * @param inout the second operands, replaced by the results, native byte order
   * @param count the number of elements of {@code type} in each buffer
   * @param type the datatype the collective was called with
   */
  void apply(ByteBuffer in, ByteBuffer inout, int count, Datatype type);
}
