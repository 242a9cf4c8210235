package dev.vertxrma;

import dev.vertxrma.impl.job.LauncherJob;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;

/**
 * A rank program that is also a verticle, so that the Vert.x launchers can start it:
 *
 * <pre>
 * java -jar vertx-rma.jar dev.vertxrma.samples.standard.Twisted -cluster -instances 2 -conf '{"np":4}'
 * java -cp vertx-rma.jar io.vertx.core.Launcher run dev.vertxrma.samples.standard.Twisted -cluster -instances 2 -conf '{"np":4}'
 * </pre>
 *
 * Each instance becomes one rank; ranks are numbered in the startup handshake. Configuration
 * keys: {@code np} (number of ranks of the whole job, required unless {@code -Drma.np} is set),
 * {@code job} (job name, default {@code rma}), {@code args} (array of program arguments),
 * {@code startupTimeoutMs} (how long the startup handshake waits for the job's other ranks,
 * default {@link JobOptions#DEFAULT_STARTUP_TIMEOUT_MS}), {@code waitTimeoutMs}, {@code virtualThreads} (default {@code false}: {@code true} runs the
 * rank on a virtual-thread context, see {@link JobOptions#setVirtualThreads}; Java 21+),
 * {@code trace} (a file: the job's trace, HTML or, for a name ending in {@code .json}, the
 * trace-event format, see {@link JobOptions#setTraceFile}; default the
 * system property {@code rma.trace}), {@code onFailure} ({@code "abort"} or {@code "continue"}:
 * what the job does when a rank dies, see {@link JobOptions#setFailurePolicy}; default the system
 * property {@code rma.onFailure}, else abort); every other setting is this JVM's default (the
 * {@code rma.*} system properties, see {@link JobOptions}),
 * {@code exit} (default {@code true}: when every rank of this JVM has finished, close Vert.x and
 * exit with status 0, or 1 if a rank failed; and when a rank's deployment fails (a bad
 * configuration, no job secret for a clustered job, the startup timeout), log why as an error and
 * exit with status 1 — the application launcher may exit first with its own non-zero code).
 */
public abstract class RankVerticle extends VerticleBase implements RankProgram {

  /**
   * Joins the job: this JVM's defaults ({@link JobOptions#JobOptions()}, {@code -Drma.np}) are
   * resolved here, at the edge, and the configuration's keys set over them.
   *
   * @return completes once every rank of the job is reachable; fails as the class comment says
   */
  @Override
  public Future<?> start() {
    return LauncherJob.join(vertx, config(), JobOptions::new, JvmDefaults.np(), this);
  }
}
