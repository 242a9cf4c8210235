package dev.vertxrma.impl.observe;

import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Where a window's {@link RankObserver} comes from: its rank's trace recorder (if the job is
 * traced) and every metrics source bound in this JVM ({@code RmaMetrics.bindTo}), combined. Asked
 * once per window, when it is created; with nothing bound and no trace it is {@link RankObserver#NOOP}.
 */
public final class Observers {

  /** A source of observers, e.g. a metrics registry binding: one observer per rank of a job. */
  public interface Source {
    /**
     * The observer of rank {@code rank} of job {@code job}.
     *
     * @return an observer; the same one for the same rank is fine (it is told the window id)
     */
    RankObserver observe(String job, int rank);
  }

  private static final CopyOnWriteArrayList<Source> SOURCES = new CopyOnWriteArrayList<>();

  private Observers() {
  }

  /** Windows created from now on are observed by {@code source} too. */
  public static void add(Source source) {
    SOURCES.addIfAbsent(source);
  }

  /** Windows created from now on are no longer observed by {@code source}. */
  public static void remove(Source source) {
    SOURCES.remove(source);
  }

  /** The observer of a window created now at {@code rank} of {@code job}, given the rank's trace recorder. */
  public static RankObserver forWindow(String job, int rank, RankObserver trace) {
    RankObserver o = trace;
    for (Source s : SOURCES) {
      o = RankObserver.both(o, s.observe(job, rank));
    }
    return o;
  }

  /**
   * The operation kinds by index ({@link #opIndex}): put, get, accumulate, get_accumulate,
   * compare_and_swap, fetch_and_op, and the notified ones (MPI 5.1 draft): put_notify,
   * get_notify, accumulate_notify, get_accumulate_notify.
   */
  public static final java.util.List<String> OP_KINDS = java.util.List.of(RankTimeline.OP_NAMES)
      .subList(0, RankTimeline.MESSAGE);

  /**
   * The kind an observer is told for MPI_Fetch_and_op, which travels as a get-accumulate frame:
   * not a frame type (those are below 64).
   */
  public static final byte FETCH_AND_OP = 64;

  /** The kind a trace records for a point-to-point message sent: not a frame type either. */
  static final byte MESSAGE = 65;

  /**
   * Added to a put, get, accumulate or get-accumulate frame type, the kind an observer is told for
   * its notified form (putNotify, ...): not a frame type either.
   */
  public static final byte NOTIFIED = 32;

  /** The index in {@link #OP_KINDS} of an operation's frame type. */
  public static int opIndex(byte frameType) {
    return RankTimeline.opIndex(frameType);
  }
}
