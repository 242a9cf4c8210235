package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Latch;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a call that failed leaves behind: a waitFor that timed out closes its exposure epoch at
 * the target and withdraws its post at the members, so the next post and start match; and
 * call_errhandler runs the handler at every call, even with the same exception.
 */
class TimedOutCallsTest {

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aWaitForThatTimedOutLeavesNoExposureOpen(Jobs.Mode mode) {
    // every wait of the job is bounded by 1 s; only the two meant to time out wait it out: the
    // other waits start once their peers are there (program-level latches, which no timeout
    // bounds), so that a loaded machine's late start-up or late timer cannot fail them
    Latch firstTimedOut = new Latch(); // rank 0's first waitFor failed: its POST_WITHDRAWN is sent
    Latch settled = new Latch(); // rank 1 handled it: rank 0 posts again
    Latch lastStartFailed = new Latch(); // rank 1's last start timed out: both free the window
    Throwable failed = Jobs.runExpectingFailure(mode, Jobs.options(2).setWaitTimeoutMs(1000), (world, args) ->
        Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
          io.vertx.core.Vertx vertx = io.vertx.core.Vertx.currentContext().owner();
          if (world.rank() == 0) {
            // nobody starts an epoch on this post: waitFor times out
            return win.post(world.group().incl(1)).compose(v -> win.waitFor()).transform(ar -> {
              firstTimedOut.open(); // whatever the outcome: a failure here must not leave rank 1 waiting
              assertTrue(ar.failed(), "waitFor without a matching complete succeeded");
              assertEquals(ErrorClass.TIMEOUT, ((RmaException) ar.cause()).errorClass(), ar.cause().toString());
              return settled.opened();
            }).compose(v -> win.post(world.group().incl(1))) // refused with RMA_SYNC before the fix
                .compose(v -> win.waitFor())
                .map(v -> {
                  assertEquals(42L, win.memory().readLong(8), "the put of the epoch that matched the second post");
                  return null;
                })
                .compose(v -> lastStartFailed.opened())
                .compose(v -> win.free());
          }
          // The withdrawal is one frame (or block) from rank 0, sent before its waitFor failed; the
          // 500 ms let it land before this start, which must then wait for the second post
          // instead of matching the first. No wait of the job runs meanwhile (rank 0 waits for
          // the latch), so the delay costs no margin to the 1 s timeout; one hop takes
          // milliseconds on 2 loaded cores. Landing late would make the test fail, not pass.
          return firstTimedOut.opened().compose(v -> vertx.timer(500)).compose(v -> {
            settled.open();
            return win.start(world.group().incl(0)); // the first post was withdrawn: matches the second
          }).onFailure(e -> lastStartFailed.open())
              .compose(v -> win.put(Buf.of(new long[] {42}), 0, 1, Datatype.LONG, 0, 1))
              .compose(v -> win.complete())
              .compose(v -> win.start(world.group().incl(0))) // matches no post: the withdrawn one is forgotten
              .transform(ar -> {
                lastStartFailed.open();
                assertTrue(ar.failed(), "a start matched the post that was withdrawn");
                assertEquals(ErrorClass.TIMEOUT, ((RmaException) ar.cause()).errorClass(), ar.cause().toString());
                return win.free();
              });
        }));
    assertEquals(null, failed, "the job failed: " + failed);
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void aLockRequestThatTimedOutLeavesNoPendingReply(Jobs.Mode mode) {
    // waits bounded by 1 s; rank 0 holds the lock until rank 2's request for it timed out. Latches
    // (no wait of the job) order the rest: rank 2 asks once rank 0 holds the lock (a timer did,
    // which a late grant on a loaded machine could outrun), and the others meet rank 2 in the
    // barrier once it gave up, so that only rank 2's lock waits the timeout out
    Latch held = new Latch();
    Latch gaveUp = new Latch();
    Throwable failed = Jobs.runExpectingFailure(mode, Jobs.options(3).setWaitTimeoutMs(1000), (world, args) ->
        Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
          dev.vertxrma.impl.runtime.RankProcess process = ((dev.vertxrma.impl.comm.CommImpl) world).process();
          io.vertx.core.Future<Void> part;
          if (world.rank() == 0) {
            // the unlock may reach rank 1 before or after rank 2's LOCK_CANCEL: either way the
            // cancelled request must leave nothing queued or granted
            part = win.lock(dev.vertxrma.LockType.EXCLUSIVE, 1).onComplete(ar -> held.open())
                .compose(v -> gaveUp.opened()).compose(v -> win.unlock(1));
          } else if (world.rank() == 2) {
            part = held.opened().compose(v -> win.lock(dev.vertxrma.LockType.EXCLUSIVE, 1)).transform(ar -> {
              gaveUp.open();
              assertTrue(ar.failed(), "the lock was granted while rank 0 held it");
              assertEquals(ErrorClass.TIMEOUT, ((RmaException) ar.cause()).errorClass(), ar.cause().toString());
              assertEquals(0, process.pendingRequests(), "a reply is still waited for after the lock timed out");
              return io.vertx.core.Future.succeededFuture();
            });
          } else {
            part = gaveUp.opened();
          }
          return part.compose(v -> world.barrier())
              // the cancelled request left nothing at the target: rank 2 locks it now
              .compose(v -> world.rank() == 2 ? win.lock(dev.vertxrma.LockType.EXCLUSIVE, 1)
                  .compose(x -> win.unlock(1)) : io.vertx.core.Future.succeededFuture())
              .compose(v -> world.barrier()).compose(v -> win.free());
        }));
    assertEquals(null, failed, "the job failed: " + failed);
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void callErrhandlerRunsTheHandlerEveryTime(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
      List<String> seen = new ArrayList<>();
      RmaException error = new RmaException(ErrorClass.OTHER, "raised by the program");
      win.setErrhandler(e -> seen.add("first " + e.getMessage()));
      world.setErrhandler(e -> seen.add("comm " + e.getMessage()));
      return win.callErrhandler(error)
          .compose(v -> win.callErrhandler(error))
          .compose(v -> {
            win.setErrhandler(e -> seen.add("second " + e.getMessage()));
            return win.callErrhandler(error);
          })
          .compose(v -> world.callErrhandler(error))
          .compose(v -> world.callErrhandler(error))
          .map(v -> {
            assertEquals(List.of("first OTHER: raised by the program", "first OTHER: raised by the program",
                "second OTHER: raised by the program", "comm OTHER: raised by the program",
                "comm OTHER: raised by the program"), seen);
            return null;
          }).compose(v -> world.barrier()).compose(v -> win.free());
    }));
  }
}
