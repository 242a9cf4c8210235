package dev.vertxrma;

/**
 * What a job does when one of its ranks dies (its JVM is killed, crashes, or stops answering
 * long enough for the cluster to remove it): MPI's choice between {@code MPI_ERRORS_ARE_FATAL}
 * and User-Level Failure Mitigation (ULFM). Chosen per job ({@link JobOptions#setFailurePolicy},
 * {@code bin/rmarun --on-failure}, the system property {@code -Drma.onFailure=abort|continue}).
 */
public enum FailurePolicy {

  /**
   * The default: a lost rank fails the whole job. Every pending and later call of every survivor
   * fails with {@link ErrorClass#PROC_FAILED} naming the lost ranks. Right for a batch
   * computation, whose result is wrong once a rank is gone.
   */
  ABORT,

  /**
   * The survivors go on (ULFM). Only what depends on the dead ranks fails with
   * {@link ErrorClass#PROC_FAILED}: point-to-point with them (and receives from
   * {@link Comm#ANY_SOURCE} until the failure is acknowledged, {@link Comm#ackFailed}),
   * collectives and window creation on communicators that contain them, RMA calls that target
   * them or whose epoch includes them. Everything else keeps working between the survivors, who
   * can {@link Comm#revoke()} a communicator, {@link Comm#agree(int)} and {@link Comm#shrink()} it
   * to the survivors and create their windows again. Right for a service that must outlive a
   * redeployed JVM.
   */
  CONTINUE;

  /** The system property that sets the default of a JVM. */
  public static final String PROPERTY = "rma.onFailure";
}
