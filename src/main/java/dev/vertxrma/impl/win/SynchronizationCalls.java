package dev.vertxrma.impl.win;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.observe.RankObserver;
import dev.vertxrma.impl.observe.Sync;
import dev.vertxrma.impl.transport.Endpoint;
import io.vertx.core.Future;
import java.util.function.Function;

/**
 * The synchronization calls of one rank's window, as the MPI standard calls them: fence and
 * post/start/complete/wait/test (active target), lock/unlock, lock_all/unlock_all, the flushes
 * and sync (passive target). Each checks that the window is live and its arguments (ranks,
 * groups in the window's numbering, whether the window takes locks now), observes the call, and
 * hands it to {@link ActiveTargetSync} or {@link PassiveTargetSync}. Every call runs through
 * {@link WinImpl#call}: on the rank's context, its failure shown to the window's error handler.
 */
final class SynchronizationCalls {

  private final WinImpl win;
  private final int id;
  private final int rank;
  private final Endpoint rp;
  private final WindowState state;
  private final WindowRegistry registry;
  private final WindowInfo info;
  private final ActiveTargetSync active;
  private final PassiveTargetSync passiveSync;
  private final RankObserver observer;
  /** {@link #flushNow} as a function, made once (a flush that completes at once allocates nothing). */
  private final Function<Integer, Future<Void>> flushNow = this::flushNow;

  SynchronizationCalls(WinImpl win, Endpoint rp, WindowState state, WindowRegistry registry, WindowInfo info,
      ActiveTargetSync active, PassiveTargetSync passiveSync, RankObserver observer) {
    this.win = win;
    this.id = state.id;
    this.rank = state.rank;
    this.rp = rp;
    this.state = state;
    this.registry = registry;
    this.info = info;
    this.active = active;
    this.passiveSync = passiveSync;
    this.observer = observer;
  }

  // ------------------------------------------------------------------ active target

  /** MPI_Win_fence. */
  Future<Void> fence(Mode... assertions) {
    return win.call(() -> {
      state.checkLive("fence");
      return active.fence(assertions);
    });
  }

  /** MPI_Win_post of {@code group} (job ranks). */
  Future<Void> post(Group group, Mode... assertions) {
    return win.call(() -> {
      state.checkLive("post");
      if (group == null) {
        throw new RmaException(ErrorClass.GROUP, "post group is null");
      }
      return active.post(windowRanks(group, "post"), assertions);
    });
  }

  /** MPI_Win_start of {@code group} (job ranks). */
  Future<Void> start(Group group, Mode... assertions) {
    return win.call(() -> {
      state.checkLive("start");
      if (group == null) {
        throw new RmaException(ErrorClass.GROUP, "start group is null");
      }
      return active.start(windowRanks(group, "start"), assertions);
    });
  }

  /** MPI_Win_complete. */
  Future<Void> complete() {
    return win.call(() -> {
      state.checkLive("complete");
      return active.complete();
    });
  }

  /** MPI_Win_wait. */
  Future<Void> waitFor() {
    return win.call(() -> {
      state.checkLive("waitFor");
      return active.waitFor();
    });
  }

  /** MPI_Win_test. */
  Future<Boolean> test() {
    return win.call(() -> {
      state.checkLive("test");
      return active.test();
    });
  }

  // ------------------------------------------------------------------ passive target

  /** MPI_Win_lock; a no-op on PROC_NULL. */
  Future<Void> lock(LockType type, int targetRank, Mode... assertions) {
    return win.call(() -> {
      state.checkLive("lock");
      int bits = Mode.bits(assertions);
      if (type == null) {
        throw new RmaException(ErrorClass.ARG, "lock type is null");
      }
      if (targetRank == Comm.PROC_NULL) {
        return rp.context().succeededFuture(); // no epoch, no state: a no-op like every call on PROC_NULL
      }
      state.checkRank(targetRank, "lock");
      checkLockable("lock");
      return observer.sync(id, type == LockType.EXCLUSIVE ? Sync.LOCK_EXCLUSIVE : Sync.LOCK_SHARED, targetRank,
          passiveSync.lock(type, targetRank, (bits & Mode.NOCHECK.bit()) != 0));
    });
  }

  /** RMA_SYNC if the window takes no locks or is in a post/start epoch; ends fence mode. */
  private void checkLockable(String call) {
    if (info.noLocks()) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "%s on window %s, created with info no_locks=true", call,
          state.name());
    }
    if (active.inPscwEpoch()) {
      throw RmaException.of(ErrorClass.RMA_SYNC, "%s at rank %d during a post/start epoch on window %s", call, rank,
          state.name());
    }
    active.leaveFenceMode(call);
  }

  /** MPI_Win_unlock; a no-op on PROC_NULL. */
  Future<Void> unlock(int targetRank) {
    return win.call(() -> {
      state.checkLive("unlock");
      if (targetRank == Comm.PROC_NULL) {
        return rp.context().succeededFuture();
      }
      state.checkRank(targetRank, "unlock");
      return observer.sync(id, Sync.UNLOCK, targetRank, passiveSync.unlock(targetRank));
    });
  }

  /** MPI_Win_lock_all. */
  Future<Void> lockAll(Mode... assertions) {
    return win.call(() -> {
      state.checkLive("lockAll");
      int bits = Mode.bits(assertions);
      checkLockable("lockAll");
      return observer.sync(id, Sync.LOCK_ALL, -1, passiveSync.lockAll((bits & Mode.NOCHECK.bit()) != 0));
    });
  }

  /** MPI_Win_unlock_all. */
  Future<Void> unlockAll() {
    return win.call(() -> {
      state.checkLive("unlockAll");
      return observer.sync(id, Sync.UNLOCK_ALL, -1, passiveSync.unlockAll());
    });
  }

  /** MPI_Win_flush; a no-op on PROC_NULL. Allocates nothing when it completes at once. */
  Future<Void> flush(int targetRank) {
    return win.call(flushNow, targetRank);
  }

  private Future<Void> flushNow(Integer targetRank) {
    state.checkLive("flush");
    if (targetRank == Comm.PROC_NULL) {
      return rp.context().succeededFuture();
    }
    state.checkRank(targetRank, "flush");
    RmaException dead = rp.peerFailure(targetRank);
    if (dead != null) {
      throw dead; // ULFM: nothing to it completes any more
    }
    return observer.sync(id, Sync.FLUSH, targetRank, passiveSync.flush(targetRank));
  }

  /** MPI_Win_flush_all. */
  Future<Void> flushAll() {
    return win.call(() -> {
      state.checkLive("flushAll");
      return observer.sync(id, Sync.FLUSH_ALL, -1, passiveSync.flushAll());
    });
  }

  /** MPI_Win_flush_local: here the same as {@link #flush}. */
  Future<Void> flushLocal(int targetRank) {
    return flush(targetRank);
  }

  /** MPI_Win_flush_local_all: here the same as {@link #flushAll}. */
  Future<Void> flushLocalAll() {
    return flushAll();
  }

  /** MPI_Win_sync. */
  Future<Void> sync() {
    return win.call(() -> {
      state.checkLive("sync");
      return passiveSync.sync();
    });
  }

  /**
   * A post or start group, whose members are processes named by job rank ({@link Group}), in
   * this window's rank numbering; GROUP for a process outside the window's communicator.
   */
  private Group windowRanks(Group group, String call) {
    int[] job = group.ranks();
    int[] ranks = new int[job.length];
    for (int i = 0; i < job.length; i++) {
      ranks[i] = rp.rankOf(job[i]);
      int np = registry.process().size();
      if (job[i] >= np) {
        throw RmaException.of(ErrorClass.RANK, "%s group %s names rank %d, the job has %d ranks", call, group, job[i],
            np);
      }
      if (ranks[i] < 0) {
        throw RmaException.of(ErrorClass.GROUP, "%s group %s names job rank %d, which is not in the communicator of "
            + "window %s", call, group, job[i], state.name());
      }
    }
    return Group.of(rank, ranks);
  }
}
