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
    if (i.get(Info.ACCUMULATE_GRANULARITY) == null) {
      i = i.with(Info.ACCUMULATE_GRANULARITY, "0");
    }
    return i;
  }

  /** The alignment of library-allocated memory when no {@code mpi_minimum_memory_alignment} is given. */
  static final long DEFAULT_ALIGNMENT = dev.vertxrma.impl.memory.WindowMemory.NATIVE_ALIGNMENT;
  /** The largest {@code mpi_minimum_memory_alignment} honoured: a page (a mapped file starts on one). */
  static final long MAX_ALIGNMENT = 4096;

  /**
   * The {@code mpi_minimum_memory_alignment} {@code given} asks for, or {@code def}.
   *
   * @throws RmaException INFO for a value that is not a power of two from 1 to {@link #MAX_ALIGNMENT}
   */
  static long alignment(Info given, long def) {
    String v = given == null ? null : given.get(Info.MINIMUM_MEMORY_ALIGNMENT);
    if (v == null) {
      return def;
    }
    long a = parse(Info.MINIMUM_MEMORY_ALIGNMENT, v);
    if (a < 1 || a > MAX_ALIGNMENT || Long.bitCount(a) != 1) {
      throw RmaException.of(ErrorClass.INFO, "%s=%s: the alignment must be a power of two from 1 to %d (a page)",
          Info.MINIMUM_MEMORY_ALIGNMENT, v, MAX_ALIGNMENT);
    }
    return a;
  }

  /**
   * Whether {@code given} says {@code alloc_shared_noncontig=true}.
   *
   * @throws RmaException INFO for a value other than true or false
   */
  static boolean noncontig(Info given) {
    String v = given == null ? null : given.get(Info.ALLOC_SHARED_NONCONTIG);
    if (v == null || v.equalsIgnoreCase("false")) {
      return false;
    }
    if (v.equalsIgnoreCase("true")) {
      return true;
    }
    throw RmaException.of(ErrorClass.INFO, "%s=%s: the value must be true or false", Info.ALLOC_SHARED_NONCONTIG, v);
  }

  /**
   * Checks the values of the creation-time keys that {@code given} sets and the library honours
   * ({@code mpi_minimum_memory_alignment}, {@code alloc_shared_noncontig},
   * {@code mpi_accumulate_granularity}).
   *
   * @throws RmaException INFO, naming the key and the values it takes
   */
  static void checkCreationHints(Info given) {
    if (given == null) {
      return;
    }
    alignment(given, DEFAULT_ALIGNMENT);
    noncontig(given);
    String g = given.get(Info.ACCUMULATE_GRANULARITY);
    if (g != null) {
      checkInfoValue(Info.ACCUMULATE_GRANULARITY, g);
    }
  }

  private static long parse(String key, String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw RmaException.of(ErrorClass.INFO, "%s=%s is not an integer", key, value);
    }
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
      case Info.ACCUMULATE_GRANULARITY:
        ok = value.trim().matches("\\d{1,18}");
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
   * key does not take. The keys fixed at creation ({@code mpi_minimum_memory_alignment},
   * {@code alloc_shared_noncontig}: the memory is laid out) keep their values, as MPI lets an
   * implementation ignore a hint, so {@link #get} goes on reporting the values in use. Every rank learns every rank's verdict on a change of {@code no_locks}
   * (RMA_SYNC if a lock is held or waited for at a target, or a rank holds a passive-target
   * epoch), so the hints change everywhere or nowhere; the future completes when every rank has
   * switched.
   */
  Future<Void> set(Info hints) {
    Info next = info;
    if (hints != null) {
      for (String key : hints.keys()) {
        checkInfoValue(key, hints.get(key));
        if (!key.equals(Info.MINIMUM_MEMORY_ALIGNMENT) && !key.equals(Info.ALLOC_SHARED_NONCONTIG)) {
          next = next.with(key, hints.get(key));
        }
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
