package dev.vertxrma;

/**
 * How large copies inside a JVM are shared across cores: a copy of a megabyte or more made on a
 * Vert.x worker thread (never on an event loop or a virtual-thread rank, which copy alone) is cut
 * into parts that the caller and the copy threads of its Vert.x instance claim in turn. The copy
 * threads belong to the Vert.x instance: the first job that starts on an instance decides how
 * many it has, later jobs there share them, and they stop when the instance closes. Part of
 * {@link JobOptions} ({@link JobOptions#getCopyOptions()}). Fluent setters in the Vert.x options
 * style.
 *
 * <p>A new instance holds this JVM's default: {@link #DEFAULT_COPY_THREADS}, replaced by
 * {@code -Drma.copyThreads} when that is set. The property is read when the options are made and
 * nowhere below.
 */
public class CopyOptions {

  /**
   * The number of copy threads when {@code -Drma.copyThreads} is not set: -1, chosen by the
   * machine: {@code min(cores - 1, 3)}, none on one core or when the Vert.x instance's event loops
   * busy-poll ({@link Progress#BUSY}: they keep their cores, and a copy thread would only take
   * turns with them).
   */
  public static final int DEFAULT_COPY_THREADS = -1;
  /** The most copy threads a Vert.x instance may have. */
  public static final int MAX_COPY_THREADS = 64;

  private int copyThreads = DEFAULT_COPY_THREADS;

  /**
   * This JVM's default: {@link #DEFAULT_COPY_THREADS}, replaced by {@code -Drma.copyThreads} when
   * that is set (a value that is not a number is logged and ignored; one outside
   * 0..{@link #MAX_COPY_THREADS} counts as the nearest bound).
   */
  public CopyOptions() {
    JvmDefaults.applyTo(this);
  }

  /**
   * A copy of {@code other} (no system property is read).
   *
   * @param other the options to copy
   */
  public CopyOptions(CopyOptions other) {
    this.copyThreads = other.copyThreads;
  }

  /**
   * The number of copy threads of the Vert.x instance the job starts on, if it is the first job
   * there.
   *
   * @return the number, or -1 for the machine's choice; {@code -Drma.copyThreads}, else
   *     {@link #DEFAULT_COPY_THREADS}
   */
  public int getCopyThreads() {
    return copyThreads;
  }

  /**
   * Sets the number of copy threads.
   *
   * @param copyThreads 0 (every copy on the caller's thread) to {@link #MAX_COPY_THREADS}, or -1
   *     for the machine's choice
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} outside -1..{@link #MAX_COPY_THREADS}
   */
  public CopyOptions setCopyThreads(int copyThreads) {
    if (copyThreads < -1 || copyThreads > MAX_COPY_THREADS) {
      throw RmaException.of(ErrorClass.ARG, "copy threads must be -1 (the machine's choice) or 0 to %d, was %d",
          MAX_COPY_THREADS, copyThreads);
    }
    this.copyThreads = copyThreads;
    return this;
  }
}
