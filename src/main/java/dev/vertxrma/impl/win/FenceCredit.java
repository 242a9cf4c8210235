package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.ops.BufferArguments;
import dev.vertxrma.impl.ops.OperationFrames;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.runtime.RankFuture;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The origin side's credit for fence epochs at targets in other JVMs (issue 43, bounded at the
 * receiver). Operations issued right after {@code fence()} belong to the next epoch, and a target
 * that has not opened it yet holds them ({@link dev.vertxrma.impl.sync.FenceEpoch}); the data-plane
 * connection cannot stop reading for them, as it does for its owner queues, since it carries every
 * rank of the peer JVM and a fence's barrier frame may sit behind them. So the origin bounds them:
 * per target it sends at most {@link #DEFAULT_CREDIT_BYTES} of an epoch's operations (counted as
 * {@link OperationFrames#heldBytes}) before it knows that the target has opened that epoch. Past
 * that it holds the further operations to that target itself, in issue order — the caller's own
 * calls, bounded by the caller as its outbox is — and asks the target with one {@link
 * FrameType#EPOCH_OPEN} request, which the target answers once the epoch is open there. On the
 * answer the held operations go, in order, and the rest of the epoch goes freely; the next epoch
 * starts the count again. An operation never overtakes an earlier one to the same target: while any
 * waits here, later ones wait behind it.
 *
 * <p>A held operation has been issued and counted (issue-time accounting): the fence that closes
 * its epoch waits for it. It fails, its future and the synchronization that completes it, as a sent
 * one would: with the request's failure (the job failed, the target died under {@code
 * FailurePolicy.CONTINUE}, its window was freed) or when its origin's fence times out or its window
 * is released here ({@link #failAll}). On the rank's context only.
 */
final class FenceCredit {

  /**
   * Bytes of a fence epoch's operations an origin sends to one target before it knows that the
   * target has opened that epoch: what that target holds for this origin and window at most. 1 MiB
   * keeps a target's memory independent of its peers' pace, while an origin in step with its
   * targets never waits for it: it asks when half is used, and the answer of a target that has
   * opened the epoch comes back within a round trip (tens of microseconds), long before the
   * other half is on the wire. The first operation of an epoch to a target goes whatever its size
   * (so a target holds at most the credit, or one operation where that alone is larger) unless the
   * window is dynamic: its data fits in the target's window part (checked at the origin), so what
   * it holds early is at most one more copy of that part, and a fence epoch of one large put (a halo exchange) costs no
   * round trip to ask first (held, a 1 MiB put's latency over TCP got a 99th percentile of
   * 3.6-6.8 ms against 0.5-0.7 ms).
   */
  static final long DEFAULT_CREDIT_BYTES = 1L << 20;

  /** One issued operation that waits for its target's answer. */
  private record Held(long epoch, long bytes, Runnable run, Consumer<RmaException> fail) {
  }

  /** The credit of one target. */
  private static final class Target {
    /** The highest fence epoch the target is known to have opened. */
    long knownOpen;
    /** The epoch {@link #sent} counts, and its bytes sent before it was known open. */
    long counted;
    long sent;
    /** The epoch the request in flight asks about, 0 if none is. */
    long asking;
    final ArrayDeque<Held> held = new ArrayDeque<>(0);
    long heldBytes;
  }

  private final Endpoint rp;
  private final int window;
  private final int rank;
  private final long credit;
  /** Whether an epoch's first operation to a target goes whatever its size (not on a dynamic window, whose size the origin cannot check). */
  private final boolean firstGoesWhole;
  private final Target[] targets;
  /** Targets of this host whose control block tells their fence epoch without a request (the on-node path). */
  private SegmentPeers segments;
  /** The most bytes this origin held for one target at once (tests). */
  private long mostHeld;

  FenceCredit(Endpoint rp, int window, long credit, boolean firstGoesWhole) {
    this.rp = rp;
    this.firstGoesWhole = firstGoesWhole;
    this.window = window;
    this.rank = rp.rank();
    this.credit = credit;
    this.targets = new Target[rp.size()];
    this.segments = SegmentPeers.none(rp.size());
  }

  /** Reads the fence epoch of the targets whose segments {@code peers} maps; once, at creation. */
  void segmentPeers(SegmentPeers peers) {
    this.segments = peers;
  }

  /**
   * What issued call {@code c} stands for at its target while it waits there: {@link
   * OperationFrames#heldBytes} of its packed data and target datatype. A call whose datatypes are
   * bad counts a header only: its body refuses it before anything is sent.
   */
  static long bytesOf(RmaCall c) {
    long payload = 0;
    int typeWire = 0;
    try {
      TypeMap tt = BufferArguments.typeMap(c.targetType, "target");
      typeWire = tt.wireBytes().length;
      switch (c.type) {
        case FrameType.PUT:
        case FrameType.ACC:
          payload = BufferArguments.typeMap(c.originType, "origin").size() * Math.max(0, c.originCount);
          break;
        case FrameType.GET_ACC:
          payload = c.op == Op.NO_OP ? 0
              : BufferArguments.typeMap(c.originType, "origin").size() * Math.max(0, c.originCount);
          break;
        case FrameType.CAS:
          payload = 2 * tt.size();
          break;
        default:
          break;
      }
    } catch (RuntimeException e) {
      return OperationFrames.heldBytes(0, 0);
    }
    return OperationFrames.heldBytes(payload, typeWire);
  }

  /**
   * Whether an operation of fence epoch {@code epoch} and {@code bytes} ({@link #bytesOf}) may be
   * sent to rank {@code t} of another JVM now: no earlier one waits, and the epoch is known open
   * there or its credit has room (then the bytes are charged to it). False: {@link #hold} it.
   */
  boolean tryPass(int t, long epoch, long bytes) {
    Target s = targets[t];
    if (s == null) {
      s = new Target();
      targets[t] = s;
    }
    return s.held.isEmpty() && charge(t, s, epoch, bytes);
  }

  private boolean charge(int t, Target s, long epoch, long bytes) {
    if (epoch <= s.knownOpen) {
      return true;
    }
    if (segments.fenceReached(t, epoch)) {
      s.knownOpen = epoch; // a target of this host: its control block says so
      return true;
    }
    if (s.counted != epoch) {
      s.counted = epoch;
      s.sent = 0;
    }
    if (s.sent + bytes > credit && (s.sent > 0 || !firstGoesWhole)) {
      return false; // the first of an epoch goes whatever its size: see DEFAULT_CREDIT_BYTES
    }
    s.sent += bytes;
    if (s.sent > credit / 2) {
      ask(t, s, epoch); // the answer is on its way before the credit runs out
    }
    return true;
  }

  /**
   * Holds an issued operation to rank {@code t} (after {@link #tryPass} said no) until it may go:
   * then {@code body} runs it and the returned future completes as its does; if it fails first,
   * {@code failed} learns why and the future fails with it.
   */
  Future<Void> hold(int t, long epoch, long bytes, Supplier<Future<Void>> body, Consumer<RmaException> failed) {
    Target s = targets[t];
    RankFuture<Void> p = RankFuture.promise(rp.context());
    Consumer<RmaException> fail = cause -> {
      failed.accept(cause);
      p.tryFail(cause);
    };
    s.held.addLast(new Held(epoch, bytes, () -> {
      try {
        body.get().onComplete(p);
      } catch (RuntimeException e) { // a bug: this call fails, the ones behind it still go
        fail.accept(new RmaException(ErrorClass.INTERN, "internal error at rank " + rank + ": " + e, e));
      }
    }, fail));
    s.heldBytes += bytes;
    mostHeld = Math.max(mostHeld, s.heldBytes);
    if (s.held.size() == 1) {
      ask(t, s, epoch);
    }
    return p;
  }

  /** Sends the request for {@code epoch} to {@code t}, unless one is in flight (its answer asks again if need be). */
  private void ask(int t, Target s, long epoch) {
    if (s.asking != 0) {
      return;
    }
    s.asking = epoch;
    rp.request(t, EpochOpenRequests.request(rank, window, epoch)).onComplete((reply, failure) -> {
      s.asking = 0;
      if (failure == null) {
        s.knownOpen = Math.max(s.knownOpen, epoch);
        drain(t, s);
      } else {
        failHeld(s, failure instanceof RmaException ? (RmaException) failure
            : new RmaException(ErrorClass.INTERN, "epoch-open request to rank " + t + " failed: " + failure, failure));
      }
    });
  }

  /** Lets the held operations of {@code t} go, in order, while their epoch is open there or its credit has room. */
  private void drain(int t, Target s) {
    while (!s.held.isEmpty()) {
      Held h = s.held.peekFirst();
      if (!charge(t, s, h.epoch, h.bytes)) {
        ask(t, s, h.epoch);
        return;
      }
      s.held.pollFirst();
      s.heldBytes -= h.bytes;
      h.run.run(); // sends it now, before the next one is looked at
    }
  }

  private static void failHeld(Target s, RmaException cause) {
    while (!s.held.isEmpty()) {
      Held h = s.held.pollFirst();
      s.heldBytes -= h.bytes;
      h.fail.accept(cause);
    }
  }

  /**
   * Fails every operation held here, for every target, with {@code cause}: the origin's fence timed
   * out (none of them may read or write the caller's buffers once its future has failed), or the
   * window is released here. A request in flight stays: its answer finds nothing to let go.
   */
  void failAll(RmaException cause) {
    for (Target s : targets) {
      if (s != null) {
        failHeld(s, cause);
      }
    }
  }

  /** The most bytes held here for one target at once so far (tests). */
  long mostHeld() {
    return mostHeld;
  }
}
