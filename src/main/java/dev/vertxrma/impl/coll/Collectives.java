package dev.vertxrma.impl.coll;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.ops.Combiner;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.p2p.Channel;
import dev.vertxrma.impl.p2p.PointToPoint;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Collective algorithms of one rank over packed byte blocks, built on point-to-point messages in
 * a context of their own (so they never match user messages): dissemination barrier, binomial
 * broadcast (log2 P rounds), linear gather/scatter at the root and pairwise all-to-all; the
 * reductions are {@link Reductions}'. A broadcast or scatter whose root failed to produce its
 * data sends the failure down instead, so no rank waits for it until its timeout. Each call takes
 * the next number of a per-communicator
 * sequence when it is made and tags its messages with it, so collectives started back to back
 * (as MPI's nonblocking collectives may be) match in call order on every rank.
 */
public final class Collectives {

  /** Low tag bits: the round within one collective call. */
  private static final int ROUND_BITS = 8;

  private final Endpoint ep;
  private final Channel ch;
  private final int ctx;
  /** The job's shared-memory barriers when every rank of the job lives in this JVM, else {@code null}. */
  private final SharedMemoryBarriers sharedBarriers;
  private SharedMemoryBarrier shared;
  private long sharedNumber;
  private Future<Void> lastShared;
  private final Reductions reductions;
  /** The barriers of a communicator spanning JVMs (in memory when its ranks share it), else {@code null}. */
  private final CommHostBarrier hostBarrier;
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
    this(ep, p2p, ctx, sharedBarriers, false, null);
  }

  /**
   * The collectives of a communicator: as above, and when its ranks span JVMs, its barriers meet in
   * shared memory if they all share it ({@link CommHostBarrier}).
   *
   * @param sharedMemory whether this JVM takes the on-node path ({@code rma.shm}); its ranks take
   *     part in finding out either way, so that every rank decides alike
   * @param job the job's name (shared-memory files carry it); {@code null} for collectives whose
   *     barriers always take messages (a window's: its fences have a host barrier of their own)
   */
  public Collectives(Endpoint ep, PointToPoint p2p, int ctx, SharedMemoryBarriers sharedBarriers,
      boolean sharedMemory, String job) {
    this.ep = ep;
    this.ch = p2p.collectiveChannel(ctx, ep);
    this.ctx = ctx;
    this.sharedBarriers = sharedBarriers;
    this.reductions = new Reductions(this, ep, ch, ctx, sharedBarriers);
    this.hostBarrier = job != null && sharedBarriers == null && spansJvms(ep)
        ? new CommHostBarrier(ep, ch, p2p.collectiveChannel(HOST_WAKE_CTX_BASE + ctx, ep), sharedMemory, job, this::nextCall)
        : null;
  }

  /**
   * Context ids of the wake messages of communicators' host barriers: {@code HOST_WAKE_CTX_BASE +}
   * the collective context (negative: apart from every context a communicator or window takes).
   */
  private static final int HOST_WAKE_CTX_BASE = Integer.MIN_VALUE;

  /** Whether some rank of the communicator lives in another JVM (the same answer at every rank). */
  private static boolean spansJvms(Endpoint ep) {
    for (int r = 0; r < ep.size(); r++) {
      if (!ep.isLocal(r)) {
        return true;
      }
    }
    return false;
  }

  /** The barriers of a communicator spanning JVMs, or {@code null}. */
  CommHostBarrier hostBarrier() {
    return hostBarrier;
  }

  /** Whether this communicator's barriers meet in shared memory (known after its first barrier). */
  public boolean barriersInMemory() {
    return hostBarrier != null && hostBarrier.inMemory();
  }

  /**
   * Reserves the tag space of one collective call. Every rank numbers its collective calls in
   * call order, so the n-th call has the same tags everywhere and calls started back to back
   * (before the previous one completed) can never take each other's messages.
   */
  int nextCall() {
    RmaException broken = ep.groupFailure();
    if (broken != null) {
      throw broken; // revoked, or a member died: the call could wait for ever (ULFM)
    }
    return (sequence++ & 0x7FFFFF) << ROUND_BITS;
  }

  /**
   * Runs collective call {@code body} of kind {@code kind} at this rank, which checks its
   * arguments and then makes the call. If the check fails (the body throws {@link RmaException}
   * before the call took its numbers), the call still takes them here, so that this rank's next
   * collective matches the others' next one, and it fails at every rank at once: the others are
   * told ({@link Channel#abortCall}), and their part of the call fails with this rank's error
   * class and a message naming this rank and the reason, instead of waiting for their timeout.
   * A rank whose part ended before it could hear (the root of a broadcast, a rank that only
   * sends in a gather) has succeeded, as MPI lets its part complete locally. This rank's own
   * result is the error of its check.
   *
   * @param bytes this rank's block in bytes if its count and datatype are valid, for the choice
   *     of path the others make (a small block may meet in shared memory); it may throw, or give
   *     a negative number, when they are not
   */
  public <T> Future<T> checked(CollectiveKind kind, LongSupplier bytes, Supplier<Future<T>> body) {
    int before = sequence;
    try {
      return body.get();
    } catch (RmaException e) {
      if (sequence != before || ep.groupFailure() != null) {
        throw e; // the call was under way, or the communicator is broken anyway
      }
      abort(kind, blockBytes(bytes), e);
      throw e;
    }
  }

  private static long blockBytes(LongSupplier bytes) {
    try {
      return bytes == null ? -1 : bytes.getAsLong();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /** Takes the numbers of a call of {@code kind} that failed here, and fails it at every rank: {@link #checked}. */
  private void abort(CollectiveKind kind, long bytes, RmaException cause) {
    String text = String.valueOf(cause.getMessage());
    String prefix = cause.errorClass() + ": ";
    RmaException told = new RmaException(cause.errorClass(), String.format("rank %d failed this collective call before "
        + "taking part, at its own argument check: %s", rank(), text.startsWith(prefix) ? text.substring(prefix.length())
        : text), false);
    int first = 0;
    for (int i = 0; i < kind.calls; i++) {
      int tag = (sequence++ & 0x7FFFFF) << ROUND_BITS;
      first = i == 0 ? tag : first;
      ch.abortCall(tag, 1 << ROUND_BITS, told);
    }
    boolean small = bytes < 0 || bytes <= BarrierPage.MAX_BLOCK; // unknown: as the common small block
    if (kind == CollectiveKind.ALLREDUCE && sharedBarriers != null && size() > 1) {
      reductions.skipShared(); // the others' exchange in memory gets no block from this rank
    } else if ((kind == CollectiveKind.ALLREDUCE || kind == CollectiveKind.BCAST) && hostBarrier != null
        && hostBarrier.started() && small) {
      hostBarrier.onPath(h -> hostBarrier.exchange(h, null), () -> ep.context().succeededFuture());
    }
  }

  /**
   * {@code blocks} of an exchange in memory once every rank deposited one; a rank that deposited
   * none failed the call ({@link #abort}), and the result is then its failure, which it sent
   * with the tags of call {@code tag}.
   */
  Future<byte[][]> unlessAborted(byte[][] blocks, int tag) {
    for (int r = 0; r < blocks.length; r++) {
      if (blocks[r] == null) {
        int failed = r;
        return ch.recvBytes(r, tag).transform(ar -> ep.context().failedFuture(ar.failed() ? ar.cause()
            : RmaException.of(ErrorClass.INTERN, "rank %d deposited no block for this collective call", failed)));
      }
    }
    return ep.context().succeededFuture(blocks);
  }

  /**
   * The communicator was revoked or lost a member: a barrier of this rank waiting in memory for
   * the others fails (waits on messages fail through the point-to-point engine, waits in a host
   * barrier at their next look).
   */
  public void recheck() {
    RmaException broken = ep.groupFailure();
    if (broken != null && shared != null) {
      shared.fail(rank(), broken);
    }
  }

  private int rank() {
    return ep.rank();
  }

  private int size() {
    return ep.size();
  }

  /**
   * MPI_Barrier: in shared memory when every rank lives in this JVM ({@link SharedMemoryBarrier})
   * or when the ranks' JVMs share memory ({@link CommHostBarrier}),
   * else by dissemination: ceil(log2 P) rounds of one send and one receive.
   */
  public Future<Void> barrier() {
    return ep.withTimeout(barrierBoundedByCaller(), "barrier");
  }

  /**
   * {@link #barrier()} without a deadline of its own: for a caller that bounds it with its own
   * (a window's fence), so the wait has one deadline, named for the call the program made.
   */
  public Future<Void> barrierBoundedByCaller() {
    int tag = nextCall(); // taken either way: the calls' tags stay the same at every rank
    if (sharedBarriers != null && size() > 1) {
      return sharedBarrier();
    }
    if (hostBarrier != null) {
      return hostBarrier.barrier(tag, t -> barrierRound(t, 0, 1));
    }
    return barrierRound(tag, 0, 1);
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
   * shared-memory barrier, if it had one, is released once every rank is done with it, and the
   * barrier pages it mapped once its barriers so far are done.
   */
  public void close() {
    if (shared != null) {
      shared.close();
      shared = null;
    }
    if (hostBarrier != null) {
      hostBarrier.close();
    }
    reductions.close();
  }

  int[] jobRanks() {
    int[] jobRanks = new int[size()];
    for (int i = 0; i < jobRanks.length; i++) {
      jobRanks[i] = ep.jobRank(i);
    }
    return jobRanks;
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

  /**
   * MPI_Bcast of a packed block of {@code bytes} bytes at every rank (the same count at every
   * rank, as MPI requires): through the barrier pages when the communicator's JVMs share memory
   * and the block fits one, else over a binomial tree. Non-roots pass {@code null}.
   */
  public Future<byte[]> bcast(byte[] data, int root, long bytes) {
    int tag = nextCall(); // taken either way: the calls' tags stay the same at every rank
    if (hostBarrier == null || !hostBarrier.started() || bytes > BarrierPage.MAX_BLOCK) {
      return bcast(tag, ep.context().succeededFuture(data), root);
    }
    byte[] mine = rank() == root ? data : new byte[0];
    return ep.withTimeout(hostBarrier.onPath(h -> hostBarrier.exchange(h, mine)
            .compose(blocks -> unlessAborted(blocks, tag)).map(blocks -> blocks[root]),
        () -> bcast(tag, ep.context().succeededFuture(data), root)), "bcast");
  }

  /**
   * Binomial broadcast with the tag of an already reserved call; the root's data may still be
   * coming, and if it fails, every rank's broadcast fails with that failure.
   */
  Future<byte[]> bcast(int tag, Future<byte[]> rootData, int root) {
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
    return ep.withTimeout(received.transform(ar -> {
      // the block, or the failure of root's data or of the receive, goes down the tree: no child waits in vain
      RmaException failure = ar.failed() ? asRma(ar.cause()) : null;
      for (int m = top >> 1; m > 0; m >>= 1) {
        if (vr + m < p) {
          if (failure == null) {
            ch.sendBytes((vr + m + root) % p, tag, ar.result());
          } else {
            ch.sendFailure((vr + m + root) % p, tag, failure);
          }
        }
      }
      return failure == null ? ep.context().succeededFuture(ar.result()) : ep.context().failedFuture(failure);
    }), "bcast");
  }

  /** {@code t} as an RmaException: itself, or INTERN naming it. */
  static RmaException asRma(Throwable t) {
    return t instanceof RmaException e ? e : new RmaException(ErrorClass.INTERN, String.valueOf(t), t);
  }

  /**
   * MPI_Reduce of packed blocks combined with {@code op} (see {@link Reductions}): the root gets
   * the result, the others {@code null}. {@code data} is consumed.
   */
  public Future<byte[]> reduce(byte[] data, Combiner op, int root) {
    return reductions.reduce(data, op, root);
  }

  /** MPI_Allreduce of packed blocks combined with {@code op}. {@code data} is consumed. */
  public Future<byte[]> allreduce(byte[] data, Combiner op) {
    return reductions.allreduce(data, op);
  }

  /**
   * MPI_Reduce_scatter of packed blocks: the combination of every rank's {@code data}, of which
   * rank {@code i} gets the next {@code blockBytes[i]} bytes. {@code data} is consumed.
   */
  public Future<byte[]> reduceScatter(byte[] data, Combiner op, int[] blockBytes) {
    return reductions.reduceScatter(data, op, blockBytes);
  }

  /**
   * MPI_Scan ({@code exclusive == false}) or MPI_Exscan of packed blocks: this rank's result,
   * {@code null} for the exclusive scan at rank 0. {@code data} is consumed.
   */
  public Future<byte[]> scan(byte[] data, Combiner op, boolean exclusive) {
    return reductions.scan(data, op, exclusive);
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

  /**
   * Linear scatter with the tag of an already reserved call; the root's blocks may still be
   * coming, and if they fail, every rank's scatter fails with that failure.
   */
  Future<byte[]> scatter(int tag, Future<List<byte[]>> rootBlocks, int root, String what) {
    if (rank() == root) {
      return ep.withTimeout(rootBlocks.transform(ar -> {
        for (int r = 0; r < size(); r++) {
          if (r != root) {
            if (ar.succeeded()) {
              ch.sendBytes(r, tag, ar.result().get(r));
            } else {
              ch.sendFailure(r, tag, asRma(ar.cause()));
            }
          }
        }
        return ar.succeeded() ? ep.context().succeededFuture(ar.result().get(root))
            : ep.context().failedFuture(ar.cause());
      }), what);
    }
    // a rank whose part of an earlier phase failed fails at once instead of waiting for root
    return ep.withTimeout(rootBlocks.compose(ignored -> ch.recvBytes(root, tag)), what);
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
    int[] lengths = new int[parts.size()];
    for (int i = 0; i < lengths.length; i++) {
      lengths[i] = parts.get(i).length;
    }
    byte[] out = new byte[concatenatedLength(lengths)];
    int at = 0;
    for (byte[] b : parts) {
      Memory.putInt(out, Memory.ARRAY_BYTE_BASE_OFFSET + at, b.length);
      System.arraycopy(b, 0, out, at + 4, b.length);
      at += 4 + b.length;
    }
    return out;
  }

  /**
   * The length of the blocks of {@code lengths} concatenated, each after its i32 length; COUNT
   * when that is more than one block carries (the ranks' blocks then go in parts, by the caller).
   */
  static int concatenatedLength(int[] lengths) {
    long total = 0;
    for (int n : lengths) {
      total += 4L + n;
    }
    if (total > DatatypeEngine.MAX_PACKED_BYTES) {
      throw RmaException.of(ErrorClass.COUNT, "allgather: the blocks of the %d ranks are %d bytes together, more "
          + "than one block carries (%d bytes): gather fewer elements per call", lengths.length, total,
          DatatypeEngine.MAX_PACKED_BYTES);
    }
    return (int) total;
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
