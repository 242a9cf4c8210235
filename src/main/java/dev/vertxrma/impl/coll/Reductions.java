package dev.vertxrma.impl.coll;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.ops.Combiner;
import dev.vertxrma.impl.p2p.Channel;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The reducing collectives of one communicator, over packed blocks combined by a
 * {@link Combiner}: binomial reduce, allreduce (in shared memory when every rank lives in this
 * JVM, else recursive doubling ({@link DoublingAllreduce}) for a short block on any number of
 * ranks and for any block on a power-of-two number, else reduce + broadcast),
 * reduce + scatter for reduce-scatter, recursive doubling for scan and exscan.
 *
 * <p><b>Order.</b> Every algorithm combines a block of lower ranks with a block of higher ranks
 * as {@code lower op higher}, so a non-commutative (user-defined) op gets the result MPI defines,
 * {@code x0 op x1 op ... op x(P-1)}; the reduce to a root other than 0 of such an op runs the
 * tree rooted at 0 and sends the result on to root.
 *
 * <p><b>Failures.</b> A rank whose part fails (a block of the wrong length, the op's function
 * throwing, a failed receive) sends the failure ({@link Channel#sendFailure}) to
 * every rank that would still wait for a block from it in this call, which do the same: nobody
 * waits for its timeout. With a user-defined op, the ranks then agree on the outcome (a
 * dissemination round carrying the lowest failing rank's error), so that the call fails at every
 * rank, also at those whose part was done before the failure.
 */
final class Reductions {

  private final Collectives coll;
  private final Endpoint ep;
  private final Channel ch;
  private final int ctx;
  /** The job's shared-memory barriers when every rank of the job lives in this JVM, else {@code null}. */
  private final SharedMemoryBarriers sharedBarriers;
  private SharedMemoryBarrier exchange;
  private long exchangeNumber;
  private Future<?> lastExchange;
  /** {@code 0 .. size - 1}, made once: the members of an allreduce by messages. */
  private int[] members;

  Reductions(Collectives coll, Endpoint ep, Channel ch, int ctx, SharedMemoryBarriers sharedBarriers) {
    this.coll = coll;
    this.ep = ep;
    this.ch = ch;
    this.ctx = ctx;
    this.sharedBarriers = sharedBarriers;
  }

  private int rank() {
    return ep.rank();
  }

  private int size() {
    return ep.size();
  }

  /** Releases the shared-memory exchange, if this rank had one. */
  void close() {
    if (exchange != null) {
      exchange.close();
      exchange = null;
    }
  }

  /** MPI_Reduce: the root gets the result, the others {@code null}. {@code data} is consumed. */
  Future<byte[]> reduce(byte[] data, Combiner op, int root) {
    int tag = coll.nextCall();
    int agreeTag = coll.nextCall();
    return agreed(agreeTag, op, reduce(tag, data, op, root, "reduce"), "reduce");
  }

  /**
   * MPI_Allreduce: in shared memory in an embedded job, or when the ranks' JVMs share memory and
   * the block fits a barrier page; else by messages ({@link #byMessages}; the calls' tags are
   * reserved either way).
   */
  Future<byte[]> allreduce(byte[] data, Combiner op) {
    int reduceTag = coll.nextCall();
    int bcastTag = coll.nextCall();
    int agreeTag = coll.nextCall();
    Future<byte[]> result;
    CommHostBarrier host = coll.hostBarrier();
    if (sharedBarriers != null && size() > 1) {
      result = ep.withTimeout(sharedAllreduce(data, op, reduceTag), "allreduce");
    } else if (host != null && host.started() && data.length <= BarrierPage.MAX_BLOCK) {
      // the same choice at every rank: the same barriers were called before, and the same count
      result = ep.withTimeout(host.onPath(h -> host.exchange(h, data)
          .compose(blocks -> coll.unlessAborted(blocks, reduceTag)).map(blocks -> combined(blocks, op)),
          () -> byMessages(reduceTag, bcastTag, data, op)), "allreduce");
    } else {
      result = byMessages(reduceTag, bcastTag, data, op);
    }
    return agreed(agreeTag, op, result, "allreduce");
  }

  /**
   * Blocks up to this many bytes are allreduced by recursive doubling whatever the number of
   * ranks (MPICH's short-message bound, {@code MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE}); a longer one
   * only on a power-of-two number of ranks, else by a reduce and a broadcast, which send each rank's
   * block once instead of doubling the folded ranks' traffic (np 3 over 3 JVMs, 64 KiB: 143-207 us
   * against 244 by doubling).
   */
  static final int SHORT_BLOCK_BYTES = 2048;

  /**
   * Allreduce by messages: recursive doubling (floor(log2 P) rounds, plus two when P is not a
   * power of two, where a reduce to rank 0 and a broadcast take 2 ceil(log2 P)) for a short block
   * or a power-of-two number of ranks; else the reduce and the broadcast. The same choice at every
   * rank, as the count is the same everywhere (a count that differs fails with TRUNCATE when the
   * choices agree, else at the wait's timeout).
   */
  private Future<byte[]> byMessages(int reduceTag, int bcastTag, byte[] data, Combiner op) {
    if (data.length <= SHORT_BLOCK_BYTES || Integer.bitCount(size()) == 1) {
      return ep.withTimeout(DoublingAllreduce.run(ep, ch, reduceTag, everyRank(), rank(),
          ep.context().succeededFuture(data), op), "allreduce");
    }
    return coll.bcast(bcastTag, reduce(reduceTag, data, op, 0, "allreduce"), 0);
  }

  /** The communicator's ranks in order: every one takes part in an allreduce, in rank order. */
  private int[] everyRank() {
    int[] all = members;
    if (all == null || all.length != size()) {
      all = new int[size()];
      for (int r = 0; r < all.length; r++) {
        all[r] = r;
      }
      members = all;
    }
    return all;
  }

  /**
   * MPI_Reduce_scatter: a reduce to rank 0, which sends rank {@code i} the next
   * {@code blockBytes[i]} bytes of the result.
   */
  Future<byte[]> reduceScatter(byte[] data, Combiner op, int[] blockBytes) {
    int reduceTag = coll.nextCall();
    int scatterTag = coll.nextCall();
    int agreeTag = coll.nextCall();
    Future<List<byte[]>> blocks = reduce(reduceTag, data, op, 0, "reduceScatter").map(result -> {
      if (result == null) {
        return null;
      }
      List<byte[]> out = new ArrayList<>(blockBytes.length);
      int at = 0;
      for (int len : blockBytes) {
        out.add(Arrays.copyOfRange(result, at, at + len));
        at += len;
      }
      return out;
    });
    return agreed(agreeTag, op, coll.scatter(scatterTag, blocks, 0, "reduceScatter"), "reduceScatter");
  }

  /**
   * MPI_Scan ({@code exclusive == false}) or MPI_Exscan by recursive doubling, MPICH's algorithm:
   * ceil(log2 P) rounds; in round k each rank swaps its partial result (the combination of its
   * aligned block of 2^k ranks) with the rank whose number differs in bit k; both combine the two
   * partials lower block first, and a rank folds into its result what came from lower ranks, in
   * front. {@code null} for the exclusive scan at rank 0, whose result MPI leaves undefined.
   */
  Future<byte[]> scan(byte[] data, Combiner op, boolean exclusive) {
    int tag = coll.nextCall();
    int agreeTag = coll.nextCall();
    String what = exclusive ? "exscan" : "scan";
    byte[] result = exclusive ? null : data.clone();
    return agreed(agreeTag, op, ep.withTimeout(scanRound(tag, 0, data, result, op, what), what), what);
  }

  // ------------------------------------------------------------------ algorithms

  /**
   * A reduce with an already reserved tag: a binomial tree rooted at {@code root}, or, for a
   * non-commutative op and a root other than 0, rooted at 0 (where the tree combines in rank
   * order), whose result rank 0 then sends to root.
   */
  private Future<byte[]> reduce(int tag, byte[] data, Combiner op, int root, String what) {
    if (op.isCommutative() || root == 0) {
      return ep.withTimeout(binomial(tag, data, op, root, what), what);
    }
    Future<byte[]> atZero = binomial(tag, data, op, 0, what);
    if (rank() == 0) {
      return ep.withTimeout(atZero.transform(ar -> {
        if (ar.succeeded()) {
          ch.sendBytes(root, tag + 1, ar.result());
          return ep.context().<byte[]>succeededFuture(null);
        }
        ch.sendFailure(root, tag + 1, Collectives.asRma(ar.cause()));
        return ep.context().<byte[]>failedFuture(ar.cause());
      }), what);
    }
    return ep.withTimeout(rank() == root ? atZero.compose(none -> ch.recvBytes(0, tag + 1)) : atZero, what);
  }

  /** Binomial reduce to {@code root}: its result there, {@code null} elsewhere; a failure goes to the parent. */
  private Future<byte[]> binomial(int tag, byte[] data, Combiner op, int root, String what) {
    int p = size();
    int vr = (rank() - root + p) % p;
    Future<byte[]> mine = reduceStep(tag, data, op, root, vr, 1, what);
    if (vr == 0) {
      return mine;
    }
    int parent = ((vr & (vr - 1)) + root) % p;
    return mine.recover(e -> {
      ch.sendFailure(parent, tag, Collectives.asRma(e)); // the parent waits for this rank's block
      return ep.context().failedFuture(e);
    });
  }

  private Future<byte[]> reduceStep(int tag, byte[] acc, Combiner op, int root, int vr, int mask, String what) {
    int p = size();
    if (mask >= p) {
      return ep.context().succeededFuture(acc);
    }
    if ((vr & mask) != 0) {
      ch.sendBytes(((vr & ~mask) + root) % p, tag, acc);
      return ep.context().succeededFuture(null);
    }
    int child = vr | mask;
    if (child >= p) {
      return reduceStep(tag, acc, op, root, vr, mask << 1, what);
    }
    int from = (child + root) % p;
    // the child's subtree holds the virtual ranks just above ours: rank order when root is 0
    return ch.recvBytes(from, tag).compose(in -> reduceStep(tag, op.intoLower(acc, checked(in, acc, from, what)),
        op, root, vr, mask << 1, what));
  }

  /**
   * {@code in}, from rank {@code from}, once it is known to be as long as {@code mine}; TRUNCATE
   * when it is not (the ranks disagree on count or datatype), before a byte is combined.
   */
  private byte[] checked(byte[] in, byte[] mine, int from, String what) {
    if (in.length != mine.length) {
      throw RmaException.of(ErrorClass.TRUNCATE, "%s: rank %d contributed %d bytes, rank %d %d bytes; count and "
          + "datatype must describe the same data at every rank", what, from, in.length, rank(), mine.length);
    }
    return in;
  }

  /** Sends {@code cause} to the peers of rounds {@code round, round + 1, ...} (mask {@code mask} on) that exist. */
  private void failLaterRounds(int tag, int round, int mask, Throwable cause) {
    RmaException failure = Collectives.asRma(cause);
    for (int m = mask, r = round; m < size() && m > 0; m <<= 1, r++) {
      int peer = rank() ^ m;
      if (peer < size()) {
        ch.sendFailure(peer, tag + r, failure);
      }
    }
  }

  private Future<byte[]> scanRound(int tag, int round, byte[] partial, byte[] result, Combiner op, String what) {
    int mask = 1 << round;
    if (mask >= size()) {
      return ep.context().succeededFuture(result);
    }
    int peer = rank() ^ mask;
    if (peer >= size()) {
      return scanRound(tag, round + 1, partial, result, op, what);
    }
    // the peer may be in this JVM, where a block is handed over without a copy: send a copy
    ch.sendBytes(peer, tag + round, partial.clone());
    Future<byte[][]> combined = ch.recvBytes(peer, tag + round).map(in -> {
      checked(in, partial, peer, what);
      if (peer < rank()) {
        // the peer's block of ranks comes before ours, in the partial and in front of our result;
        // in is ours (a copy), so the first block of lower ranks of an exscan can be the result
        byte[] nextPartial = op.intoHigher(in, partial);
        return new byte[][] {nextPartial, result == null ? in : op.intoHigher(in, result)};
      }
      return new byte[][] {op.intoLower(partial, in), result};
    });
    return combined.transform(ar -> {
      if (ar.failed()) {
        failLaterRounds(tag, round + 1, mask << 1, ar.cause());
        return ep.context().failedFuture(ar.cause());
      }
      return scanRound(tag, round + 1, ar.result()[0], ar.result()[1], op, what);
    });
  }

  /**
   * MPI_Allreduce in shared memory: every rank deposits its block, and once all have, each
   * reduces all blocks itself in rank order (so every rank gets the same bits). After this
   * rank's previous reduction (calls back to back): the blocks of a round are read before the
   * rank's next round is deposited.
   */
  private Future<byte[]> sharedAllreduce(byte[] data, Combiner op, int tag) {
    if (exchange == null) {
      exchange = sharedBarriers.barrier(ctx, true, coll.jobRanks());
    }
    long number = ++exchangeNumber;
    Future<?> previous = lastExchange;
    Future<byte[]> reduced = previous == null || previous.isComplete() ? reduceShared(number, data, op, tag)
        : previous.transform(ar -> reduceShared(number, data, op, tag));
    lastExchange = reduced;
    return reduced;
  }

  /**
   * This rank failed an allreduce before taking part ({@link Collectives#checked}): it takes the
   * exchange's number with no block, so the others' exchange completes and fails with its failure.
   */
  void skipShared() {
    sharedAllreduce(null, null, 0).onFailure(e -> { }); // its own result is its check's error
  }

  private Future<byte[]> reduceShared(long number, byte[] data, Combiner op, int tag) {
    Future<byte[][]> all = exchange.exchange(rank(), number, data, ep.context());
    if (data == null) {
      return all.map(blocks -> null); // this rank's part of a call it failed: nothing to reduce
    }
    return all.compose(blocks -> coll.unlessAborted(blocks, tag)).map(blocks -> combined(blocks, op));
  }

  /** Every rank's block reduced in rank order (so every rank gets the same bits). */
  private byte[] combined(byte[][] blocks, Combiner op) {
    byte[] acc = blocks[0].clone();
    for (int r = 1; r < blocks.length; r++) {
      acc = op.intoLower(acc, checked(blocks[r], acc, r, "allreduce"));
    }
    return acc;
  }

  // ------------------------------------------------------------------ agreement (user-defined ops)

  /**
   * With a user-defined op, {@code result} once every rank's part of the call succeeded, else the
   * failure of the lowest rank that failed (this rank's own if it failed: it may carry the
   * exception the op's function threw); a predefined op's result as it is. A rank that lost its
   * job, a peer or its patience (COMM, PROC_FAILED, TIMEOUT) fails at once: the others' wait for
   * it ends the same way.
   */
  private Future<byte[]> agreed(int tag, Combiner op, Future<byte[]> result, String what) {
    if (!op.isUserDefined()) {
      return result;
    }
    return result.transform(ar -> {
      RmaException mine = ar.failed() ? Collectives.asRma(ar.cause()) : null;
      if (mine != null && (mine.errorClass() == ErrorClass.TIMEOUT || mine.errorClass() == ErrorClass.PROC_FAILED
          || mine.errorClass() == ErrorClass.COMM)) {
        return ep.context().failedFuture(mine);
      }
      return ep.withTimeout(agreeRound(tag, 0, 1, encode(mine)), what).compose(first -> {
        if (mine != null) {
          return ep.context().failedFuture(mine);
        }
        return first.length == 0 ? ep.context().succeededFuture(ar.result()) : ep.context().failedFuture(decode(first));
      });
    });
  }

  /** A dissemination round (as the barrier's) carrying the failure of the lowest failing rank seen. */
  private Future<byte[]> agreeRound(int tag, int round, int dist, byte[] state) {
    if (dist >= size()) {
      return ep.context().succeededFuture(state);
    }
    ch.sendBytes((rank() + dist) % size(), tag + round, state);
    return ch.recvBytes((rank() - dist + size()) % size(), tag + round)
        .compose(in -> agreeRound(tag, round + 1, dist << 1, lowerRank(state, in)));
  }

  /** Of two encoded outcomes, the failure of the lower rank; empty if neither failed. */
  private static byte[] lowerRank(byte[] a, byte[] b) {
    if (a.length == 0) {
      return b;
    }
    if (b.length == 0) {
      return a;
    }
    return Memory.getInt(a, Memory.ARRAY_BYTE_BASE_OFFSET) <= Memory.getInt(b, Memory.ARRAY_BYTE_BASE_OFFSET) ? a : b;
  }

  /** This rank's outcome: empty for success, else {@code i32 rank | i32 error class | message}. */
  private byte[] encode(RmaException failure) {
    if (failure == null) {
      return new byte[0];
    }
    String prefix = failure.errorClass() + ": ";
    String text = String.valueOf(failure.getMessage());
    byte[] message = (text.startsWith(prefix) ? text.substring(prefix.length()) : text).getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[8 + message.length];
    Memory.putInt(out, Memory.ARRAY_BYTE_BASE_OFFSET, rank());
    Memory.putInt(out, Memory.ARRAY_BYTE_BASE_OFFSET + 4, failure.errorClass().code());
    System.arraycopy(message, 0, out, 8, message.length);
    return out;
  }

  private static RmaException decode(byte[] failure) {
    if (failure.length < 8) {
      return new RmaException(ErrorClass.OTHER, "a malformed outcome of " + failure.length + " bytes from a peer");
    }
    ErrorClass cls = ErrorClass.ofCode(Memory.getInt(failure, Memory.ARRAY_BYTE_BASE_OFFSET + 4));
    return new RmaException(cls, new String(failure, 8, failure.length - 8, StandardCharsets.UTF_8));
  }
}
