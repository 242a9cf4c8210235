package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.LockType;
import dev.vertxrma.Win;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.runtime.JobRuntime;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameCodec;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.RejectedInput;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hostile input where the data plane hands records to the job ({@link JobRuntime#receive}): 100,000
 * records that are too short, random bytes, damaged frame encodings, frames for ranks that are not
 * there or from ranks the sending JVM does not host, and well-formed frames that break the rules
 * (unknown window or datatype, out-of-range displacement or count, unknown operation or
 * synchronization mode, operations without a lock or an epoch, replies nobody asked for). Each is
 * rejected once, no exception escapes, the target window keeps every byte, the log stays a few
 * lines long (rejected input is counted, not logged record by record), and the rank keeps working.
 *
 * <p>This is what a proven peer JVM with a bug, or a corrupted stream, could send. A stranger
 * without the job's secret gets no further than the proof ({@code StrangerTest}).
 */
class HostileInputTest {

  static final int MESSAGES = 100_000;
  static final int WINDOW_LONGS = 64;
  static final int MARKER_TAG = 999_999;
  /** Messages sent before the sender waits for them to be rejected. */
  static final int BURST = 200;

  /** Collects log records: errors from anywhere, and the rejected-input lines. */
  static final class LogCapture extends Handler {
    final List<LogRecord> errors = new ArrayList<>();
    final List<LogRecord> rejections = new ArrayList<>();

    @Override
    public synchronized void publish(LogRecord r) {
      if (r.getLevel().intValue() >= Level.SEVERE.intValue()) {
        errors.add(r);
      }
      if (RejectedInput.class.getName().equals(r.getLoggerName())) {
        rejections.add(r);
      }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }

    synchronized String describe() {
      StringBuilder sb = new StringBuilder();
      for (LogRecord r : errors) {
        sb.append(r.getLevel()).append(' ').append(r.getLoggerName()).append(": ").append(r.getMessage())
            .append(r.getThrown() == null ? "" : " " + r.getThrown()).append('\n');
      }
      return sb.toString();
    }
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aHundredThousandHostileMessagesChangeNothingAndTheRankKeepsWorking(Jobs.Mode mode) throws Exception {
    JobOptions options = Jobs.options(2);
    CompletableFuture<Void> windowReady = new CompletableFuture<>();
    byte[][] before = new byte[1][];
    byte[][] afterFuzz = new byte[1][];
    long[] got = new long[1];
    long[] rejected = new long[1];
    Vertx target = mode == Jobs.Mode.CLUSTERED ? Jobs.clusterNodes()[1] : Jobs.embedded();
    Future<Void> job = Jobs.start(mode, options, (world, args) -> Win.allocate(world, WINDOW_LONGS * 8L, 8, Info.NULL)
        .compose(win -> {
          if (world.rank() == 1) {
            for (int i = 0; i < WINDOW_LONGS; i++) {
              win.memory().writeLong(i * 8L, 0x0101010101010101L * (i + 1));
            }
            before[0] = bytes(win);
          }
          return world.barrier().compose(v -> {
            if (world.rank() != 1) {
              return Future.succeededFuture();
            }
            windowReady.complete(null);
            // the stranger's last message, after all the junk: a point-to-point message "from rank 0"
            return world.recv(Buf.of(new byte[4]), 0, 4, Datatype.BYTE, 0, MARKER_TAG).map(s -> {
              afterFuzz[0] = bytes(win);
              JobRuntime here = JobRuntime.find(target, options.getJobName());
              rejected[0] = here.rejectedInput().total() + here.localRank(1).rejectedInput().total()
                  + JobRuntime.find(mode == Jobs.Mode.CLUSTERED ? Jobs.clusterNodes()[0] : target, options.getJobName())
                  .localRank(0).rejectedInput().total();
              return null;
            });
          }).compose(v -> world.barrier())
              // the rank still works: a pipelined lock / put / unlock and a get back
              .compose(v -> world.rank() == 0 ? putAndGet(win, got) : Future.succeededFuture())
              .compose(v -> world.barrier())
              .compose(v -> {
                if (world.rank() == 1) {
                  byte[] expected = before[0].clone();
                  for (int b = 0; b < 8; b++) {
                    expected[5 * 8 + b] = (byte) (42L >>> (8 * b));
                  }
                  assertArrayEquals(expected, bytes(win), "only the put after the junk changed the window");
                }
                return win.free();
              });
        }));
    LogCapture capture = new LogCapture();
    Logger root = Logger.getLogger("");
    root.addHandler(capture);
    try {
      windowReady.get(120, TimeUnit.SECONDS);
      Vertx rank0Node = mode == Jobs.Mode.CLUSTERED ? Jobs.clusterNodes()[0] : Jobs.embedded();
      JobRuntime here = JobRuntime.find(target, options.getJobName());
      RejectedInput atJvm = here.rejectedInput();
      RejectedInput atRank0 = JobRuntime.find(rank0Node, options.getJobName()).localRank(0).rejectedInput();
      RejectedInput atRank1 = here.localRank(1).rejectedInput();
      long beforeJvm = atJvm.total();
      long before0 = atRank0.total();
      long before1 = atRank1.total();
      long sendingFrom = System.nanoTime();
      // every record is rejected exactly once: by rank 1's JVM, by rank 1, or (an error reply it
      // asked for) by rank 0
      sendJunk(here, here.nodeOf(0), new Random(20261125L),
          () -> atJvm.total() - beforeJvm + atRank0.total() - before0 + atRank1.total() - before1);
      Jobs.await(job, 120);
      assertArrayEquals(before[0], afterFuzz[0], "no window byte may change under hostile input");
      assertEquals(42L, got[0]);
      assertTrue(capture.errors.isEmpty(), "nothing may escape or be logged as an error:\n" + capture.describe());
      // each of the three that reject (rank 1's JVM, rank 1, rank 0) logs its first rejection and
      // then one summary per interval at most: a count that grows with the time the burst took on
      // a loaded machine (3 intervals of 10 s took 5 lines once), never with the 100,000 messages
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sendingFrom);
      long allowed = 3 * (2 + tookMs / RejectedInput.DEFAULT_INTERVAL_MS);
      assertTrue(capture.rejections.size() <= allowed, "rejected input must be summarised, not logged per message: "
          + capture.rejections.size() + " lines in " + tookMs + " ms (at most " + allowed + ")");
      assertEquals(MESSAGES, rejected[0], "every hostile message is rejected, once");
    } finally {
      root.removeHandler(capture);
    }
  }

  private static Future<Void> putAndGet(Win win, long[] got) {
    long[] v = {42};
    win.lock(LockType.EXCLUSIVE, 1);
    win.put(Buf.of(v), 0, 1, Datatype.LONG, 1, 5);
    win.get(Buf.of(got), 0, 1, Datatype.LONG, 1, 5);
    return win.unlock(1);
  }

  private static byte[] bytes(Win win) {
    byte[] b = new byte[WINDOW_LONGS * 8];
    for (int i = 0; i < b.length; i++) {
      b[i] = win.memory().readByte(i);
    }
    return b;
  }

  /**
   * Hands {@link #MESSAGES} junk records to rank 1's JVM as if they came from the data-plane link
   * of rank 0's JVM, then the marker, from the test's thread.
   */
  private static void sendJunk(JobRuntime job, String peer, Random rnd, LongSupplier counted) {
    for (int i = 0; i < MESSAGES; i++) {
      int kind = rnd.nextInt(10);
      Buffer record;
      if (kind == 0) {
        record = Buffer.buffer(new byte[rnd.nextInt(4)]); // shorter than a destination rank
      } else if (kind <= 3) {
        record = Buffer.buffer(randomBytes(rnd));
      } else if (kind <= 6) {
        record = Buffer.buffer().appendInt(1).appendBytes(damaged(rnd));
      } else {
        record = frameRecord(rnd.nextInt(8) == 0 ? misdirected(rnd) : 1, brokenRules(rnd));
      }
      job.receive(peer, record);
      if ((i + 1) % BURST == 0) {
        // a fuzz, not a flood: the next burst waits until the ranks have dealt with this one
        int sent = i + 1;
        Jobs.eventually(() -> counted.getAsLong() >= sent, 60, "the ranks rejecting " + sent + " records");
      }
    }
    Frame marker = Frame.of(FrameType.SEND, 0, 0);
    marker.tag = MARKER_TAG;
    marker.count = 4;
    marker.payload = new byte[4];
    job.receive(peer, frameRecord(1, marker));
  }

  /** A destination that is no rank of the job. */
  private static int misdirected(Random rnd) {
    return rnd.nextBoolean() ? 2 + rnd.nextInt(100) : -1 - rnd.nextInt(100);
  }

  private static Buffer frameRecord(int dst, Frame f) {
    Buffer b = Buffer.buffer().appendInt(dst);
    FrameCodec.encode(b, f);
    return b;
  }

  private static byte[] randomBytes(Random rnd) {
    byte[] b = new byte[rnd.nextInt(200)];
    rnd.nextBytes(b);
    if (b.length >= 4 && rnd.nextBoolean()) {
      // a plausible length prefix, so the decoder gets past its first check
      System.arraycopy(Buffer.buffer().appendInt(b.length - 4).getBytes(), 0, b, 0, 4);
    }
    return b;
  }

  /** A valid frame's encoding with one structural defect the decoder must catch. */
  private static byte[] damaged(Random rnd) {
    Frame f = validPut(rnd);
    Buffer b = Buffer.buffer();
    FrameCodec.encode(b, f);
    byte[] bytes = b.getBytes();
    int header = 4 + FrameCodec.HEADER_BYTES;
    switch (rnd.nextInt(7)) {
      case 0: // truncated
        return java.util.Arrays.copyOf(bytes, rnd.nextInt(bytes.length));
      case 1: // bad magic
        bytes[4] ^= (byte) (1 + rnd.nextInt(255));
        return bytes;
      case 2: // bad version
        bytes[6] = (byte) (2 + rnd.nextInt(200));
        return bytes;
      case 3: // unknown type
        bytes[7] = (byte) (100 + rnd.nextInt(27));
        return bytes;
      case 4: // datatype length that does not fit
        return Buffer.buffer(bytes).setInt(header, rnd.nextBoolean() ? -1 - rnd.nextInt(1000)
            : bytes.length + rnd.nextInt(1000)).getBytes();
      case 5: // total length that does not match
        return Buffer.buffer(bytes).setInt(0, bytes.length + 1 + rnd.nextInt(1000)).getBytes();
      default: // trailing garbage after the payload
        Buffer longer = Buffer.buffer(bytes).appendBytes(randomBytes(rnd)).appendByte((byte) 1);
        return longer.getBytes();
    }
  }

  private static Frame validPut(Random rnd) {
    Frame f = Frame.of(FrameType.PUT, 0, rnd.nextInt(8));
    f.tag = 3; // passive target
    f.disp = rnd.nextInt(WINDOW_LONGS);
    f.count = 1;
    f.typeBytes = TypeMap.of(Datatype.LONG).wireBytes();
    f.payload = new byte[8];
    rnd.nextBytes(f.payload);
    return f;
  }

  /** A well-formed frame that breaks a rule the target checks before touching anything. */
  private static Frame brokenRules(Random rnd) {
    Frame f = validPut(rnd);
    byte[] ops = {FrameType.PUT, FrameType.GET, FrameType.ACC, FrameType.GET_ACC, FrameType.CAS};
    f.type = ops[rnd.nextInt(ops.length)];
    // a reply is asked for now and then: rank 1's error reply then goes to rank 0, which rejects it
    // (correlation ids far from the ones rank 0 really uses: forging a reply is not this test's concern)
    f.corr = rnd.nextInt(4) == 0 ? (1L << 50) + rnd.nextInt(1000) : 0;
    switch (rnd.nextInt(11)) {
      case 0: // a source outside the job, or a rank the sending JVM does not host
        f.src = rnd.nextBoolean() ? -1 - rnd.nextInt(100) : 1 + rnd.nextInt(100);
        break;
      case 1: // a window that does not exist
        f.ctx = 1000 + rnd.nextInt(100000);
        break;
      case 2: // outside the window
        f.disp = rnd.nextBoolean() ? WINDOW_LONGS + rnd.nextInt(1 << 20) : -1 - rnd.nextInt(1000);
        break;
      case 3: // a count that does not fit
        f.count = rnd.nextBoolean() ? -1 - rnd.nextInt(1000) : WINDOW_LONGS + rnd.nextInt(1 << 20);
        break;
      case 4: // a datatype that does not decode
        f.typeBytes = randomBytes(rnd);
        break;
      case 5: // an unknown operation
        f.type = FrameType.ACC;
        f.code = 100 + rnd.nextInt(1000);
        break;
      case 6: // an unknown synchronization mode
        f.tag = 4 + rnd.nextInt(1000);
        break;
      case 7: // a fence epoch that is over (the window never opened a fence epoch)
        f.tag = 1;
        f.epoch = 0;
        break;
      case 8: // a reply nobody asked for
        f.type = FrameType.REPLY;
        f.corr = (1L << 40) + rnd.nextInt(1000);
        break;
      case 9: // a lock of an unknown type
        f.type = FrameType.LOCK;
        f.code = 2 + rnd.nextInt(100);
        break;
      default: // a passive-target operation from a rank that holds no lock (valid in every other way)
        break;
    }
    return f;
  }
}
