package dev.vertxrma.sync;

/**
 * A grant of a {@link Mutex}: what {@link Mutex#lock()} completes with.
 *
 * @param token the fencing token of this grant: larger than the token of every grant of the same
 *     mutex made before it, at any rank, so that a resource guarded by the mutex can refuse a
 *     request carrying a smaller token than one it has seen (a holder that was declared dead but
 *     still writes)
 * @param previousHolderDied {@code true} when the mutex came to this rank from a rank that died
 *     while it held it (or while the grant was on its way to it): what that rank guarded may be
 *     half updated
 */
public record Grant(long token, boolean previousHolderDied) {
}
