package dev.vertxrma;

/**
 * MPI error classes that a failed vertx-rma future can carry (see {@link RmaException#errorClass()}).
 * The names and meanings follow the MPI standard's error classes; {@link #code()} is the stable
 * number used on the wire.
 */
public enum ErrorClass {
  /** Invalid argument of some other kind (MPI_ERR_ARG). */
  ARG(1),
  /** Invalid count argument (MPI_ERR_COUNT). */
  COUNT(2),
  /** Invalid or uncommitted datatype, or datatype signatures that do not match (MPI_ERR_TYPE). */
  TYPE(3),
  /** Invalid reduction operation, or an operation not defined on the datatype (MPI_ERR_OP). */
  OP(4),
  /** Invalid rank (MPI_ERR_RANK). */
  RANK(5),
  /** Invalid tag (MPI_ERR_TAG). */
  TAG(6),
  /** Invalid group (MPI_ERR_GROUP). */
  GROUP(7),
  /** Invalid communicator, or a call on a communicator whose job has ended (MPI_ERR_COMM). */
  COMM(8),
  /** Message truncated on receive (MPI_ERR_TRUNCATE). */
  TRUNCATE(9),
  /** Invalid buffer, or buffered-send space exhausted (MPI_ERR_BUFFER). */
  BUFFER(10),
  /** Invalid window, or a window used after free (MPI_ERR_WIN). */
  WIN(11),
  /** Target displacement or extent outside the target window (MPI_ERR_RMA_RANGE). */
  RMA_RANGE(12),
  /** Wrong synchronization of RMA calls (MPI_ERR_RMA_SYNC). */
  RMA_SYNC(13),
  /** Conflicting accesses to a window, e.g. a lock conflict (MPI_ERR_RMA_CONFLICT). */
  RMA_CONFLICT(14),
  /** Memory cannot be attached, e.g. overlapping regions (MPI_ERR_RMA_ATTACH). */
  RMA_ATTACH(15),
  /** The call is not allowed on a window of this create flavor (MPI_ERR_RMA_FLAVOR). */
  RMA_FLAVOR(16),
  /** Shared memory cannot be provided for the window (MPI_ERR_RMA_SHARED). */
  RMA_SHARED(17),
  /** Invalid info key or value (MPI_ERR_INFO). */
  INFO(18),
  /** A process the call depends on has failed or left the job (MPI_ERR_PROC_FAILED). */
  PROC_FAILED(19),
  /** A wait did not complete within its configured timeout. */
  TIMEOUT(20),
  /** Failure inside the library (MPI_ERR_INTERN); memory that cannot be allocated is {@link #NO_MEM}. */
  INTERN(21),
  /** Another error, e.g. a malformed frame from the network (MPI_ERR_OTHER). */
  OTHER(22),
  /** Memory cannot be allocated, e.g. a window larger than the memory available (MPI_ERR_NO_MEM). */
  NO_MEM(23),
  /**
   * Invalid request or handle (MPI_ERR_REQUEST): here a {@link Message} that {@link Comm#mrecv}
   * cannot receive (null, received already, or matched on another rank or communicator).
   */
  REQUEST(24),
  /**
   * The communicator was revoked ({@link Comm#revoke()}, ULFM's MPI_ERR_REVOKED): every
   * non-local call on it but {@link Comm#agree}, {@link Comm#shrink}, {@link Comm#getFailed},
   * {@link Comm#ackFailed} and {@link Comm#free} fails with this class.
   */
  REVOKED(25),
  /**
   * A notified RMA operation names a notification counter the target does not have: an index
   * below 0 or at or above the target's {@link Win#numNotify()} (MPI 5.1 draft,
   * MPI_ERR_NOTIFICATION_IDX); also a counter reset by {@link Win#setNumNotify} while an
   * {@link Win#awaitNotify} waited on it.
   */
  RMA_NOTIFICATION(26);

  private static final ErrorClass[] BY_CODE = new ErrorClass[32];

  static {
    for (ErrorClass c : values()) {
      BY_CODE[c.code] = c;
    }
  }

  private final int code;

  ErrorClass(int code) {
    this.code = code;
  }

  /**
   * The stable wire code of this class.
   *
   * @return the code, 1..26
   */
  public int code() {
    return code;
  }

  /**
   * The class for a wire code.
   *
   * @param code a code from {@link #code()}, possibly of another version of the library
   * @return the class with that code; {@link #OTHER} for a code this version does not know
   */
  public static ErrorClass ofCode(int code) {
    if (code < 0 || code >= BY_CODE.length || BY_CODE[code] == null) {
      return OTHER;
    }
    return BY_CODE[code];
  }
}
