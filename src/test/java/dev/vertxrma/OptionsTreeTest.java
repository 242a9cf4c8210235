package dev.vertxrma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The options tree: a new options object holds the {@code DEFAULT_*} values, each replaced by its
 * {@code rma.*} system property when that is set (read when the object is made, and never again:
 * a copy reads none); a malformed property fails with ARG naming it, except the two that are only
 * logged; every setter refuses a value outside its range with ARG; {@link JobOptions} nests the four
 * and its older setters reach them.
 */
class OptionsTreeTest {

  private static final List<String> PROPERTIES = List.of("rma.host", "rma.members", "rma.clusterPort", "rma.busPort",
      "rma.dataPort", "rma.clusterLeader", "vertx.hazelcast.config", "rma.conf", "rma.tls", "rma.progress",
      "rma.busyPoll", "rma.trace", "rma.trace.events", "rma.copyThreads", "rma.np");
  private final Map<String, String> before = new HashMap<>();

  @BeforeEach
  void clear() {
    for (String p : PROPERTIES) {
      before.put(p, System.getProperty(p));
      System.clearProperty(p);
    }
  }

  @AfterEach
  void restore() {
    for (String p : PROPERTIES) {
      if (before.get(p) == null) {
        System.clearProperty(p);
      } else {
        System.setProperty(p, before.get(p));
      }
    }
  }

  private static void assertArg(String expected, Executable call) {
    RmaException e = assertThrows(RmaException.class, call);
    assertEquals(ErrorClass.ARG, e.errorClass(), e.getMessage());
    assertTrue(e.getMessage().contains(expected), "'" + e.getMessage() + "' does not say " + expected);
  }

  @Test
  void withoutSystemPropertiesEveryOptionHoldsItsDefault() {
    JobOptions o = new JobOptions();
    TransportOptions t = o.getTransportOptions();
    assertEquals(TransportOptions.DEFAULT_HOST, t.getHost());
    assertEquals(TransportOptions.DEFAULT_PORT, t.getPort());
    assertEquals(TransportOptions.DEFAULT_TLS_DIRECTORY, t.getTlsDirectory());
    assertEquals(TransportOptions.DEFAULT_PROGRESS, t.getProgress());
    assertEquals(Progress.ADAPTIVE, o.getProgress());
    ClusterOptions c = o.getClusterOptions();
    assertEquals(ClusterOptions.DEFAULT_HOST, c.getHost());
    assertEquals(ClusterOptions.DEFAULT_MEMBERS, c.getMembers());
    assertEquals(ClusterOptions.DEFAULT_CLUSTER_PORT, c.getClusterPort());
    assertEquals(ClusterOptions.DEFAULT_BUS_PORT, c.getBusPort());
    assertEquals(ClusterOptions.DEFAULT_LEADER, c.getLeader());
    assertEquals(ClusterOptions.DEFAULT_CONFIG_FILE, c.getConfigFile());
    assertEquals(ClusterOptions.DEFAULT_CONFIG_DIRECTORY, c.getConfigDirectory());
    assertEquals(TraceOptions.DEFAULT_FILE, o.getTraceOptions().getFile());
    assertNull(o.getTraceFile());
    assertEquals(TraceOptions.DEFAULT_EVENTS_PER_RANK, o.getTraceOptions().getEventsPerRank());
    assertEquals(CopyOptions.DEFAULT_COPY_THREADS, o.getCopyOptions().getCopyThreads());
  }

  @Test
  void theSystemPropertiesAreThisJvmsDefaultsReadWhenTheOptionsAreMade() {
    System.setProperty("rma.host", " 10.1.2.3 ");
    System.setProperty("rma.members", "10.1.2.3,10.1.2.4:5801");
    System.setProperty("rma.clusterPort", "5801");
    System.setProperty("rma.busPort", "7002");
    System.setProperty("rma.dataPort", "7001");
    System.setProperty("rma.clusterLeader", "10.1.2.3:5801");
    System.setProperty("vertx.hazelcast.config", "/etc/hz.xml");
    System.setProperty("rma.conf", "/opt/rma/conf");
    System.setProperty("rma.tls", "/opt/rma/conf/tls");
    System.setProperty("rma.progress", "Busy");
    System.setProperty("rma.trace", "t.json");
    System.setProperty("rma.trace.events", "5");
    System.setProperty("rma.copyThreads", "99");
    JobOptions o = new JobOptions();
    for (String p : PROPERTIES) {
      System.clearProperty(p); // read once: the options keep their values
    }
    TransportOptions t = o.getTransportOptions();
    assertEquals("10.1.2.3", t.getHost());
    assertEquals(7001, t.getPort());
    assertEquals("/opt/rma/conf/tls", t.getTlsDirectory());
    assertEquals(Progress.BUSY, o.getProgress());
    ClusterOptions c = o.getClusterOptions();
    assertEquals("10.1.2.3", c.getHost());
    assertEquals("10.1.2.3,10.1.2.4:5801", c.getMembers());
    assertEquals(5801, c.getClusterPort());
    assertEquals(7002, c.getBusPort());
    assertEquals("10.1.2.3:5801", c.getLeader());
    assertEquals("/etc/hz.xml", c.getConfigFile());
    assertEquals("/opt/rma/conf", c.getConfigDirectory());
    assertEquals("t.json", o.getTraceFile());
    assertEquals(TraceOptions.MIN_EVENTS_PER_RANK, o.getTraceOptions().getEventsPerRank(), "5 counts as the least");
    assertEquals(CopyOptions.MAX_COPY_THREADS, o.getCopyOptions().getCopyThreads(), "99 counts as the most");

    JobOptions copy = new JobOptions(o);
    assertEquals("10.1.2.3", copy.getTransportOptions().getHost());
    assertEquals(Progress.BUSY, copy.getProgress());
    assertEquals("t.json", copy.getTraceFile());
    copy.getClusterOptions().setBusPort(0);
    copy.setTraceFile(null);
    assertEquals(7002, o.getClusterOptions().getBusPort(), "a copy shares no nested options");
    assertEquals("t.json", o.getTraceFile());
    assertEquals(TransportOptions.DEFAULT_HOST, new TransportOptions().getHost(), "made after the property went");
  }

  @Test
  void theOlderFlagsAndLenientPropertiesKeepTheirMeaning() {
    System.setProperty("rma.busyPoll", "true");
    assertEquals(Progress.BUSY, new TransportOptions().getProgress());
    assertEquals(Progress.BUSY, Progress.jvmDefault());
    System.setProperty("rma.progress", "sleep"); // wins over the older flag
    assertEquals(Progress.SLEEP, new JobOptions().getProgress());
    System.setProperty("rma.copyThreads", "many");
    System.setProperty("rma.trace.events", "lots");
    JobOptions o = new JobOptions(); // logged, not fatal, as before
    assertEquals(CopyOptions.DEFAULT_COPY_THREADS, o.getCopyOptions().getCopyThreads());
    assertEquals(TraceOptions.DEFAULT_EVENTS_PER_RANK, o.getTraceOptions().getEventsPerRank());
    System.setProperty("rma.np", "6");
    assertEquals(6, JvmDefaults.np());
    System.setProperty("rma.np", "six");
    assertEquals(-1, JvmDefaults.np());
  }

  @Test
  void aMalformedPropertyFailsTheOptionsWithArgNamingIt() throws Exception {
    System.setProperty("rma.progress", "fast");
    assertArg("-Drma.progress=fast names no progress mode", JobOptions::new);
    assertArg("-Drma.progress=fast", Progress::jvmDefault);
    System.clearProperty("rma.progress");
    System.setProperty("rma.dataPort", "70000");
    assertArg("-Drma.dataPort=70000 is not a port number", TransportOptions::new);
    System.clearProperty("rma.dataPort");
    System.setProperty("rma.busPort", "x");
    assertArg("-Drma.busPort=x is not a port number", ClusterOptions::new);
    // an entry point that takes no options fails its future instead
    Throwable f = Rma.clusteredVertx("never").toCompletionStage().toCompletableFuture().handle((v, e) -> e)
        .get(10, TimeUnit.SECONDS);
    assertTrue(f instanceof RmaException && ((RmaException) f).errorClass() == ErrorClass.ARG, String.valueOf(f));
    System.clearProperty("rma.busPort");
    System.setProperty("rma.clusterLeader", "nohost");
    assertArg("-Drma.clusterLeader=nohost is not HOST:PORT", JobOptions::new);
  }

  @Test
  void everySetterRefusesAValueOutsideItsRangeWithArg() {
    TransportOptions t = new TransportOptions();
    assertArg("data-plane port -1", () -> t.setPort(-1));
    assertArg("data-plane port 65536", () -> t.setPort(65536));
    assertArg("data-plane host", () -> t.setHost(" "));
    assertArg("data-plane host", () -> t.setHost(null));
    ClusterOptions c = new ClusterOptions();
    assertArg("cluster port 65536", () -> c.setClusterPort(65536));
    assertArg("event-bus port -2", () -> c.setBusPort(-2));
    assertArg("cluster host", () -> c.setHost(""));
    assertArg("cluster leader host:0 is not HOST:PORT", () -> c.setLeader("host:0"));
    TraceOptions tr = new TraceOptions();
    assertArg("asked for 15", () -> tr.setEventsPerRank(15));
    assertArg("asked for 16777217", () -> tr.setEventsPerRank((1 << 24) + 1));
    CopyOptions co = new CopyOptions();
    assertArg("was -2", () -> co.setCopyThreads(-2));
    assertArg("was 65", () -> co.setCopyThreads(65));
    JobOptions o = new JobOptions();
    assertArg("transport options must not be null", () -> o.setTransportOptions(null));
    assertArg("cluster options must not be null", () -> o.setClusterOptions(null));
    assertArg("trace options must not be null", () -> o.setTraceOptions(null));
    assertArg("copy options must not be null", () -> o.setCopyOptions(null));
    // and the values stay as they were
    assertEquals(TransportOptions.DEFAULT_PORT, t.getPort());
    assertEquals(TransportOptions.DEFAULT_HOST, t.getHost());
    assertEquals(ClusterOptions.DEFAULT_LEADER, c.getLeader());
    assertEquals(TraceOptions.DEFAULT_EVENTS_PER_RANK, tr.getEventsPerRank());
    assertEquals(CopyOptions.DEFAULT_COPY_THREADS, co.getCopyThreads());
  }

  @Test
  void theSettersAreFluentAndJobOptionsReachesItsNestedOptions() {
    TransportOptions t = new TransportOptions().setHost("h1").setPort(7100).setTlsDirectory("tls").setProgress(Progress.SLEEP);
    ClusterOptions c = new ClusterOptions().setHost("h1").setMembers(" h1,h2 ").setClusterPort(5710).setBusPort(7101)
        .setLeader("h1:5710").setConfigFile("hz.xml").setConfigDirectory("conf");
    TraceOptions tr = new TraceOptions().setFile("t.html").setEventsPerRank(1024);
    CopyOptions co = new CopyOptions().setCopyThreads(0);
    JobOptions o = new JobOptions().setTransportOptions(t).setClusterOptions(c).setTraceOptions(tr).setCopyOptions(co);
    assertSame(t, o.getTransportOptions());
    assertSame(c, o.getClusterOptions());
    assertSame(tr, o.getTraceOptions());
    assertSame(co, o.getCopyOptions());
    assertEquals("h1,h2", c.getMembers());
    assertEquals("t.html", o.getTraceFile());
    o.setTraceFile("");
    assertNull(tr.getFile(), "an empty file: not traced");
    assertEquals(Progress.SLEEP, o.getProgress());
    o.setProgress(Progress.BUSY);
    assertEquals(Progress.BUSY, t.getProgress());
    o.setProgress(null);
    assertEquals(Progress.ADAPTIVE, t.getProgress(), "null: this JVM's default");
    c.setMembers("").setLeader(null).setConfigFile(" ").setConfigDirectory(null);
    t.setTlsDirectory("");
    assertNull(c.getMembers());
    assertNull(c.getLeader());
    assertNull(c.getConfigFile());
    assertNull(c.getConfigDirectory());
    assertNull(t.getTlsDirectory());
  }
}
