package dev.vertxrma.impl.win;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;

/**
 * The notified RMA calls of the {@link Win} facade (MPI 5.1 draft): MPI_Put_notify,
 * MPI_Get_notify, MPI_Accumulate_notify, MPI_Get_accumulate_notify and their request forms, each
 * issued as its plain counterpart carrying a notification index ({@link OriginOperations},
 * {@link RequestOperations}); MPI_Win_set_num_notify, _get_num_notify, _get_notify_value,
 * _reset_notify_value and {@code awaitNotify}, handed to the window's {@link WindowNotifications}.
 * {@link WinImpl}, the facade, extends it and names those parts.
 */
abstract class NotifiedWindow extends WindowSynchronization {

  /** The origin side of the window's RMA calls. */
  abstract OriginOperations originOperations();

  /** The window's request-based calls. */
  abstract RequestOperations requestOperations();

  /** The window's notification counters and waiters. */
  abstract WindowNotifications notificationCounters();

  @Override
  public Future<Void> putNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int notificationIdx) {
    OriginOperations o = originOperations();
    return o.issue(o.call().write(FrameType.PUT, "put", Op.REPLACE, origin, originOffset, originCount, originType,
        targetRank, targetDisp, targetCount, targetType).notified("putNotify", notificationIdx));
  }

  @Override
  public Future<Void> getNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int notificationIdx) {
    OriginOperations o = originOperations();
    return o.issue(o.call().get(origin, originOffset, originCount, originType, targetRank, targetDisp, targetCount,
        targetType).notified("getNotify", notificationIdx));
  }

  @Override
  public Future<Void> accumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType,
      int targetRank, long targetDisp, int targetCount, Datatype targetType, Op op, int notificationIdx) {
    OriginOperations o = originOperations();
    return o.issue(o.call().write(FrameType.ACC, "accumulate", op, origin, originOffset, originCount, originType,
        targetRank, targetDisp, targetCount, targetType).notified("accumulateNotify", notificationIdx));
  }

  @Override
  public Future<Void> getAccumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType,
      Buf result, int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp,
      int targetCount, Datatype targetType, Op op, int notificationIdx) {
    OriginOperations o = originOperations();
    return o.issue(o.call().getAccumulate(op, origin, originOffset, originCount, originType, result, resultOffset,
        resultCount, resultType, targetRank, targetDisp, targetCount, targetType)
        .notified("getAccumulateNotify", notificationIdx));
  }

  @Override
  public Future<Void> rputNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int notificationIdx) {
    return requestOperations().rputNotify(origin, originOffset, originCount, originType, targetRank, targetDisp,
        targetCount, targetType, notificationIdx);
  }

  @Override
  public Future<Void> rgetNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int notificationIdx) {
    return requestOperations().rgetNotify(origin, originOffset, originCount, originType, targetRank, targetDisp,
        targetCount, targetType, notificationIdx);
  }

  @Override
  public Future<Void> raccumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType,
      int targetRank, long targetDisp, int targetCount, Datatype targetType, Op op, int notificationIdx) {
    return requestOperations().raccumulateNotify(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType, op, notificationIdx);
  }

  @Override
  public Future<Void> rgetAccumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType,
      Buf result, int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp,
      int targetCount, Datatype targetType, Op op, int notificationIdx) {
    return requestOperations().rgetAccumulateNotify(origin, originOffset, originCount, originType, result,
        resultOffset, resultCount, resultType, targetRank, targetDisp, targetCount, targetType, op, notificationIdx);
  }

  @Override
  public Future<Void> setNumNotify(int n) {
    return notificationCounters().setNumNotifyCall(n);
  }

  @Override
  public int numNotify() {
    return notificationCounters().count();
  }

  @Override
  public Future<Long> notifyValue(int notificationIdx) {
    return notificationCounters().valueCall(notificationIdx);
  }

  @Override
  public Future<Long> resetNotifyValue(int notificationIdx) {
    return notificationCounters().resetCall(notificationIdx);
  }

  @Override
  public Future<Long> awaitNotify(int notificationIdx, long threshold) {
    return notificationCounters().awaitCall(notificationIdx, threshold);
  }
}
