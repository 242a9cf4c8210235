/**
 * Programs that outlive the death of a rank (ULFM: {@code FailurePolicy.CONTINUE},
 * {@code Comm.revoke}, {@code agree}, {@code shrink}): {@link ResilientHeat}, an iterative
 * computation that checkpoints to a buddy rank's window, loses a rank, shrinks, restores and
 * finishes with the verified result; {@link ResilientCounter}, an HTTP service whose histogram
 * keeps two copies of every bin and is rebuilt over the survivors when a JVM is killed.
 */
package dev.vertxrma.samples.resilience;
