package dev.vertxrma.impl.win;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.coll.AgreedIds;
import dev.vertxrma.impl.memory.DynamicMemory;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.comm.CommImpl;
import io.vertx.core.Future;
import io.vertx.core.internal.ContextInternal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import net.openhft.chronicle.bytes.BytesStore;

/** Collective window creation behind {@link Win}'s static factories. */
public final class WindowFactory {

  private WindowFactory() {
  }

  /** MPI_Win_create over the caller's store. */
  public static Future<Win> create(Comm comm, BytesStore<?, ?> memory, int dispUnit, Info info) {
    // no memory (MPI_Win_create with size 0 and no base): an empty window at this rank
    return build(comm, dispUnit, info, Win.Flavor.CREATE, wc -> Future.succeededFuture(memory == null
        ? WindowMemory.allocate(0) : WindowMemory.wrap(memory)));
  }

  /**
   * MPI_Win_allocate of {@code size} zeroed bytes: in a host segment when ranks of the
   * communicator live in other JVMs and the job shares memory between them ({@link HostSegment}),
   * else in private native memory. A segment that cannot be made (a full segment directory, one
   * another user squats) falls back to private memory and the data plane, said at WARNING once a
   * minute at most ({@link SharedMapping#reportFallback}).
   */
  public static Future<Win> allocate(Comm comm, long size, int dispUnit, Info info) {
    HostSegment[] segment = new HostSegment[1];
    long align = alignmentOrDefault(info);
    Info effective = (info == null ? Info.NULL : info).with(Info.MINIMUM_MEMORY_ALIGNMENT, String.valueOf(align));
    return build(comm, dispUnit, effective, Win.Flavor.ALLOCATE, wc -> {
      // the hints as given (effective has the alignment in use): a bad value fails this rank's
      // part, so the creation fails at every rank with its reason
      WindowInfo.checkCreationHints(info);
      // a host segment's memory starts on a page (HostSegment.CONTROL_PAGE into a mapping): aligned to any value allowed
      if (HostSegment.wanted(wc, size)) {
        int ranks = wc.size();
        String job = wc.process().job().jobName();
        int rank = wc.rank();
        return wc.process().context().executeBlocking(() -> {
          try {
            segment[0] = HostSegment.create(size, ranks, job);
            return segment[0].memory();
          } catch (RmaException e) {
            SharedMapping.reportFallback("window segment", "window of " + size + " bytes at rank " + rank + " of job " + job
                + " in private memory, reached over the data plane", e);
            return WindowMemory.allocate(size, align);
          }
        }, false);
      }
      if (size < WindowMemory.OFF_LOOP_BYTES) {
        return Future.succeededFuture(WindowMemory.allocate(size, align));
      }
      // zeroing a large window would hold up the event loop: a worker does it (in steps the JVM
      // can reach a safepoint between), the future completes back on the rank's context
      return wc.process().context().executeBlocking(() -> WindowMemory.allocate(size, align), false);
    }, segment);
  }

  /** The {@code mpi_minimum_memory_alignment} {@code info} asks for; the default for a bad value (refused by the caller). */
  private static long alignmentOrDefault(Info info) {
    try {
      return WindowInfo.alignment(info, WindowInfo.DEFAULT_ALIGNMENT);
    } catch (RmaException e) {
      return WindowInfo.DEFAULT_ALIGNMENT;
    }
  }

  /** MPI_Win_create_dynamic. */
  public static Future<Win> createDynamic(Comm comm, Info info) {
    return build(comm, 1, info, Win.Flavor.DYNAMIC, wc -> Future.succeededFuture(null));
  }

  /** MPI_Get_address. */
  public static long address(BytesStore<?, ?> memory, long offset) {
    return DynamicMemory.address(memory, offset);
  }

  /**
   * Runs a window-creating body on {@code comm}'s rank context after the checks every flavor
   * shares (a vertx-rma communicator, a positive displacement unit).
   */
  private static Future<Win> collective(Comm comm, int dispUnit, Function<CommImpl, Future<Win>> body) {
    if (!(comm instanceof CommImpl)) {
      return Future.failedFuture(new RmaException(ErrorClass.COMM, "not a vertx-rma communicator: " + comm));
    }
    CommImpl wc = (CommImpl) comm;
    return wc.call(() -> {
      if (dispUnit <= 0) {
        throw RmaException.of(ErrorClass.ARG, "displacement unit %d must be positive", dispUnit);
      }
      return body.apply(wc);
    });
  }

  private static Future<Win> build(Comm comm, int dispUnit, Info info, Win.Flavor flavor,
      Function<CommImpl, Future<WindowMemory>> memory) {
    return build(comm, dispUnit, info, flavor, memory, null);
  }

  private static Future<Win> build(Comm comm, int dispUnit, Info info, Win.Flavor flavor,
      Function<CommImpl, Future<WindowMemory>> memory, HostSegment[] segment) {
    return collective(comm, dispUnit, wc -> {
      WindowRegistry registry = WindowRegistry.of(wc.process());
      Future<WindowMemory> local;
      try {
        WindowInfo.checkCreationHints(info); // a bad value fails this rank's part: every rank fails with it
        local = memory.apply(wc);
      } catch (RuntimeException e) {
        local = Future.failedFuture(e);
      }
      // the agreement takes its place in the communicator's collective order now, whenever this
      // rank's memory is ready (a worker may make it): creations issued back to back stay matched
      Future<WindowMemory> made = local;
      Future<LocalPart> part = made.transform(ar -> {
        HostSegment own = segment == null ? null : segment[0];
        return Future.succeededFuture(new LocalPart(ar.cause(), ar.succeeded() && ar.result() != null
            ? ar.result().size() : 0, own == null ? new byte[0] : own.descriptor()));
      });
      return agree(wc, registry, part, dispUnit).transform(agreed -> {
        WindowMemory mem = made.succeeded() ? made.result() : null;
        HostSegment own = segment == null ? null : segment[0];
        if (agreed.failed()) {
          unlinkLater(wc.process().context(), own);
          return release(wc, mem).transform(v -> Future.failedFuture(agreed.cause()));
        }
        DynamicMemory dyn = flavor == Win.Flavor.DYNAMIC ? new DynamicMemory() : null;
        if (segment == null) {
          return register(registry, wc, agreed.result(), mem, dyn, null, dispUnit, flavor, info);
        }
        return registerOnHost(registry, wc, agreed.result(), mem, own, dispUnit, info);
      });
    });
  }

  /** What this rank brings to a window's creation: its local failure, or its size and host segment descriptor. */
  record LocalPart(Throwable failure, long size, byte[] segment) {
  }

  /**
   * What the ranks agreed on when creating a window: its id, every rank's size and unit, and every
   * rank's host segment descriptor (empty for none).
   */
  record Agreement(int id, long[] sizes, int[] units, byte[][] segments) {
  }

  /**
   * The collective step of every window creation (on the communicator's collective context, so
   * creations match in call order): each rank tells whether its local part succeeded, its window
   * size and unit, and the next id it could use. If any rank failed, creation fails at every rank
   * with that rank's reason; otherwise the window's id is the largest proposed one, so ids never
   * drift apart after a failed creation (they are agreed, not counted locally).
   */
  static Future<Agreement> agree(CommImpl wc, WindowRegistry registry, Throwable localFailure, long size,
      int dispUnit) {
    return agree(wc, registry, localFailure, size, dispUnit, new byte[0]);
  }

  /** {@link #agree}, telling the others this rank's host segment descriptor ({@code segment}, empty for none). */
  static Future<Agreement> agree(CommImpl wc, WindowRegistry registry, Throwable localFailure, long size,
      int dispUnit, byte[] segment) {
    return agree(wc, registry, Future.succeededFuture(new LocalPart(localFailure, size, segment)), dispUnit);
  }

  /** {@link #agree}, for a local part that may not be ready yet: the collective's place is taken now. */
  static Future<Agreement> agree(CommImpl wc, WindowRegistry registry, Future<LocalPart> part, int dispUnit) {
    // the proposal waits for this rank's earlier creations (over any communicator) to agree
    AgreedIds.Turn turn = registry.ids().turn();
    Future<byte[]> mine = part.compose(local -> turn.proposal().map(proposal -> {
      Throwable localFailure = local.failure();
      byte[] reason = localFailure == null ? new byte[0]
          : String.valueOf(localFailure.getMessage()).getBytes(StandardCharsets.UTF_8);
      int code = localFailure == null ? -1 : localFailure instanceof RmaException
          ? ((RmaException) localFailure).errorClass().code() : ErrorClass.INTERN.code();
      byte[] segment = local.segment();
      return ByteBuffer.allocate(24 + segment.length + reason.length).putInt(proposal).putInt(code)
          .putLong(local.size()).putInt(dispUnit).putInt(segment.length).put(segment).put(reason).array();
    }));
    return wc.collectives().allgather(mine).onFailure(e -> turn.end()).compose(all -> {
      int id = 0;
      long[] sizes = new long[all.size()];
      int[] units = new int[all.size()];
      byte[][] segments = new byte[all.size()][];
      for (int r = 0; r < all.size(); r++) {
        ByteBuffer b = ByteBuffer.wrap(all.get(r));
        int proposed = b.getInt();
        int failed = b.getInt();
        sizes[r] = b.getLong();
        units[r] = b.getInt();
        int segmentLength = b.getInt();
        if (segmentLength < 0 || segmentLength > b.remaining()) {
          turn.end();
          return Future.failedFuture(new RmaException(ErrorClass.INTERN, "window creation: rank " + r
              + " sent a malformed agreement"));
        }
        segments[r] = new byte[segmentLength];
        b.get(segments[r]);
        if (failed >= 0) {
          turn.end();
          Throwable localFailure = part.result().failure();
          if (r == wc.rank() && localFailure instanceof RmaException) {
            return Future.failedFuture(localFailure);
          }
          String why = new String(all.get(r), b.position(), b.remaining(), StandardCharsets.UTF_8);
          return Future.failedFuture(new RmaException(ErrorClass.ofCode(failed), "window creation failed at rank "
              + r + ": " + why, r == wc.rank() ? localFailure : null));
        }
        id = Math.max(id, proposed);
      }
      turn.claim(id);
      return Future.succeededFuture(new Agreement(id, sizes, units, segments));
    });
  }

  static Future<Win> register(WindowRegistry registry, CommImpl wc, Agreement agreed, WindowMemory mem,
      DynamicMemory dyn, SharedMapping mapping, int dispUnit, Win.Flavor flavor, Info info) {
    return register(registry, wc, agreed, mem, dyn, mapping, dispUnit, flavor, info, null, null);
  }

  /**
   * Registers an {@code allocate} window on the on-node path: maps (on a worker) the host segments
   * of the ranks of other JVMs that this JVM can open and that prove to be theirs, registers the
   * window with them, and once every rank has registered (so has mapped what it could) removes
   * this rank's segment file. Without any segment in the job, a plain registration.
   */
  private static Future<Win> registerOnHost(WindowRegistry registry, CommImpl wc, Agreement agreed, WindowMemory mem,
      HostSegment own, int dispUnit, Info info) {
    byte[][] descriptors = agreed.segments();
    boolean any = false;
    boolean[] local = new boolean[descriptors.length];
    for (int r = 0; r < descriptors.length; r++) {
      any |= descriptors[r].length > 0; // the same answer at every rank: they all take the same steps
      local[r] = wc.endpoint().isLocal(r);
    }
    ContextInternal ctx = wc.process().context();
    if (!any) {
      return register(registry, wc, agreed, mem, null, null, dispUnit, Win.Flavor.ALLOCATE, info, own, null)
          .andThen(ar -> unlinkLater(ctx, own));
    }
    // the closing allgather takes its place in the communicator's collective order now, before
    // the mapping's hop to a worker: window creations issued back to back stay matched
    io.vertx.core.Promise<byte[]> reached = io.vertx.core.Promise.promise();
    Future<java.util.List<byte[]>> everyone = wc.collectives().allgather(reached.future());
    // a JVM off the on-node path (rma.shm=false) maps no peer's segment, but takes the same
    // collective steps; it made no segment either, so the others reach its ranks over the data plane
    Future<SegmentPeers> mapped = wc.process().job().sharedMemory()
        ? ctx.executeBlocking(() -> SegmentPeers.map(descriptors, local, agreed.sizes(), agreed.units()), false)
        : ctx.succeededFuture(SegmentPeers.none(descriptors.length));
    return mapped
        .compose(peers -> {
          WinImpl w = newWindow(registry, wc, agreed, mem, null, null, dispUnit, Win.Flavor.ALLOCATE, info, own, peers);
          // no rank uses the window before every rank has registered it; the same step agrees
          // whether every rank reaches every other in memory: then its fences meet in shared memory
          reached.complete(new byte[] {(byte) (w.reachesEveryRankInMemory() ? 1 : 0)});
          return everyone.<Win>map(all -> {
            boolean inMemory = true;
            for (byte[] b : all) {
              inMemory &= b.length == 1 && b[0] == 1;
            }
            if (inMemory) {
              w.useHostBarrier();
            }
            return w;
          }).onFailure(e -> w.releaseNow());
        }, e -> {
          reached.tryFail(e);
          return Future.failedFuture(e);
        })
        .andThen(ar -> unlinkLater(ctx, own));
  }

  /** Removes {@code own}'s file on a worker, if there is one. */
  private static void unlinkLater(ContextInternal ctx, HostSegment own) {
    if (own != null) {
      ctx.executeBlocking(() -> {
        own.unlink();
        return null;
      }, false);
    }
  }

  private static Future<Win> register(WindowRegistry registry, CommImpl wc, Agreement agreed, WindowMemory mem,
      DynamicMemory dyn, SharedMapping mapping, int dispUnit, Win.Flavor flavor, Info info, HostSegment own,
      SegmentPeers peers) {
    WinImpl w = newWindow(registry, wc, agreed, mem, dyn, mapping, dispUnit, flavor, info, own, peers);
    // no rank uses the window before every rank has registered it (an operation for an
    // unregistered window id is refused at the target)
    return wc.collectives().barrier().<Win>map(w).onFailure(e -> w.releaseNow());
  }

  /** Makes and registers this rank's window (the others may not have registered theirs yet). */
  private static WinImpl newWindow(WindowRegistry registry, CommImpl wc, Agreement agreed, WindowMemory mem,
      DynamicMemory dyn, SharedMapping mapping, int dispUnit, Win.Flavor flavor, Info info, HostSegment own,
      SegmentPeers peers) {
    WinImpl w = new WinImpl(registry, wc, agreed.id(), mem, dyn, mapping, dispUnit, flavor,
        info == null ? Info.NULL : info, own, peers);
    w.setAttributes(agreed.sizes(), agreed.units());
    registry.register(w);
    w.observer().windowCreated(agreed.id(), flavor.name(), mem == null ? 0 : mem.size());
    return w;
  }

  /**
   * MPI_Win_allocate_shared: the ranks agree on one host and the layout, rank 0 creates the
   * file, every rank maps it, and the file is unlinked once all have mapped it.
   */
  public static Future<Win> allocateShared(Comm comm, long size, int dispUnit, Info info) {
    return collective(comm, dispUnit, wc -> {
      if (size < 0) {
        throw RmaException.of(ErrorClass.ARG, "window size %d is negative", size);
      }
      WindowRegistry registry = WindowRegistry.of(wc.process());
      // a hint with a bad value fails the creation at every rank, with this rank's reason
      Throwable badHint = null;
      try {
        WindowInfo.checkCreationHints(info);
      } catch (RmaException e) {
        badHint = e;
      }
      return agree(wc, registry, badHint, size, dispUnit).compose(agreed ->
          SharedWindows.create(wc, registry, agreed, size, dispUnit, info));
    });
  }

  /** Releases window memory that will not become a window: on a worker when that may take long. */
  private static Future<Void> release(CommImpl wc, WindowMemory mem) {
    if (mem == null) {
      return Future.succeededFuture();
    }
    if (!mem.releaseMayBlock()) {
      mem.release();
      return Future.succeededFuture();
    }
    return wc.process().context().executeBlocking(() -> {
      mem.release();
      return null;
    }, false);
  }
}
