package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.impl.transport.JobSecret;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The clustered form of docs/running-jobs.md's Vert.x launcher commands ({@code -cluster -cluster-host 127.0.0.1}),
 * two JVMs of one rank each, in both syntaxes: the JVMs' Hazelcast is the project's configuration, as each
 * member's own log reports it — TCP-IP discovery, the job's name as the cluster's name, a cluster of
 * two members on 127.0.0.1 — and never Hazelcast's default (multicast, cluster {@code dev}, the external address).
 */
@Tag("multijvm")
class LauncherClusterTest {

  @ParameterizedTest
  @ValueSource(strings = {"io.vertx.launcher.application.VertxApplication", "io.vertx.core.Launcher run"})
  void launchedJvmsUseTheJobsTcpIpClusterOnLoopback(String launcher) throws Exception {
    File home = dev.vertxrma.testing.LauncherCommand.home();
    String job = "lc-" + UUID.randomUUID().toString().substring(0, 8);
    Path secret = Files.createTempFile("launcher", ".secret");
    Files.writeString(secret, JobSecret.random().text(), StandardCharsets.US_ASCII);
    List<String> cmd = dev.vertxrma.testing.LauncherCommand.java();
    cmd.addAll(List.of(launcher.split(" ")));
    cmd.addAll(List.of("dev.vertxrma.samples.standard.Twisted", "-cluster", "-cluster-host", "127.0.0.1", "-instances", "1",
        "-conf", "{\"np\":2,\"job\":\"" + job + "\"}"));
    // JVM 0 logs at INFO through a logging configuration of its own, which the library leaves as
    // it is: Hazelcast's lines show its configuration. JVM 1 has none: quiet by default (issue 42)
    Path verbose = Files.createTempFile("launcher-logging", ".properties");
    Files.writeString(verbose, "handlers=java.util.logging.ConsoleHandler\n.level=INFO\n"
        + "java.util.logging.ConsoleHandler.level=ALL\n");
    List<Process> jvms = new ArrayList<>();
    List<Path> outs = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        Path out = Files.createTempFile("launcher-cluster", ".out");
        outs.add(out);
        List<String> jvm = new ArrayList<>(cmd);
        if (i == 0) {
          jvm.add(1, "-Djava.util.logging.config.file=" + verbose);
        }
        ProcessBuilder pb = new ProcessBuilder(jvm).directory(home).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put(JobSecret.FILE_ENV, secret.toString());
        jvms.add(pb.start());
      }
      for (int i = 0; i < 2; i++) {
        Process p = jvms.get(i);
        boolean finished = p.waitFor(120, TimeUnit.SECONDS);
        String output = Files.readString(outs.get(i), StandardCharsets.UTF_8);
        assertTrue(finished, "JVM " + i + " did not exit after the job\n" + output);
        assertEquals(0, p.exitValue(), "JVM " + i + "\n" + output);
        assertFalse(output.toLowerCase(Locale.ROOT).contains("multicast"), "JVM " + i + " used multicast\n" + output);
        if (i == 1) {
          assertFalse(output.contains("com.hazelcast") || output.contains("Discarding message"),
              "JVM 1, run with no logging configuration, printed Hazelcast's or the event bus's lines\n" + output);
          continue;
        }
        assertTrue(output.contains("Using TCP/IP discovery"), "JVM " + i + " not on TCP-IP\n" + output);
        // Hazelcast prefixes its lines with [ADDRESS]:PORT [CLUSTER NAME] [VERSION]
        Matcher m = Pattern.compile("\\[([^\\]]+)\\]:(\\d+) \\[([^\\]]+)\\] \\[\\d").matcher(output);
        assertTrue(m.find(), "no Hazelcast member line in JVM " + i + "\n" + output);
        do {
          assertEquals("127.0.0.1", m.group(1), "JVM " + i + " bound elsewhere than loopback\n" + output);
          assertEquals(job, m.group(3), "JVM " + i + "'s cluster is not the job's\n" + output);
        } while (m.find());
        Matcher members = Pattern.compile("Members \\{size:2, ver:\\d+\\} \\[\\s*Member \\[([^\\]]+)\\]:\\d+ - [^\\n]*\\n"
            + "\\s*Member \\[([^\\]]+)\\]:\\d+").matcher(output);
        assertTrue(members.find(), "JVM " + i + " never saw a cluster of two\n" + output);
        assertEquals("127.0.0.1", members.group(1), output);
        assertEquals("127.0.0.1", members.group(2), output);
      }
    } finally {
      for (Process p : jvms) {
        p.destroyForcibly();
      }
      for (Path out : outs) {
        Files.deleteIfExists(out);
      }
      Files.deleteIfExists(verbose);
      Files.deleteIfExists(secret);
    }
  }
}
