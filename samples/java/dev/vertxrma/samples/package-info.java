/**
 * The sample programs of vertx-rma, grouped by kind in the sub-packages, and the pieces they
 * share. Every sample checks its result, prints a line with {@code verified} only when the check
 * passed, and runs by name with {@code bin/rmarun -np N NAME} (the class's simple name in lower
 * case with dashes: {@code DoubleBufferRx} is {@code double-buffer-rx}, whatever its kind).
 *
 * <ul>
 *   <li>{@link dev.vertxrma.samples.standard}: the examples of the MPI texts (the standard's
 *       one-sided and point-to-point examples, the twisted decomposition);</li>
 *   <li>{@link dev.vertxrma.samples.sync}: mutual exclusion and counting built on RMA (locks,
 *       a semaphore, Peterson's algorithm, a shared counter);</li>
 *   <li>{@link dev.vertxrma.samples.styles}: samples of the first kind written again with RxJava
 *       or in MPI's blocking style on virtual threads;</li>
 *   <li>{@link dev.vertxrma.samples.services}: a Vert.x service that embeds a world;</li>
 *   <li>{@link dev.vertxrma.samples.resilience}: programs that outlive the death of a rank
 *       (ULFM: revoke, agree, shrink);</li>
 *   <li>{@link dev.vertxrma.samples.stress}: a long run of every kind of traffic at once.</li>
 * </ul>
 *
 * <p>This package holds no program, only what samples of several kinds share: {@link Spin}, the
 * asynchronous loops, and {@link RankChecks}, the job's verdict over every rank's checks. Samples
 * use the public API only.
 */
package dev.vertxrma.samples;
