package dev.vertxrma.impl.coll;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.ops.Combiner;
import dev.vertxrma.impl.p2p.Channel;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;

/**
 * Allreduce by recursive doubling among any number of members (MPICH's algorithm for short data):
 * with {@code pof2} the largest power of two not above the member count and {@code rem} the
 * rest, the first {@code 2 rem} members pair up, each even one folding its block into the odd one
 * above it and waiting; the {@code pof2} members left exchange partial results in log2 pof2
 * rounds (in round {@code k} with the member whose new number differs in bit {@code k}); each odd
 * member finally sends the result to the even one it folded. Every combination is
 * (lower members' block) op (higher members' block), and each remaining member stands for a run
 * of consecutive members, so a non-commutative op gets the result of combining the members in
 * their order; all members get the same bits.
 *
 * <p>A block once sent is never written again (a same-JVM receiver may see the very array). A
 * member whose part fails (its own block failed, a receive failed, the op threw, blocks of
 * different lengths) sends the failure to every member that would still wait for it in this call,
 * which do the same, so every member fails without waiting for its timeout.
 */
final class DoublingAllreduce {

  /** Round of the final send back to the folded members (rounds of one call stay below 2^8). */
  private static final int LAST_ROUND = 255;

  private final Endpoint ep;
  private final Channel ch;
  private final int tag;
  private final int[] members;
  private final int me;
  private final Combiner op;
  private final int pof2;
  private final int rem;

  private DoublingAllreduce(Endpoint ep, Channel ch, int tag, int[] members, int me, Combiner op) {
    this.ep = ep;
    this.ch = ch;
    this.tag = tag;
    this.members = members;
    this.me = me;
    this.op = op;
    this.pof2 = Integer.highestOneBit(members.length);
    this.rem = members.length - pof2;
  }

  /**
   * The combination of every member's block.
   *
   * @param tag the tag of the call (its rounds take the low bits)
   * @param members the communicator ranks taking part, in the order their blocks combine
   * @param me this rank's index in {@code members}
   * @param mine this rank's block (consumed), or its failure, which the others then get
   */
  static Future<byte[]> run(Endpoint ep, Channel ch, int tag, int[] members, int me, Future<byte[]> mine,
      Combiner op) {
    return new DoublingAllreduce(ep, ch, tag, members, me, op).start(mine);
  }

  private Future<byte[]> start(Future<byte[]> mine) {
    if (me < 2 * rem && me % 2 == 0) {
      int odd = members[me + 1];
      // folded: hand the block (or the failure) up, get the result back
      return mine.transform(ar -> {
        if (ar.succeeded()) {
          ch.sendBytes(odd, tag, ar.result());
          return ch.recvBytes(odd, tag + LAST_ROUND);
        }
        ch.sendFailure(odd, tag, Collectives.asRma(ar.cause()));
        return ep.context().failedFuture(ar.cause());
      });
    }
    int virtual = me < 2 * rem ? me / 2 : me - rem;
    Future<byte[]> acc = mine;
    if (me < 2 * rem) {
      int even = members[me - 1];
      // this rank's block is its own (never sent): the even member's is folded into it
      acc = mine.compose(higher -> ch.recvBytes(even, tag).map(lower -> op.intoHigher(checked(lower, higher, even),
          higher)));
    }
    return acc.transform(ar -> {
      if (ar.failed()) {
        failFrom(virtual, 0, ar.cause());
        return ep.context().failedFuture(ar.cause());
      }
      return round(virtual, 0, ar.result());
    });
  }

  /** Round {@code round} of the doubling among the {@code pof2} remaining members, then the send back. */
  private Future<byte[]> round(int virtual, int round, byte[] acc) {
    int mask = 1 << round;
    if (mask >= pof2) {
      if (me < 2 * rem) {
        ch.sendBytes(members[me - 1], tag + LAST_ROUND, acc);
      }
      return ep.context().succeededFuture(acc);
    }
    int partnerVirtual = virtual ^ mask;
    int partner = real(partnerVirtual);
    ch.sendBytes(partner, tag + 1 + round, acc);
    Future<byte[]> combined = ch.recvBytes(partner, tag + 1 + round).map(theirs -> {
      checked(theirs, acc, partner);
      return virtual < partnerVirtual ? op.intoLower(acc.clone(), theirs) : op.intoLower(theirs.clone(), acc);
    });
    return combined.transform(ar -> {
      if (ar.failed()) {
        failFrom(virtual, round + 1, ar.cause());
        return ep.context().failedFuture(ar.cause());
      }
      return round(virtual, round + 1, ar.result());
    });
  }

  /** Sends {@code cause} to the partners of rounds {@code round, round + 1, ...} and to the folded member, if any. */
  private void failFrom(int virtual, int round, Throwable cause) {
    RmaException failure = Collectives.asRma(cause);
    for (int r = round; (1 << r) < pof2; r++) {
      ch.sendFailure(real(virtual ^ (1 << r)), tag + 1 + r, failure);
    }
    if (me < 2 * rem) {
      ch.sendFailure(members[me - 1], tag + LAST_ROUND, failure);
    }
  }

  /** The communicator rank of the member numbered {@code virtual} among the remaining ones. */
  private int real(int virtual) {
    return members[virtual < rem ? 2 * virtual + 1 : virtual + rem];
  }

  /**
   * {@code in}, from rank {@code from}, once it is known to be as long as {@code acc}; TRUNCATE
   * when it is not (the ranks disagree on count or datatype), before a byte is combined.
   */
  private byte[] checked(byte[] in, byte[] acc, int from) {
    if (in.length != acc.length) {
      throw RmaException.of(ErrorClass.TRUNCATE, "allreduce: rank %d contributed %d bytes, rank %d %d bytes; count "
          + "and datatype must describe the same data at every rank", from, in.length, ep.rank(), acc.length);
    }
    return in;
  }
}
