package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A rank program started the Vert.x way, as docs/running-jobs.md documents: the application launcher the
 * fat jar's manifest names ({@code java -jar vertx-rma.jar CLASS -instances K}) and the legacy
 * {@code Launcher run CLASS} syntax. Each verticle instance becomes a rank; the JVM exits 0
 * once its ranks are done.
 */
@Tag("multijvm")
class VertxLauncherTest {

  @ParameterizedTest
  @ValueSource(strings = {"io.vertx.launcher.application.VertxApplication", "io.vertx.core.Launcher run"})
  void rankVerticleInstancesFormAJob(String launcher) throws Exception {
    File home = dev.vertxrma.testing.LauncherCommand.home();
    List<String> cmd = dev.vertxrma.testing.LauncherCommand.java();
    cmd.addAll(List.of(launcher.split(" ")));
    cmd.addAll(List.of("dev.vertxrma.samples.standard.Twisted", "-instances", "3", "-conf",
        "{\"np\":3,\"job\":\"launch-" + UUID.randomUUID().toString().substring(0, 8) + "\"}"));
    Path out = Files.createTempFile("launcher", ".out");
    Process p = new ProcessBuilder(cmd).directory(home).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    boolean finished = p.waitFor(120, TimeUnit.SECONDS);
    String output = Files.readString(out, StandardCharsets.UTF_8);
    if (!finished) {
      p.destroyForcibly();
    }
    assertTrue(finished, "the launcher did not exit after the job\n" + output);
    assertEquals(0, p.exitValue(), output);
    assertTrue(output.contains("twisted: verified mx=60 my=60 nprocs=3"), output);
    Files.deleteIfExists(out);
  }
}
