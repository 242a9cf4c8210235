package dev.vertxrma;

/**
 * The failure of a vertx-rma call: an {@link ErrorClass} as MPI would report it, and a message
 * that names the values involved. Every future returned by the library fails with this type
 * when the call was erroneous or could not complete.
 */
public class RmaException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The MPI error class of this failure. */
  private final ErrorClass errorClass;

  /**
   * An exception of the given class; its message is {@code errorClass + ": " + message}.
   *
   * @param errorClass the MPI error class
   * @param message what was wrong, and with which values
   */
  public RmaException(ErrorClass errorClass, String message) {
    super(errorClass + ": " + message);
    this.errorClass = errorClass;
  }

  /**
   * As {@link #RmaException(ErrorClass, String)}, with the cause that led to it.
   *
   * @param errorClass the MPI error class
   * @param message what was wrong, and with which values
   * @param cause the exception that led to this one, or {@code null}
   */
  public RmaException(ErrorClass errorClass, String message, Throwable cause) {
    super(errorClass + ": " + message, cause);
    this.errorClass = errorClass;
  }

  /**
   * As {@link #RmaException(ErrorClass, String)}, capturing the stack trace only if
   * {@code withStackTrace}: for failures that are data, not bugs (rejected network input).
   *
   * @param errorClass the MPI error class
   * @param message what was wrong, and with which values
   * @param withStackTrace whether to fill in the stack trace
   */
  public RmaException(ErrorClass errorClass, String message, boolean withStackTrace) {
    super(errorClass + ": " + message, null, false, withStackTrace);
    this.errorClass = errorClass;
  }

  /**
   * The MPI error class of this failure.
   *
   * @return the error class given at construction
   */
  public ErrorClass errorClass() {
    return errorClass;
  }

  /**
   * Shorthand for {@code new RmaException(errorClass, String.format(format, args))}.
   *
   * @param errorClass the MPI error class
   * @param format a {@link String#format(String, Object...)} format for the message
   * @param args the values the format refers to
   * @return the new exception (not thrown)
   */
  public static RmaException of(ErrorClass errorClass, String format, Object... args) {
    return new RmaException(errorClass, String.format(format, args));
  }
}
