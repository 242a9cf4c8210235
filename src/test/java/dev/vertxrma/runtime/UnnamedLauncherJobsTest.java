package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.impl.transport.JobSecret;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two launcher jobs that name no job, started at once on one host by an application's own main
 * class (which the library cannot recognise as a launcher), never join each other and never use
 * multicast: each JVM's Hazelcast is the library's TCP-IP configuration under a cluster name of
 * its own, and each job is refused with the fix (a clustered job needs a name its JVMs share).
 * Before, the first JVM got vertx-hazelcast's default (multicast, cluster {@code dev}), and with
 * a recognised launcher both got the fixed cluster {@code rma}: the two jobs became one.
 */
@Tag("multijvm")
class UnnamedLauncherJobsTest {

  @Test
  void twoUnnamedJobsStayApartAndAreRefusedWithTheFix() throws Exception {
    java.io.File home = dev.vertxrma.testing.LauncherCommand.home();
    Path secret = Files.createTempFile("unnamed", ".secret");
    Files.writeString(secret, JobSecret.random().text(), StandardCharsets.US_ASCII);
    Path verbose = Files.createTempFile("unnamed-logging", ".properties");
    Files.writeString(verbose, "handlers=java.util.logging.ConsoleHandler\n.level=INFO\n"
        + "java.util.logging.ConsoleHandler.level=ALL\n");
    List<Process> jvms = new ArrayList<>();
    List<Path> outs = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        List<String> cmd = dev.vertxrma.testing.LauncherCommand.java();
        cmd.add(1, "-Djava.util.logging.config.file=" + verbose);
        cmd.addAll(List.of(CustomLauncherMain.class.getName(), "dev.vertxrma.samples.standard.Twisted", "-cluster",
            "-cluster-host", "127.0.0.1", "-instances", "1", "-conf", "{\"np\":2}"));
        Path out = Files.createTempFile("unnamed-job", ".out");
        outs.add(out);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(home).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put(JobSecret.FILE_ENV, secret.toString());
        jvms.add(pb.start());
      }
      List<String> clusters = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        Process p = jvms.get(i);
        boolean finished = p.waitFor(60, TimeUnit.SECONDS);
        String output = Files.readString(outs.get(i), StandardCharsets.UTF_8);
        assertTrue(finished, "JVM " + i + " did not end\n" + output);
        assertNotEquals(0, p.exitValue(), "JVM " + i + " ran an unnamed clustered job\n" + output);
        assertTrue(output.contains("a clustered job needs a name") && output.contains("-conf '{\"job\":\"NAME\""),
            "JVM " + i + " was not refused with the fix\n" + output);
        assertFalse(output.toLowerCase(Locale.ROOT).contains("multicast"), "JVM " + i + " used multicast\n" + output);
        assertTrue(output.contains("Using TCP/IP discovery"), "JVM " + i + " not on TCP-IP\n" + output);
        assertFalse(output.contains("Members {size:2"), "JVM " + i + " joined another JVM\n" + output);
        Matcher m = Pattern.compile("\\[127\\.0\\.0\\.1\\]:\\d+ \\[([^\\]]+)\\] \\[\\d").matcher(output);
        assertTrue(m.find(), "no Hazelcast member line in JVM " + i + "\n" + output);
        assertTrue(m.group(1).startsWith("rma-unnamed-"), "JVM " + i + "'s cluster: " + m.group(1));
        clusters.add(m.group(1));
      }
      assertNotEquals(clusters.get(0), clusters.get(1), "the two jobs share a cluster name");
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
