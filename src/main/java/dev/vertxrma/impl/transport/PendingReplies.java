package dev.vertxrma.impl.transport;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Promise;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.IntPredicate;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The requests a rank is waiting on a reply for: correlation id to promise, with the target
 * rank of each, so that everything pending on a failed rank can be failed at once. Owned by one
 * rank and used only on its event loop.
 */
public final class PendingReplies {

  private static final class Pending {
    final int target;
    final Promise<Frame> promise;

    Pending(int target, Promise<Frame> promise) {
      this.target = target;
      this.promise = promise;
    }
  }

  /** Keyed by the primitive correlation id: no boxed key per request (see docs/performance.md). */
  private final Long2ObjectHashMap<Pending> pending = new Long2ObjectHashMap<>();
  private long nextCorr = 1;
  private long registered;

  /** How many requests were registered so far (diagnostics, tests). */
  public long registered() {
    return registered;
  }

  /** Registers a promise for the reply to a request sent to {@code target}; returns its correlation id. */
  public long register(int target, Promise<Frame> promise) {
    long corr = nextCorr++;
    registered++;
    pending.put(corr, new Pending(target, promise));
    return corr;
  }

  /**
   * Completes the promise a reply frame answers: with the frame when its code is 0, otherwise
   * with the {@link RmaException} the target reported. Returns false for a reply nobody waits
   * for, or one that does not come from the rank the request went to (it is then ignored).
   */
  public boolean onReply(Frame reply) {
    Pending p = pending.get(reply.corr);
    if (p == null || p.target != reply.src) {
      return false;
    }
    pending.remove(reply.corr);
    if (reply.code == 0) {
      p.promise.tryComplete(reply);
    } else {
      byte[] text = reply.payloadBytes();
      String msg = text == null ? "(no message)" : new String(text, StandardCharsets.UTF_8);
      p.promise.tryFail(new RmaException(ErrorClass.ofCode(reply.code), msg));
    }
    return true;
  }

  /**
   * The request {@code corr} was withdrawn (its caller gave up, and the target was told so): its
   * entry goes, so no answer is waited for any more; a late answer is then one nobody waits for.
   * Returns whether it was pending.
   */
  public boolean withdraw(long corr) {
    return pending.remove(corr) != null;
  }

  /** Number of requests waiting for their answer. */
  public int pendingCount() {
    return pending.size();
  }

  /** Fails every pending request whose target matches with the given failure. */
  public void failAll(IntPredicate targets, RmaException failure) {
    List<Promise<Frame>> failed = new ArrayList<>();
    for (Iterator<Pending> it = pending.values().iterator(); it.hasNext(); ) {
      Pending p = it.next();
      if (targets.test(p.target)) {
        it.remove();
        failed.add(p.promise);
      }
    }
    for (Promise<Frame> p : failed) {
      p.tryFail(failure);
    }
  }

  /** The message of {@code e} without its error class in front (the class travels as a code). */
  public static String messageOf(RmaException e) {
    String m = e.getMessage();
    String prefix = e.errorClass() + ": ";
    return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
  }

  /** Builds the reply to {@code request}: error code 0 for success. */
  public static Frame replyTo(Frame request, int fromRank, ErrorClass error, String message) {
    Frame r = replyTo(request.ctx, request.corr, error, message);
    r.src = fromRank;
    return r;
  }

  /**
   * A reply in context {@code ctx} to request {@code corr}, its source still to be set: success
   * ({@code error} null), or the error class and message.
   */
  public static Frame replyTo(int ctx, long corr, ErrorClass error, String message) {
    Frame r = Frame.of(FrameType.REPLY, 0, ctx);
    r.corr = corr;
    if (error != null) {
      r.code = error.code();
      r.payload = message.getBytes(StandardCharsets.UTF_8);
    }
    return r;
  }
}
