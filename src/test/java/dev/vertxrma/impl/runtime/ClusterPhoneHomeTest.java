package dev.vertxrma.impl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hazelcast's phone home (usage statistics sent to Hazelcast, on by default) is off in the
 * configuration of every job's node, whichever cluster.xml it reads, unless that file turns it
 * on itself.
 */
class ClusterPhoneHomeTest {

  @TempDir
  Path tmp;

  private Path file(String properties) throws Exception {
    Path f = tmp.resolve("cluster-" + properties.hashCode() + ".xml");
    Files.writeString(f, "<hazelcast xmlns=\"http://www.hazelcast.com/schema/config\">\n"
        + "  <properties>" + properties + "</properties>\n"
        + "  <network><join><multicast enabled=\"false\"/></join></network>\n"
        + "</hazelcast>\n");
    return f;
  }

  @Test
  void offWhateverClusterXmlIsRead() throws Exception {
    assertNull(System.getProperty(ClusterSupport.PHONE_HOME), "the test JVM must not set it");
    // the library's default
    assertEquals("false", ClusterSupport.clusterConfig(null, null, "-Drma.conf").getProperty(ClusterSupport.PHONE_HOME));
    // a file of the user's that says nothing about it, named or in the configuration directory
    Path silent = file("");
    assertEquals("false", ClusterSupport.clusterConfig(silent.toString(), null, "-Drma.conf")
        .getProperty(ClusterSupport.PHONE_HOME));
    Path dir = Files.createDirectory(tmp.resolve("conf"));
    Files.copy(silent, dir.resolve("cluster.xml"));
    assertEquals("false", ClusterSupport.clusterConfig(null, dir.toString(), "--conf")
        .getProperty(ClusterSupport.PHONE_HOME));
    // a file that turns it on keeps it on: the user's own choice
    Path on = file("<property name=\"hazelcast.phone.home.enabled\">true</property>");
    assertEquals("true", ClusterSupport.clusterConfig(on.toString(), null, "-Drma.conf")
        .getProperty(ClusterSupport.PHONE_HOME));
  }
}
