package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.ErrorHandler;
import dev.vertxrma.Info;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * MPI error handlers on windows and communicators: a handler sees each failed call's error
 * before the call's future fails, once, only on the object it is attached to; call_errhandler
 * invokes it; ERRORS_ARE_FATAL aborts the job; ERRORS_RETURN is the default.
 */
class ErrorHandlerTest {

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void handlersSeeEachFailureBeforeItsFutureAndOnlyTheirOwn(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
      assertSame(ErrorHandler.ERRORS_RETURN, win.getErrhandler());
      assertSame(ErrorHandler.ERRORS_RETURN, world.getErrhandler());
      assertError(assertThrows(RmaException.class, () -> win.setErrhandler(null)), ErrorClass.ARG);
      List<String> events = new ArrayList<>();
      List<RmaException> winErrors = new ArrayList<>();
      List<RmaException> commErrors = new ArrayList<>();
      win.setErrhandler(e -> {
        events.add("win handler " + e.errorClass());
        winErrors.add(e);
      });
      world.setErrhandler(e -> {
        events.add("comm handler " + e.errorClass());
        commErrors.add(e);
      });
      int peer = 1 - world.rank();
      long[] v = {7};
      // a window call outside any epoch, then one out of range, then an rput (nested put) out of range
      Future<Void> noEpoch = win.put(Buf.of(v), 0, 1, Datatype.LONG, peer, 0)
          .onFailure(t -> events.add("put future " + ((RmaException) t).errorClass()));
      return noEpoch.transform(ar -> win.lockAll())
          .compose(x -> win.put(Buf.of(v), 0, 1, Datatype.LONG, peer, 100)
              .onFailure(t -> events.add("put future " + ((RmaException) t).errorClass()))
              .transform(ar -> win.rput(Buf.of(v), 0, 1, Datatype.LONG, peer, 200)))
          .onFailure(t -> events.add("rput future " + ((RmaException) t).errorClass()))
          .transform(ar -> win.unlockAll())
          // a communicator call with a bad rank, and a handler that throws: the future still fails
          .compose(x -> world.send(Buf.of(v), 0, 1, Datatype.LONG, 5, 0)
              .onFailure(t -> events.add("send future " + ((RmaException) t).errorClass())))
          .transform(ar -> {
            win.setErrhandler(e -> {
              throw new IllegalStateException("a handler with a bug");
            });
            return win.get(Buf.of(v), 0, 1, Datatype.LONG, 9, 0);
          })
          .transform(ar -> {
            assertError(ar.cause(), ErrorClass.RANK);
            RmaException mine = new RmaException(ErrorClass.OTHER, "reported by the program");
            world.setErrhandler(e -> commErrors.add(e));
            return world.callErrhandler(mine).map(x -> mine);
          })
          .compose(mine -> {
            assertEquals(List.of("win handler RMA_SYNC", "put future RMA_SYNC", "win handler RMA_RANGE",
                "put future RMA_RANGE", "win handler RMA_RANGE", "rput future RMA_RANGE", "comm handler RANK",
                "send future RANK"), events);
            assertEquals(3, winErrors.size());
            assertSame(mine, commErrors.get(commErrors.size() - 1), "callErrhandler hands the error over");
            assertEquals(2, commErrors.size());
            world.setErrhandler(ErrorHandler.ERRORS_RETURN);
            win.setErrhandler(ErrorHandler.ERRORS_RETURN);
            return world.barrier();
          })
          .compose(x -> win.free());
    }));
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void errorsAreFatalAbortsTheJob(Jobs.Mode mode) {
    Throwable failure = Jobs.runExpectingFailure(mode, Jobs.options(3), (world, args) ->
        Win.allocate(world, 64, 8, Info.NULL).compose(win -> {
          if (world.rank() != 1) {
            return world.barrier(); // never completes: the job is aborted first
          }
          win.setErrhandler(ErrorHandler.ERRORS_ARE_FATAL);
          return win.put(Buf.of(new long[1]), 0, 1, Datatype.LONG, 0, 0); // outside any epoch
        }));
    assertError(failure, ErrorClass.RMA_SYNC);
    Throwable viaComm = Jobs.runExpectingFailure(mode, Jobs.options(2), (world, args) -> {
      if (world.rank() == 0) {
        world.setErrhandler(ErrorHandler.ERRORS_ARE_FATAL);
        return world.callErrhandler(new RmaException(ErrorClass.OTHER, "the program gave up"))
            .compose(x -> world.barrier());
      }
      return world.barrier();
    });
    assertError(viaComm, ErrorClass.COMM, "ERRORS_ARE_FATAL", "the program gave up");
  }
}
