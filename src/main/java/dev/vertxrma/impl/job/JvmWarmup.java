package dev.vertxrma.impl.job;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import net.openhft.chronicle.bytes.BytesStore;
import dev.vertxrma.impl.runtime.RankFuture;

/**
 * Runs once per JVM, on a worker thread before any rank starts, the one-time initializations that
 * would otherwise stall the first event loop to need them: Chronicle Bytes' static
 * initialization (seconds on a cold JVM, at the first window allocation) and Netty's first
 * pooled direct-buffer chunk (it registers Java Flight Recorder event types, tens of
 * milliseconds, at the first frame written to another JVM), Jackson's JSON codec (the
 * clustered start-up handshake decodes JSON) and the classes of Vert.x's future combinators
 * (loaded by the first {@code map} or {@code compose}, tens of milliseconds on a loaded machine), and
 * the copy threads that large copies share (started by the first).
 */
final class JvmWarmup {

  private static volatile boolean done;

  /** Classes every job loads early, loaded here off the event loops. */
  private static final String[] ENGINE_CLASSES = {
    "dev.vertxrma.impl.win.WinImpl", "dev.vertxrma.impl.win.TargetWindow", "dev.vertxrma.impl.win.WindowFactory",
    "dev.vertxrma.impl.win.PassiveTargetSync", "dev.vertxrma.impl.sync.PscwEpoch", "dev.vertxrma.impl.sync.CompletionTracker",
    "dev.vertxrma.impl.coll.Collectives", "dev.vertxrma.impl.p2p.PointToPoint", "dev.vertxrma.impl.ops.DatatypeEngine",
    "dev.vertxrma.impl.ops.ReductionKernel", "dev.vertxrma.impl.ops.TypeMap", "dev.vertxrma.impl.transport.FrameCodec",
    "dev.vertxrma.impl.ops.BufferArguments", "dev.vertxrma.impl.ops.TypeMapWire",
    // a rank's start (RankHost: the rank process, its communicators and point-to-point) ran 54 ms
    // on a cold JVM's event loop while they loaded
    "dev.vertxrma.impl.runtime.RankProcess", "dev.vertxrma.impl.comm.CommImpl", "dev.vertxrma.impl.comm.CommFactory",
    "dev.vertxrma.impl.comm.CommEndpoint", "dev.vertxrma.impl.comm.RankComms", "dev.vertxrma.impl.comm.PointToPointCalls",
    "dev.vertxrma.impl.comm.CollectiveMoves", "dev.vertxrma.impl.comm.GlobalReductions",
    "dev.vertxrma.impl.runtime.RankFuture", "dev.vertxrma.impl.runtime.ErrorHandling",
    "dev.vertxrma.impl.runtime.WaitDeadlines", "dev.vertxrma.impl.runtime.Handshake", "dev.vertxrma.impl.p2p.BsendBuffer",
    "dev.vertxrma.impl.p2p.Channel", "dev.vertxrma.impl.p2p.BufferedMode", "dev.vertxrma.impl.p2p.PendingProbes",
    "dev.vertxrma.impl.p2p.UnexpectedMessages",
    "dev.vertxrma.impl.win.OriginOperations", "dev.vertxrma.impl.win.OperationTransfers",
    "dev.vertxrma.impl.win.ActiveTargetSync", "dev.vertxrma.impl.win.ExposureEpochs",
    "dev.vertxrma.impl.win.RmaCall",
    "dev.vertxrma.impl.win.SynchronizationCalls", "dev.vertxrma.impl.win.RequestOperations",
    "dev.vertxrma.impl.win.WindowInfo", "dev.vertxrma.impl.win.WindowMemoryCalls",
    "dev.vertxrma.impl.sync.FenceEpoch", "dev.vertxrma.impl.sync.LockManager", "dev.vertxrma.impl.sync.PassiveEpoch",
    "dev.vertxrma.impl.transport.DataLink", "dev.vertxrma.impl.transport.DataPlane", "dev.vertxrma.impl.transport.PendingReplies",
    "dev.vertxrma.impl.transport.Frame", "dev.vertxrma.impl.memory.WindowMemory", "dev.vertxrma.impl.memory.AddressedMemory",
  };

  private static int one() {
    return 1;
  }

  private JvmWarmup() {
  }

  static Future<Void> ensure(Vertx vertx) {
    if (done) {
      return Future.succeededFuture();
    }
    return vertx.executeBlocking(() -> {
      BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(64);
      try {
        BytesStore<?, ?> view = BytesStore.wrap(store.addressForRead(0), 64);
        view.writeLong(0, 1L);
        BytesStore.wrap(new byte[8]).readLong(0);
      } finally {
        store.releaseLast();
      }
      io.netty.buffer.ByteBufAllocator.DEFAULT.directBuffer(64).release();
      // the first copy of a megabyte off the event loops (this is a worker) starts this Vert.x
      // instance's copy threads, which its first job installed (dev.vertxrma.impl.memory.ParallelCopy)
      byte[] mib = new byte[1 << 20];
      dev.vertxrma.impl.memory.Memory.copy(mib, dev.vertxrma.impl.memory.Memory.ARRAY_BYTE_BASE_OFFSET, new byte[1 << 20],
          dev.vertxrma.impl.memory.Memory.ARRAY_BYTE_BASE_OFFSET, mib.length);
      // the data plane's records and batches come from Netty's pooled allocator: its thread caches'
      // classes load at its first use (tens of ms on a loaded machine), and so do composite buffers
      io.netty.buffer.ByteBuf small = io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(64);
      io.netty.buffer.ByteBuf normal = io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(64 * 1024);
      io.netty.buffer.Unpooled.wrappedBuffer(small, normal).release();
      // the reader copies small records into heap buffers: the first one links Netty's
      // uninitialized-array allocation (54 ms once on a cold JVM's event loop)
      io.netty.buffer.Unpooled.buffer(64, 64).release();
      new io.vertx.core.json.JsonObject(new io.vertx.core.json.JsonObject().put("warm", 1).toBuffer());
      // the first string concatenation bootstraps invokedynamic's machinery (tens of ms on a cold
      // JVM); loading the engine's larger classes here keeps their class loading off the loops too
      String concat = "rank " + one() + " of " + System.nanoTime() + ": " + 0.5 + '.';
      for (String c : ENGINE_CLASSES) {
        try {
          Class.forName(c, true, JvmWarmup.class.getClassLoader());
        } catch (ClassNotFoundException e) {
          throw new IllegalStateException("warm-up: " + c + " " + concat, e);
        }
      }
      // java.util.logging loads its level names' resource bundle at the first record it formats
      // (a rejected-input warning, from an event loop): tens of ms on a cold JVM
      // error messages are String.format'ed (RmaException.of): the first one loads the locale's
      // number symbols (DecimalFormatSymbols, 51 ms once on a cold JVM's event loop)
      if (String.format("%s %d %x %.1f", concat, 1, 2, 0.5).isEmpty()) {
        throw new IllegalStateException("warm-up");
      }
      // the lambdas of the rank future's operators (RankFuture.follow once held a cold loop 55-98 ms)
      RankFuture.warmUp(vertx.getOrCreateContext());
      java.util.logging.Level.WARNING.getLocalizedName();
      java.util.logging.Level.INFO.getLocalizedName();
      dev.vertxrma.impl.transport.RejectedInput.warmUp();
      Future<Integer> one = Future.succeededFuture(1);
      Future.all(java.util.List.of(one.map(x -> x), one.compose(Future::succeededFuture), one.transform(ar -> one), one.andThen(ar -> { }),
          one.otherwise(0), one.recover(t -> one), one.eventually(() -> one), Future.join(one, one), Future.any(one, one)));
      done = true;
      return null;
    });
  }
}
