package dev.vertxrma.impl.win;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.coll.AgreedIds;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.memory.DynamicMemory;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.runtime.RankProcess;
import dev.vertxrma.impl.runtime.CommImpl;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.BytesStore;

/** Collective window creation behind {@link Win}'s static factories. */
public final class WindowFactory {

  private WindowFactory() {
  }

  /** MPI_Win_create over the caller's store. */
  public static Future<Win> create(Comm comm, BytesStore<?, ?> memory, int dispUnit, Info info) {
    // no memory (MPI_Win_create with size 0 and no base): an empty window at this rank
    return build(comm, dispUnit, info, Win.Flavor.CREATE, () -> Future.succeededFuture(memory == null
        ? WindowMemory.allocate(0) : WindowMemory.wrap(memory)));
  }

  /** Windows of at least this size are allocated and zeroed on a worker thread, not the event loop. */
  static final long ALLOCATE_OFF_LOOP_BYTES = 1 << 20;

  /** MPI_Win_allocate of {@code size} zeroed bytes. */
  public static Future<Win> allocate(Comm comm, long size, int dispUnit, Info info) {
    return build(comm, dispUnit, info, Win.Flavor.ALLOCATE, () -> {
      if (size < ALLOCATE_OFF_LOOP_BYTES) {
        return Future.succeededFuture(WindowMemory.allocate(size));
      }
      // zeroing a large window would hold up the event loop: a worker does it, the future
      // completes back on the rank's context
      return Vertx.currentContext().executeBlocking(() -> WindowMemory.allocate(size), false);
    });
  }

  /** MPI_Win_create_dynamic. */
  public static Future<Win> createDynamic(Comm comm, Info info) {
    return build(comm, 1, info, Win.Flavor.DYNAMIC, () -> Future.succeededFuture(null));
  }

  /** MPI_Get_address. */
  public static long address(BytesStore<?, ?> memory, long offset) {
    return DynamicMemory.address(memory, offset);
  }

  /**
   * Runs a window-creating body on {@code comm}'s rank context after the checks every flavor
   * shares (a vertx-rma communicator, a positive displacement unit).
   */
  private static Future<Win> collective(Comm comm, int dispUnit, java.util.function.Function<CommImpl, Future<Win>> body) {
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
      Supplier<Future<WindowMemory>> memory) {
    return collective(comm, dispUnit, wc -> {
      WindowRegistry registry = WindowRegistry.of(wc.process());
      Future<WindowMemory> local;
      try {
        local = memory.get();
      } catch (RuntimeException e) {
        local = Future.failedFuture(e);
      }
      return local.transform(ar -> {
        WindowMemory mem = ar.succeeded() ? ar.result() : null;
        long size = mem != null ? mem.size() : 0;
        return agree(wc, registry, ar.cause(), size, dispUnit).transform(agreed -> {
          if (agreed.failed()) {
            if (mem != null) {
              mem.release();
            }
            return Future.failedFuture(agreed.cause());
          }
          DynamicMemory dyn = flavor == Win.Flavor.DYNAMIC ? new DynamicMemory() : null;
          return register(registry, wc, agreed.result(), mem, dyn, null, dispUnit, flavor, info);
        });
      });
    });
  }

  /** What the ranks agreed on when creating a window: its id and every rank's size and unit. */
  record Agreement(int id, long[] sizes, int[] units) {
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
    byte[] reason = localFailure == null ? new byte[0]
        : String.valueOf(localFailure.getMessage()).getBytes(StandardCharsets.UTF_8);
    int code = localFailure == null ? -1 : localFailure instanceof RmaException
        ? ((RmaException) localFailure).errorClass().code() : ErrorClass.INTERN.code();
    // the proposal waits for this rank's earlier creations (over any communicator) to agree
    AgreedIds.Turn turn = registry.ids().turn();
    Future<byte[]> mine = turn.proposal().map(proposal -> ByteBuffer.allocate(20 + reason.length).putInt(proposal)
        .putInt(code).putLong(size).putInt(dispUnit).put(reason).array());
    return wc.collectives().allgather(mine).onFailure(e -> turn.end()).compose(all -> {
      int id = 0;
      long[] sizes = new long[all.size()];
      int[] units = new int[all.size()];
      for (int r = 0; r < all.size(); r++) {
        ByteBuffer b = ByteBuffer.wrap(all.get(r));
        int proposed = b.getInt();
        int failed = b.getInt();
        sizes[r] = b.getLong();
        units[r] = b.getInt();
        if (failed >= 0) {
          turn.end();
          if (r == wc.rank() && localFailure instanceof RmaException) {
            return Future.failedFuture(localFailure);
          }
          String why = new String(all.get(r), 20, all.get(r).length - 20, StandardCharsets.UTF_8);
          return Future.failedFuture(new RmaException(ErrorClass.ofCode(failed), "window creation failed at rank "
              + r + ": " + why, r == wc.rank() ? localFailure : null));
        }
        id = Math.max(id, proposed);
      }
      turn.claim(id);
      return Future.succeededFuture(new Agreement(id, sizes, units));
    });
  }

  private static Future<Win> register(WindowRegistry registry, CommImpl wc, Agreement agreed, WindowMemory mem,
      DynamicMemory dyn, SharedMapping mapping, int dispUnit, Win.Flavor flavor, Info info) {
    WinImpl w = new WinImpl(registry, wc, agreed.id(), mem, dyn, mapping, dispUnit, flavor,
        info == null ? Info.NULL : info);
    w.setAttributes(agreed.sizes(), agreed.units());
    registry.register(w);
    w.observer().windowCreated(agreed.id(), flavor.name(), mem == null ? 0 : mem.size());
    // no rank uses the window before every rank has registered it (an operation for an
    // unregistered window id is refused at the target)
    return wc.collectives().barrier().<Win>map(w).onFailure(e -> w.releaseNow());
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
      RankProcess rp = wc.process();
      WindowRegistry registry = WindowRegistry.of(rp);
      return agree(wc, registry, null, size, dispUnit).compose(agreed ->
          allocateShared(wc, registry, agreed, size, dispUnit, info));
    });
  }

  private static Future<Win> allocateShared(CommImpl wc, WindowRegistry registry, Agreement agreed, long size,
      int dispUnit, Info info) {
    {
      RankProcess rp = wc.process();
      int id = agreed.id();
      Collectives coll = new Collectives(wc.endpoint(), wc.p2p(), WinImpl.collectiveContext(id));
      byte[] host = hostName().getBytes(StandardCharsets.UTF_8);
      byte[] mine = ByteBuffer.allocate(8 + host.length).putLong(size).put(host).array();
      return coll.allgather(mine).compose(all -> {
        long[] sizes = new long[all.size()];
        TreeSet<String> hosts = new TreeSet<>();
        for (int r = 0; r < all.size(); r++) {
          ByteBuffer b = ByteBuffer.wrap(all.get(r));
          sizes[r] = b.getLong();
          hosts.add(new String(all.get(r), 8, all.get(r).length - 8, StandardCharsets.UTF_8));
        }
        if (hosts.size() > 1) {
          throw RmaException.of(ErrorClass.RMA_SHARED, "allocateShared needs every rank on one host; the ranks run on "
              + "%s", hosts);
        }
        long total = SharedLayout.total(sizes);
        if (total > SharedMapping.MAX_LENGTH) {
          // every rank sees the same sizes: all fail here alike, none waits for the others
          throw RmaException.of(ErrorClass.NO_MEM, "cannot allocate a shared window of %d bytes at rank %d: the "
              + "segments of all ranks (%s bytes) total %s bytes, more than one shared mapping can hold (%d bytes)",
              size, wc.rank(), Arrays.toString(sizes), total == Long.MAX_VALUE ? "over 2^63" : total,
              SharedMapping.MAX_LENGTH);
        }
        byte[] path = null;
        if (wc.rank() == 0) {
          String name = "vertx-rma-" + rp.job().jobName() + "-w" + id + "-" + UUID.randomUUID().toString().substring(0, 8);
          try {
            path = SharedMapping.createFile(name, total).toString().getBytes(StandardCharsets.UTF_8);
          } catch (RmaException e) {
            path = new byte[0];
          }
        }
        return coll.bcast(path, 0).compose(p -> mapSegment(registry, wc, coll, agreed, p, sizes, total, dispUnit,
            info));
      });
    }
  }

  private static Future<Win> mapSegment(WindowRegistry registry, CommImpl wc, Collectives coll, Agreement agreed,
      byte[] pathBytes,
      long[] sizes, long total, int dispUnit, Info info) {
    if (pathBytes.length == 0) {
      return Future.failedFuture(new RmaException(ErrorClass.RMA_SHARED, "rank 0 could not create the shared segment "
          + "in " + SharedMapping.directory()));
    }
    Path path = Path.of(new String(pathBytes, StandardCharsets.UTF_8));
    SharedMapping mapping = null;
    RmaException failure = null;
    try {
      mapping = SharedMapping.map(path, total);
    } catch (RmaException e) {
      failure = e;
    }
    byte[] ok = {(byte) (failure == null ? 1 : 0)};
    SharedMapping mapped = mapping;
    RmaException mapFailure = failure;
    return coll.allgather(ok).compose(flags -> {
      if (wc.rank() == 0) {
        SharedMapping.unlink(path);
      }
      for (int r = 0; r < flags.size(); r++) {
        if (flags.get(r)[0] == 0) {
          if (mapped != null) {
            mapped.unmap();
          }
          return Future.failedFuture(mapFailure != null ? mapFailure : RmaException.of(ErrorClass.RMA_SHARED,
              "rank %d could not map the shared segment %s", r, path));
        }
      }
      long offset = SharedLayout.offset(sizes, wc.rank());
      long size = sizes[wc.rank()];
      WindowMemory mem = WindowMemory.segment(mapped.segment(offset, size), size, mapped::unmap);
      return register(registry, wc, agreed, mem, null, mapped, dispUnit, Win.Flavor.SHARED, info);
    });
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName() + "/" + System.getProperty("rma.host", "local");
    } catch (java.io.IOException e) {
      return "unknown-host";
    }
  }
}
