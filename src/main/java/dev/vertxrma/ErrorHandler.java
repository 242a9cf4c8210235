package dev.vertxrma;

/**
 * An MPI error handler (MPI_Errhandler) of a {@link Win} or a {@link Comm}: called with the
 * {@link RmaException} of every call on that window or communicator that fails, just before the
 * call's future fails with it. A lambda is MPI_Win_create_errhandler /
 * MPI_Comm_create_errhandler; {@link Win#setErrhandler} and {@link Comm#setErrhandler} attach it.
 *
 * <p>Here errors always <em>return</em>: the call's future fails whatever the handler does, so
 * a handler observes (logs, counts, alerts) and need not recover. The default is
 * {@link #ERRORS_RETURN}; {@link #ERRORS_ARE_FATAL} aborts the whole job (MPI_Abort) at the first
 * error. A handler runs on the rank's context (its event loop, or its virtual thread): keep it
 * short, never block in it. An exception it throws is logged and otherwise ignored.
 */
@FunctionalInterface
public interface ErrorHandler {

  /** MPI_ERRORS_RETURN, the default: nothing is called; the failed future is the report. */
  ErrorHandler ERRORS_RETURN = error -> { };

  /**
   * MPI_ERRORS_ARE_FATAL: the first error aborts the job, as {@link Comm#abort} would, naming the
   * rank and the error; every rank's pending and later calls then fail with
   * {@link ErrorClass#COMM}.
   */
  ErrorHandler ERRORS_ARE_FATAL = error -> { };

  /**
   * Called with the error of a failed call, on the rank's context, before the call's future fails.
   *
   * @param error the error the call's future fails with
   */
  void handle(RmaException error);
}
