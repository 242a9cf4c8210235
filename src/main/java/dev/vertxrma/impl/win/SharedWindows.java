package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.comm.CommImpl;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * MPI_Win_allocate_shared once the ranks agreed on the window's id: they agree on the layout, rank
 * 0 creates the file (named as every file of the job, {@link SharedMapping#fileName}, its space
 * reserved: a directory too small fails the call at every rank with NO_MEM), every rank maps it
 * and touches its own segment, and
 * rank 0 removes the file once all have tried. Mapping it is the proof that the ranks share memory
 * (not host names): a rank that does not share rank 0's segment directory finds no such file, and
 * every rank's call fails with RMA_SHARED. Every blocking step — creating, mapping, removing and
 * unmapping the file — runs on a worker thread; the futures complete on the rank's context.
 */
final class SharedWindows {

  private static final System.Logger LOG = System.getLogger(SharedWindows.class.getName());

  /** Delays before the second and later attempts to remove a segment file (ms); attempts = length + 1. */
  static final long[] UNLINK_RETRY_MS = {10, 100};

  /** Marks a broadcast path as rank 0's reason for not creating the file. */
  private static final byte FAILED = 0;
  private static final byte CREATED = 1;

  private SharedWindows() {
  }

  /** {@code task} on a worker thread of {@code ctx}; the future completes on {@code ctx}. */
  static <T> Future<T> blocking(ContextInternal ctx, Callable<T> task) {
    return ctx.executeBlocking(task, false);
  }

  static Future<Win> create(CommImpl wc, WindowRegistry registry, WindowFactory.Agreement agreed, long size,
      int dispUnit, Info info) {
    ContextInternal ctx = wc.process().context();
    int id = agreed.id();
    Collectives coll = new Collectives(wc.endpoint(), wc.p2p(), WinImpl.collectiveContext(id));
    // no host names: whether the ranks share memory is proven by mapping the file rank 0 creates
    // (its name random, so only a rank that shares rank 0's segment directory finds it)
    // each rank's size and layout hints (checked before the agreement: valid at every rank)
    boolean noncontig = WindowInfo.noncontig(info);
    long align = WindowInfo.alignment(info, noncontig ? SharedLayout.NONCONTIG_ALIGN : WindowInfo.DEFAULT_ALIGNMENT);
    Future<byte[]> mine = Future.succeededFuture(ByteBuffer.allocate(17).putLong(size).put((byte) (noncontig ? 1 : 0))
        .putLong(align).array());
    return coll.allgather(mine).compose(all -> {
      long[] sizes = new long[all.size()];
      boolean anyNoncontig = false;
      long maxAlign = 1;
      for (int r = 0; r < all.size(); r++) {
        ByteBuffer b = ByteBuffer.wrap(all.get(r));
        sizes[r] = b.getLong();
        anyNoncontig |= b.get() != 0;
        maxAlign = Math.max(maxAlign, b.getLong());
      }
      // the same layout at every rank: non-contiguous if any rank asks, aligned to the largest
      // alignment any rank asks for (a cache line at least when non-contiguous)
      long inUse = anyNoncontig ? Math.max(maxAlign, SharedLayout.NONCONTIG_ALIGN) : maxAlign;
      SharedLayout layout = SharedLayout.of(sizes, anyNoncontig, inUse);
      Info effective = (info == null ? Info.NULL : info).with(Info.ALLOC_SHARED_NONCONTIG, String.valueOf(anyNoncontig))
          .with(Info.MINIMUM_MEMORY_ALIGNMENT, String.valueOf(inUse));
      long total = layout.total();
      if (total > SharedMapping.MAX_LENGTH) {
        // every rank sees the same sizes: all fail here alike, none waits for the others
        throw RmaException.of(ErrorClass.NO_MEM, "cannot allocate a shared window of %d bytes at rank %d: the "
            + "segments of all ranks (%s bytes) total %s bytes, more than one shared mapping can hold (%d bytes)",
            size, wc.rank(), Arrays.toString(sizes), total == Long.MAX_VALUE ? "over 2^63" : total,
            SharedMapping.MAX_LENGTH);
      }
      Future<byte[]> created = Future.succeededFuture(null);
      if (wc.rank() == 0) {
        // named as every file of the job, so that its launcher's cleanup and any later JVM's sweep
        // find it should this JVM die before it is removed
        String name = SharedMapping.fileName(SharedMapping.SHARED_PREFIX, wc.process().job().jobName());
        created = blocking(ctx, () -> SharedMapping.createFile(name, total, "shared window of " + total + " bytes"))
            .transform(ar -> Future.succeededFuture(ar.succeeded() ? tagged(CREATED, ar.result().toString())
                : failed(ar.cause())));
      }
      return created.compose(path -> coll.bcast(path, 0))
          .compose(p -> map(registry, wc, coll, agreed, p, sizes, layout, dispUnit, effective));
    });
  }

  private static byte[] tagged(byte tag, String text) {
    byte[] t = text.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + t.length).put(tag).put(t).array();
  }

  /** Rank 0's failure to create the file: FAILED, its error class's code, its message. */
  private static byte[] failed(Throwable e) {
    ErrorClass c = e instanceof RmaException ? ((RmaException) e).errorClass() : ErrorClass.RMA_SHARED;
    String text = e instanceof RmaException ? e.getMessage() : String.valueOf(e);
    String prefix = c + ": ";
    byte[] t = (text.startsWith(prefix) ? text.substring(prefix.length()) : text).getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(5 + t.length).put(FAILED).putInt(c.code()).put(t).array();
  }

  /** The error of rank 0's {@link #failed} block, as rank {@code rank} reports it. */
  private static RmaException failure(byte[] fromRank0, int rank) {
    ErrorClass c = ErrorClass.RMA_SHARED;
    String text;
    if (fromRank0.length >= 5) {
      ErrorClass sent = ErrorClass.ofCode(ByteBuffer.wrap(fromRank0, 1, 4).getInt());
      c = sent == ErrorClass.NO_MEM ? ErrorClass.NO_MEM : ErrorClass.RMA_SHARED;
      text = new String(fromRank0, 5, fromRank0.length - 5, StandardCharsets.UTF_8);
    } else {
      text = "(no reason given)";
    }
    return new RmaException(c, rank == 0 ? text : "rank 0 could not create the shared segment: " + text);
  }

  private static Future<Win> map(WindowRegistry registry, CommImpl wc, Collectives coll,
      WindowFactory.Agreement agreed, byte[] fromRank0, long[] sizes, SharedLayout layout, int dispUnit, Info info) {
    if (fromRank0.length == 0 || fromRank0[0] != CREATED) {
      return Future.failedFuture(failure(fromRank0, wc.rank()));
    }
    String text = new String(fromRank0, 1, fromRank0.length - 1, StandardCharsets.UTF_8);
    ContextInternal ctx = wc.process().context();
    Path path = Path.of(text);
    long offset = layout.offset(wc.rank());
    long total = layout.total();
    long mySize = sizes[wc.rank()];
    // the file's space is reserved (rank 0 wrote it whole): each rank maps it and touches its own
    // segment's pages here, on a worker, so that its first stores fault no page on an event loop
    Future<SharedMapping> mapping = blocking(ctx, () -> {
      SharedMapping m = SharedMapping.map(path, total);
      try {
        m.touch(offset, mySize);
      } catch (RuntimeException e) {
        m.unmap();
        throw e;
      }
      return m;
    });
    return mapping.transform(mapped -> {
      byte[] flag = {(byte) (mapped.succeeded() ? 1 : 0)};
      // a failure from here on (a rank could not map, the exchange timed out) unmaps this rank's mapping
      java.util.function.Function<Throwable, Future<Win>> unmapThenFail = why -> (mapped.succeeded()
          ? blocking(ctx, () -> {
            mapped.result().unmap();
            return null;
          }) : Future.succeededFuture()).transform(u -> Future.failedFuture(why));
      return coll.allgather(flag).transform(exchanged -> {
        // every rank has tried to map the file by now (or the exchange failed): rank 0 removes it
        Future<Void> gone = wc.rank() == 0 ? removeFile(ctx, path) : Future.succeededFuture();
        return gone.compose(v -> {
          if (exchanged.failed()) {
            return unmapThenFail.apply(exchanged.cause());
          }
          List<byte[]> flags = exchanged.result();
          for (int r = 0; r < flags.size(); r++) {
            if (flags.get(r)[0] == 0) {
              return unmapThenFail.apply(mapped.failed() ? asRma(mapped.cause()) : RmaException.of(
                  ErrorClass.RMA_SHARED, "allocateShared: rank %d cannot map the segment %s that rank 0 created: the "
                  + "window's ranks do not all share one memory segment directory (one host); create it over a "
                  + "communicator from splitType(SHARED)", r, path));
            }
          }
          SharedMapping m = mapped.result();
          WindowMemory mem = WindowMemory.segment(m.segment(offset, mySize), mySize, m::unmap);
          return WindowFactory.register(registry, wc, agreed, mem, null, m, dispUnit, Win.Flavor.SHARED, info);
        });
      });
    });
  }

  private static RmaException asRma(Throwable e) {
    return e instanceof RmaException ? (RmaException) e
        : new RmaException(ErrorClass.RMA_SHARED, "cannot map the shared segment: " + e, e);
  }

  /**
   * Removes the segment file on a worker; an I/O error is logged (WARNING) and the removal tried
   * again after each of {@link #UNLINK_RETRY_MS}. If the last attempt fails too, the error is
   * logged (ERROR, naming the file) and the file is left to be deleted when this JVM exits. The
   * window works either way (every rank has mapped the file): the future always succeeds, once
   * the file is gone or given up on.
   */
  static Future<Void> removeFile(ContextInternal ctx, Path path) {
    Promise<Void> done = ctx.promise();
    attemptRemoval(ctx, path, 0, done);
    return done.future();
  }

  private static void attemptRemoval(ContextInternal ctx, Path path, int attempt, Promise<Void> done) {
    int attempts = UNLINK_RETRY_MS.length + 1;
    blocking(ctx, () -> {
      try {
        SharedMapping.unlink(path);
        return null;
      } catch (IOException e) {
        return e;
      }
    }).onComplete(ar -> {
      Throwable e = ar.failed() ? ar.cause() : ar.result();
      if (e == null) {
        done.complete();
      } else if (attempt + 1 < attempts) {
        LOG.log(System.Logger.Level.WARNING, "cannot remove shared segment file " + path + " (attempt " + (attempt + 1)
            + " of " + attempts + "), trying again in " + UNLINK_RETRY_MS[attempt] + " ms: " + e);
        ctx.owner().setTimer(UNLINK_RETRY_MS[attempt], t -> attemptRemoval(ctx, path, attempt + 1, done));
      } else {
        LOG.log(System.Logger.Level.ERROR, "cannot remove shared segment file " + path + " after " + attempts
            + " attempts; it stays in " + path.getParent() + " until this JVM exits (the window works: every rank "
            + "has mapped it)", e);
        path.toFile().deleteOnExit();
        done.complete();
      }
    });
  }
}
