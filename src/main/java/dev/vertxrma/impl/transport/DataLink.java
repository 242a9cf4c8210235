package dev.vertxrma.impl.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One data-plane connection between this JVM and a peer JVM of the job: the records queued for it
 * and their way into the socket, its connection (made, retried, proven by {@link SecretExchange}),
 * and its end. Records are {@code i32 length | bytes}.
 */
final class DataLink {

  static final int MAX_PROOF_RECORD = 1024;
  static final long PROOF_TIMEOUT_MS = 5_000;
  /** Destination of the last record a JVM sends on a link when its part of the job ended normally. */
  static final int BYE = -2;
  /** Records one drain writes before it lets other work of the event loop in. */
  static final int DRAIN_BATCH = 256;
  /** Records shorter than this are copied into a batch and written together. */
  static final int COALESCE_BELOW = 8 * 1024;
  /** A batch is written once it holds this many bytes. */
  static final int COALESCE_BYTES = 64 * 1024;
  /** A batch's first capacity (it grows). */
  private static final int COALESCE_START = 4 * 1024;
  /**
   * Bytes waiting in the outbox past which the link is congested: a frame with a payload source
   * (a put's or accumulate's origin) is then queued unpacked and packed when the socket can take
   * it, and its call's future completes only then ({@link #congested}). With the socket's own
   * write queue (Netty's high-water mark) this bounds what a link holds for a slow peer.
   */
  static final long CONGESTED_BYTES = 1024 * 1024;
  /** What a frame queued unpacked counts for in the outbox beyond its payload (its record's head). */
  private static final int LATER_HEAD_BYTES = 64;
  /** The capacity of the record {@link #trySendNow} reuses: requests, replies and small operations fit. */
  static final int REUSED_RECORD_BYTES = 1024;
  /** Connection attempts before the peer is declared unreachable. */
  private static final int CONNECT_ATTEMPTS = 5;

  private final DataPlane plane;
  private final String node;
  /**
   * Records waiting for the socket, each owned by the link until written or discarded: a
   * {@link ByteBuf}, or a {@link Later} frame packed when the socket can take it.
   */
  private final ConcurrentLinkedQueue<Object> outbox = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  /** Whether a drain runs now (on the data plane's event loop: a write may call back into this link). */
  private boolean draining;
  /**
   * Whether an awaited record has drained the outbox at once since the drain task last ran (the
   * data plane's event loop only): the records queued after it wait for that task.
   */
  private boolean drainedAtOnce;
  /** Bytes of the records in the outbox (a frame queued unpacked: its payload and a record head). */
  private final java.util.concurrent.atomic.AtomicLong outboxBytes = new java.util.concurrent.atomic.AtomicLong();
  /**
   * {@link #drain} as a plain task of the data plane's event loop: no allocation and no Vert.x
   * context dispatch per record sent (about 1 µs less per fetchAndOp between two busy-polling JVMs
   * on this project's VM). What needs the context (the goodbye at the end) goes through it.
   */
  private final Runnable drainTask = this::drain;
  private volatile NetSocketInternal socket;
  /** The record {@link #trySendNow} packs into and writes, kept while the socket gives it back (data plane's event loop only). */
  private ByteBuf reusedRecord;
  /** Whether the reused record holds one-way records not written yet ({@link #trySendNow}). */
  private boolean pendingInReused;
  /** Records {@link #trySendNow} wrote, and how many of them needed a new buffer (tests). */
  private long sentNow;
  private long sentNowAllocated;
  private volatile boolean lost;
  /** The job ended here: close the connection once what is queued is written. */
  private volatile boolean closeWhenOpen;
  /** Completes once the link is done: its goodbye written, or the connection gone or never made. */
  private final io.vertx.core.Promise<Void> ended = io.vertx.core.Promise.promise();
  /** The peer said its part of the job ended normally: its closing the connection is no failure. */
  private volatile boolean peerEnded;

  DataLink(DataPlane plane, String node) {
    this.plane = plane;
    this.node = node;
  }

  // ------------------------------------------------------------------ sending

  /**
   * Queues a record, which the link owns from now on; any thread. Records of every sender go
   * through one queue that the data plane's own context drains into the socket: they leave in the
   * order they were queued (a socket written from several threads would not keep it). A record
   * someone waits on ({@code awaited}: a request, a reply, a synchronization or point-to-point
   * message) queued on that context goes out at once with what is queued before it, the first of
   * the context's current piece of work; the others wait for the drain task, which writes all it
   * finds in one go (at most {@value #DRAIN_BATCH} records), small records coalesced into writes
   * of up to {@value #COALESCE_BYTES} bytes (see {@link #drainSoon}).
   */
  void send(ByteBuf record, boolean awaited) {
    if (lost) {
      record.release();
      return; // the job is failing: the origin's call fails with PROC_FAILED, not here
    }
    enqueue(record, awaited);
  }

  /**
   * Packs frame {@code f} for rank {@code dst} into the link's one reused native record, when that
   * keeps every rule of {@link #drainSoon}: this is the data plane's event loop, the outbox is
   * empty, no drain runs, nothing left at once yet in this piece of work, the socket can take it,
   * and the record fits in what is left of {@value #REUSED_RECORD_BYTES} bytes. A record someone
   * waits on ({@code awaited}) is then written at once, with the one-way records packed before it
   * in this piece of work (an accumulate and its flush's acknowledgement request leave in one
   * write); a one-way record waits there for the next awaited one or the drain task, which writes
   * it ahead of the outbox. The socket writes a small record at once, so the same memory serves the
   * next: a request or reply costs no allocation; if the socket keeps it queued, it keeps it and the
   * next gets a new one. False (nothing done) otherwise: the caller queues the frame.
   */
  boolean trySendNow(int dst, Frame f, boolean awaited) {
    NetSocketInternal s = socket;
    if (s == null || lost || draining || drainedAtOnce || !outbox.isEmpty() || !plane.homeLoop().inEventLoop()
        || f.payloadSource instanceof PackedPayload || full(s)) {
      return false;
    }
    int size = FrameCodec.recordBytes(f);
    ByteBuf r;
    if (pendingInReused) {
      r = reusedRecord;
      if (r.writableBytes() < size) {
        return false; // queued behind the pending records: the drain writes those first
      }
    } else {
      if (size > REUSED_RECORD_BYTES) {
        return false;
      }
      r = reusedRecord();
      r.clear();
    }
    int start = r.writerIndex();
    try {
      FrameCodec.writeRecord(r, dst, f);
    } catch (RuntimeException e) {
      r.writerIndex(start); // nothing of a record that could not be packed stays behind the pending ones
      throw e;
    }
    sentNow++;
    if (drainScheduled.compareAndSet(false, true)) {
      plane.homeLoop().execute(drainTask); // ends this piece of work's turn, as drainSoon does
    }
    if (!awaited) {
      pendingInReused = true;
      return true;
    }
    pendingInReused = false;
    drainedAtOnce = true;
    draining = true;
    try {
      writeReused(s, r);
    } finally {
      draining = false;
    }
    return true;
  }

  /** The record this link reuses, a new one if the socket kept the last. */
  private ByteBuf reusedRecord() {
    ByteBuf r = reusedRecord;
    if (r == null) {
      r = PooledByteBufAllocator.DEFAULT.directBuffer(REUSED_RECORD_BYTES, REUSED_RECORD_BYTES);
      reusedRecord = r;
      sentNowAllocated++;
    }
    return r;
  }

  /** Writes the reused record {@code r}; if the socket keeps it queued, it is the socket's from now on. */
  private void writeReused(NetSocketInternal s, ByteBuf r) {
    write(s, r.retain());
    if (r.refCnt() != 1) { // still in the socket's queue: it releases it once written
      r.release();
      reusedRecord = null;
    }
  }

  /** Records written at once in the reused record so far, and how many of them needed a new one (tests; its loop). */
  long[] sentNowCounts() {
    return new long[] {sentNow, sentNowAllocated};
  }

  /** Releases the reused record (on the data plane's event loop, once the link is gone). */
  private void releaseReusedRecord() {
    pendingInReused = false; // the link is gone: what waited there is dropped, as the outbox is
    ByteBuf r = reusedRecord;
    reusedRecord = null;
    if (r != null) {
      r.release();
    }
  }

  /**
   * Queues frame {@code f} for rank {@code dst}, to be packed into its record only when the socket
   * can take more (its write queue is below Netty's high-water mark): a run of large puts is
   * packed one after the other as the socket drains, instead of all at once into memory before
   * the first is written. Any thread.
   */
  void sendLater(int dst, Frame f) {
    if (lost) {
      f.payloadSource.dropped(); // as for send: the job is failing, and the call with it
      return;
    }
    enqueue(new Later(dst, f), false);
  }

  /**
   * Whether the outbox holds {@link #CONGESTED_BYTES} or more: the socket cannot take what is
   * queued as fast as it comes (a slow or stopped peer). Any thread.
   */
  boolean congested() {
    return outboxBytes.get() >= CONGESTED_BYTES;
  }

  /** Bytes queued in the outbox now (tests). */
  long outboxBytes() {
    ByteBuf r = reusedRecord;
    return outboxBytes.get() + (pendingInReused && r != null ? r.readableBytes() : 0);
  }

  private static long bytesOf(Object record) {
    return record instanceof ByteBuf ? ((ByteBuf) record).readableBytes()
        : ((Later) record).frame().payloadLength() + (long) LATER_HEAD_BYTES;
  }

  /** Takes the head of the outbox (after a peek that found it). */
  private Object take() {
    Object r = outbox.poll();
    if (r != null) {
      outboxBytes.addAndGet(-bytesOf(r));
    }
    return r;
  }

  /** Queues {@code record} (a ByteBuf or a {@link Later}) and has the home context drain it. */
  private void enqueue(Object record, boolean awaited) {
    outboxBytes.addAndGet(bytesOf(record));
    outbox.add(record);
    if (lost) {
      discardOutbox(); // lost meanwhile: nobody else may drain what was just queued
      return;
    }
    if (socket != null) {
      drainSoon(awaited);
    }
  }

  /**
   * Has the data plane's event loop drain the outbox. When this is that event loop and {@code now}
   * (an awaited record was queued) for the first time since the last drain task ran, the outbox
   * goes out at once, flushed, and the drain task takes what the current piece of work queues after
   * it: a request, a reply or a barrier's message leaves when it is made, while a burst (the puts
   * before a flush, the gets of a loop, the replies to a read of many requests) still leaves
   * coalesced when the work is done, and one-way operations ride with the flush that follows them. Held to
   * the end of the loop's work instead, a barrier's message delayed its peer by that much, and two
   * ranks exchanging messages back to back fell a whole crossing out of step (each found the
   * other's message waiting every other time: a 2-rank barrier's median 9.6 µs instead of 5.0).
   * From another thread, or for a record nobody waits on: the drain task only.
   */
  private void drainSoon(boolean now) {
    if (drainScheduled.compareAndSet(false, true)) {
      plane.homeLoop().execute(drainTask);
    }
    // a drain task is pending now: it ends the current piece of work's turn (drainedAtOnce)
    if (now && socket != null && plane.homeLoop().inEventLoop() && !draining && !drainedAtOnce) {
      drainedAtOnce = true;
      drainOutbox(false);
    }
  }

  /** A frame queued by {@link #sendLater}. */
  private record Later(int dst, Frame frame) {
  }

  /** Releases every record still queued (a frame not packed yet is dropped: its request fails). */
  private void discardOutbox() {
    Object r;
    while ((r = take()) != null) {
      if (r instanceof ByteBuf) {
        ((ByteBuf) r).release();
      } else {
        ((Later) r).frame().payloadSource.dropped();
      }
    }
  }

  /**
   * Whether the socket's channel takes no more: Netty's write buffer is past its high-water mark.
   * The channel's own writability, not {@code NetSocket.writeQueueFull()}: in Vert.x 5 that
   * reports only Vert.x's own write queue, which this link bypasses ({@link #write}), so it never
   * said full and every record went into Netty's unbounded write buffer (PutFloodTest: 72 MiB for
   * a JVM that read nothing, and no put ever held back).
   */
  private static boolean full(NetSocketInternal s) {
    return !s.channelHandlerContext().channel().isWritable();
  }

  /**
   * Calls {@link #writable} when the channel can take more again (below Netty's low-water mark):
   * Vert.x's drain handler is only called once Vert.x's own write queue, which this link
   * bypasses, drains.
   */
  private void watchWritability(NetSocketInternal s) {
    s.channelHandlerContext().pipeline().addFirst("rma-writability", new ChannelInboundHandlerAdapter() {
      @Override
      public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
          writable();
        }
        ctx.fireChannelWritabilityChanged();
      }
    });
  }

  /** The socket can take more again: drain what waits. */
  private void writable() {
    if (!outbox.isEmpty()) {
      drainSoon(true);
    }
  }

  /**
   * Writes and flushes {@code b} on the socket's channel (the socket releases it). Straight to the
   * channel: Vert.x holds a connection's writes made while it reads until the read completes,
   * which delays a reply by the rest of the read's work.
   */
  private static void write(NetSocketInternal s, ByteBuf b) {
    s.channelHandlerContext().writeAndFlush(b);
  }

  /** Writes the record or batch pending (at most one of them is set); returns {@code null}. */
  private static ByteBuf flush(NetSocketInternal s, ByteBuf lone, ByteBuf batch) {
    if (lone != null) {
      write(s, lone);
    } else if (batch != null) {
      write(s, batch);
    }
    return null;
  }

  /** The drain task: the outbox into the socket, and the goodbye once the job ended here. */
  private void drain() {
    drainScheduled.set(false);
    drainedAtOnce = false;
    drainOutbox(true);
  }

  /**
   * Writes what the outbox holds, in order, until the socket's write queue is full; then, if
   * {@code mayClose} and the job ended here, the goodbye. On the data plane's event loop only.
   */
  private void drainOutbox(boolean mayClose) {
    NetSocketInternal s = socket;
    if (s == null || draining) {
      return;
    }
    draining = true;
    try {
      drainInto(s, mayClose);
    } finally {
      draining = false;
    }
  }

  private void drainInto(NetSocketInternal s, boolean mayClose) {
    if (pendingInReused) { // packed before anything the outbox holds was queued
      pendingInReused = false;
      writeReused(s, reusedRecord);
    }
    ByteBuf lone = null; // a small record not copied yet: written as it is if no other follows
    ByteBuf batch = null;
    int n = 0;
    Object next;
    while ((next = outbox.peek()) != null) {
      if (full(s)) {
        // the rest waits here, not in the socket's buffers, until the socket can take it
        // (writable() drains again): what waits here is what congested() counts
        break;
      }
      ByteBuf r;
      if (next instanceof Later) {
        Later later = (Later) next;
        try {
          r = FrameCodec.recordBuf(later.dst(), later.frame(), true);
        } catch (RuntimeException e) {
          take();
          later.frame().payloadSource.dropped();
          plane.job().reject("a frame that could not be packed for JVM " + node + ": " + e);
          continue;
        }
      } else {
        r = (ByteBuf) next;
      }
      take();
      // small records are coalesced into one write (one system call, one copy to native memory
      // instead of one per record); a large one goes out as it is, after what precedes it (the
      // socket releases every buffer it is given)
      if (r.readableBytes() >= COALESCE_BELOW) {
        batch = flush(s, lone, batch);
        lone = null;
        write(s, r);
      } else if (batch == null && lone == null) {
        lone = r;
      } else {
        if (batch == null) {
          // a native batch the socket writes as it is; it grows as records come, up to a bit past
          // COALESCE_BYTES
          batch = PooledByteBufAllocator.DEFAULT.directBuffer(COALESCE_START);
          batch.writeBytes(lone);
          lone.release();
          lone = null;
        }
        batch.writeBytes(r);
        r.release();
        if (batch.readableBytes() >= COALESCE_BYTES) {
          write(s, batch);
          batch = null;
        }
      }
      if (++n == DRAIN_BATCH && !outbox.isEmpty()) {
        flush(s, lone, batch);
        drainSoon(false); // let the event loop breathe: the rest in a task of its own
        return;
      }
    }
    flush(s, lone, batch);
    if (mayClose && closeWhenOpen && !lost && outbox.isEmpty()) {
      if (io.vertx.core.Vertx.currentContext() == null) {
        plane.onHome(this::drain); // a plain task (drainTask): say goodbye from the plane's own context
        return;
      }
      lost = true;
      bye(s);
      ended.tryComplete();
    }
  }

  /** The proven connection: what waited is written, in order, then senders' records follow. */
  void open(NetSocket s) {
    s.closeHandler(v -> closed(s));
    watchWritability((NetSocketInternal) s);
    synchronized (this) {
      if (lost || socket != null) {
        s.close();
        return;
      }
      socket = (NetSocketInternal) s;
    }
    drainScheduled.set(true);
    plane.onHome(this::drain);
  }

  /** Tells the peer this JVM's part of the job ended normally, then closes. */
  private static void bye(NetSocket s) {
    s.write(Buffer.buffer(8).appendInt(4).appendInt(BYE));
    s.close();
  }

  /** The peer said goodbye: the close that follows is orderly. */
  void peerEnded() {
    peerEnded = true;
  }

  private void closed(NetSocket s) {
    boolean report;
    synchronized (this) {
      report = socket == s && !lost && !peerEnded;
      lost = true;
      discardOutbox();
    }
    plane.onHome(this::releaseReusedRecord);
    ended.tryComplete();
    if (report && !plane.isClosing()) {
      plane.job().unreachable(node, "the data-plane connection to its JVM closed");
    }
  }

  /**
   * Closes the link once what waits for it is written: on the data plane's context, after the
   * records queued so far; if the connection is not proven yet, when it is (a last ABORT or reply
   * of a rank that ended must still reach the peer), or after {@code lingerMs} at the latest.
   * True if it lingers.
   */
  boolean close(long lingerMs) {
    synchronized (this) {
      if (lost) {
        ended.tryComplete();
        return false;
      }
      if (socket == null) {
        if (lingerMs > 0 && !outbox.isEmpty()) {
          closeWhenOpen = true;
          plane.vertx().setTimer(lingerMs, id -> close(0));
          return true;
        }
        lost = true;
        discardOutbox();
        ended.tryComplete();
        return false;
      }
    }
    closeWhenOpen = true;
    plane.onHome(this::drain);
    return false;
  }

  /**
   * Completes once the link is done after {@link #close}: its goodbye written (behind every
   * record queued before it), or its connection gone or never made.
   */
  io.vertx.core.Future<Void> ended() {
    return ended.future();
  }

  // ------------------------------------------------------------------ connecting side

  void connect(NetClient client, String address) {
    connect(client, address, 1);
  }

  private void connect(NetClient client, String address, int attempt) {
    int colon = address.lastIndexOf(':');
    String host = address.substring(0, colon);
    int port = Integer.parseInt(address.substring(colon + 1));
    client.connect(port, host).onComplete(ar -> {
      if (plane.isClosed()) {
        if (ar.succeeded()) {
          ar.result().close();
        }
        return;
      }
      if (ar.failed()) {
        if (attempt < CONNECT_ATTEMPTS) {
          plane.vertx().setTimer(100L * attempt, id -> connect(client, address, attempt + 1));
        } else {
          giveUp("cannot connect to its JVM's data plane at " + address + ": " + ar.cause().getMessage());
        }
        return;
      }
      prove(ar.result());
    });
  }

  /** Connecting side: answer the acceptor's challenge, check its proof, then open. */
  private void prove(NetSocket s) {
    s.closeHandler(v -> giveUp("its JVM's data plane closed the connection before the proof completed"));
    SecretExchange.prove(plane, node, s, this::open);
  }

  private void giveUp(String reason) {
    synchronized (this) {
      if (lost) {
        return;
      }
      lost = true;
      discardOutbox();
    }
    if (!plane.isClosing()) {
      plane.job().unreachable(node, reason);
    }
  }
}
