/**
 * Mutual exclusion and counting built on passive-target RMA: the standard's naive counting
 * semaphore ({@link Semaphore}), its critical regions between two ranks with Peterson's algorithm
 * ({@link Peterson}) and among N ranks with compare-and-swap ({@link CasMutex}), written out with
 * window calls; and the library's own {@code dev.vertxrma.sync} primitives at work: its MCS queue
 * lock ({@link McsMutex}) and its shared counter incremented with fetch-and-op ({@link Counter}). The
 * locks guard a deliberately non-atomic update ({@link CriticalSection}), so that a broken lock
 * shows as a lost update or two ranks inside at once.
 */
package dev.vertxrma.samples.sync;
