package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.Rmarun;
import java.io.File;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job over two JVMs whose data plane runs mutual TLS: {@code bin/rmatls DIR} makes the job's
 * CA and certificate, {@code bin/rmarun --conf DIR} hands them to the JVMs, each JVM says it
 * listens with TLS, and the linked list verifies.
 */
@Tag("multijvm")
class TlsJobTest {

  @Test
  void aJobRunsOverMutualTls(@TempDir Path conf) throws Exception {
    Process p = new ProcessBuilder(new File(Rmarun.home(), "bin/rmatls").getAbsolutePath(), conf.toString())
        .redirectErrorStream(true).start();
    String made = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), made);
    try (Rmarun run = Rmarun.start("--conf", conf.toString(), "-np", "4", "--jvms", "2", "linked-list")) {
      int status = run.await(run.exit(), 180, "the TLS job's exit");
      String out = run.output();
      assertEquals(0, status, out);
      assertTrue(out.contains("out| linked-list: verified 4 ranks"), out);
      assertEquals(2, out.split("\\(mutual TLS, trusting only " + java.util.regex.Pattern.quote(
          conf.resolve("tls").resolve("ca.pem").toString()), -1).length - 1, "both JVMs listen with TLS\n" + out);
    }
  }
}
