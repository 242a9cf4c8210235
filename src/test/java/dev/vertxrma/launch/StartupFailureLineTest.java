package dev.vertxrma.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.Rmarun;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job that cannot start says why in one line and ends (issue 42: a port taken by another job
 * printed about 70 lines of Hazelcast and Vert.x stacks, three times the same cause, and the other
 * JVM was killed only after 10 s of waiting for the failed one). JVM 1 of a 2-JVM job is given a
 * cluster port that this test holds, with Hazelcast's auto-increment off (a user's cluster.xml
 * under {@code --conf}); JVM 0 takes the leader's port, so only JVM 1 fails.
 */
@Tag("multijvm")
class StartupFailureLineTest {

  @Test
  void aPortInUseIsOneLineAndTheJobEnds(@TempDir Path conf) throws Exception {
    try (ServerSocket held = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = held.getLocalPort();
      String xml = Files.readString(Rmarun.home().toPath().resolve("conf/cluster.xml"));
      String fixed = xml.replace("<port auto-increment=\"true\" port-count=\"100\">5701</port>",
          "<port auto-increment=\"false\" port-count=\"1\">" + port + "</port>");
      assertFalse(fixed.equals(xml), "conf/cluster.xml names its port range as this test expects");
      Files.writeString(conf.resolve("cluster.xml"), fixed);

      try (Rmarun run = Rmarun.start("--conf", conf.toString(), "-np", "2", "--jvms", "2", "counter", "5")) {
        int status = run.await(run.exit(), 60, "the job's end");
        String out = run.output();
        assertEquals(1, status, out);
        List<String> lines = out.lines().filter(l -> !l.isBlank()).collect(Collectors.toList());
        List<String> failed = lines.stream().filter(l -> l.contains("failed")).collect(Collectors.toList());
        assertEquals(1, failed.size(), "one line says why the job failed\n" + out);
        assertTrue(failed.get(0).contains("Port [" + port + "] is already in use"), "it names the cause\n" + out);
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("\tat ") || l.contains("com.hazelcast.")
            || l.contains("io.vertx.core.impl.VertxImpl")), "no stack, no Hazelcast or Vert.x record\n" + out);
        assertTrue(lines.stream().noneMatch(l -> l.contains("did not end within")),
            "the JVM waiting for the failed one is stopped at once, without a line of its own\n" + out);
        assertTrue(lines.size() <= 4, "the start line, the cause, the failed JVM\n" + out);
      }
    }
  }
}
