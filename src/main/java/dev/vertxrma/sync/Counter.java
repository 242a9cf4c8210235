package dev.vertxrma.sync;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import io.vertx.core.Future;

/**
 * A counter shared by the ranks of a communicator: one long in a window at a home rank, changed
 * with {@code MPI_Fetch_and_op} and {@code MPI_Compare_and_swap} inside a passive-target epoch
 * ({@code MPI_Win_lock_all}) that stays open from {@link #create} to {@link #free}, each call
 * completed by {@code MPI_Win_flush} of the home rank: one round trip to the home rank per call,
 * none at the home rank itself, and no lock request ever.
 *
 * <p>Calls need not await each other: a rank may issue many {@link #next()}s at once, and each
 * gets its own value (the operations of one rank are applied at the home rank in the order they
 * were issued, so one rank's values increase in call order). Every call may be made from any
 * thread; its future completes on the rank's context.
 *
 * <p>{@link #asVertx()} gives the same counter as a Vert.x {@code io.vertx.core.shareddata.Counter}.
 *
 * <p><b>Errors.</b> {@link ErrorClass#PROC_FAILED} when the home rank is dead (under
 * {@code FailurePolicy.CONTINUE}: the counter's value died with it), {@link ErrorClass#TIMEOUT}
 * when the home rank does not answer within the job's wait timeout, {@link ErrorClass#WIN} after
 * {@link #free()}, {@link ErrorClass#COMM} once the job ended.
 */
public final class Counter {

  private final SyncChannel channel;

  private Counter(SyncChannel channel) {
    this.channel = channel;
  }

  /**
   * Creates a counter at rank 0 starting at 0; collective over {@code comm}.
   *
   * @param comm the ranks that share the counter
   * @return as {@link #create(Comm, int, long)}
   */
  public static Future<Counter> create(Comm comm) {
    return create(comm, 0, 0);
  }

  /**
   * Creates a counter; collective over {@code comm} (every rank passes the same arguments). It
   * duplicates {@code comm} and allocates a window over the duplicate ({@code MPI_Comm_dup},
   * {@code MPI_Win_allocate}), 8 bytes at {@code home}, none elsewhere.
   *
   * @param comm the ranks that share the counter
   * @param home the rank whose window holds the value
   * @param initial the value before any call
   * @return completes at every rank once every rank has created it. Fails with
   *     {@link ErrorClass#RANK} when {@code home} is not a rank of {@code comm}, {@link ErrorClass#COMM}
   *     for a null communicator, and as {@code Comm.dup} and {@code Win.allocate} fail
   */
  public static Future<Counter> create(Comm comm, int home, long initial) {
    return SyncChannel.open(comm, home, 1, "Counter.create", win -> win.memory().writeLong(0, initial))
        .map(Counter::new);
  }

  /**
   * Adds 1 and returns the value before ({@code MPI_Fetch_and_op(1, MPI_SUM)} + flush).
   *
   * @return completes with the previous value once the addition is done at the home rank. Fails
   *     as the class comment says
   */
  public Future<Long> next() {
    return fetchAndOp(1, Op.SUM);
  }

  /**
   * Adds {@code delta} (negative to subtract; wraps around as a Java long) and returns the value
   * before ({@code MPI_Fetch_and_op(delta, MPI_SUM)} + flush).
   *
   * @param delta what to add
   * @return completes with the previous value once the addition is done at the home rank. Fails
   *     as the class comment says
   */
  public Future<Long> add(long delta) {
    return fetchAndOp(delta, Op.SUM);
  }

  /**
   * Reads the value atomically ({@code MPI_Fetch_and_op(MPI_NO_OP)} + flush).
   *
   * @return completes with the value at the home rank. Fails as the class comment says
   */
  public Future<Long> get() {
    return fetchAndOp(0, Op.NO_OP);
  }

  /**
   * Sets the value to {@code value} if it is {@code expected} ({@code MPI_Compare_and_swap} + flush).
   *
   * @param expected the value the counter must hold
   * @param value the new value
   * @return completes with {@code true} if it held {@code expected} and now holds {@code value},
   *     {@code false} (unchanged) otherwise. Fails as the class comment says
   */
  public Future<Boolean> compareAndSet(long expected, long value) {
    return channel.onContext(() -> {
      Win win = channel.win;
      Future<Long> old = win.compareAndSwap(expected, value, channel.home, 0);
      return win.flush(channel.home).compose(v -> old).map(o -> o == expected);
    });
  }

  /**
   * This counter as a Vert.x counter, for code written against {@code vertx.sharedData().getCounter(name)}.
   *
   * @return a view over this counter (each of its calls is one call here)
   */
  public io.vertx.core.shareddata.Counter asVertx() {
    return new VertxCounter(this);
  }

  /**
   * Where the value lives. Local.
   *
   * @return the communicator's rank whose window holds the value
   */
  public int home() {
    return channel.home;
  }

  /**
   * Frees the counter ({@code MPI_Win_unlock_all}, {@code MPI_Win_free}, {@code MPI_Comm_free}); collective.
   *
   * @return completes once every rank freed it; later calls fail with {@link ErrorClass#WIN}
   *     (or {@link ErrorClass#ARG} for a second free)
   */
  public Future<Void> free() {
    return channel.free();
  }

  private Future<Long> fetchAndOp(long value, Op op) {
    return channel.onContext(() -> {
      Win win = channel.win;
      Future<Long> previous = win.fetchAndOp(value, channel.home, 0, op);
      return win.flush(channel.home).compose(v -> previous);
    });
  }
}
