/**
 * The examples of the MPI texts, each written as a rank program over the future-returning API
 * and checked against a sequential computation: from the MPI standard, an exchange that relies on
 * buffering ({@link Exchange}, Example 3.10), the one-sided chapter's halo exchanges of a heat rod
 * with fence ({@link FencePut}, {@link FenceGet}: Examples 11.6, 11.7), post/start/complete/wait
 * ({@link PscwPut}, {@link PscwGet}: 11.8, 11.9) and two windows as a double buffer
 * ({@link DoubleBuffer}: 11.10), load/store through a shared-memory window ({@link SharedSync}),
 * the request-based Rget/Rput pipeline ({@link RequestPipeline}) and the distributed linked list
 * over a dynamic window ({@link LinkedList}); from <i>Practical MPI Programming</i>, the twisted
 * decomposition ({@link Twisted}). {@link HeatRod} is the problem the halo exchanges share.
 *
 * <p>The standard's synchronization examples (the counting semaphore, Peterson's algorithm, the
 * critical region with compare-and-swap) are in {@link dev.vertxrma.samples.sync}, beside the
 * other locks; the Rx and virtual-thread versions of {@link DoubleBuffer} and {@link LinkedList}
 * are in {@link dev.vertxrma.samples.styles}.
 */
package dev.vertxrma.samples.standard;
