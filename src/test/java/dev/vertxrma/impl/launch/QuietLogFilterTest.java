package dev.vertxrma.impl.launch;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** What a job's JVMs print by default and with {@code rmarun -v} (issue 42: quiet by default). */
class QuietLogFilterTest {

  private static LogRecord record(String logger) {
    LogRecord r = new LogRecord(Level.SEVERE, "x");
    r.setLoggerName(logger);
    return r;
  }

  @Test
  void theClustersOwnRecordsAreDroppedByDefaultAndOthersPass() {
    QuietLogFilter quiet = new QuietLogFilter(false);
    assertFalse(quiet.isLoggable(record("com.hazelcast.instance.AddressPicker")));
    assertFalse(quiet.isLoggable(record("com.hazelcast")));
    assertFalse(quiet.isLoggable(record("io.vertx.core.impl.VertxImpl")));
    assertFalse(quiet.isLoggable(record("io.vertx.spi.cluster.hazelcast.HazelcastClusterManager")));
    assertTrue(quiet.isLoggable(record("com.hazelcastle.Other")), "a name that only starts alike");
    assertTrue(quiet.isLoggable(record("io.vertx.core.impl.ContextImpl")), "a user handler's exception");
    assertTrue(quiet.isLoggable(record("dev.vertxrma.impl.job.BlockedRankWatch")));
    assertTrue(quiet.isLoggable(record(null)));
  }

  @Test
  void verboseLetsEverythingThrough() {
    QuietLogFilter verbose = new QuietLogFilter(true);
    assertTrue(verbose.isLoggable(record("com.hazelcast.instance.AddressPicker")));
    assertTrue(verbose.isLoggable(record("io.vertx.core.impl.VertxImpl")));
  }

  @Test
  void rmarunVerboseHandsItToTheJobsJvmsAndOnlyThen() {
    for (boolean v : new boolean[] {true, false}) {
      RmaRunCommand a = new RmaRunCommand();
      String[] argv = v ? new String[] {"-v", "-np", "2", "--jvms", "2", "twisted"}
          : new String[] {"-np", "2", "--jvms", "2", "twisted"};
      assertTrue(RmaRunCli.parse(a, argv, System.out));
      JobDescription d = new JobDescription("j", 2, "twisted").setRanks(0, 1).setJvmIndex(0);
      // this JVM's own -Drma.verbose (the test JVMs have it) is not handed down: only -v says
      assertTrue(ChildCommand.command(a, d, null, null, 0).contains("-D" + QuietLogFilter.VERBOSE + "=true") == v,
          String.join(" ", argv));
    }
  }
}
