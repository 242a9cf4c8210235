package dev.vertxrma.impl.win;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Op;
import dev.vertxrma.impl.ops.RmaOperation;
import dev.vertxrma.impl.transport.FrameType;

/**
 * The arguments of one RMA communication call — MPI_Put, MPI_Accumulate, MPI_Get,
 * MPI_Get_accumulate (and MPI_Fetch_and_op through it) or MPI_Compare_and_swap — as a mutable
 * record. The origin side fills one reusable instance per window on the rank's own
 * thread (nothing allocated for a call that completes at once) and copies it when the call has to
 * wait for its epoch.
 */
final class RmaCall {

  /** The operation: {@link FrameType#PUT}, {@code ACC}, {@code GET}, {@code GET_ACC} or {@code CAS}. */
  byte type;
  /** The MPI call's name, for messages ({@code "put"}, {@code "rget"} is issued as {@code "get"}). */
  String name;
  Op op;
  Buf origin;
  int originOffset;
  int originCount;
  Datatype originType;
  /** get's destination, getAccumulate's and compareAndSwap's result buffer. */
  Buf result;
  int resultOffset;
  int resultCount;
  Datatype resultType;
  /** compareAndSwap's compare buffer. */
  Buf compare;
  int compareOffset;
  int target;
  long targetDisp;
  int targetCount;
  Datatype targetType;
  /** The target's notification counter it increments (notified RMA), or {@link RmaOperation#NO_NOTIFY}. */
  int notify = RmaOperation.NO_NOTIFY;

  /** put or accumulate of {@code origin} into the target. */
  RmaCall write(byte type, String name, Op op, Buf origin, int originOffset, int originCount, Datatype originType,
      int target, long targetDisp, int targetCount, Datatype targetType) {
    set(type, name, op, target, targetDisp, targetCount, targetType);
    this.origin = origin;
    this.originOffset = originOffset;
    this.originCount = originCount;
    this.originType = originType;
    return this;
  }

  /** get into {@code result}. */
  RmaCall get(Buf result, int resultOffset, int resultCount, Datatype resultType, int target, long targetDisp,
      int targetCount, Datatype targetType) {
    set(FrameType.GET, "get", null, target, targetDisp, targetCount, targetType);
    fetchInto(result, resultOffset, resultCount, resultType);
    return this;
  }

  /** fetchAndOp: a getAccumulate of one predefined element, named and traced as MPI_Fetch_and_op. */
  RmaCall fetchAndOp(Op op, Buf origin, int originOffset, Buf result, int resultOffset, Datatype type, int target,
      long targetDisp) {
    getAccumulate(op, origin, originOffset, 1, type, result, resultOffset, 1, type, target, targetDisp, 1, type);
    name = "fetchAndOp";
    return this;
  }

  /** getAccumulate: {@code origin} op'ed into the target, the former contents into {@code result}. */
  RmaCall getAccumulate(Op op, Buf origin, int originOffset, int originCount, Datatype originType, Buf result,
      int resultOffset, int resultCount, Datatype resultType, int target, long targetDisp, int targetCount,
      Datatype targetType) {
    write(FrameType.GET_ACC, "getAccumulate", op, origin, originOffset, originCount, originType, target, targetDisp,
        targetCount, targetType);
    fetchInto(result, resultOffset, resultCount, resultType);
    return this;
  }

  /** compareAndSwap of one element of {@code type}. */
  RmaCall compareAndSwap(Buf origin, int originOffset, Buf compare, int compareOffset, Buf result, int resultOffset,
      Datatype type, int target, long targetDisp) {
    write(FrameType.CAS, "compareAndSwap", null, origin, originOffset, 1, type, target, targetDisp, 1, type);
    fetchInto(result, resultOffset, 1, type);
    this.compare = compare;
    this.compareOffset = compareOffset;
    return this;
  }

  /** This call, made the notified form named {@code name} (putNotify, ...) that increments counter {@code index}. */
  RmaCall notified(String name, int index) {
    this.name = name;
    this.notify = index;
    return this;
  }

  private void set(byte type, String name, Op op, int target, long targetDisp, int targetCount, Datatype targetType) {
    this.type = type;
    this.name = name;
    this.op = op;
    this.origin = null;
    this.originOffset = 0;
    this.originCount = 0;
    this.originType = null;
    this.result = null;
    this.resultOffset = 0;
    this.resultCount = 0;
    this.resultType = null;
    this.compare = null;
    this.compareOffset = 0;
    this.target = target;
    this.targetDisp = targetDisp;
    this.targetCount = targetCount;
    this.targetType = targetType;
    this.notify = RmaOperation.NO_NOTIFY;
  }

  private void fetchInto(Buf result, int resultOffset, int resultCount, Datatype resultType) {
    this.result = result;
    this.resultOffset = resultOffset;
    this.resultCount = resultCount;
    this.resultType = resultType;
  }

  // what issuing the call did: call-scoped results the origin reads right after issuing it

  /** Its issue number at its target (1 for the first), {@code 0} while it is not counted. */
  long seq;
  /** The fence epoch it was issued in (its frame carries it, however late it is sent). */
  long fenceEpoch;
  /** The future of the frame its body sent and awaits an answer for, or {@code null}. */
  io.vertx.core.Future<?> sent;
  /** Its body sent its frame one way: the acknowledgement that covers it completes it. */
  boolean oneWay;
  /** The instance that waits for the call's epoch and runs its body later, or {@code null}. */
  RmaCall held;

  /** A copy of the arguments that outlives this instance's reuse (the call waits for its epoch). */
  RmaCall copy() {
    RmaCall c = new RmaCall();
    c.type = type;
    c.name = name;
    c.op = op;
    c.origin = origin;
    c.originOffset = originOffset;
    c.originCount = originCount;
    c.originType = originType;
    c.result = result;
    c.resultOffset = resultOffset;
    c.resultCount = resultCount;
    c.resultType = resultType;
    c.compare = compare;
    c.compareOffset = compareOffset;
    c.target = target;
    c.targetDisp = targetDisp;
    c.targetCount = targetCount;
    c.targetType = targetType;
    c.notify = notify;
    c.fenceEpoch = fenceEpoch;
    return c;
  }

  /** Drops the references to the caller's buffers (the reusable instance must not keep them reachable). */
  void clear() {
    origin = null;
    result = null;
    compare = null;
    originType = null;
    resultType = null;
    targetType = null;
    op = null;
    notify = RmaOperation.NO_NOTIFY;
    seq = 0;
    fenceEpoch = 0;
    sent = null;
    oneWay = false;
    held = null;
  }
}
