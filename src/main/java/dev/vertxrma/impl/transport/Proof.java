package dev.vertxrma.impl.transport;

import io.netty.buffer.ByteBuf;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;

/**
 * Reads one connection's records ({@code i32 length | body}) for its whole life: first the proof
 * phase, records of at most {@value DataLink#MAX_PROOF_RECORD} bytes handed to the current step, closed
 * on a failed step or after {@value DataLink#PROOF_TIMEOUT_MS} ms; then, once {@link #done proven}, frame
 * records ({@code i32 destination rank | frame}) delivered to the job. One reader throughout, so
 * that frames arriving in the same read as the last proof record are not lost.
 *
 * <p>It reads the socket's own buffers (Netty's, released here). A record shorter than {@value
 * #SEGMENTED_FROM} bytes is copied once, into an array of its own size, however many reads it
 * spans; a longer one is not copied: it is kept as retained slices of the buffers it arrived in.
 * The frame decoded from it keeps its payload there until it has been applied.
 *
 * <p>Before the proof holds, the connection's failures are the reader's: an I/O error (a reset),
 * a close, a record the proof did not ask for, a wrong proof or the timeout each count once in the
 * job's rate-limited rejected-input log, and the close cancels the proof timer and gives back the
 * incoming connection's slot of {@link UnprovenConnections}. After it, an I/O error is logged once.
 */
final class Proof {
  interface Step {
    boolean accept(Buffer record);
  }

  /**
   * A frame record at least this long is not copied: it is kept as the list of the socket's own
   * buffers it arrived in (retained slices), and its payload is unpacked from there.
   */
  static final int SEGMENTED_FROM = 64 * 1024;
  /** Records one task of the event loop reads before it lets other work in. */
  static final int RECORDS_PER_TASK = 256;

  private static final System.Logger LOG = System.getLogger(DataPlane.class.getName());

  private final DataPlane plane;
  private final NetSocket socket;
  private final long timer;
  /** An incoming connection's source address (see the constructor), else {@code null}. */
  private final String source;
  /** Whether the slot of an incoming connection was given back. */
  private boolean released;
  private Step step;
  private boolean failed;
  /** The proven peer JVM, once the proof holds: records are frames from it. */
  private String peer;
  /** The length prefix being read ({@code lengthBytes} of its 4 so far), or the body once it is known. */
  private int length;
  private int lengthBytes;
  private ByteBuf body;
  /** Read on and yielded: what waits to be read, in order, while the socket is paused. */
  private boolean yielded;
  private final java.util.ArrayDeque<ByteBuf> backlog = new java.util.ArrayDeque<>();
  /** The operations from this connection that wait in owner queues: over its limit, reading stops. */
  private final InboundBudget budget;

  Proof(DataPlane plane, NetSocket socket) {
    this(plane, socket, null);
  }

  /**
   * @param source the source address of an incoming connection, which holds a slot of the plane's
   *     {@link UnprovenConnections} until it proves the secret or closes; {@code null} for an
   *     outgoing one
   */
  Proof(DataPlane plane, NetSocket socket, String source) {
    this.plane = plane;
    this.socket = socket;
    this.source = source;
    this.budget = new InboundBudget(plane.inbound());
    ((NetSocketInternal) socket).messageHandler(this::read);
    // a reset or another I/O error is counted (before the proof) or logged once (after it), never
    // left to Vert.x, which would log each at ERROR; the close that follows is handled below
    socket.exceptionHandler(this::broken);
    this.timer = plane.vertx().setTimer(DataLink.PROOF_TIMEOUT_MS, id -> {
      plane.unproven().timerGone();
      if (peer == null && !failed) {
        fail("a data-plane connection " + (source == null ? "to " : "from ") + socket.remoteAddress()
            + " that did not prove itself within " + DataLink.PROOF_TIMEOUT_MS + " ms");
      }
    });
    plane.unproven().timerArmed();
    // runs at once if the connection is closed already; on the connection's event loop otherwise
    ((NetSocketInternal) socket).channelHandlerContext().channel().closeFuture().addListener(x -> closed());
  }

  /**
   * The connection closed: its proof timer goes (a dead connection must not stay reachable from a
   * timer for the rest of its 5 s), its slot is given back, and an incoming connection that closed
   * before it proved anything or failed otherwise is counted; a record cut short by the end holds
   * buffers of the socket's, which go back.
   */
  private void closed() {
    cancelTimer();
    if (peer == null && !failed && source != null) {
      failed = true;
      plane.job().reject("a data-plane connection from " + source + " that closed before it proved the job's secret");
    }
    releaseSlot();
    if (body != null) {
      body.release();
      body = null;
    }
    ByteBuf waiting;
    while ((waiting = backlog.poll()) != null) {
      waiting.release();
    }
  }

  /** An I/O error on the connection (a reset, typically), which then closes. */
  private void broken(Throwable e) {
    if (peer != null) {
      LOG.log(plane.isClosing() || plane.job().failedHere() ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING,
          "the data-plane connection with JVM " + peer + " failed: " + e);
    } else if (!failed) {
      fail("a data-plane connection " + (source == null ? "to " : "from ") + socket.remoteAddress()
          + " that failed before it proved the job's secret: " + e);
    }
  }

  private void cancelTimer() {
    if (plane.vertx().cancelTimer(timer)) {
      plane.unproven().timerGone();
    }
  }

  private void releaseSlot() {
    if (source != null && !released) {
      released = true;
      plane.unproven().release(source);
    }
  }

  void expect(Step next) {
    step = next;
  }

  /** What the socket read: a Netty buffer, which this reader owns and releases. */
  private void read(Object msg) {
    if (!(msg instanceof ByteBuf)) {
      io.netty.util.ReferenceCountUtil.release(msg);
      return;
    }
    if (yielded) {
      backlog.add((ByteBuf) msg); // read before the pause took effect: after what waits
      return;
    }
    consume((ByteBuf) msg);
  }

  /**
   * Reads the records of {@code in}, at most {@value #RECORDS_PER_TASK} of them: if more are
   * left, the socket pauses and the rest is read in a task of its own, so that a burst of small
   * frames (one-way puts, thousands to a read) never holds the event loop for long.
   */
  private void consume(ByteBuf in) {
    int records = 0;
    try {
      while (!failed && in.isReadable()) {
        if (records == RECORDS_PER_TASK) {
          yieldWith(in);
          return;
        }
        if (body == null && budget.full()) {
          holdUntilRoom(in); // at a record boundary: what is left waits with the socket paused
          return;
        }
        if (body == null) {
          while (lengthBytes < 4 && in.isReadable()) {
            length = length << 8 | in.readUnsignedByte();
            lengthBytes++;
          }
          if (lengthBytes < 4 || !lengthRead()) {
            records++;
            continue;
          }
        }
        int n = Math.min(in.readableBytes(), length - body.writerIndex());
        if (body instanceof io.netty.buffer.CompositeByteBuf) {
          ((io.netty.buffer.CompositeByteBuf) body).addComponent(true, in.readRetainedSlice(n));
        } else {
          body.writeBytes(in, n);
        }
        if (body.writerIndex() == length) {
          ByteBuf b = body;
          body = null;
          length = 0;
          records++;
          body(b);
        }
      }
    } catch (RuntimeException e) {
      in.release();
      throw e;
    }
    in.release();
  }

  /**
   * The operations read from this connection fill its {@link InboundBudget}: pauses the socket
   * with {@code rest} kept first in the backlog, and reads on, on this context, once the target
   * owners have drained them below half the limit.
   */
  private void holdUntilRoom(ByteBuf rest) {
    yielded = true;
    backlog.addFirst(rest);
    socket.pause();
    io.vertx.core.Context here = io.vertx.core.Vertx.currentContext();
    budget.whenRoom(() -> {
      if (here != null) {
        here.runOnContext(v -> readOn());
      } else {
        plane.onHome(this::readOn);
      }
    });
  }

  /** After a pause: reads what waits, then the socket again, unless that paused it anew. */
  private void readOn() {
    yielded = false;
    while (!yielded && !backlog.isEmpty()) {
      ByteBuf next = backlog.poll();
      if (failed) {
        next.release();
      } else {
        consume(next);
      }
    }
    if (!yielded) {
      if (budget.full() && !failed) {
        holdUntilRoom(io.netty.buffer.Unpooled.EMPTY_BUFFER);
      } else {
        socket.resume();
      }
    }
  }

  /** Pauses the socket and reads the rest of {@code rest}, then what arrived meanwhile, in a later task. */
  private void yieldWith(ByteBuf rest) {
    yielded = true;
    backlog.addFirst(rest);
    socket.pause();
    io.vertx.core.Context here = io.vertx.core.Vertx.currentContext();
    if (here != null) {
      here.runOnContext(v -> readOn());
    } else {
      plane.onHome(this::readOn);
    }
  }

  /** The length prefix is complete: checks it and starts the body; false if the reader failed. */
  private boolean lengthRead() {
    int len = length;
    length = 0;
    lengthBytes = 0;
    int max = peer == null ? DataLink.MAX_PROOF_RECORD : FrameCodec.MAX_PAYLOAD;
    if (len < (peer == null ? 0 : 4) || len > max) {
      fail("a data-plane record of " + (len & 0xFFFFFFFFL) + " bytes" + (peer == null
          ? " before the peer proved the job's secret" : " from JVM " + peer));
      return false;
    }
    length = len;
    if (len == 0) {
      body(io.netty.buffer.Unpooled.EMPTY_BUFFER);
      return false;
    }
    body = peer != null && len >= SEGMENTED_FROM ? io.netty.buffer.Unpooled.compositeBuffer(Integer.MAX_VALUE)
        : io.netty.buffer.Unpooled.buffer(len, len); // under SEGMENTED_FROM, or a proof record (at most 1 KiB)
    return true;
  }

  /** A whole record, which this reader owns: handed to the job (which releases it), or to the proof step. */
  private void body(ByteBuf b) {
    if (peer != null) {
      if (b.readableBytes() == 4 && b.getInt(b.readerIndex()) == DataLink.BYE) {
        b.release();
        plane.peerEnded(peer);
      } else {
        plane.job().receive(peer, b, budget);
      }
      return;
    }
    Step s = step;
    step = null;
    if (s == null) {
      b.release();
      fail("a data-plane record the proof did not ask for");
      return;
    }
    try {
      s.accept(io.vertx.core.internal.buffer.BufferInternal.buffer(io.netty.buffer.Unpooled.copiedBuffer(b)));
    } finally {
      b.release();
    }
  }

  boolean fail(String what) {
    failed = true;
    if (body != null) {
      body.release();
      body = null;
    }
    cancelTimer();
    plane.job().reject(what);
    socket.close();
    return false;
  }

  /** The peer proved the job's secret: records are frames from JVM {@code node} from now on. */
  void done(String node) {
    cancelTimer();
    peer = node;
    releaseSlot();
  }
}
