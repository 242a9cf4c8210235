package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.impl.runtime.JobRuntime;
import dev.vertxrma.impl.transport.DataPlane;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * A stranger on the network floods a running job's data-plane port with connections that never
 * prove the job's secret: {@value #FLOOD} of them from {@value #SOURCES} addresses (127.0.0.x),
 * half of the sources resetting their connections at the end. The data plane holds at most its
 * bounds of unproven connections open (in all and per address; the rest are closed at once,
 * unchallenged), the job keeps working with exact results while the bounds are full, every
 * connection's failure is counted once in the rejected-input log, which stays a few lines long,
 * nothing is logged as an error, and closed connections keep no proof timer: once a burst closed
 * right after its challenges has its slots back, none of its proof timers is left.
 */
class StrangerFloodTest {

  static final int SOURCES = 20;
  static final int PER_SOURCE = 100;
  static final int FLOOD = SOURCES * PER_SOURCE;
  static final int WAVES = 10;
  static final int WINDOW_LONGS = 16;
  static final int ACCUMULATES = 100;

  /** One connection of the stranger's, as the stranger sees it. */
  static final class Conn {
    final int source;
    final NetSocket socket;
    final AtomicBoolean challenged = new AtomicBoolean();
    final AtomicBoolean closed = new AtomicBoolean();

    Conn(int source, NetSocket socket) {
      this.source = source;
      this.socket = socket;
      socket.handler(b -> challenged.set(true));
      socket.exceptionHandler(e -> { });
      socket.closeHandler(v -> closed.set(true));
    }

    boolean settled() {
      return challenged.get() || closed.get();
    }
  }

  @Test
  void aFloodOfUnprovenConnectionsStaysWithinBoundsKeepsNoTimersAndLogsAFewLines() throws Exception {
    Vertx[] nodes = Jobs.clusterNodes();
    JobOptions options = Jobs.options(2);
    CompletableFuture<Void> windowReady = new CompletableFuture<>();
    CompletableFuture<Void> floodHeld = new CompletableFuture<>();
    CompletableFuture<long[]> worked = new CompletableFuture<>();
    CompletableFuture<Void> attackOver = new CompletableFuture<>();
    byte[][] pattern = new byte[1][];
    Future<Void> run = Jobs.start(Jobs.Mode.CLUSTERED, options, (world, args) ->
        Win.allocate(world, WINDOW_LONGS * 8L, 8, Info.NULL).compose(win -> {
          if (world.rank() == 1) {
            for (int i = 0; i < WINDOW_LONGS; i++) {
              win.memory().writeLong(i * 8L, 1000 + i);
            }
            pattern[0] = bytes(win);
          }
          return world.barrier()
              .compose(v -> {
                windowReady.complete(null);
                return Future.fromCompletionStage(floodHeld, world.vertx().getOrCreateContext());
              })
              .compose(v -> world.rank() == 0 ? work(win).map(got -> {
                worked.complete(got);
                return null;
              }) : Future.<Void>succeededFuture())
              .compose(v -> Future.fromCompletionStage(attackOver, world.vertx().getOrCreateContext()))
              .compose(v -> world.barrier())
              .compose(v -> {
                if (world.rank() == 1) {
                  byte[] expected = pattern[0].clone();
                  putLong(expected, 3, 42);
                  putLong(expected, 5, 1005 + ACCUMULATES);
                  assertArrayEquals(expected, bytes(win), "only the job's own operations changed the window");
                }
                return win.free();
              });
        }));
    HostileInputTest.LogCapture capture = new HostileInputTest.LogCapture();
    List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    Handler warned = new Handler() {
      @Override
      public void publish(LogRecord r) {
        String name = r.getLoggerName() == null ? "" : r.getLoggerName();
        if (r.getLevel().intValue() >= Level.WARNING.intValue()
            && (name.startsWith("dev.vertxrma") || name.startsWith("io.vertx") || name.startsWith("io.netty"))) {
          warnings.add(r);
        }
      }

      @Override
      public void flush() {
      }

      @Override
      public void close() {
      }
    };
    Logger root = Logger.getLogger("");
    root.addHandler(capture);
    root.addHandler(warned);
    Vertx stranger = Vertx.vertx(); // someone else's process: not watched by the blocked-thread guard
    try {
      windowReady.get(120, TimeUnit.SECONDS);
      JobRuntime target = JobRuntime.find(nodes[1], options.getJobName());
      DataPlane plane = target.dataPlane();
      long rejectedBefore = target.rejectedInput().total();
      String address = Jobs.await(target.dataPlaneAddress(), 30);
      String host = address.substring(0, address.lastIndexOf(':'));
      int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));

      // 1. the flood, held open: all connections are made before any proof timer could fire
      // (in waves of a few hundred, so that the stranger, who shares this JVM's two cores, does not
      // starve the job's event loops into the blocked-thread checker)
      List<NetClient> clients = clients(stranger, SOURCES, 2);
      List<Conn> flood = new ArrayList<>();
      for (int w = 0; w < WAVES; w++) {
        List<Conn> wave = connect(stranger, clients, host, port, PER_SOURCE / WAVES);
        try {
          Jobs.eventually(() -> wave.stream().allMatch(Conn::settled), 60, "every connection of the flood challenged "
              + "or closed");
        } catch (AssertionError e) {
          throw new AssertionError(wave.stream().filter(c -> !c.settled()).count() + " connections of wave " + w
              + " neither challenged nor closed; " + plane.unprovenConnections() + " unproven open at the data plane", e);
        }
        flood.addAll(wave);
      }
      int[] heldPerSource = new int[SOURCES];
      int held = 0;
      int refused = 0;
      for (Conn c : flood) {
        if (c.challenged.get() && !c.closed.get()) {
          heldPerSource[c.source]++;
          held++;
        } else if (!c.challenged.get()) {
          refused++;
        }
      }
      assertTrue(held <= plane.maxUnproven(), held + " unproven connections held open, over " + plane.maxUnproven());
      for (int n : heldPerSource) {
        assertTrue(n <= plane.maxUnprovenPerSource(), n + " unproven connections from one address held open");
      }
      assertTrue(refused >= FLOOD - SOURCES * plane.maxUnprovenPerSource(), refused + " connections refused");
      assertEquals(plane.maxUnproven(), plane.unprovenHighWater(), "the data plane filled its bound and never passed it");
      assertTrue(plane.unprovenPerSourceHighWater() <= plane.maxUnprovenPerSource(),
          plane.unprovenPerSourceHighWater() + " unproven connections from one address at a time");

      // 2. the job works while the bounds are full
      floodHeld.complete(null);
      long[] got = worked.get(60, TimeUnit.SECONDS);
      assertEquals(42L, got[0]);
      assertEquals(1005L + ACCUMULATES, got[1]);

      // 3. the stranger lets go (resets from every other address): no slot and no timer stays
      closeAll(flood);
      Jobs.eventually(() -> plane.unprovenConnections() == 0 && plane.proofTimers() == 0, 30,
          "the flood's slots and proof timers all gone");
      assertEquals(FLOOD, target.rejectedInput().total() - rejectedBefore,
          "each connection of the flood counted once in the rejected-input log");

      // 4. a burst closed right after its challenges keeps no proof timer for the rest of its 5 s
      // (from two addresses: one closes with resets, the other with a plain close, which no I/O error announces)
      int burstSize = 2 * (plane.maxUnprovenPerSource() / 2);
      List<Conn> burst = connect(stranger, clients(stranger, 2, 100), host, port, burstSize / 2);
      Jobs.eventually(() -> burst.stream().allMatch(c -> c.challenged.get()), 30, "the burst challenged");
      assertEquals(burstSize, plane.proofTimers(), "one proof timer per unproven connection");
      assertEquals(burstSize, plane.unprovenConnections());
      closeAll(burst);
      // a closed connection cancels its proof timer before it gives its slot back (Proof.closed):
      // once every slot is back, none of their timers may be left, whatever the load. (This was
      // "all gone within 3 s of opening the burst", a wall-clock stand-in for "cancelled, not
      // fired 5 s later" that the connecting and closing on 2 loaded cores could outlast.)
      Jobs.eventually(() -> plane.unprovenConnections() == 0, 30, "the burst's slots given back");
      assertEquals(0, plane.proofTimers(), "proof timers of closed connections left after their slots were given back");

      attackOver.complete(null);
      Jobs.await(run, 120);
      assertTrue(capture.errors.isEmpty(), "nothing may be logged as an error:\n" + capture.describe());
      assertTrue(capture.rejections.size() <= 4, "refused connections must be summarised, not logged one by one: "
          + capture.rejections.size() + " lines");
      assertTrue(warnings.size() <= 4, "the flood must cost a few warning lines in all, not one per connection: "
          + warnings.size() + ", the first: " + (warnings.isEmpty() ? "" : warnings.get(0).getMessage()));
    } finally {
      attackOver.complete(null);
      floodHeld.complete(null);
      root.removeHandler(capture);
      root.removeHandler(warned);
      Jobs.await(stranger.close(), 30);
    }
  }

  /** Rank 0: a hundred accumulates, a put and gets under an exclusive lock; returns what it read. */
  private static Future<long[]> work(Win win) {
    long[] one = {1};
    long[] got = new long[2];
    win.lock(LockType.EXCLUSIVE, 1);
    for (int i = 0; i < ACCUMULATES; i++) {
      win.accumulate(Buf.of(one), 0, 1, Datatype.LONG, 1, 5, Op.SUM);
    }
    win.put(Buf.of(new long[] {42}), 0, 1, Datatype.LONG, 1, 3);
    win.get(Buf.of(got), 0, 1, Datatype.LONG, 1, 3);
    win.get(Buf.of(got), 1, 1, Datatype.LONG, 1, 5);
    return win.unlock(1).map(v -> got);
  }

  /** One client per source address 127.0.0.{@code first}...; even ones close their connections with a reset. */
  private static List<NetClient> clients(Vertx stranger, int sources, int first) {
    List<NetClient> clients = new ArrayList<>();
    for (int s = 0; s < sources; s++) {
      NetClientOptions o = new NetClientOptions().setLocalAddress("127.0.0." + (first + s)).setConnectTimeout(30_000);
      if (s % 2 == 0) {
        o.setSoLinger(0); // close with a reset
      }
      clients.add(stranger.createNetClient(o));
    }
    return clients;
  }

  /**
   * Opens {@code perSource} connections from each client at once; returns them once all are made.
   * They are made from one of the stranger's event loops, which also runs their handlers: a
   * handler is then in place before the socket's first event (a close that came before the
   * handler would be missed).
   */
  private static List<Conn> connect(Vertx stranger, List<NetClient> clients, String host, int port, int perSource) {
    Promise<List<Conn>> all = Promise.promise();
    stranger.getOrCreateContext().runOnContext(v -> {
      List<Future<Conn>> made = new ArrayList<>();
      for (int s = 0; s < clients.size(); s++) {
        int source = s;
        for (int i = 0; i < perSource; i++) {
          made.add(clients.get(s).connect(port, host).map(socket -> new Conn(source, socket)));
        }
      }
      Future.join(made).onComplete(ar -> {
        List<Conn> conns = new ArrayList<>();
        for (Future<Conn> f : made) {
          if (f.failed()) {
            all.fail(new AssertionError("a connection of the flood could not be made", f.cause()));
            return;
          }
          conns.add(f.result());
        }
        all.complete(conns);
      });
    });
    return Jobs.await(all.future(), 120);
  }

  private static void closeAll(List<Conn> conns) {
    List<Future<Void>> closed = new ArrayList<>();
    for (Conn c : conns) {
      closed.add(c.socket.close());
    }
    Jobs.await(Future.join(closed), 30);
  }

  private static void putLong(byte[] b, int index, long value) {
    for (int i = 0; i < 8; i++) {
      b[index * 8 + i] = (byte) (value >>> (8 * i));
    }
  }

  private static byte[] bytes(Win win) {
    byte[] b = new byte[WINDOW_LONGS * 8];
    for (int i = 0; i < b.length; i++) {
      b[i] = win.memory().readByte(i);
    }
    return b;
  }
}
