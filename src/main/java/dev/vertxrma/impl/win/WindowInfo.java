package dev.vertxrma.impl.win;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.coll.Collectives;
import dev.vertxrma.impl.sync.PassiveEpoch;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;

/**
 * The info hints of one rank's window (MPI_Win_get_info, MPI_Win_set_info): the hints given at
 * creation with the implementation's defaults for the keys it honours, the values each key takes,
 * and {@link #set}: a collective change, which every rank makes or none does. Only
 * {@code no_locks} changes what the window does (the target refuses or takes locks); it is
 * switched through the single-owner {@link TargetWindow}. Changed only on the rank's context.
 */
final class WindowInfo {

  private final Endpoint rp;
  private final WindowState state;
  private final TargetWindow targetWindow;
  private final PassiveEpoch passive;
  private final Collectives coll;
  private volatile Info info;
  /** Changed only by {@link #set}, on the rank's context. */
  private boolean noLocks;

  /** The hints {@code effective} ({@link #withDefaults}) of a window whose target side is {@code targetWindow}. */
  WindowInfo(Info effective, Endpoint rp, WindowState state, TargetWindow targetWindow, PassiveEpoch passive,
      Collectives coll) {
    this.rp = rp;
    this.state = state;
    this.targetWindow = targetWindow;
    this.passive = passive;
    this.coll = coll;
    this.info = effective;
    this.noLocks = noLocks(effective);
  }

  /** {@code given} with the implementation's defaults of the keys it honours that {@code given} leaves out. */
  static Info withDefaults(Info given) {
    Info i = given;
    if (i.get(Info.ACCUMULATE_ORDERING) == null) {
      i = i.with(Info.ACCUMULATE_ORDERING, "rar,raw,war,waw");
    }
    if (i.get(Info.ACCUMULATE_OPS) == null) {
      i = i.with(Info.ACCUMULATE_OPS, "same_op_no_op");
    }
    if (i.get(Info.NO_LOCKS) == null) {
      i = i.with(Info.NO_LOCKS, "false");
    }
    return i;
  }

  /** Whether {@code hints} say {@code no_locks=true}. */
  static boolean noLocks(Info hints) {
    return "true".equalsIgnoreCase(hints.get(Info.NO_LOCKS));
  }

  /** The window's hints now. */
  Info get() {
    return info;
  }

  /** Whether the window takes no locks ({@code no_locks=true}) now. */
  boolean noLocks() {
    return noLocks;
  }

  /** The info keys {@link #set} honours, and the values each takes. */
  private static void checkInfoValue(String key, String value) {
    boolean ok;
    switch (key) {
      case Info.NO_LOCKS:
        ok = value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false");
        break;
      case Info.ACCUMULATE_ORDERING:
        ok = value.equals("none") || value.matches("(rar|raw|war|waw)(,(rar|raw|war|waw))*");
        break;
      case Info.ACCUMULATE_OPS:
        ok = value.equals("same_op") || value.equals("same_op_no_op");
        break;
      default:
        ok = true; // unknown keys are kept and ignored, as MPI allows
    }
    if (!ok) {
      throw RmaException.of(ErrorClass.INFO, "setInfo: %s=%s is not a valid value of %s", key, value, key);
    }
  }

  /**
   * MPI_Win_set_info (collective): merges {@code hints} into the window's; INFO for a value a
   * key does not take. Every rank learns every rank's verdict on a change of {@code no_locks}
   * (RMA_SYNC if a lock is held or waited for at a target, or a rank holds a passive-target
   * epoch), so the hints change everywhere or nowhere; the future completes when every rank has
   * switched.
   */
  Future<Void> set(Info hints) {
    Info next = info;
    if (hints != null) {
      for (String key : hints.keys()) {
        checkInfoValue(key, hints.get(key));
        next = next.with(key, hints.get(key));
      }
    }
    Info merged = next;
    boolean wantNoLocks = noLocks(merged);
    Future<String> targetRefusal = wantNoLocks == noLocks ? rp.context().succeededFuture("")
        : targetWindow.noLocksRefusal(wantNoLocks);
    // every rank learns every rank's verdict: the hints change everywhere or nowhere
    return targetRefusal.map(r -> !r.isEmpty() ? r : wantNoLocks != noLocks && passive.isOpen()
        ? "rank " + state.rank + " holds a passive-target epoch on window " + state.name() : "")
        .compose(refusal -> coll.allgather(refusal.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
        .compose(verdicts -> {
      for (byte[] v : verdicts) {
        if (v.length > 0) {
          return rp.context().<Void>failedFuture(RmaException.of(ErrorClass.RMA_SYNC,
              "setInfo no_locks=%s refused: %s", wantNoLocks, new String(v, java.nio.charset.StandardCharsets.UTF_8)));
        }
      }
      return targetWindow.setNoLocks(wantNoLocks);
    }).compose(v -> {
      noLocks = wantNoLocks;
      info = merged;
      return coll.barrier(); // every rank has switched before any goes on
    });
  }
}
