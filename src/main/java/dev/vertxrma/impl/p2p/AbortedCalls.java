package dev.vertxrma.impl.p2p;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * The collective calls of one rank that a rank of their communicator failed before it took part
 * (its own arguments were wrong): each is a range of tags on a collective context, with the
 * failure that rank reported. A receive of such a call fails with that failure at once, and a
 * message of it that arrives late is dropped, so the call's messages never linger to be matched
 * by a later call. The failing rank tells the others with an abort frame: a SEND frame whose
 * error code is set and whose (otherwise unused) displacement field is {@link #MARK}, its tag
 * the first of the range and its epoch field the range's length. Only the most recent
 * {@link #KEPT} ranges are kept. Runs on the rank's context, as its {@link PointToPoint}.
 */
final class AbortedCalls {

  /** The displacement field of an abort frame ("ABORT" in ASCII). */
  static final long MARK = 0x41424F5254L;
  /** How many aborted ranges are remembered. */
  static final int KEPT = 64;

  private record Range(int ctx, int first, int span, RmaException failure) {
    boolean covers(int c, int tag) {
      return c == ctx && tag - first >= 0 && tag - first < span;
    }
  }

  private final ArrayDeque<Range> ranges = new ArrayDeque<>();

  /** Whether {@code f} is an abort frame. */
  static boolean isAbort(Frame f) {
    return f.type == FrameType.SEND && f.code != 0 && f.disp == MARK;
  }

  /** The abort frame of tags {@code [first, first + span)} on context {@code ctx}, from job rank {@code src}. */
  static Frame frame(int src, int ctx, int first, int span, RmaException failure) {
    Frame f = Frame.of(FrameType.SEND, src, ctx);
    f.tag = first;
    f.disp = MARK;
    f.epoch = span;
    f.code = failure.errorClass().code();
    String prefix = failure.errorClass() + ": ";
    String message = failure.getMessage() == null ? "" : failure.getMessage();
    f.payload = (message.startsWith(prefix) ? message.substring(prefix.length()) : message)
        .getBytes(StandardCharsets.UTF_8);
    f.count = f.payload.length;
    return f;
  }

  /** Records the range of abort frame {@code f} (already validated as one); its failure. */
  RmaException record(Frame f) {
    int span = f.epoch > 0 && f.epoch <= Integer.MAX_VALUE ? (int) f.epoch : 1;
    String text = f.payload == null ? "" : new String(f.payload, StandardCharsets.UTF_8);
    RmaException failure = new RmaException(ErrorClass.ofCode(f.code), text, false);
    record(f.ctx, f.tag, span, failure);
    return failure;
  }

  /** Records tags {@code [first, first + span)} of context {@code ctx} as failed with {@code failure}. */
  void record(int ctx, int first, int span, RmaException failure) {
    if (failureOf(ctx, first) != null) {
      return; // several ranks failed the same call: the first failure heard of stands
    }
    if (ranges.size() == KEPT) {
      ranges.removeFirst();
    }
    ranges.addLast(new Range(ctx, first, span, failure));
  }

  /** The failure of the aborted call that tag {@code tag} of context {@code ctx} belongs to, or {@code null}. */
  RmaException failureOf(int ctx, int tag) {
    if (ranges.isEmpty()) {
      return null;
    }
    for (Range r : ranges) {
      if (r.covers(ctx, tag)) {
        return r.failure();
      }
    }
    return null;
  }

  /** Whether no call is recorded (the common case: nothing to look up). */
  boolean isEmpty() {
    return ranges.isEmpty();
  }
}
