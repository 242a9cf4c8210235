package dev.vertxrma.impl.launch;

import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * The console filter of a job's JVMs (conf/logging.properties): at default verbosity it drops
 * what the cluster underneath logs of itself, Hazelcast's records and Vert.x's about starting and
 * leaving its cluster, because the library reports every fault they stand for in one line of its
 * own ({@code rmarun: job … failed: INTERN: cannot start Vert.x: … Port [5706] is already in use
 * …}), where Hazelcast alone prints a stack of 30 lines per cause, three times. The library's own
 * records and every other logger's (a user handler's exception that Vert.x logs, Netty's) pass.
 *
 * <p>{@code -Drma.verbose=true} ({@code bin/rmarun -v}) lets everything through that the levels
 * of the logging configuration allow. The property is read once, when java.util.logging builds
 * its console handler: it is part of the JVM's logging configuration, the edge where it starts.
 */
public final class QuietLogFilter implements Filter {

  /** The system property that lets every record through: {@code bin/rmarun -v} sets it. */
  public static final String VERBOSE = "rma.verbose";

  /** The loggers dropped at default verbosity: their names, and the names beneath them. */
  private static final String[] DROPPED = {"com.hazelcast", "io.vertx.core.impl.VertxImpl", "io.vertx.spi.cluster"};

  private final boolean verbose;

  /** A filter that lets everything through when {@code -Drma.verbose=true}, else drops the cluster's own records. */
  public QuietLogFilter() {
    this(Boolean.getBoolean(VERBOSE));
  }

  QuietLogFilter(boolean verbose) {
    this.verbose = verbose;
  }

  @Override
  public boolean isLoggable(LogRecord record) {
    if (verbose) {
      return true;
    }
    String name = record.getLoggerName();
    if (name == null) {
      return true;
    }
    for (String dropped : DROPPED) {
      if (name.startsWith(dropped) && (name.length() == dropped.length() || name.charAt(dropped.length()) == '.')) {
        return false;
      }
    }
    return true;
  }
}
