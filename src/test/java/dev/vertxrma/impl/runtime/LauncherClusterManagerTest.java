package dev.vertxrma.impl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Hazelcast configuration the library builds in place of vertx-hazelcast's default, here in
 * a JVM whose main class is no launcher (the test runner's): TCP-IP, never multicast, and a
 * cluster name of the job's, or of its own when no job is named; the job's name comes from the
 * JVM's arguments ({@code -conf}, JSON or a file), nothing else is taken from them.
 */
class LauncherClusterManagerTest {

  @Test
  void anyMainClassGetsTcpIpUnderANameOfItsOwnNeverMulticast() {
    LauncherClusterManager a = new LauncherClusterManager();
    LauncherClusterManager b = new LauncherClusterManager();
    Config ca = a.loadConfig();
    Config cb = b.loadConfig();
    for (Config c : List.of(ca, cb)) {
      JoinConfig join = c.getNetworkConfig().getJoin();
      assertFalse(join.getMulticastConfig().isEnabled(), "multicast");
      assertTrue(join.getTcpIpConfig().isEnabled(), "TCP-IP");
      assertTrue(c.getClusterName().startsWith(LauncherClusterManager.UNNAMED_PREFIX), c.getClusterName());
      assertNotEquals("dev", c.getClusterName());
    }
    assertNotEquals(ca.getClusterName(), cb.getClusterName(), "two unnamed jobs would share a cluster");
    assertEquals(ca.getClusterName(), a.clusterName());
  }

  @Test
  void theJobsNameComesFromTheConfOfTheArguments(@TempDir Path dir) throws Exception {
    LauncherClusterManager.Launch l = LauncherClusterManager.parse(List.of("-cp", "x.jar", "my.Main",
        "dev.vertxrma.samples.standard.Twisted", "-cluster", "-cluster-host", "10.0.0.2", "-conf",
        "{\"np\":4,\"job\":\"demo\"}"));
    assertEquals("demo", l.job());
    assertEquals("10.0.0.2", l.clusterHost());
    assertTrue(l.rankVerticle());
    Path conf = dir.resolve("job.json");
    Files.writeString(conf, "{\"job\":\"from-file\"}");
    assertEquals("from-file", LauncherClusterManager.parse(List.of("my.Main", "--conf=" + conf)).job());
    assertNull(LauncherClusterManager.parse(List.of("my.Main", "-conf", "{\"np\":2}")).job(), "no name: none");
    assertNull(LauncherClusterManager.parse(List.of("my.Main", "-conf", "{\"job\":\"\"}")).job(), "a blank name");
    assertFalse(LauncherClusterManager.parse(List.of("my.Main", "-conf", "{}")).rankVerticle());
  }
}
