package dev.vertxrma.impl.transport;

import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.internal.ContextInternal;

/**
 * What one rank's protocol engines (point-to-point, collectives, windows) need from the runtime:
 * identity, the rank's event-loop context, frame sending and request/reply. All methods must be
 * called on {@link #context()}.
 */
public interface Endpoint {

  /** This rank, in this endpoint's numbering (the job's, or a communicator's). */
  int rank();

  /** Number of ranks in this endpoint's numbering (the job, or a communicator). */
  int size();

  /**
   * The job rank of rank {@code r} of this endpoint's numbering: frames on the wire always carry
   * job ranks. The identity for the job itself.
   */
  default int jobRank(int r) {
    return r;
  }

  /**
   * This endpoint's rank of job rank {@code jobRank}, or {@code -1} if that rank is not a member.
   * The identity for the job itself.
   */
  default int rankOf(int jobRank) {
    return jobRank;
  }

  /** The rank's context; every engine runs on it. */
  ContextInternal context();

  /** Whether {@code rank} lives in this Vert.x instance (the same-JVM path can be used). */
  boolean isLocal(int rank);

  /** Sends a frame to {@code dst}; no reply expected. */
  void send(int dst, Frame frame);

  /**
   * Sends a frame that expects a reply: sets its correlation id and completes with the reply
   * frame, or fails with the target's {@link RmaException}.
   */
  Future<Frame> request(int dst, Frame frame);

  /**
   * Forgets the request whose correlation id {@code corr} is (set by {@link #request}): the
   * caller withdrew it at its target, so no answer will come or be waited for.
   */
  void withdraw(long corr);

  /** Answers a request: {@code error == null} for success. */
  void reply(Frame request, dev.vertxrma.ErrorClass error, String message);

  /** Answers a request with data. */
  void replyWith(Frame request, byte[] payload);

  /** Replies success to {@code request} with a payload packed ahead ({@link PackedPayload}), which the reply now owns. */
  void replyWith(Frame request, PayloadSource payload);

  /** Answers a request with the error {@code e} (its class and message, without the class prefix). */
  void replyError(Frame request, RmaException e);

  /**
   * Records input this rank rejected with nobody to tell (a frame without a reply address): counted
   * and logged at a bounded rate ({@link RejectedInput}). Any thread.
   */
  void rejectInput(String what);

  /** As {@link #rejectInput(String)} for input whose handling failed with a bug of ours ({@code bug}). */
  void rejectInput(String what, Throwable bug);

  /** Timeout in milliseconds for any wait (receive, barrier, epoch, lock). */
  long waitTimeoutMs();

  /** The failure that ended this rank's job (abort, shutdown), or {@code null} while it runs. */
  RmaException failure();

  /**
   * Fails {@code promise}-backed future {@code f} with {@code TIMEOUT} if it has not completed
   * within {@link #waitTimeoutMs()}; {@code what} names the wait in the message.
   */
  <T> Future<T> withTimeout(Future<T> f, String what);

  /**
   * {@link #withTimeout(Future, String)}, the wait's name made only if it expires (a call that
   * names its peer builds no string per call).
   */
  <T> Future<T> withTimeout(Future<T> f, java.util.function.Supplier<String> what);

  /**
   * Fails {@code p} with {@code TIMEOUT}, its wait named as {@link #withTimeout(Future, String)}
   * names it (by {@code what}, made only then), unless it has completed within {@link
   * #waitTimeoutMs()}: a deadline on a promise the caller completes itself, with no future in between.
   */
  <T> void failAtDeadline(io.vertx.core.Promise<T> p, java.util.function.Supplier<String> what);

  /**
   * Runs {@code onExpiry} on the rank's context once {@link #waitTimeoutMs()} has passed, unless
   * {@code ended} says by then that the wait ended (a posted receive matched, a probe answered).
   * Any thread.
   */
  void atDeadline(java.util.function.BooleanSupplier ended, Runnable onExpiry);

  /**
   * The failure of rank {@code r} (this endpoint's numbering) if it is known to have died while
   * the job goes on ({@code FailurePolicy.CONTINUE}), else {@code null}. On the rank's context.
   */
  default RmaException peerFailure(int r) {
    return null;
  }

  /**
   * What keeps a collective over this endpoint's ranks from completing: the job's failure, else
   * the communicator's revocation, else the failure of a member that died; {@code null} while all
   * is well. On the rank's context.
   */
  default RmaException groupFailure() {
    return failure();
  }

  /** The communicator's revocation ({@code REVOKED}), or {@code null}. On the rank's context. */
  default RmaException revocation() {
    return null;
  }

  /**
   * Why a receive or probe from {@code ANY_SOURCE} cannot wait now: a member died and its failure
   * was not acknowledged yet (ULFM's rule); else {@code null}. On the rank's context.
   */
  default RmaException anySourceFailure() {
    return null;
  }
}
