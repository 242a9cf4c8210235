/**
 * Programs that outlive the death of a rank (ULFM: {@code FailurePolicy.CONTINUE},
 * {@code Comm.revoke}, {@code agree}, {@code shrink}): {@link ResilientHeat}, an iterative
 * computation that checkpoints to a buddy rank's window, loses a rank, shrinks, restores and
 * finishes with the verified result.
 */
package dev.vertxrma.samples.resilience;
