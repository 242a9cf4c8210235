package dev.vertxrma.impl.runtime;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.ErrorHandler;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import java.util.function.Consumer;

/**
 * The error handler slot of one window or communicator: runs the handler with the error of each
 * failed call before the call's future fails. With the default {@link ErrorHandler#ERRORS_RETURN}
 * a call's future is returned as it is (no wrapping, no allocation).
 */
public final class ErrorHandling {

  private static final System.Logger LOG = System.getLogger(ErrorHandling.class.getName());

  private final String owner;
  private final Consumer<RmaException> abort;
  private volatile ErrorHandler handler = ErrorHandler.ERRORS_RETURN;
  /**
   * The error a failed call last handed to a handler, and that handler: a failure that travels
   * through nested calls is handled once by one handler.
   */
  private RmaException lastHandled;
  private ErrorHandler lastHandler;

  /**
   * @param owner what the slot belongs to, for log messages (e.g. "window w3 of rank 1")
   * @param abort how {@link ErrorHandler#ERRORS_ARE_FATAL} ends the job
   */
  public ErrorHandling(String owner, Consumer<RmaException> abort) {
    this.owner = owner;
    this.abort = abort;
  }

  /** MPI_*_get_errhandler. */
  public ErrorHandler get() {
    return handler;
  }

  /** MPI_*_set_errhandler; {@code null} fails with ARG. */
  public void set(ErrorHandler h) {
    if (h == null) {
      throw new RmaException(ErrorClass.ARG, "error handler is null; use ErrorHandler.ERRORS_RETURN for none");
    }
    handler = h;
  }

  /** {@code f}, or a future that fails the same way after the handler has seen its error. */
  public <T> Future<T> apply(Future<T> f) {
    ErrorHandler h = handler;
    if (h == ErrorHandler.ERRORS_RETURN || (f.isComplete() && f.succeeded())) {
      return f;
    }
    return f.transform(ar -> {
      if (ar.failed()) {
        callOnce(h, ar.cause());
      }
      return f;
    });
  }

  /**
   * MPI_*_call_errhandler: runs the handler in place with {@code error}, every time it is called
   * (the same exception twice runs the handler twice; a handler set in between sees the second).
   */
  public void call(RmaException error) {
    invoke(handler, error);
  }

  /** The handler {@code h} sees a failed call's error, unless it has seen that error already. */
  private void callOnce(ErrorHandler h, Throwable cause) {
    RmaException e = cause instanceof RmaException ? (RmaException) cause
        : new RmaException(ErrorClass.OTHER, String.valueOf(cause), cause);
    if (e == lastHandled && h == lastHandler) {
      return;
    }
    lastHandled = e;
    lastHandler = h;
    invoke(h, e);
  }

  private void invoke(ErrorHandler h, RmaException e) {
    if (h == ErrorHandler.ERRORS_RETURN) {
      return;
    }
    if (h == ErrorHandler.ERRORS_ARE_FATAL) {
      abort.accept(e);
      return;
    }
    try {
      h.handle(e);
    } catch (RuntimeException | Error t) {
      LOG.log(System.Logger.Level.WARNING, "the error handler of " + owner + " threw " + t + " while handling "
          + e.getMessage());
    }
  }
}
