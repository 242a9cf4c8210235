/**
 * RxJava 3 facade of vertx-rma: {@link dev.vertxrma.rx.RxComm}, {@link dev.vertxrma.rx.RxWin},
 * {@link dev.vertxrma.rx.RxWorld} and the entry point {@link dev.vertxrma.rx.RxRma} offer every
 * call of {@link dev.vertxrma.Comm}, {@link dev.vertxrma.Win}, {@link dev.vertxrma.World} and
 * {@link dev.vertxrma.Rma} under the same name, with the same parameters.
 *
 * <p><b>Types.</b> A call whose future completes with nothing ({@code Future<Void>}) is a
 * {@link io.reactivex.rxjava3.core.Completable}; a call with a value is a
 * {@link io.reactivex.rxjava3.core.Single} of it (a window or a world as its Rx view); calls that
 * do not wait (ranks, sizes, attributes, {@code abort}) return directly, as in the Future API.
 *
 * <p><b>Cold.</b> Nothing happens until subscription: each subscription makes the call once,
 * like {@code Completable.defer}. An operation belongs to the epoch open when it is subscribed
 * to, not when it is built; resubscribing (e.g. {@code retry}) issues it again. Disposing does
 * not cancel a call already made. The arguments, though, are taken when the Completable is
 * built: a call whose arguments come from an earlier step of the chain (an address allgathered,
 * a value fetched) goes in {@code Completable.defer(() -> win.put(...))}.
 *
 * <p><b>Threads.</b> Results and errors are emitted on the rank's event loop, where the program
 * runs: never block there ({@code blockingGet} and friends belong to other threads). Loops run in
 * constant stack with {@code Flowable.range(0, n).concatMapCompletable(...)},
 * {@code Completable.repeatUntil}, or {@link dev.vertxrma.rx.RxRma#repeat} and
 * {@link dev.vertxrma.rx.RxRma#repeatUntil}, which also yield to the event loop (use them for
 * spins that wait on other ranks).
 *
 * <p><b>Errors.</b> Each call fails with the {@link dev.vertxrma.RmaException} its Future twin
 * documents (the {@link dev.vertxrma.ErrorClass} in
 * {@link dev.vertxrma.RmaException#errorClass()}); an exception the twin throws when called is
 * emitted as the error too.
 */
package dev.vertxrma.rx;
