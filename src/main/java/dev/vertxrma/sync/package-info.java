/**
 * Coordination built on RMA windows, as futures: a shared {@link dev.vertxrma.sync.Counter}, a
 * FIFO {@link dev.vertxrma.sync.Mutex} with fencing tokens that survives the death of its holder,
 * a {@link dev.vertxrma.sync.Semaphore}, {@link dev.vertxrma.sync.Sequential} turns in rank order
 * and a {@link dev.vertxrma.sync.CountDownLatch} (what mpi4py's {@code mpi4py.util.sync} offers,
 * without a blocking call).
 *
 * <p>Each primitive is created collectively over a communicator ({@link dev.vertxrma.Comm}): it
 * duplicates it (its messages never meet the application's), allocates a window over the
 * duplicate whose words live at one home rank, and keeps a passive-target epoch
 * ({@code MPI_Win_lock_all}) open until it is freed, so a call costs one round trip to the home
 * rank (none at the home rank itself) and no lock request. Waiting is never polling: a rank that
 * must wait is sent a message by the rank that lets it go. Every call may be made from any
 * thread, returns a {@link io.vertx.core.Future} that completes on the rank's context, and, on a
 * virtual-thread rank, may be awaited with {@code Future.await()}; RxJava forms are in
 * {@code dev.vertxrma.rx} ({@code RxCounter}, {@code RxMutex}, {@code RxSemaphore},
 * {@code RxSequential}, {@code RxCountDownLatch}). {@link dev.vertxrma.sync.Counter#asVertx()} and
 * {@link dev.vertxrma.sync.Mutex#getLock()} are the Vert.x shapes, for code written against
 * {@code vertx.sharedData()}. The guarantees, compared with the cluster manager's, are in
 * {@code docs/coordination.md}.
 */
package dev.vertxrma.sync;
