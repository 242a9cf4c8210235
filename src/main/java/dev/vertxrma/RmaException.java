package dev.vertxrma;

/**
 * The failure of a vertx-rma call: an {@link ErrorClass} as MPI would report it, and a message
 * that names the values involved. Every future returned by the library fails with this type
 * when the call was erroneous or could not complete.
 */
public class RmaException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final ErrorClass errorClass;

  /** An exception of the given class with a message that says what was wrong and with which values. */
  public RmaException(ErrorClass errorClass, String message) {
    super(errorClass + ": " + message);
    this.errorClass = errorClass;
  }

  /** As {@link #RmaException(ErrorClass, String)}, with the cause that led to it. */
  public RmaException(ErrorClass errorClass, String message, Throwable cause) {
    super(errorClass + ": " + message, cause);
    this.errorClass = errorClass;
  }

  /**
   * As {@link #RmaException(ErrorClass, String)}, capturing the stack trace only if
   * {@code withStackTrace}: for failures that are data, not bugs (rejected network input).
   */
  public RmaException(ErrorClass errorClass, String message, boolean withStackTrace) {
    super(errorClass + ": " + message, null, false, withStackTrace);
    this.errorClass = errorClass;
  }

  /** The MPI error class of this failure. */
  public ErrorClass errorClass() {
    return errorClass;
  }

  /** Shorthand for {@code new RmaException(errorClass, String.format(format, args))}. */
  public static RmaException of(ErrorClass errorClass, String format, Object... args) {
    return new RmaException(errorClass, String.format(format, args));
  }
}
