package dev.vertxrma.impl.coll;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.ops.Combiner;
import dev.vertxrma.impl.p2p.Channel;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;
import java.util.function.LongFunction;

/**
 * Barrier, broadcast and allreduce of a communicator whose ranks live in several JVMs, one of
 * which at least holds several of them: the ranks of each JVM meet in shared memory (one
 * {@link SharedMemoryBarrier} exchange per JVM), and only one rank per JVM exchanges messages
 * with the other JVMs, in log2 rounds over the JVMs:
 *
 * <ul>
 *   <li>barrier: the JVM's ranks meet, its leader (lowest rank) runs a dissemination barrier
 *       with the other leaders, then releases them;
 *   <li>allreduce: the leader combines its JVM's blocks in rank order, runs
 *       {@link DoublingAllreduce} with the other leaders (JVMs in the order of their lowest ranks)
 *       and hands the result to its JVM's ranks; for a non-commutative op this is MPI's order only
 *       when each JVM's ranks are consecutive ({@link JvmGroups#contiguous}), which the caller
 *       checks;
 *   <li>broadcast: the root, and the leader of every other JVM, form a binomial tree rooted at the
 *       root; each hands the block to its JVM's ranks.
 * </ul>
 *
 * <p>A failure met by the rank that crosses (a failed receive, a block of the wrong length, the
 * op's function throwing, the root's data failing) is what its JVM's ranks get instead of the
 * result, and what it sends to the other JVMs that wait for it, so no rank waits for its timeout.
 *
 * <p>Each call reserves its numbers of the JVM's shared-memory exchange when it is made, and its
 * in-memory part starts once this rank's previous one is done (calls made back to back meet in
 * call order); its messages carry the call's tag.
 */
final class Hierarchical {

  private static final byte[] EMPTY = new byte[0];

  private final Endpoint ep;
  private final Channel ch;
  private final Collectives coll;
  private final JvmGroups g;
  private final SharedMemoryBarrier memory;
  private long number;
  private Future<?> last;

  Hierarchical(Endpoint ep, Channel ch, Collectives coll, JvmGroups groups, SharedMemoryBarrier memory) {
    this.ep = ep;
    this.ch = ch;
    this.coll = coll;
    this.g = groups;
    this.memory = memory;
  }

  /** Releases the JVM's shared-memory exchange (the last of its ranks to do so unregisters it). */
  void close() {
    memory.close();
  }

  /**
   * Runs {@code step} with the first of {@code count} exchange numbers reserved now, once this
   * rank's previous step is done (failed or not).
   */
  private <T> Future<T> inTurn(int count, LongFunction<Future<T>> step) {
    long first = number + 1;
    number += count;
    Future<?> previous = last;
    Future<T> f = previous == null || previous.isComplete() ? step.apply(first)
        : previous.transform(ar -> step.apply(first));
    last = f;
    return f;
  }

  private Future<Object[]> meet(long n, Object item) {
    return memory.meet(g.party, n, item, ep.context());
  }

  /** What a rank of this JVM was handed: a block, or the failure met by the one that crossed. */
  private <T> Future<T> outcome(Object item, Class<T> type) {
    if (item instanceof RmaException e) {
      return ep.context().failedFuture(e);
    }
    return ep.context().succeededFuture(type.cast(item));
  }

  private static Object itemOf(io.vertx.core.AsyncResult<?> ar) {
    return ar.failed() ? Collectives.asRma(ar.cause()) : ar.result();
  }

  // ------------------------------------------------------------------ barrier

  /** MPI_Barrier: meet in memory, leaders disseminate, leaders release their JVM's ranks. */
  Future<Void> barrier(int tag) {
    return inTurn(2, n -> meet(n, null).compose(arrived -> {
      Future<Void> crossed = g.leads() ? disseminate(tag, 0, 1) : ep.context().succeededFuture();
      return crossed.transform(ar -> meet(n + 1, ar.failed() ? Collectives.asRma(ar.cause()) : null));
    }).compose(released -> outcome(released[0], Void.class)));
  }

  private Future<Void> disseminate(int tag, int round, int dist) {
    int l = g.leaders.length;
    if (dist >= l) {
      return ep.context().succeededFuture();
    }
    int i = g.myJvm();
    ch.sendBytes(g.leaders[(i + dist) % l], tag + round, EMPTY);
    return ch.recvBytes(g.leaders[(i - dist + l) % l], tag + round).compose(v -> disseminate(tag, round + 1, dist << 1));
  }

  // ------------------------------------------------------------------ broadcast

  /**
   * MPI_Bcast: the root and the other JVMs' leaders broadcast over a binomial tree, then each
   * hands the block (the same array: receivers only read it) to its JVM's ranks.
   */
  Future<byte[]> bcast(int tag, Future<byte[]> rootData, int root) {
    int rootJvm = g.jvm[root];
    int[] crossing = g.leaders.clone();
    crossing[rootJvm] = root;
    int mine = crossing[g.myJvm()];
    int from = g.partyOf(mine);
    return inTurn(1, n -> {
      Future<byte[]> got = mine == ep.rank() ? coll.binomialBcast(tag, rootData, crossing, g.myJvm(), rootJvm)
          : ep.context().succeededFuture();
      return got.transform(ar -> meet(n, itemOf(ar))).compose(items -> outcome(items[from], byte[].class));
    });
  }

  // ------------------------------------------------------------------ allreduce

  /**
   * MPI_Allreduce: the leader combines its JVM's blocks in rank order, then the leaders' results
   * by recursive doubling; each other rank gets its own copy of the result.
   */
  Future<byte[]> allreduce(int tag, byte[] data, Combiner op) {
    return inTurn(2, n -> {
      Future<Object[]> deposited = meet(n, data);
      if (!g.leads()) {
        return deposited.compose(v -> meet(n + 1, null))
            .compose(items -> outcome(items[0], byte[].class)).map(byte[]::clone);
      }
      Future<byte[]> here = deposited.map(blocks -> combineHere(blocks, op));
      Future<byte[]> all = DoublingAllreduce.run(ep, ch, tag, g.leaders, g.myJvm(), here, op);
      return all.transform(ar -> meet(n + 1, itemOf(ar)).transform(released -> all));
    });
  }

  /** This JVM's blocks combined in rank order (the leader's own first: it may be written). */
  private byte[] combineHere(Object[] blocks, Combiner op) {
    byte[] acc = (byte[]) blocks[0];
    for (int i = 1; i < blocks.length; i++) {
      byte[] in = (byte[]) blocks[i];
      if (in.length != acc.length) {
        throw RmaException.of(ErrorClass.TRUNCATE, "allreduce: rank %d contributed %d bytes, rank %d %d bytes; "
            + "count and datatype must describe the same data at every rank", g.local[i], in.length, ep.rank(),
            acc.length);
      }
      acc = op.intoLower(acc, in);
    }
    return acc;
  }
}
