package dev.vertxrma.impl.win;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.memory.DynamicMemory;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.runtime.RankProcess;
import dev.vertxrma.impl.runtime.WorldComm;
import io.vertx.core.Future;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
    return build(comm, dispUnit, info, Win.Flavor.CREATE, () -> WindowMemory.wrap(memory));
  }

  /** MPI_Win_allocate of {@code size} zeroed bytes. */
  public static Future<Win> allocate(Comm comm, long size, int dispUnit, Info info) {
    return build(comm, dispUnit, info, Win.Flavor.ALLOCATE, () -> WindowMemory.allocate(size));
  }

  /** MPI_Win_create_dynamic. */
  public static Future<Win> createDynamic(Comm comm, Info info) {
    return build(comm, 1, info, Win.Flavor.DYNAMIC, () -> null);
  }

  /** MPI_Get_address. */
  public static long address(BytesStore<?, ?> memory, long offset) {
    return DynamicMemory.address(memory, offset);
  }

  /**
   * Runs a window-creating body on {@code comm}'s rank context after the checks every flavor
   * shares (a vertx-rma communicator, a positive displacement unit).
   */
  private static Future<Win> collective(Comm comm, int dispUnit, java.util.function.Function<WorldComm, Future<Win>> body) {
    if (!(comm instanceof WorldComm)) {
      return Future.failedFuture(new RmaException(ErrorClass.COMM, "not a vertx-rma communicator: " + comm));
    }
    WorldComm wc = (WorldComm) comm;
    return wc.call(() -> {
      if (dispUnit <= 0) {
        throw RmaException.of(ErrorClass.ARG, "displacement unit %d must be positive", dispUnit);
      }
      return body.apply(wc);
    });
  }

  private static Future<Win> build(Comm comm, int dispUnit, Info info, Win.Flavor flavor,
      Supplier<WindowMemory> memory) {
    return collective(comm, dispUnit, wc -> {
      WindowRegistry registry = WindowRegistry.of(wc.process());
      WindowMemory mem = memory.get();
      DynamicMemory dyn = flavor == Win.Flavor.DYNAMIC ? new DynamicMemory() : null;
      return register(registry, wc, registry.nextId(), mem, dyn, null, dispUnit, flavor, info);
    });
  }

  private static Future<Win> register(WindowRegistry registry, WorldComm wc, int id, WindowMemory mem,
      DynamicMemory dyn, SharedMapping mapping, int dispUnit, Win.Flavor flavor, Info info) {
    WinImpl w = new WinImpl(registry, wc, id, mem, dyn, mapping, dispUnit, flavor, info == null ? Info.NULL : info);
    registry.register(w);
    return w.exchangeAttributes().<Win>map(w).onFailure(e -> w.releaseNow());
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
      int id = registry.nextId();
      Collectives coll = new Collectives(rp, wc.p2p(), WinImpl.collectiveContext(id));
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
        byte[] path = null;
        if (rp.rank() == 0) {
          String name = "vertx-rma-" + rp.job().jobName() + "-w" + id + "-" + UUID.randomUUID().toString().substring(0, 8);
          try {
            path = SharedMapping.createFile(name, total).toString().getBytes(StandardCharsets.UTF_8);
          } catch (RmaException e) {
            path = new byte[0];
          }
        }
        return coll.bcast(path, 0).compose(p -> mapSegment(registry, wc, coll, id, p, sizes, total, dispUnit, info));
      });
    });
  }

  private static Future<Win> mapSegment(WindowRegistry registry, WorldComm wc, Collectives coll, int id, byte[] pathBytes,
      long[] sizes, long total, int dispUnit, Info info) {
    RankProcess rp = wc.process();
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
      if (rp.rank() == 0) {
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
      long offset = SharedLayout.offset(sizes, rp.rank());
      long size = sizes[rp.rank()];
      WindowMemory mem = WindowMemory.segment(mapped.segment(offset, size), size, mapped::unmap);
      return register(registry, wc, id, mem, null, mapped, dispUnit, Win.Flavor.SHARED, info);
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
