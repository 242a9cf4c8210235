package dev.vertxrma.impl.win;

import dev.vertxrma.Group;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Win;
import io.vertx.core.Future;

/**
 * The synchronization calls of the {@link Win} facade — MPI_Win_fence; MPI_Win_post, _start,
 * _complete, _wait and _test; MPI_Win_lock, _unlock, _lock_all and _unlock_all; MPI_Win_flush,
 * _flush_all, _flush_local and _flush_local_all; MPI_Win_sync — each handed to the window's
 * {@link SynchronizationCalls}, which checks it and runs it on the rank's context. {@link WinImpl},
 * the facade, extends it and names that part.
 */
abstract class WindowSynchronization implements Win {

  /** The part that checks and runs this window's synchronization calls. */
  abstract SynchronizationCalls synchronization();

  @Override
  public Future<Void> fence(Mode... assertions) {
    return synchronization().fence(assertions);
  }

  @Override
  public Future<Void> post(Group group, Mode... assertions) {
    return synchronization().post(group, assertions);
  }

  @Override
  public Future<Void> start(Group group, Mode... assertions) {
    return synchronization().start(group, assertions);
  }

  @Override
  public Future<Void> complete() {
    return synchronization().complete();
  }

  @Override
  public Future<Void> waitFor() {
    return synchronization().waitFor();
  }

  @Override
  public Future<Boolean> test() {
    return synchronization().test();
  }

  @Override
  public Future<Void> lock(LockType type, int targetRank, Mode... assertions) {
    return synchronization().lock(type, targetRank, assertions);
  }

  @Override
  public Future<Void> unlock(int targetRank) {
    return synchronization().unlock(targetRank);
  }

  @Override
  public Future<Void> lockAll(Mode... assertions) {
    return synchronization().lockAll(assertions);
  }

  @Override
  public Future<Void> unlockAll() {
    return synchronization().unlockAll();
  }

  @Override
  public Future<Void> flush(int targetRank) {
    return synchronization().flush(targetRank);
  }

  @Override
  public Future<Void> flushAll() {
    return synchronization().flushAll();
  }

  @Override
  public Future<Void> flushLocal(int targetRank) {
    return synchronization().flushLocal(targetRank);
  }

  @Override
  public Future<Void> flushLocalAll() {
    return synchronization().flushLocalAll();
  }

  @Override
  public Future<Void> sync() {
    return synchronization().sync();
  }
}
