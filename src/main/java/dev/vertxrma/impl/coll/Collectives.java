package dev.vertxrma.impl.coll;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.ops.BasicType;
import dev.vertxrma.impl.ops.ReductionKernel;
import dev.vertxrma.impl.p2p.PointToPoint;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Collective algorithms of one rank over packed byte blocks, built on point-to-point messages in
 * a context of their own (so they never match user messages): dissemination barrier, binomial
 * broadcast and reduce (log2 P rounds), reduce + broadcast for allreduce, linear gather/scatter
 * at the root and pairwise all-to-all, reduce + scatter for reduce-scatter, recursive doubling
 * for scan and exscan. Each call takes the next number of a per-communicator
 * sequence when it is made and tags its messages with it, so collectives started back to back
 * (as MPI's nonblocking collectives may be) match in call order on every rank.
 */
public final class Collectives {

  /** Low tag bits: the round within one collective call. */
  private static final int ROUND_BITS = 8;

  private final Endpoint ep;
  private final PointToPoint.Channel ch;
  private final int ctx;
  /** The job's shared-memory barriers when every rank of the job lives in this JVM, else {@code null}. */
  private final SharedMemoryBarriers sharedBarriers;
  private SharedMemoryBarrier shared;
  private long sharedNumber;
  private Future<Void> lastShared;
  private SharedMemoryBarrier exchange;
  private long exchangeNumber;
  private Future<?> lastExchange;
  private int sequence;

  /**
   * @param ep the communicator's view of this rank: its rank numbering (every rank named here
   *     is a rank of the communicator), context and timeouts
   * @param p2p the rank's point-to-point engine
   * @param ctx the context id reserved for collective traffic of one communicator
   */
  public Collectives(Endpoint ep, PointToPoint p2p, int ctx) {
    this(ep, p2p, ctx, null);
  }

  /**
   * @param sharedBarriers the job's shared-memory barriers if every rank of the job lives in this
   *     JVM (barriers then meet in memory instead of exchanging messages), or {@code null}
   */
  public Collectives(Endpoint ep, PointToPoint p2p, int ctx, SharedMemoryBarriers sharedBarriers) {
    this.ep = ep;
    this.ch = p2p.channel(ctx, ep);
    this.ctx = ctx;
    this.sharedBarriers = sharedBarriers;
  }

  /**
   * Reserves the tag space of one collective call. Every rank numbers its collective calls in
   * call order, so the n-th call has the same tags everywhere and calls started back to back
   * (before the previous one completed) can never take each other's messages.
   */
  private int nextCall() {
    return (sequence++ & 0x7FFFFF) << ROUND_BITS;
  }

  private int rank() {
    return ep.rank();
  }

  private int size() {
    return ep.size();
  }

  /**
   * MPI_Barrier: in shared memory when every rank lives in this JVM ({@link SharedMemoryBarrier}),
   * else by dissemination: ceil(log2 P) rounds of one send and one receive.
   */
  public Future<Void> barrier() {
    int tag = nextCall(); // taken either way: the calls' tags stay the same at every rank
    if (sharedBarriers != null && size() > 1) {
      return ep.withTimeout(sharedBarrier(), "barrier");
    }
    return ep.withTimeout(barrierRound(tag, 0, 1), "barrier");
  }

  /** This rank's next shared-memory barrier, after its previous one (barriers called back to back). */
  private Future<Void> sharedBarrier() {
    if (shared == null) {
      shared = sharedBarriers.barrier(ctx, false, jobRanks());
    }
    long number = ++sharedNumber;
    Future<Void> previous = lastShared;
    Future<Void> arrived = previous == null || previous.isComplete() ? shared.arrive(rank(), number, ep.context())
        : previous.transform(ar -> shared.arrive(rank(), number, ep.context()));
    lastShared = arrived;
    return arrived;
  }

  /**
   * This rank is done with these collectives (its window or communicator was freed): its
   * shared-memory barrier, if it had one, is released once every rank is done with it.
   */
  public void close() {
    if (shared != null) {
      shared.close();
      shared = null;
    }
    if (exchange != null) {
      exchange.close();
      exchange = null;
    }
  }

  private int[] jobRanks() {
    int[] jobRanks = new int[size()];
    for (int i = 0; i < jobRanks.length; i++) {
      jobRanks[i] = ep.jobRank(i);
    }
    return jobRanks;
  }

  /**
   * MPI_Allreduce in shared memory: every rank deposits its block, and once all have, each
   * reduces all blocks itself in rank order (so every rank gets the same bits). After this
   * rank's previous reduction (calls back to back): the blocks of a round are read before the
   * rank's next round is deposited.
   */
  private Future<byte[]> sharedAllreduce(byte[] data, BasicType type, int n, Op op) {
    if (exchange == null) {
      exchange = sharedBarriers.barrier(ctx, true, jobRanks());
    }
    long number = ++exchangeNumber;
    Future<?> previous = lastExchange;
    Future<byte[]> reduced = previous == null || previous.isComplete() ? reduceShared(number, data, type, n, op)
        : previous.transform(ar -> reduceShared(number, data, type, n, op));
    lastExchange = reduced;
    return reduced;
  }

  private Future<byte[]> reduceShared(long number, byte[] data, BasicType type, int n, Op op) {
    return exchange.exchange(rank(), number, data, ep.context()).map(blocks -> {
      byte[] acc = blocks[0].clone();
      for (int r = 1; r < blocks.length; r++) {
        combine(op, type, blocks[r], acc, n, r, "allreduce");
      }
      return acc;
    });
  }

  private Future<Void> barrierRound(int tag, int round, int dist) {
    if (dist >= size()) {
      return ep.context().succeededFuture();
    }
    ch.sendBytes((rank() + dist) % size(), tag + round, new byte[0]);
    return ch.recvBytes((rank() - dist + size()) % size(), tag + round)
        .compose(v -> barrierRound(tag, round + 1, dist << 1));
  }

  /**
   * MPI_Bcast of a packed block over a binomial tree rooted at {@code root}. Non-roots pass
   * {@code null} and get the root's block.
   */
  public Future<byte[]> bcast(byte[] data, int root) {
    return bcast(nextCall(), ep.context().succeededFuture(data), root);
  }

  /** Binomial broadcast with the tag of an already reserved call; the root's data may still be coming. */
  private Future<byte[]> bcast(int tag, Future<byte[]> rootData, int root) {
    int p = size();
    int vr = (rank() - root + p) % p;
    Future<byte[]> received;
    int mask = 1;
    if (vr == 0) {
      received = rootData;
      while (mask < p) {
        mask <<= 1;
      }
    } else {
      while ((vr & mask) == 0) {
        mask <<= 1;
      }
      int parent = ((vr - mask) + root) % p;
      received = ch.recvBytes(parent, tag);
    }
    int top = mask;
    return ep.withTimeout(received.map(block -> {
      for (int m = top >> 1; m > 0; m >>= 1) {
        if (vr + m < p) {
          ch.sendBytes((vr + m + root) % p, tag, block);
        }
      }
      return block;
    }), "bcast");
  }

  /**
   * MPI_Reduce of {@code n} elements of {@code type} combined with {@code op} over a binomial
   * tree: the root gets the result, the others {@code null}. {@code data} is consumed.
   */
  public Future<byte[]> reduce(byte[] data, BasicType type, int n, Op op, int root) {
    return reduce(nextCall(), data, type, n, op, root);
  }

  private Future<byte[]> reduce(int tag, byte[] data, BasicType type, int n, Op op, int root) {
    int p = size();
    int vr = (rank() - root + p) % p;
    return ep.withTimeout(reduceStep(tag, data, type, n, op, root, vr, 1), "reduce");
  }

  private Future<byte[]> reduceStep(int tag, byte[] acc, BasicType type, int n, Op op, int root, int vr, int mask) {
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
      return reduceStep(tag, acc, type, n, op, root, vr, mask << 1);
    }
    int from = (child + root) % p;
    return ch.recvBytes(from, tag).compose(in -> {
      combine(op, type, in, acc, n, from, "reduce");
      return reduceStep(tag, acc, type, n, op, root, vr, mask << 1);
    });
  }

  /**
   * {@code acc = acc op in} over {@code n} packed elements; TRUNCATE when {@code in}, from rank
   * {@code from}, is not as long as {@code acc} (the ranks disagree on count or datatype), before
   * a byte is combined.
   */
  private void combine(Op op, BasicType type, byte[] in, byte[] acc, int n, int from, String what) {
    if (in.length != acc.length) {
      throw RmaException.of(ErrorClass.TRUNCATE, "%s: rank %d contributed %d bytes, rank %d %d bytes; count and "
          + "datatype must describe the same data at every rank", what, from, in.length, rank(), acc.length);
    }
    ReductionKernel.apply(op, type, in, Memory.ARRAY_BYTE_BASE_OFFSET, acc, Memory.ARRAY_BYTE_BASE_OFFSET, n);
  }

  /**
   * MPI_Allreduce: in shared memory in an embedded job; else by recursive doubling on a power-of-two
   * number of ranks, or a reduce to rank 0 and a broadcast (both calls' tags reserved either way).
   */
  public Future<byte[]> allreduce(byte[] data, BasicType type, int n, Op op) {
    int reduceTag = nextCall();
    int bcastTag = nextCall();
    if (sharedBarriers != null && size() > 1) {
      return ep.withTimeout(sharedAllreduce(data, type, n, op), "allreduce");
    }
    if (Integer.bitCount(size()) == 1) {
      return ep.withTimeout(doublingRound(reduceTag, data, type, n, op, 0, 1), "allreduce");
    }
    return bcast(bcastTag, reduce(reduceTag, data, type, n, op, 0), 0);
  }

  /**
   * Recursive doubling (MPICH's allreduce of short data on a power-of-two number of ranks):
   * in round {@code k} each rank exchanges its partial result with rank {@code rank ^ 2^k} and
   * both combine the two as (lower rank's) op (higher rank's), so partners hold the same bits
   * after every round and all ranks the same result after log2 P rounds, one message each way
   * per round instead of a reduce and a broadcast one after the other. A block once sent is
   * never written again (a same-JVM receiver may see the very array).
   */
  private Future<byte[]> doublingRound(int tag, byte[] acc, BasicType type, int n, Op op, int round, int mask) {
    if (mask >= size()) {
      return ep.context().succeededFuture(acc);
    }
    int partner = rank() ^ mask;
    ch.sendBytes(partner, tag + round, acc);
    return ch.recvBytes(partner, tag + round).compose(theirs -> {
      boolean lower = rank() < partner;
      byte[] next = (lower ? acc : theirs).clone();
      combine(op, type, lower ? theirs : acc, next, n, partner, "allreduce");
      return doublingRound(tag, next, type, n, op, round + 1, mask << 1);
    });
  }

  /** MPI_Gather: the root gets every rank's block in rank order, the others {@code null}. */
  public Future<List<byte[]>> gather(byte[] block, int root) {
    return gather(nextCall(), block, root);
  }

  private Future<List<byte[]>> gather(int tag, byte[] block, int root) {
    if (rank() != root) {
      ch.sendBytes(root, tag, block);
      return ep.context().succeededFuture(null);
    }
    List<Future<byte[]>> parts = new ArrayList<>();
    for (int r = 0; r < size(); r++) {
      parts.add(r == root ? ep.context().succeededFuture(block) : ch.recvBytes(r, tag));
    }
    return ep.withTimeout(Future.all(parts).map(cf -> cf.<byte[]>list()), "gather");
  }

  /** MPI_Allgather: gather to rank 0, then broadcast the concatenation. */
  public Future<List<byte[]>> allgather(byte[] block) {
    return allgather(ep.context().succeededFuture(block));
  }

  /**
   * MPI_Allgather of a block that may not be known yet: the call takes its place in this
   * communicator's collective order now, and this rank's block is sent once {@code block}
   * completes (the agreements on new ids wait for this rank's earlier agreements this way without
   * letting later collectives overtake them).
   */
  public Future<List<byte[]>> allgather(Future<byte[]> block) {
    int gatherTag = nextCall();
    int bcastTag = nextCall();
    Future<byte[]> gathered = block.compose(b -> gather(gatherTag, b, 0))
        .map(parts -> parts == null ? null : concat(parts));
    return bcast(bcastTag, gathered, 0).map(all -> split(all, size()));
  }

  /** MPI_Scatter: block {@code i} of the root's list goes to rank {@code i}. */
  public Future<byte[]> scatter(List<byte[]> blocks, int root) {
    return scatter(nextCall(), ep.context().succeededFuture(blocks), root, "scatter");
  }

  /** Linear scatter with the tag of an already reserved call; the root's blocks may still be coming. */
  private Future<byte[]> scatter(int tag, Future<List<byte[]>> rootBlocks, int root, String what) {
    if (rank() == root) {
      return ep.withTimeout(rootBlocks.map(blocks -> {
        for (int r = 0; r < size(); r++) {
          if (r != root) {
            ch.sendBytes(r, tag, blocks.get(r));
          }
        }
        return blocks.get(root);
      }), what);
    }
    // a rank whose part of an earlier phase failed fails at once instead of waiting for root
    return ep.withTimeout(rootBlocks.compose(ignored -> ch.recvBytes(root, tag)), what);
  }

  /**
   * MPI_Reduce_scatter over packed blocks: the {@code n} elements of every rank's {@code data}
   * are combined with {@code op} (binomial reduce to rank 0), then rank 0 sends rank {@code i}
   * the next {@code blockBytes[i]} bytes of the result (both calls' tags reserved now).
   * {@code data} is consumed.
   */
  public Future<byte[]> reduceScatter(byte[] data, BasicType type, int n, Op op, int[] blockBytes) {
    int reduceTag = nextCall();
    int scatterTag = nextCall();
    Future<List<byte[]>> blocks = reduce(reduceTag, data, type, n, op, 0).map(result -> {
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
    return scatter(scatterTag, blocks, 0, "reduceScatter");
  }

  /**
   * MPI_Scan ({@code exclusive == false}) or MPI_Exscan by recursive doubling, MPICH's algorithm:
   * ceil(log2 P) rounds; in round k each rank swaps its partial result (the combination of a
   * block of 2^k ranks) with the rank whose number differs in bit k, and a rank folds into its
   * result only what came from lower ranks. Every predefined op is commutative, so the order in
   * which operands are combined does not change the result (except in the rounding of floating
   * point sums and products, as in MPI). Completes with this rank's result; {@code null} for
   * the exclusive scan at rank 0, whose result MPI leaves undefined. {@code data} is consumed.
   */
  public Future<byte[]> scan(byte[] data, BasicType type, int n, Op op, boolean exclusive) {
    int tag = nextCall();
    String what = exclusive ? "exscan" : "scan";
    byte[] result = exclusive ? null : data.clone();
    return ep.withTimeout(scanRound(tag, 0, data, result, type, n, op, exclusive, what), what);
  }

  private Future<byte[]> scanRound(int tag, int round, byte[] partial, byte[] result, BasicType type, int n, Op op,
      boolean exclusive, String what) {
    int mask = 1 << round;
    if (mask >= size()) {
      return ep.context().succeededFuture(result);
    }
    int peer = rank() ^ mask;
    if (peer >= size()) {
      return scanRound(tag, round + 1, partial, result, type, n, op, exclusive, what);
    }
    // the peer may be in this JVM, where a block is handed over without a copy: send a copy
    ch.sendBytes(peer, tag + round, partial.clone());
    return ch.recvBytes(peer, tag + round).compose(in -> {
      combine(op, type, in, partial, n, peer, what); // checks the length first
      byte[] acc = result;
      if (peer < rank()) {
        // the peer's block of ranks comes before ours: it joins our result
        if (acc == null) {
          acc = in; // exscan, first lower block: in is ours (a copy) and only read above
        } else {
          combine(op, type, in, acc, n, peer, what);
        }
      }
      return scanRound(tag, round + 1, partial, acc, type, n, op, exclusive, what);
    });
  }

  /** MPI_Alltoall: sends block {@code j} to rank {@code j}; returns the blocks received, by source. */
  public Future<List<byte[]>> alltoall(List<byte[]> blocks) {
    int tag = nextCall();
    List<Future<byte[]>> parts = new ArrayList<>();
    for (int d = 1; d < size(); d++) {
      int to = (rank() + d) % size();
      ch.sendBytes(to, tag, blocks.get(to));
    }
    for (int r = 0; r < size(); r++) {
      parts.add(r == rank() ? ep.context().succeededFuture(blocks.get(r)) : ch.recvBytes(r, tag));
    }
    return ep.withTimeout(Future.all(parts).map(cf -> cf.<byte[]>list()), "alltoall");
  }

  private static byte[] concat(List<byte[]> parts) {
    int total = 0;
    for (byte[] b : parts) {
      total += 4 + b.length;
    }
    byte[] out = new byte[total];
    int at = 0;
    for (byte[] b : parts) {
      Memory.putInt(out, Memory.ARRAY_BYTE_BASE_OFFSET + at, b.length);
      System.arraycopy(b, 0, out, at + 4, b.length);
      at += 4 + b.length;
    }
    return out;
  }

  private static List<byte[]> split(byte[] all, int n) {
    List<byte[]> out = new ArrayList<>(n);
    int at = 0;
    for (int i = 0; i < n; i++) {
      int len = Memory.getInt(all, Memory.ARRAY_BYTE_BASE_OFFSET + at);
      byte[] b = new byte[len];
      System.arraycopy(all, at + 4, b, 0, len);
      out.add(b);
      at += 4 + len;
    }
    return out;
  }
}
