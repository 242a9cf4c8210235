package dev.vertxrma.impl.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A lock request still queued at the target when the target's window is released is refused
 * with WIN, not dropped unanswered (which left the origin waiting until its wait timeout).
 *
 * <p>A collective {@link Win#free()} cannot leave a request queued: free refuses a rank inside a
 * lock epoch, so the holder unlocks before it frees, and its unlock reaches the target ahead of
 * its part of free's barrier, which grants the queued request before the release. The release
 * that can meet a queued request is the one a rank performs on a window it never freed when it
 * finalizes (WindowRegistry's close hook calls {@code releaseNow}); it runs after the job's final
 * barrier, where no rank program can watch the answer, so rank 1 calls that same
 * {@code releaseNow} here in the middle of the job.
 */
class QueuedLockAtReleaseTest {

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aQueuedLockRequestIsRefusedWithWinWhenTheTargetReleasesTheWindow(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, 8, 1, Info.NULL).compose(win -> {
      int r = world.rank();
      WinImpl impl = (WinImpl) win;
      Future<Void> held = r == 0 ? win.lock(LockType.EXCLUSIVE, 1) : Future.succeededFuture();
      return held.compose(v -> world.barrier()) // rank 0 holds the exclusive lock on rank 1's window
          .compose(v -> {
            if (r == 0) {
              return world.barrier() // rank 1 has released its window
                  // the unlock reaches a window rank 1 released: it completes either way, never hangs
                  .compose(x -> win.unlock(1).transform(ar -> Future.<Void>succeededFuture()))
                  .compose(x -> impl.releaseNow());
            }
            if (r == 1) {
              // rank 2's request came before its message (one source's frames keep their order):
              // it is queued behind rank 0's lock when the window is released
              return world.recv(Buf.of(new int[1]), 0, 1, Datatype.INT, 2, 5)
                  .compose(st -> impl.releaseNow())
                  .compose(x -> world.barrier());
            }
            Future<Void> queued = win.lock(LockType.EXCLUSIVE, 1);
            // unanswered, it would fail at the job's wait timeout (30 s, Jobs.options) with TIMEOUT:
            // refused by the release, it fails with WIN naming the release, whatever the load
            return world.send(Buf.of(new int[] {1}), 0, 1, Datatype.INT, 1, 5)
                .compose(x -> queued.transform(ar -> {
                  assertTrue(ar.failed(), "rank 2's lock was granted on a released window");
                  RmaException e = (RmaException) ar.cause();
                  assertEquals(ErrorClass.WIN, e.errorClass(), e.getMessage());
                  assertTrue(e.getMessage().contains("was freed before rank 2's lock request was granted"),
                      e.getMessage());
                  return Future.<Void>succeededFuture();
                }))
                .compose(x -> world.barrier())
                .compose(x -> impl.releaseNow());
          })
          .compose(v -> world.barrier());
    }));
  }
}
