/**
 * MPI one-sided communication (RMA) on Vert.x: the public API.
 *
 * <h2>Entry points</h2>
 *
 * A job is a set of ranks, in one JVM or spread over several joined by a clustered event bus.
 * {@link dev.vertxrma.Rma#run(io.vertx.core.Vertx, dev.vertxrma.JobOptions, dev.vertxrma.RankProgram)
 * Rma.run} is {@code mpirun}: {@code MPI_Init}, a {@link dev.vertxrma.RankProgram} on every rank,
 * {@code MPI_Finalize}. {@link dev.vertxrma.Rma#world(io.vertx.core.Vertx, dev.vertxrma.JobOptions)
 * Rma.world} starts the ranks and keeps them open for a service until
 * {@link dev.vertxrma.World#close()}. {@link dev.vertxrma.JobOptions} says how many ranks, which
 * of them this JVM hosts, and the timeouts; {@link dev.vertxrma.RankVerticle} runs a program from
 * the Vert.x launchers.
 *
 * <p>A rank's world communicator, {@link dev.vertxrma.Comm} ({@code MPI_COMM_WORLD}), has the
 * point-to-point and collective calls and creates windows: {@link dev.vertxrma.Win} ({@code
 * MPI_Win}) with the one-sided operations (put, get, accumulate, get-accumulate, fetch-and-op,
 * compare-and-swap) and their synchronizations (fence; post, start, complete, wait; lock, unlock,
 * flush). {@link dev.vertxrma.Datatype}, {@link dev.vertxrma.Op}, {@link dev.vertxrma.Group},
 * {@link dev.vertxrma.Info} and {@link dev.vertxrma.Mode} are MPI's datatypes, reduction
 * operations, groups, hints and assertions.
 *
 * <h2>Futures everywhere</h2>
 *
 * Every MPI call returns a Vert.x {@link io.vertx.core.Future} and never blocks; what the
 * future's completion means (buffer reusable, data arrived, epoch closed) is stated on each call,
 * and follows MPI's completion rules: an RMA operation's future completes at the origin, its
 * epoch's synchronization completes it at the target. Chain calls with {@code compose}; for loops
 * use {@link dev.vertxrma.Rma#repeat Rma.repeat} and {@link dev.vertxrma.Rma#repeatUntil
 * Rma.repeatUntil}, which run in constant stack.
 *
 * <h2>Threads</h2>
 *
 * Each rank is a verticle with a Vert.x event-loop context of its own; its state is touched only
 * there. A call may be made from any thread: made elsewhere, it is handed to the rank's context
 * in the order of the calls from that thread, and its future completes there. A rank program runs on
 * its rank's event loop and must never block. Collective calls are matched in the order each
 * rank makes them; {@link dev.vertxrma.World} states the rules for many concurrent callers of one
 * rank.
 *
 * <h2>Errors</h2>
 *
 * A failed call fails its future with an {@link dev.vertxrma.RmaException} whose
 * {@link dev.vertxrma.RmaException#errorClass() errorClass()} is the
 * {@link dev.vertxrma.ErrorClass} MPI would report ({@code RANK}, {@code RMA_SYNC},
 * {@code RMA_RANGE}, ...); each call lists the classes it can fail with. Arguments are checked
 * when the call is made, before anything is sent to another rank; calls that wait fail
 * with {@code TIMEOUT} after {@link dev.vertxrma.JobOptions#getWaitTimeoutMs()}, calls on a job
 * that has ended with {@code COMM}, and calls waiting on a rank that was lost with
 * {@code PROC_FAILED}. Methods that return no future (attributes, datatype constructors,
 * {@code Group}, {@code Info}, {@code JobOptions} setters) throw the exception instead.
 */
package dev.vertxrma;
