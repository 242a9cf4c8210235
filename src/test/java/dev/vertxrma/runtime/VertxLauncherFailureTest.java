package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A JVM started by a Vert.x launcher whose rank deployment fails exits, within a bounded time,
 * with a non-zero status and a message on stderr that says why: a configuration without ranks,
 * a job whose other JVMs never come (the startup timeout), with both the application launcher
 * and the legacy {@code Launcher run}; an {@code onFailure} that names no failure policy; a rank program whose constructor throws, with the
 * application launcher (the legacy launcher only closes Vert.x when it cannot create a verticle,
 * before any vertx-rma code runs, and its JVM exits 0).
 */
@Tag("multijvm")
class VertxLauncherFailureTest {

  private static final String APP = "io.vertx.launcher.application.VertxApplication";
  private static final String LEGACY = "io.vertx.core.Launcher run";

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      APP + "   |dev.vertxrma.samples.standard.Twisted   |'{\"np\":0}'                                 |set the number of ranks",
      LEGACY + "|dev.vertxrma.samples.standard.Twisted   |'{\"np\":0}'                                 |set the number of ranks",
      APP + "   |dev.vertxrma.runtime.BrokenRankVerticle |'{\"np\":2}'                                 |its constructor throws",
      APP + "   |dev.vertxrma.samples.standard.Twisted   |'{\"np\":4,\"startupTimeoutMs\":3000}'      |did not start within 3000 ms",
      LEGACY + "|dev.vertxrma.samples.standard.Twisted   |'{\"np\":4,\"startupTimeoutMs\":3000}'      |did not start within 3000 ms",
      APP + "   |dev.vertxrma.samples.standard.Twisted   |'{\"np\":2,\"onFailure\":\"maybe\"}'        |onFailure must be \"abort\" or \"continue\", got maybe",
  })
  void aFailedRankDeploymentExitsNonZeroWithItsReason(String launcher, String program, String conf, String reason)
      throws Exception {
    File home = dev.vertxrma.testing.LauncherCommand.home();
    List<String> cmd = dev.vertxrma.testing.LauncherCommand.java();
    cmd.addAll(List.of(launcher.trim().split(" ")));
    String job = "\"job\":\"fail-" + UUID.randomUUID().toString().substring(0, 8) + "\",";
    cmd.addAll(List.of(program.trim(), "-instances", "2", "-conf", conf.trim().replaceFirst("\\{", "{" + job)));
    Path err = Files.createTempFile("launcher", ".err");
    Process p = new ProcessBuilder(cmd).directory(home).redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(err.toFile()).start();
    boolean exited = p.waitFor(60, TimeUnit.SECONDS);
    if (!exited) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    String stderr = Files.readString(err, StandardCharsets.UTF_8);
    assertTrue(exited, "the JVM did not exit within 60 s after its rank deployment failed\n" + stderr);
    assertNotEquals(0, p.exitValue(), "a failed rank deployment exited with status 0\n" + stderr);
    assertTrue(stderr.contains(reason.trim()), "stderr does not say '" + reason.trim() + "'\n" + stderr);
    Files.deleteIfExists(err);
  }
}
