package dev.vertxrma;

/**
 * Whether and how a job is traced: the file its trace is written to when it ends, and how many
 * events each rank keeps. Part of {@link JobOptions} ({@link JobOptions#getTraceOptions()};
 * {@link JobOptions#setTraceFile} says what a trace holds and how the two formats look). Fluent
 * setters in the Vert.x options style.
 *
 * <p>A new instance holds this JVM's defaults: each {@code DEFAULT_*} value, replaced by its
 * system property when that is set ({@code -Drma.trace}, {@code -Drma.trace.events}). The
 * properties are read when the options are made and nowhere below.
 */
public class TraceOptions {

  /** The trace file when {@code -Drma.trace} is not set: none, the job is not traced. */
  public static final String DEFAULT_FILE = null;
  /** The events each rank keeps when {@code -Drma.trace.events} is not set: the last 65536. */
  public static final int DEFAULT_EVENTS_PER_RANK = 1 << 16;
  /** The fewest events a rank keeps. */
  public static final int MIN_EVENTS_PER_RANK = 16;
  /** The most events a rank keeps. */
  public static final int MAX_EVENTS_PER_RANK = 1 << 24;

  private String file = DEFAULT_FILE;
  private int eventsPerRank = DEFAULT_EVENTS_PER_RANK;

  /**
   * This JVM's defaults: the {@code DEFAULT_*} values, each replaced by its system property when
   * that is set (a {@code -Drma.trace.events} that is not a number is logged and ignored; one
   * outside {@link #MIN_EVENTS_PER_RANK}..{@link #MAX_EVENTS_PER_RANK} counts as the nearest bound).
   */
  public TraceOptions() {
    JvmDefaults.applyTo(this);
  }

  /**
   * A copy of {@code other}, every setting included (no system property is read).
   *
   * @param other the options to copy
   */
  public TraceOptions(TraceOptions other) {
    this.file = other.file;
    this.eventsPerRank = other.eventsPerRank;
  }

  /**
   * The file the job's trace is written to, or {@code null} (not traced).
   *
   * @return the file's path; {@code -Drma.trace}, else {@code null}
   */
  public String getFile() {
    return file;
  }

  /**
   * Traces the job to {@code file}: {@code .json} for the trace-event format, any other name for
   * one HTML page (see {@link JobOptions#setTraceFile}). Off when {@code null}: then nothing is
   * recorded and nothing costs.
   *
   * @param file the file to write (created or replaced), or {@code null} or empty not to trace
   * @return these options
   */
  public TraceOptions setFile(String file) {
    this.file = file == null || file.isEmpty() ? null : file;
    return this;
  }

  /**
   * How many events each rank keeps: a ring of that many (rounded up to a power of two), the
   * oldest overwritten first.
   *
   * @return the count; {@code -Drma.trace.events}, else {@link #DEFAULT_EVENTS_PER_RANK}
   */
  public int getEventsPerRank() {
    return eventsPerRank;
  }

  /**
   * Sets how many events each rank keeps (each takes 36 bytes of the rank's ring).
   *
   * @param events {@link #MIN_EVENTS_PER_RANK} to {@link #MAX_EVENTS_PER_RANK}
   * @return these options
   * @throws RmaException {@link ErrorClass#ARG} outside those bounds
   */
  public TraceOptions setEventsPerRank(int events) {
    if (events < MIN_EVENTS_PER_RANK || events > MAX_EVENTS_PER_RANK) {
      throw RmaException.of(ErrorClass.ARG, "a rank's trace keeps %d to %d events, asked for %d",
          MIN_EVENTS_PER_RANK, MAX_EVENTS_PER_RANK, events);
    }
    this.eventsPerRank = events;
    return this;
  }
}
