package dev.vertxrma.rx;

/**
 * RxJava is an optional dependency of the library: the facade checks it is on the class path
 * when it is used (each entry point of {@link RxRma} and the constructor of each Rx view) and
 * fails with an error that says what to add, rather than with a bare
 * {@code NoClassDefFoundError: io/reactivex/rxjava3/core/Completable} somewhere inside.
 */
final class RxJava {

  /** The message of the error when RxJava is missing. */
  static final String MISSING = "the RxJava facade of vertx-rma (dev.vertxrma.rx) needs RxJava 3 on the class path,"
      + " a dependency the library leaves optional: add io.reactivex.rxjava3:rxjava (3.1 or later) to your project";

  private static final boolean PRESENT = present();

  private RxJava() {
  }

  private static boolean present() {
    try {
      Class.forName("io.reactivex.rxjava3.core.Completable", false, RxJava.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * Returns when RxJava is on the class path.
   *
   * @throws NoClassDefFoundError with {@link #MISSING} when it is not
   */
  static void require() {
    if (!PRESENT) {
      throw new NoClassDefFoundError(MISSING);
    }
  }
}
