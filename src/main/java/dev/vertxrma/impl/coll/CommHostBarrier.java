package dev.vertxrma.impl.coll;

import dev.vertxrma.RmaException;
import dev.vertxrma.impl.p2p.Channel;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;
import io.vertx.core.internal.ContextInternal;
import java.nio.ByteBuffer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * MPI_Barrier of a communicator whose ranks span JVMs: in shared memory ({@link HostBarrier} over
 * one {@link BarrierPage} per rank) when every rank of it can map every other's page, else by
 * messages (ARCHITECTURE decision 16).
 *
 * <p>The communicator's first barrier finds out which, and is itself a barrier by messages: two
 * all-to-all exchanges in ceil(log2 P) rounds each (Bruck's allgather, the dissemination barrier's
 * pattern with data), on tags reserved when the call is made, so that it keeps its place in the
 * communicator's collective order. The first carries each rank's page descriptor (empty when this
 * JVM has the on-node path off or cannot make a page); then each rank maps the others' pages on a
 * worker; the second carries whether it could map them all. Every rank decides from the same
 * bytes, so all take the same path from the second barrier on. No exchange is bounded by the
 * caller's timeout: a rank whose first barrier timed out is still in it when a late rank arrives,
 * and its next barrier follows it, as with the dissemination barrier. Once the second exchange is
 * done every rank has mapped every page, and each removes its file.
 */
final class CommHostBarrier {

  private static final System.Logger LOG = System.getLogger(CommHostBarrier.class.getName());
  private static final byte[] NONE = new byte[0];

  private final Endpoint ep;
  private final Channel ch;
  private final Channel wake;
  private final boolean sharedMemory;
  private final String job;
  private final IntSupplier nextCall;
  /** The barrier the communicator takes from its second barrier on: in memory, or {@code null} for messages. */
  private Future<HostBarrier> path;
  /** Calls made before the path was known, in call order; drained once it is. */
  private final java.util.ArrayDeque<Runnable> waiting = new java.util.ArrayDeque<>();
  private boolean draining;
  /** Every rank's page, by rank, once barriers meet in memory. */
  private BarrierPage[] pages;

  /**
   * @param ep this rank's view of the communicator
   * @param ch the communicator's collective channel
   * @param wake a channel of the communicator that carries nothing but host barriers' wake messages
   * @param sharedMemory whether this JVM takes the on-node path ({@code rma.shm})
   * @param job the job's name (its page files carry it)
   * @param nextCall reserves the tags of one more collective call
   */
  CommHostBarrier(Endpoint ep, Channel ch, Channel wake, boolean sharedMemory, String job, IntSupplier nextCall) {
    this.ep = ep;
    this.ch = ch;
    this.wake = wake;
    this.sharedMemory = sharedMemory;
    this.job = job;
    this.nextCall = nextCall;
  }

  /**
   * This rank's next barrier, whose call reserved {@code tag}; {@code byMessages} is the barrier
   * by messages on a reserved tag.
   */
  Future<Void> barrier(int tag, IntFunction<Future<Void>> byMessages) {
    if (path == null) {
      path = establish(tag, nextCall.getAsInt());
      Future<Void> first = path.mapEmpty();
      path.onComplete(ar -> drain()); // after the first barrier's own completion: call order
      return first;
    }
    return onPath(HostBarrier::arrive, () -> byMessages.apply(tag));
  }

  /**
   * The communicator is freed at this rank: once its barriers so far are done (the calls still
   * waiting for the path included), this rank unmaps every page it mapped, so a program that makes
   * and frees many communicators holds no mapping of a freed one (the cleaner would only release
   * them once the communicator is unreachable). A barrier that never ends keeps its pages.
   */
  void close() {
    if (path == null) {
      return;
    }
    // registered after the first barrier's drain (which runs the calls made meanwhile) and after
    // every exchange's reading of the blocks, so those run first
    path.onComplete(ar -> {
      HostBarrier host = ar.succeeded() ? ar.result() : null;
      if (host == null) {
        return;
      }
      BarrierPage[] mapped = pages;
      host.idle().onComplete(v -> {
        for (BarrierPage page : mapped) {
          page.unmap();
        }
      });
    });
  }

  /** Whether this rank has called the communicator's first barrier (which finds out the path). */
  boolean started() {
    return path != null;
  }

  /** Whether barriers meet in memory (known once the first barrier is done). */
  boolean inMemory() {
    return path != null && path.succeeded() && path.result() != null;
  }

  /**
   * Once the path is known (after {@link #started()}), in call order: {@code inMemory} with the
   * host barrier, or {@code byMessages}.
   */
  <T> Future<T> onPath(Function<HostBarrier, Future<T>> inMemory, Supplier<Future<T>> byMessages) {
    if (path.isComplete() && !draining && waiting.isEmpty()) {
      return now(inMemory, byMessages);
    }
    // calls made before the path is known take their turn in call order once it is (not in the
    // order their continuations happen to run): every rank numbers its host barriers alike
    io.vertx.core.Promise<T> p = ep.context().promise();
    waiting.add(() -> now(inMemory, byMessages).onComplete(p));
    return p.future();
  }

  private <T> Future<T> now(Function<HostBarrier, Future<T>> inMemory, Supplier<Future<T>> byMessages) {
    HostBarrier host = path.succeeded() ? path.result() : null;
    return host != null ? inMemory.apply(host) : byMessages.get();
  }

  /** Runs the calls made while the path was being found, in call order (with those they make meanwhile). */
  private void drain() {
    draining = true;
    try {
      for (Runnable call = waiting.poll(); call != null; call = waiting.poll()) {
        call.run();
      }
    } finally {
      draining = false;
    }
  }

  /**
   * A barrier of {@code host} at which each rank deposits {@code block} ({@link BarrierPage#MAX_BLOCK}
   * bytes at most) in its page: every rank's block, by rank, once all have arrived; {@code null}
   * deposits no block (this rank failed the call, {@link Collectives#checked}), and a rank that
   * deposited none has {@code null} in the result. The blocks of
   * a barrier are read before this rank's next barrier is entered, and a rank deposits in the
   * same area two barriers later only, so no block is overwritten while it may be read.
   */
  Future<byte[][]> exchange(HostBarrier host, byte[] block) {
    long n = host.number() + 1;
    BarrierPage own = pages[ep.rank()];
    return host.arrive(() -> own.deposit(n, block)).map(v -> {
      byte[][] blocks = new byte[pages.length][];
      for (int r = 0; r < blocks.length; r++) {
        if (pages[r].aborted(n)) {
          continue; // that rank failed the call: no block (Collectives#unlessAborted)
        }
        blocks[r] = pages[r].block(n);
        if (blocks[r] == null) {
          throw RmaException.of(dev.vertxrma.ErrorClass.INTERN, "rank %d's barrier page holds a malformed block", r);
        }
      }
      return blocks;
    });
  }

  private Future<HostBarrier> establish(int tag, int verdictTag) {
    ContextInternal ctx = ep.context();
    Future<BarrierPage> own = !sharedMemory ? ctx.succeededFuture()
        : ctx.executeBlocking(() -> BarrierPage.create(job), false).otherwise(e -> {
          String what = "no shared-memory barrier page at rank " + ep.rank() + " of job " + job + ": this "
              + "communicator's barriers take messages";
          if (e instanceof RmaException) {
            dev.vertxrma.impl.memory.SharedMapping.reportFallback("barrier page", what, (RmaException) e);
          } else {
            LOG.log(System.Logger.Level.WARNING, what + " (" + e + ")");
          }
          return null;
        });
    return own.compose(page -> allgather(tag, page == null ? NONE : page.descriptor())
        .compose(descriptors -> ctx.executeBlocking(() -> mapAll(page, descriptors), false))
        .compose(slots -> allgather(verdictTag, new byte[] {(byte) (slots != null ? 1 : 0)}).map(verdicts -> {
          for (byte[] v : verdicts) {
            if (v.length != 1 || v[0] != 1) {
              return (HostBarrier) null;
            }
          }
          pages = slots;
          BarrierSlot[] words = new BarrierSlot[slots.length];
          for (int r = 0; r < words.length; r++) {
            words[r] = slots[r].slot();
          }
          return new HostBarrier(words, ep.rank(), wake, n -> (int) (n & 0x3FFF_FFFF), ctx, ep::groupFailure);
        }))
        .onComplete(done -> {
          if (page != null) { // every rank has mapped it once the verdicts are in (or the job has failed)
            ctx.executeBlocking(() -> {
              page.unlink();
              return null;
            }, false);
          }
        }));
  }

  /** Every rank's page by rank (this rank's own among them), or {@code null} if one does not prove itself. */
  private BarrierPage[] mapAll(BarrierPage own, byte[][] descriptors) {
    if (own == null) {
      return null;
    }
    BarrierPage[] slots = new BarrierPage[descriptors.length];
    for (int r = 0; r < slots.length; r++) {
      slots[r] = r == ep.rank() ? own : BarrierPage.map(descriptors[r]);
      if (slots[r] == null) {
        return null; // the pages mapped so far are released by their cleaner
      }
    }
    return slots;
  }

  /**
   * Every rank's block, by rank: Bruck's allgather, in round k each rank sends what it has to the
   * rank 2^k after it and takes what the rank 2^k before it has. Not bounded by a timeout.
   */
  private Future<byte[][]> allgather(int tag, byte[] block) {
    byte[][] known = new byte[ep.size()][];
    known[ep.rank()] = block;
    return round(tag, 0, 1, known);
  }

  private Future<byte[][]> round(int tag, int round, int dist, byte[][] known) {
    int p = ep.size();
    if (dist >= p) {
      return ep.context().succeededFuture(known);
    }
    ch.sendBytes((ep.rank() + dist) % p, tag + round, encode(known));
    return ch.recvBytesUntilMatched((ep.rank() - dist + p) % p, tag + round).compose(bytes -> {
      decode(bytes, known);
      return round(tag, round + 1, dist << 1, known);
    });
  }

  private static byte[] encode(byte[][] known) {
    int n = 4;
    for (byte[] b : known) {
      n += b == null ? 0 : 8 + b.length;
    }
    ByteBuffer out = ByteBuffer.allocate(n);
    out.putInt(known.length);
    for (int r = 0; r < known.length; r++) {
      if (known[r] != null) {
        out.putInt(r).putInt(known[r].length).put(known[r]);
      }
    }
    return out.array();
  }

  /** Adds a peer's blocks to {@code known}; a frame of the wrong shape is refused (untrusted input). */
  private static void decode(byte[] bytes, byte[][] known) {
    try {
      ByteBuffer in = ByteBuffer.wrap(bytes);
      if (in.getInt() != known.length) {
        throw new IllegalArgumentException("another communicator size");
      }
      while (in.hasRemaining()) {
        int r = in.getInt();
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
          throw new IllegalArgumentException("a block of " + length + " bytes");
        }
        byte[] b = new byte[length];
        in.get(b);
        if (known[r] == null) {
          known[r] = b;
        }
      }
    } catch (RuntimeException e) {
      throw RmaException.of(dev.vertxrma.ErrorClass.INTERN, "malformed barrier setup block (%d bytes): %s",
          bytes.length, e);
    }
  }
}
