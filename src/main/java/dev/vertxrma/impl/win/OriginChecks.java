package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.Op;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.ops.DatatypeEngine;
import dev.vertxrma.impl.ops.RmaOperation;
import dev.vertxrma.impl.ops.TypeMap;
import dev.vertxrma.impl.sync.PassiveEpoch;
import dev.vertxrma.impl.sync.PscwEpoch;

/**
 * The origin's checks of an RMA call before anything is sent: the epoch it is issued in (fence,
 * PSCW access or a passive-target lock; RMA_SYNC outside every one), the target range against the
 * size the target announced at creation (RMA_RANGE; the target checks again), and the op. On the
 * rank's context only, like the rest of the origin side.
 */
final class OriginChecks {

  private final WindowState state;
  private final int rank;
  private final boolean dynamic;
  private final PscwEpoch pscw;
  private final PassiveEpoch passive;
  private final ActiveTargetSync active;

  OriginChecks(WindowState state, boolean dynamic, PscwEpoch pscw, PassiveEpoch passive, ActiveTargetSync active) {
    this.state = state;
    this.rank = state.rank;
    this.dynamic = dynamic;
    this.pscw = pscw;
    this.passive = passive;
    this.active = active;
  }

  /** The synchronization mode an operation to {@code target} is issued under; RMA_SYNC if none. */
  int syncFor(int target, String call) {
    Group access = pscw.accessGroup();
    if (access != null) {
      if (!access.contains(target)) {
        throw RmaException.of(ErrorClass.RMA_SYNC, "%s to rank %d, which is not in the start group %s", call, target,
            access);
      }
      return RmaOperation.SYNC_PSCW;
    }
    if (passive.holds(target)) {
      return RmaOperation.SYNC_PASSIVE;
    }
    if (active.fenceOpen()) {
      return RmaOperation.SYNC_FENCE;
    }
    throw RmaException.of(ErrorClass.RMA_SYNC, "%s to rank %d at rank %d outside an access epoch: call fence, start, "
        + "lock or lockAll on window %s first", call, target, rank, state.name());
  }

  /** Origin-side range check against the target's announced size (the target checks again). */
  void checkTargetRange(int target, long disp, TypeMap tt, int count, String call) {
    if (dynamic) {
      return; // attached regions are known only at the target, which checks
    }
    long unit = state.unit(target);
    long size = state.size(target);
    long start;
    try {
      start = Math.multiplyExact(disp, unit);
    } catch (ArithmeticException e) {
      start = -1;
    }
    if (start < 0) {
      throw RmaException.of(ErrorClass.RMA_RANGE, "%s target disp=%d x unit %d is outside window size %d at rank %d",
          call, disp, unit, size, target);
    }
    if (!DatatypeEngine.fits(tt, count, start, size)) {
      DatatypeEngine.checkAccess(tt, count, start, size, String.format("%s at target disp=%d (displacement unit %d) "
          + "of window size %d at rank %d", call, disp, unit, size, target), ErrorClass.RMA_RANGE);
    }
  }

  static void checkOp(Op op, TypeMap t) {
    if (op == null) {
      throw new RmaException(ErrorClass.OP, "op is null");
    }
    DatatypeEngine.checkOp(op, t);
  }
}
